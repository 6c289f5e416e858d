"""Located error messages: `file:line:col: error: message`, the line, a caret, a hint.

Every error a user can cause (in a rules file, a scenario or a flag) becomes
a Diagnostic; nothing else is ever shown to them.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from fracas.dsl.nodes import Pos
from fracas.dsl.records import record


@record(frozen=True, slots=True)
class Diagnostic:
    """One problem found in a file, located so that a terminal or an editor can point at it."""

    path: str
    line: int  # 1-based; 0 when the error has no line (a missing file)
    column: int  # 1-based
    message: str
    hint: str = ""
    source_line: str = ""
    width: int = 1  # how many characters the caret underlines
    # Where the thing marked ends, when known (an editor underlines it all); 0: at line, column + width.
    end_line: int = 0
    end_column: int = 0
    severity: str = "error"  # or "warning": said, but nothing stops

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}:{self.column}" if self.line else self.path

    def brief(self) -> str:
        """One line: where and what (a failing example's reason, say)."""
        return f"{self.where}: {self.message}"

    def format(self) -> str:
        """For a terminal: what came from the inputs has its control characters escaped (see printable)."""
        out = [printable(f"{self.where}: {self.severity}: {_words_cut(self.message)}", lines=False)]
        if self.line and self.source_line:
            text, column = _window(self.source_line.rstrip("\n"), self.column)
            gutter = f"{self.line:>5} | "
            out.append(gutter + printable(text, lines=False))
            pad = " " * (len(gutter) - 2) + "| "
            lead = "".join(c if c == "\t" else " " for c in printable(text[: column - 1], lines=False))
            marked = text[column - 1 : column - 1 + max(1, min(self.width, len(text) - column + 1))]
            width = max(1, len(printable(marked, lines=False)))
            out.append(pad + lead + "^" + "~" * (width - 1))
        if self.hint:
            out.append(printable(f"  hint: {_words_cut(self.hint)}", lines=False))
        return "\n".join(out)

    def as_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "message": self.message,
            "hint": self.hint,
            "severity": self.severity,
        }


LONGEST_WORD = 80  # characters of a name, a key or a number a message shows whole


def _words_cut(text: str) -> str:
    """A message for a terminal, each word longer than LONGEST_WORD (a key of a hundred thousand characters a
    scenario gave) shown by its start and its end; the JSON form keeps them whole."""
    if len(text) <= LONGEST_WORD:
        return text
    return re.sub(r"[^\s'\":,]{%d,}" % (LONGEST_WORD + 1), _cut_word, text)


def _cut_word(found: re.Match[str]) -> str:
    word = found.group()
    return f"{word[:40]}...{word[-20:]} ({len(word)} characters)"


# What a terminal would obey rather than show: C0 and C1 controls (escape sequences, NUL, a
# carriage return), DEL, and the marks that reorder or break lines. \t and \n stay as they are.
_CONTROLS = "\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
# Patterns, compiled by re when first used (and kept by it): compiling these two took almost half
# a millisecond of every process, most of which never show a line.
_IN_LINES = f"[{_CONTROLS}]"
_IN_ONE_LINE = f"[{_CONTROLS}\n]"


def printable(text: str, lines: bool = True) -> str:
    """Text from the inputs made safe to show: each control character written as an escape (\\x1b, \\u202e).

    lines=False escapes newlines too, for what must stay on one line (a message, a source line).
    """
    return re.sub(_IN_LINES if lines else _IN_ONE_LINE, _escape, text)


