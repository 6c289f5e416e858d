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


def test_the_reference_lists_every_builtin_with_its_parameters_in_order():
    from fracas.dsl.builtins import SIGNATURES

    listed = dict(re.findall(r"^\| `([a-z_]+)\(([^)]*)\)` \|", REFERENCE.read_text(), flags=re.M))
    for name, signature in SIGNATURES.items():
        assert name in listed, f"the reference's Builtins section does not list '{name}'"
        if signature.variadic:
            continue
        written = [param.strip().rstrip(":") for param in listed[name].split(",")]
        assert written == [param for param, _ in signature.params], name
        optional = [param.strip().endswith(":") for param in listed[name].split(",")]
        assert optional == [index >= signature.required for index in range(len(signature.params))], name
    assert set(listed) == set(SIGNATURES), "the reference lists a builtin that fracas does not have"
