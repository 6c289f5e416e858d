"""No game in Python: the generic code never names a concept of a particular game.

Game facts belong in rules/; the grammar and the Python packages stay generic.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GENERIC_FOLDERS = ["dsl", "interpreter", "grammars"]

# Found anywhere, even inside a longer word: only a game would write these.
GAME_SUBSTRINGS = (
    "bonedrought trench zeppelin rifleman gunner sapper militia rubble hull shield soak hardness "
    "magnitude wound weewar epicinium gilgamesh exalted charisma firestorm frostbite trample splash"
).split()
# Whole words only: as substrings they hit innocent words (community, unittest, tiled, tanker).
GAME_WORDS = "unit units tile tiles tank tanks building buildings".split()
PATTERN = re.compile(
    "|".join([re.escape(w) for w in GAME_SUBSTRINGS] + [rf"\b{w}\b" for w in GAME_WORDS]), re.IGNORECASE
)


def game_words_in(folder: Path) -> list[str]:
    """Every hit in the .py and .lark files under `folder`, as 'file:line: word'."""
    found = []
    for path in sorted(folder.rglob("*")):
        if path.suffix not in (".py", ".lark") or "__pycache__" in path.parts or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            for match in PATTERN.finditer(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {match.group(0)!r}")
    return found


@pytest.mark.parametrize("folder", GENERIC_FOLDERS)
def test_no_game_words_in(folder: str) -> None:
    if not (ROOT / folder).exists():
        return  # not written yet: nothing to check
    found = game_words_in(ROOT / folder)
    assert not found, "game words in generic code (they belong in rules/):\n" + "\n".join(found)


def test_the_pattern_finds_game_words_and_spares_innocent_ones() -> None:
    assert PATTERN.search("def damage(unit):")
    assert PATTERN.search("the Shields track")
    assert PATTERN.search("TRENCHES")
    assert PATTERN.search("two tiles away")
    assert not PATTERN.search("community unittest tiled tanker rebuilding units_of")
