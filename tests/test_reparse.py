"""Reading a file again after an edit, declaration by declaration, gives what reading it whole gives.

The language server re-reads only the top-level declarations an edit
touched (fracas.dsl.reparse, and fracas.dsl.format's Reformatter); every tree, position,
layout and message must be the same as a fresh read of the whole text.
"""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path
from typing import Any

import pytest

from fracas.dsl import nodes as n
from fracas.dsl.diagnostics import RulesError
from fracas.dsl.format import Reformatter, format_text
from fracas.dsl.parse import parse
from fracas.dsl.pieces import split
from fracas.dsl.reparse import Reparser

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted((ROOT / "rules").glob("*.rules"))
TYPED = ["\n", "x", "}", "{", "(", '"', "#", "param q = 1\n", "  ", "\n\n\n", "override ", "rules \"t\"\n",
         'extends "x.rules"\n', "kind k { a: int }\n"]


def with_places(value: Any) -> Any:
    """A tree as plain data, positions included (nodes compare without them)."""
    if isinstance(value, tuple):
        return tuple(with_places(item) for item in value)
    if isinstance(value, n.Pos):
        return (value.line, value.column, value.end_line, value.end_column, value.path)
    if isinstance(value, n.Node):
        return (type(value).__name__, *[(f.name, with_places(getattr(value, f.name))) for f in dataclasses.fields(value)])
    return value


def outcome(read, text: str) -> Any:
    try:
        return read(text)
    except RulesError as error:
        return [d.brief() for d in error.diagnostics]


def edits(text: str, rng: random.Random, count: int) -> list[str]:
    """Texts a writer leaves on the way: a character or a fragment typed anywhere, a piece copied, a cut."""
    found = []
    for _ in range(count):
        cut = rng.randrange(len(text) + 1)
        roll = rng.random()
        if roll < 0.4:
            found.append(text[:cut] + rng.choice(TYPED) + text[cut:])
        elif roll < 0.8:
            start = rng.randrange(len(text))
            found.append(text[:cut] + text[start : start + rng.randrange(1, 80)] + text[cut:])
        else:
            found.append(text[:cut] + text[cut + rng.randrange(1, 40) :])
    return found


def test_the_pieces_of_a_text_joined_are_the_text():
    for path in SHIPPED:
        text = path.read_text()
        pieces = split(text)
        assert "".join(piece.text for piece in pieces) == text
        assert all(text.count("\n", 0, piece.offset) + 1 == piece.line for piece in pieces)


def test_a_declaration_is_cut_only_where_it_starts_a_line_outside_brackets():
    text = 'param a = f(1,\nparam)\n  param b = 2\nparam c = "{"\nunit x { y 1 }\n# param d\n'
    assert [piece.line for piece in split(text)] == [1, 4, 5]


@pytest.mark.parametrize("path", SHIPPED, ids=[p.name for p in SHIPPED])
def test_a_file_parsed_again_after_each_edit_is_the_file_parsed_whole(path: Path):
    text = path.read_text()
    reparser = Reparser(str(path))
    rng = random.Random(path.name)
    for edited in [text, *edits(text, rng, 16), text]:
        assert outcome(lambda t: with_places(reparser.parse(t)), edited) == \
            outcome(lambda t: with_places(parse(t, str(path))), edited)


@pytest.mark.parametrize("path", SHIPPED, ids=[p.name for p in SHIPPED])
def test_a_file_formatted_again_after_each_edit_is_the_file_formatted_whole(path: Path):
    text = path.read_text()
    formatter = Reformatter(str(path))
    rng = random.Random(path.name)
    careless = "\n".join(line.strip() for line in text.splitlines()).replace("\n\n", "\n\n\n")
    for edited in [text, *edits(text, rng, 8), careless, text]:
        assert outcome(formatter.format, edited) == outcome(lambda t: format_text(t, str(path)), edited)
