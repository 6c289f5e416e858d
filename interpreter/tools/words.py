"""How the tools' messages count things: "1 file", "2 files"."""

from __future__ import annotations


def counted(number: int, noun: str) -> str:
    """The number and the noun, plural unless the number is one (a noun whose plural adds an s)."""
    return f"{number} {noun}{'' if number == 1 else 's'}"
