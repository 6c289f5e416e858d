"""fracas front end: rules text -> checked Ruleset.

`dsl.load(path)` reads, parses and checks a rules file; any problem raises
RulesError, whose diagnostics are located and printable.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fracas.dsl.limits import DEFAULT, Limits

if TYPE_CHECKING:
    from fracas.dsl.diagnostics import Diagnostic, RulesError
    from fracas.dsl.extend import OpenTexts
    from fracas.dsl.ruleset import Ruleset

__all__ = ["Diagnostic", "Limits", "RulesError", "Ruleset", "load", "loads"]

# The front end is imported when first used, not with the package: the records and the cache
# folder, which every layer's modules import from here, stand beneath it (the runtime's dice import
# no parser, no checked rules, no syntax tree).
_HOMES = {"Diagnostic": "fracas.dsl.diagnostics", "RulesError": "fracas.dsl.diagnostics",
          "Ruleset": "fracas.dsl.ruleset"}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOMES[name]), name)
    globals()[name] = value  # asked once: later lookups find it without this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


def loads(text: str, path: str = "<rules>", limits: Limits = DEFAULT, from_file: bool = False,
          open_texts: OpenTexts | None = None) -> Ruleset:
    """Parse and check rules text; `extends` paths are relative to `path`.

    open_texts gives the unsaved text of a file that an editor holds, or None to read the file.
    Without open_texts, checked rules are kept in the cache as `load` keeps a file's (rules
    with an error are not). from_file says the text was read from a file: its syntax tree and
    the code generated for it are kept too. The code generated for a text not from a file is
    kept once the text is given again (its checked rules read back from the cache).
    """
    from fracas.dsl.checked import load_checked

    if open_texts is not None:  # an editor's unsaved texts change at each keystroke: not worth keeping
        return _checked(text, path, limits, from_file, open_texts)
    return load_checked(text, str(path), limits, lambda: _checked(text, path, limits, from_file, None), from_file)


def load(path: str | Path, limits: Limits = DEFAULT) -> Ruleset:
    """Read, parse and check a rules file (and the files it extends), from the cache when unchanged."""
    from fracas.dsl.reading import read_text

    return loads(read_text(Path(path), str(path), limits=limits), str(path), limits, from_file=True)


def _checked(text: str, path: str, limits: Limits, from_file: bool, open_texts: OpenTexts | None) -> Ruleset:
    # The checker, and the reading of what a file extends, are imported only when rules are not in
    # the cache: most loads only unpickle.
    from fracas.dsl.check import check
    from fracas.dsl.extend import load_module

    loaded = load_module(text, path, limits, from_file, open_texts)
    rules = check(loaded.module, loaded.sources[path], loaded.sources)
    rules.sources.update(loaded.sources)
    rules.bases = loaded.base_paths
    rules.limits = limits
    return rules
