"""A text parsed again after an edit: each declaration whose text did not change is reused.

The text is cut into its top-level declarations (fracas.dsl.pieces); a piece seen
before is taken from a memo, its positions moved down or up to the line
where it now starts, and only the changed pieces go through the parser.
Whatever cannot be read piece by piece (a syntax error, a header out of its
place) is parsed whole, so the result and every message are those of
fracas.dsl.parse.parse.
"""

from __future__ import annotations

from typing import Any

from fracas.dsl import nodes as n
from fracas.dsl import records
from fracas.dsl.diagnostics import RulesError
from fracas.dsl.limits import DEFAULT, Limits
from fracas.dsl.parse import parse
from fracas.dsl.pieces import Memo, Piece, split


class Reparser:
    """Parses the texts of one file, one version after another, reusing the declarations that stayed."""

    def __init__(self, path: str, limits: Limits = DEFAULT):
        self.path = path
        self.limits = limits
        self.trees: Memo[n.Module | None] = Memo(self._parse_piece)  # a piece's text -> its tree from line 1
        self.placed: Memo[n.Module | None] = Memo(self._place)  # ... and its line -> its tree there
        self.last: tuple[str, n.Module] | None = None

    def parse(self, text: str) -> n.Module:
        """What fracas.dsl.parse.parse gives for the text, or the RulesError it raises."""
        if self.last is not None and self.last[0] == text:
            return self.last[1]
        pieces = split(text)
        if self.last is None:  # the first text: whole, which is quicker, and its pieces kept for the next
            module = parse(text, self.path, self.limits)
            self._keep_pieces(module, pieces)
            self.last = (text, module)
            return module
        title, extends, decls = "", [], []
        for index, piece in enumerate(pieces):
            tree = self.placed((piece.text, piece.line))
            if tree is None or (index > 0 and (tree.title or tree.extends)):
                return parse(text, self.path, self.limits)  # the whole text says what is wrong, as always
            title = title or tree.title
            extends.extend(tree.extends)
            decls.extend(tree.decls)
        module = n.Module(n.Pos(1, 1, 1, 1, self.path), path=self.path, title=title, extends=tuple(extends),
                          decls=tuple(decls))
        self.last = (text, module)
        return module

    def _keep_pieces(self, module: n.Module, pieces: list[Piece]) -> None:
        """The declarations of a whole text's tree, shared out to the pieces they begin in."""
        decls = list(module.decls)
        for index, piece in enumerate(pieces):
            end = pieces[index + 1].line if index + 1 < len(pieces) else None
            mine = []
            while decls and (end is None or decls[0].pos.line < end):
                mine.append(decls.pop(0))
            first = index == 0
            placed = n.Module(n.Pos(1, 1, 1, 1, self.path), path=self.path, title=module.title if first else "",
                              extends=module.extends if first else (), decls=tuple(mine))
            self.placed.kept[(piece.text, piece.line)] = placed
            self.trees.kept[piece.text] = moved(placed, 1 - piece.line) if piece.line > 1 else placed

    def _place(self, key: tuple[str, int]) -> n.Module | None:
        text, line = key
        tree = self.trees(text)
        return moved(tree, line - 1) if tree is not None and line > 1 else tree

    def _parse_piece(self, text: str) -> n.Module | None:
        try:
            return parse(text, self.path, self.limits)
        except RulesError:
            return None


_FIELDS: dict[type, tuple[str, ...]] = {}


def moved(value: Any, lines: int) -> Any:
    """A node (or a tuple of them) with every position `lines` lines further down."""
    if isinstance(value, tuple):
        return tuple(moved(item, lines) for item in value)
    if isinstance(value, n.Pos):
        if value.line == 0:  # nowhere stays nowhere
            return value
        return n.Pos(value.line + lines, value.column, value.end_line + lines, value.end_column, value.path)
    if not isinstance(value, n.Node):
        return value
    kind = type(value)
    names = _FIELDS.get(kind)
    if names is None:
        names = _FIELDS[kind] = tuple(f.name for f in records.fields(kind))
    copy = object.__new__(kind)
    for name in names:
        object.__setattr__(copy, name, moved(getattr(value, name), lines))
    return copy
