"""fracas front end: rules text -> checked Ruleset.

`dsl.load(path)` reads, parses and checks a rules file; any problem raises
RulesError, whose diagnostics are located and printable.
"""

from __future__ import annotations

from pathlib import Path

from dsl.check import check
from dsl.diagnostics import Diagnostic, RulesError, SourceFile
from dsl.parse import parse
from dsl.ruleset import Ruleset

MAX_FILE_BYTES = 2_000_000

__all__ = ["Diagnostic", "RulesError", "Ruleset", "load", "loads"]


def loads(text: str, path: str = "<rules>") -> Ruleset:
    """Parse and check rules text."""
    source = SourceFile(path, text)
    return check(parse(text, path), source)


def load(path: str | Path) -> Ruleset:
    """Read, parse and check a rules file."""
    shown = str(path)
    file = Path(path)
    try:
        size = file.stat().st_size
        if size > MAX_FILE_BYTES:
            raise RulesError([Diagnostic(shown, 0, 0, f"the file is {size} bytes, over the limit of {MAX_FILE_BYTES}")])
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RulesError([Diagnostic(shown, 0, 0, "no such file")]) from None
    except IsADirectoryError:
        raise RulesError([Diagnostic(shown, 0, 0, "this is a folder, not a rules file")]) from None
    except UnicodeDecodeError as error:
        raise RulesError([Diagnostic(shown, 0, 0, f"not UTF-8 text ({error.reason} at byte {error.start})")]) from None
    except OSError as error:
        raise RulesError([Diagnostic(shown, 0, 0, f"cannot read: {error.strerror}")]) from None
    return loads(text, shown)
