"""Every example block of every shipped rules file is a test, named by its title."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fracas import dsl
from fracas.interpreter.tools.examples import run_example

ROOT = Path(__file__).resolve().parent.parent
RULES = sorted((ROOT / "rules").glob("*.rules"))
EXAMPLES_MD = ROOT.parent / "shared" / "EXAMPLES.md"


def _examples():
    for path in RULES:
        rules = dsl.load(path)
        for example in rules.examples:
            yield pytest.param(rules, example, id=f"{path.stem}: {example.name}")


@pytest.mark.parametrize("rules, example", list(_examples()))
def test_rulebook_example(rules, example):
    result = run_example(rules, example)
    assert result.passed, result.message


def _document_ids(prefix: str) -> list[str]:
    """The IDs EXAMPLES.md lists, when shared/ is beside the checkout (as in CI)."""
    if EXAMPLES_MD.exists():
        return re.findall(rf"^- ({prefix}-\d+)", EXAMPLES_MD.read_text(), flags=re.M)
    return []


@pytest.mark.parametrize("prefix, file, count", [
    ("EPI", "epicinium.rules", 21),
    ("EPF", "epicinium-classic.rules", 15),
    ("WEE", "weewar.rules", 11),
    ("EXW", "exalted-war.rules", 16),
    ("GIL", "gilgamesh.rules", 18),
])
def test_every_statement_of_the_document_has_an_example(prefix, file, count):
    rules = dsl.load(ROOT / "rules" / file)
    proved = {example.example_id for example in rules.examples}
    ids = _document_ids(prefix) or [f"{prefix}-{i:02d}" for i in range(1, count + 1)]
    missing = [i for i in ids if i not in proved]
    assert not missing, f"no example names {missing}"