def _escape(found: re.Match[str]) -> str:
    code = ord(found.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


WINDOW = 100  # characters of a long source line shown around the caret


def _window(line: str, column: int) -> tuple[str, int]:
    """A long line cut to a window around the column, and the column within it."""
    if len(line) <= WINDOW:
        return line, column
    start = max(0, min(column - 1 - WINDOW // 2, len(line) - WINDOW))
    cut = line[start : start + WINDOW]
    prefix = "..." if start > 0 else ""
    suffix = "..." if start + WINDOW < len(line) else ""
    return prefix + cut + suffix, column - start + len(prefix)


class RulesError(Exception):
    """One or more diagnostics; raised by the loader, the checker and the runtime."""

    def __init__(self, diagnostics: Iterable[Diagnostic]):
        self.diagnostics = tuple(diagnostics)
        super().__init__("\n".join(d.format() for d in self.diagnostics))

    def __reduce__(self) -> tuple:
        # Made again from its diagnostics, not from its text (an exception's args): a worker process sends it back.
        return (type(self), (self.diagnostics,))

    def format(self) -> str:
        return "\n".join(d.format() for d in self.diagnostics)


def lines_of(text: str) -> list[str]:
    """The lines of a rules or TOML file as their parsers count them, ended by a newline alone (a carriage return
    before it dropped): not str.splitlines's, which also ends a line at a form feed, U+2028 and others that a
    comment or a text may hold."""
    lines = text.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()  # the newline that ends the last line starts none
    return [line[:-1] if line.endswith("\r") else line for line in lines]


@record(frozen=True)  # no slots: the split lines are cached on the instance
class SourceFile:
    """The text of one input, so a position can be shown with its line."""

    path: str
    text: str

    def line(self, number: int) -> str:
        lines = self.lines
        return lines[number - 1] if 0 < number <= len(lines) else ""

    @functools.cached_property
    def lines(self) -> list[str]:
        return lines_of(self.text)

    def at(self, pos: Pos | None, message: str, hint: str = "") -> Diagnostic:
        if pos is None or pos.line == 0:
            return Diagnostic(self.path, 0, 0, message, hint)
        width = pos.end_column - pos.column if pos.end_line == pos.line else 1
        return Diagnostic(
            self.path, pos.line, pos.column, message, hint, self.line(pos.line), max(1, width), pos.end_line,
            pos.end_column
        )


CLOSE = 0.6  # how alike a misspelt word and a known one are, at least, for the one to be offered for the other


def closest(word: str, choices: Iterable[str]) -> str | None:
    """The known word closest to a misspelt one, if any is close."""
    import difflib  # here: only a misspelt name needs it, and a run of correct rules need not import it

    close = difflib.get_close_matches(word, sorted(set(choices)), n=1, cutoff=CLOSE)
    return close[0] if close else None


def similarity(word: str, other: str) -> float:
    """How alike two words are, as closest measures it: 1 for the same, 0 for nothing in common."""
    import difflib

    return difflib.SequenceMatcher(None, other, word).ratio()


def with_article(noun: object) -> str:
    """The noun with its article, as a message names one thing: "an int", "a list of int", "a uniform"."""
    text = str(noun)
    # By the sound of the first letter, as far as a spelling tells it: "a uniform", "a useful", but "an upper".
    sounded = text[:1].lower() in "aeio" or (text[:1].lower() == "u" and not text[:3].lower().startswith(
        ("uni", "use", "usu", "uti", "ure", "uri", "uro")))
    return f"{'an' if sounded and text[:1].isalpha() else 'a'} {text}"


def listed(what: str, names: Iterable[str], none: str) -> str:
    """A hint listing what there is ("the fields of piece are: a, b"), or saying there is none."""
    found = list(names)
    return f"{what} are: {', '.join(found)}" if found else none


_DID_YOU_MEAN = "did you mean '{}'?"


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """A hint naming the closest known word, or '' when none is close."""
    found = closest(word, choices)
    return _DID_YOU_MEAN.format(found) if found else ""


def suggested(hint: str) -> str | None:
    """The word a did_you_mean hint names (an editor offers it as a fix), or None where it names none."""
    head, tail = _DID_YOU_MEAN.split("{}")
    start = hint.find(head)
    end = hint.find(tail, start + len(head)) if start >= 0 else -1
    return hint[start + len(head) : end] if start >= 0 and end > start + len(head) else None


def no_value_cell(type_name: str, optional: bool) -> str:
    """What a table of this type holds where a pair has no value: the hint for a `-` written for one."""
    if type_name not in ("int", "number"):
        return "write one of its rows; for a pair with no result, give the kind a row that says so"
    if optional:
        return "write none for a cell with no value"
    return f"write the number; for a cell with no value, make the table's type optional ({type_name}?) and write none"
