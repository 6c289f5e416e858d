"""No game in Python: the generic code never names a concept of a particular game."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Substrings that only a game would use.
GAME_SUBSTRINGS = (
    "bonedrought trench zeppelin rifleman gunner sapper militia rubble hull shield soak hardness "
    "magnitude wound weewar epicinium gilgamesh exalted charisma firestorm frostbite trample splash"
).split()
# Whole words only: as substrings they hit innocent words (community, tiled, unittest).
GAME_WORDS = "unit units tile tiles tank tanks building buildings".split()
PATTERN = re.compile(
    "|".join([re.escape(w) for w in GAME_SUBSTRINGS] + [rf"\b{w}\b" for w in GAME_WORDS]), re.IGNORECASE
)


def game_words_in(folder: Path) -> list[str]:
    found = []
    for path in sorted(folder.rglob("*")):
        if path.suffix not in (".py", ".lark") or "__pycache__" in path.parts:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in PATTERN.finditer(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: '{match.group(0)}'")
    return found


@pytest.mark.parametrize("folder", ["dsl", "interpreter", "grammars"])
def test_no_game_words_in(folder):
    assert (ROOT / folder).is_dir()
    assert game_words_in(ROOT / folder) == []


def test_the_pattern_finds_game_words_and_spares_innocent_ones():
    assert PATTERN.search("def damage(unit):")
    assert PATTERN.search("the Shields track")
    assert not PATTERN.search("community unittest tiled")
