"""A rules text cut into its top-level declarations, so that an edit re-reads only what it touched.

A language server reads the file again at every keystroke, and parsing is
most of that work. Cut at the lines where a declaration begins, each piece
parses alone, and a piece whose text did not change is taken from a memo,
its lines moved to where the piece now starts.

Why the pieces' trees are the whole text's tree: the grammar is LALR(1) and
its one shift/reduce conflict (`?` after a type) is inside a type, so a
token sequence has one parse; a piece that parses alone is a sequence of
whole items, and the next piece begins with a token that can only begin an
item, lexed alike in both parses (every item's first token is acceptable
where an item may end). So the pieces side by side are the parse of the
whole. Where that reasoning does not hold (a piece that does not parse
alone, a header or `extends` after the first piece) the caller parses the
whole text, which also gives the one message `fracas check` gives.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from fracas.dsl.records import record

# The words that begin a top-level item, and a row (`KIND NAME {`); `rules` and `extends` are
# left out on purpose: they belong to the first piece.
_STARTS = re.compile(r"(?:kind|enum|table|param|choice|outcome|modifier|fn|step|action|override|example|require)\b"
                     r"|[A-Za-z_][A-Za-z0-9_]*[ \t]+[A-Za-z_][A-Za-z0-9_]*[ \t]*\{")
_QUOTED_OR_COMMENT = re.compile(r'"(?:[^"\\\n]|\\.)*"?|#.*')  # an unclosed quote runs to the line's end


@record(frozen=True)
class Piece:
    """One top-level declaration's text and where it lies: the part an edit makes the server parse again."""

    text: str
    line: int  # 1-based line of the text where the piece begins (always at a line's start)
    offset: int  # characters before it in the text


def split(text: str) -> list[Piece]:
    """The text cut before each unindented line, outside any bracket, that begins a declaration.

    Joined again, the pieces are the text. A declaration is written from the
    start of a line (fracas fmt puts it there); an indented one, or one on
    the line of another, stays in the piece before it.
    """
    pieces: list[Piece] = []
    depth = 0
    start_line, start_offset, offset = 1, 0, 0
    for number, line in enumerate(text.split("\n"), 1):
        if depth == 0 and number > 1 and line[:1].strip() and _STARTS.match(line):
            pieces.append(Piece(text[start_offset:offset], start_line, start_offset))
            start_line, start_offset = number, offset
        depth += _depth_change(line)
        offset += len(line) + 1
    pieces.append(Piece(text[start_offset:], start_line, start_offset))
    return pieces


def _depth_change(line: str) -> int:
    """How many brackets a line leaves open, outside its quoted texts and its comment."""
    if '"' in line or "#" in line:
        line = _QUOTED_OR_COMMENT.sub("", line)
    return line.count("(") + line.count("[") + line.count("{") - line.count(")") - line.count("]") - line.count("}")


T = TypeVar("T")


class Memo(Generic[T]):
    """What a function made of a key (a piece's text, say), for the keys seen last (the least recently used go)."""

    def __init__(self, make: Callable[[Any], T], size: int = 4096):
        self.make = make
        self.size = size
        self.kept: OrderedDict[Any, T] = OrderedDict()

    def __call__(self, key: Any) -> T:
        if key in self.kept:
            self.kept.move_to_end(key)
            return self.kept[key]
        found = self.make(key)
        self.kept[key] = found
        if len(self.kept) > self.size:
            self.kept.popitem(last=False)
        return found
