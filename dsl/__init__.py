"""fracas front end: rules text -> checked Ruleset.

`dsl.load(path)` reads, parses and checks a rules file; any problem raises
RulesError, whose diagnostics are located and printable.
"""

from __future__ import annotations

from pathlib import Path

from fracas.dsl.check import check
from fracas.dsl.checked import load_checked
from fracas.dsl.diagnostics import Diagnostic, RulesError
from fracas.dsl.extend import OpenTexts, load_module, read_text
from fracas.dsl.limits import DEFAULT, Limits
from fracas.dsl.ruleset import Ruleset

__all__ = ["Diagnostic", "Limits", "RulesError", "Ruleset", "load", "loads"]


def loads(text: str, path: str = "<rules>", limits: Limits = DEFAULT, from_file: bool = False,
          open_texts: OpenTexts | None = None) -> Ruleset:
    """Parse and check rules text; `extends` paths are relative to `path`.

    open_texts gives the unsaved text of a file that an editor holds, or None to read the file.
    """
    loaded = load_module(text, path, limits, from_file, open_texts)
    rules = check(loaded.module, loaded.sources[path], loaded.sources)
    rules.sources.update(loaded.sources)
    rules.bases = loaded.base_paths
    rules.limits = limits
    return rules


def load(path: str | Path, limits: Limits = DEFAULT) -> Ruleset:
    """Read, parse and check a rules file (and the files it extends), from the cache when unchanged."""
    text = read_text(Path(path), str(path), limits=limits)
    return load_checked(text, str(path), limits, lambda: loads(text, str(path), limits, from_file=True))
