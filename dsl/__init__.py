"""fracas front end: rules text -> checked Ruleset.

`dsl.load(path)` reads, parses and checks a rules file; any problem raises
RulesError, whose diagnostics are located and printable.
"""

from __future__ import annotations

from pathlib import Path

from dsl.check import check
from dsl.diagnostics import Diagnostic, RulesError
from dsl.extend import load_module, read_text
from dsl.ruleset import Ruleset

__all__ = ["Diagnostic", "RulesError", "Ruleset", "load", "loads"]


def loads(text: str, path: str = "<rules>") -> Ruleset:
    """Parse and check rules text; `extends` paths are relative to `path`."""
    loaded = load_module(text, path)
    rules = check(loaded.module, loaded.sources[path])
    rules.sources.update(loaded.sources)
    rules.bases = loaded.base_paths
    return rules


def load(path: str | Path) -> Ruleset:
    """Read, parse and check a rules file (and the files it extends)."""
    return loads(read_text(Path(path), str(path)), str(path))
