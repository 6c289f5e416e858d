"""`fracas fmt`: rewrite rules files in the canonical layout, or (--check) show what would change.

The layout itself is fracas.dsl.format's; this module reads and writes the files and
reports. A file is rewritten atomically and only when its layout changes; a
file that cannot be formatted is left as it is and reported with its place.
"""

from __future__ import annotations

import difflib
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from fracas.dsl.diagnostics import Diagnostic, RulesError
from fracas.dsl.reading import read_text
from fracas.dsl.format import format_text
from fracas.dsl.limits import Limits
from fracas.dsl.records import field, record
from fracas.interpreter.tools.files import not_a_regular_file, write_text_atomically
from fracas.interpreter.tools.words import counted

STDIN = "-"


@record
class Outcome:
    """What `fracas fmt` did to each file it was given, and the problems of those it could not format."""

    changed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    problems: list[Diagnostic] = field(default_factory=list)

    def summary(self, check: bool) -> str:
        done = "would be formatted" if check else "formatted"
        return f"{counted(len(self.changed), 'file')} {done}, {counted(len(self.unchanged), 'file')} already formatted"


def diff(path: str, before: str, after: str) -> str:
    """A unified diff from the file as it is to the file formatted."""
    return "".join(difflib.unified_diff(before.splitlines(True), after.splitlines(True), path, f"{path} (formatted)"))


def format_files(files: Sequence[str], check: bool, limits: Limits, show: Callable[[str], None]) -> Outcome:
    """Format each file in place (or, with check, show the diff that formatting would make)."""
    outcome = Outcome()
    for name in files:
        try:
            if name == STDIN:
                text = read_text(sys.stdin.buffer, "<stdin>", limits=limits)  # as a file is: UTF-8, within the limit
                formatted = format_text(text, "<stdin>", limits)
                if check:
                    show(diff(name, text, formatted))
                else:
                    sys.stdout.write(formatted)  # a filter's output is the file itself, written as it is
            else:
                text = read_text(Path(name), name, limits=limits)
                formatted = format_text(text, name, limits)
                if formatted != text:
                    if check:
                        show(diff(name, text, formatted))
                    else:
                        _write(name, formatted)
        except RulesError as error:
            outcome.problems.extend(error.diagnostics)
            continue
        (outcome.changed if formatted != text else outcome.unchanged).append(name)
    return outcome


def _write(name: str, text: str) -> None:
    refused = not_a_regular_file(name)
    if refused is not None:
        raise RulesError([Diagnostic(name, 0, 0, f"{name} is {refused}, not a regular file: fracas fmt rewrites "
                                     "only regular files", "give a file, or '-' to format the standard input")])
    try:
        write_text_atomically(name, text)
    except OSError as error:
        raise RulesError([Diagnostic(name, 0, 0, f"cannot write {name}: {error.strerror or error}")]) from None
