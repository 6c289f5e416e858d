"""Every name the packages read is defined, and every import is used: pyflakes reads the code without running it.

A name misspelt or never imported on a path no test takes (an error message's
hint, say) fails only when a user takes that path, as an internal error.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pyflakes import api

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ["dsl", "interpreter"]


class _Found:
    """pyflakes' reporter, its findings kept as text."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def unexpectedError(self, filename: str, message: str) -> None:
        self.lines.append(f"{filename}: {message}")

    def syntaxError(self, filename: str, message: str, row: int, column: int, source: str | None) -> None:
        self.lines.append(f"{filename}:{row}:{column}: {message}")

    def flake(self, message: object) -> None:
        self.lines.append(str(message))


@pytest.mark.parametrize("package", PACKAGES)
def test_every_name_read_is_defined_and_every_import_used(package):
    found = _Found()
    api.checkRecursive([str(ROOT / package)], found)
    assert found.lines == []


def test_an_undefined_name_is_found():
    found = _Found()
    api.check("def hint():\n    return listed('the outcomes')\n", "hint.py", found)
    assert any("undefined name 'listed'" in line for line in found.lines)
