"""Every code block of the language reference loads, and its examples pass."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fracas import dsl
from fracas.interpreter.tools.examples import run_examples

REFERENCE = Path(__file__).resolve().parent.parent / "grammars" / "language.md"
BLOCKS = re.findall(r"```fracas\n(.*?)```", REFERENCE.read_text(), flags=re.S)


def test_the_reference_shows_every_keyword_of_the_grammar():
    grammar = Path(__file__).resolve().parent.parent / "grammars" / "fracas.lark"
    code = "\n".join(line.split("//")[0] for line in grammar.read_text().splitlines())
    keywords = set(re.findall(r'"([a-z]+)"', code))
    text = REFERENCE.read_text()
    missing = sorted(k for k in keywords if not re.search(rf"\b{k}\b", text))
    assert not missing, f"the reference never mentions {missing}"


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_reference_block_loads_and_its_examples_pass(index):
    rules = dsl.loads(BLOCKS[index], f"language.md block {index + 1}")
    results = run_examples(rules)
    assert results, "each block proves itself with an example"
    failed = [r.line for r in results if not r.passed]
    assert not failed, failed
