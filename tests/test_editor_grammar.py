"""The TextMate grammar for editors names every keyword of the Lark grammar and every builtin."""

from __future__ import annotations

import json
import re
from pathlib import Path

from fracas.dsl.builtins import ALLOCATIONS, SIGNATURES
from fracas.dsl.types import BASIC_TYPES

GRAMMARS = Path(__file__).resolve().parent.parent / "grammars"


def lark_keywords() -> set[str]:
    code = "\n".join(line.split("//")[0] for line in (GRAMMARS / "fracas.lark").read_text().splitlines())
    return set(re.findall(r'"([a-z]+)"', code))


def textmate() -> dict:
    return json.loads((GRAMMARS / "fracas.tmLanguage.json").read_text())


def alternatives(pattern: str) -> set[str]:
    return set(re.search(r"\(([a-z_|]+)\)", pattern).group(1).split("|"))


def test_the_editor_grammar_highlights_every_keyword_of_the_language():
    repository = textmate()["repository"]
    highlighted = alternatives(repository["keyword"]["match"]) | alternatives(repository["constant"]["match"])
    assert highlighted == lark_keywords()


def test_the_editor_grammar_highlights_every_builtin():
    assert alternatives(textmate()["repository"]["builtin"]["match"]) == set(SIGNATURES)


def test_the_editor_grammar_highlights_every_allocation_policy_where_it_is_given():
    rule = textmate()["repository"]["allocation"]
    policies = re.search(r"\(\?:([a-z_|]+)\)", rule["match"]).group(1).split("|")
    assert set(policies) == set(ALLOCATIONS)
    for word in ALLOCATIONS:
        found = re.search(rule["match"], f'fire(shots, pool, allocate: "{word}")')
        assert found and found.group(2) == f'"{word}"'
    assert not re.search(rule["match"], 'fire(shots, pool, allocate: "sideways")')


def test_the_editor_grammar_highlights_every_basic_type():
    assert alternatives(textmate()["repository"]["type"]["match"]) == set(BASIC_TYPES)


def test_the_editor_grammar_patterns_are_valid_regular_expressions():
    for name, rule in textmate()["repository"].items():
        for key in ("match", "begin", "end"):
            if key in rule:
                re.compile(rule[key])


def test_the_editor_grammar_highlights_the_type_a_fn_or_step_gives():
    gives = re.compile(textmate()["repository"]["gives"]["match"])
    assert gives.search("fn sum_over(xs: list of int): int {").group(2) == "int"
    assert gives.search("step hurt(p: piece, amount: int): list of piece? {").group(2) == "list of piece?"
    assert gives.search("fn double(x: int): int = x * 2").group(2) == "int"
    assert gives.search("action go(p: piece) {") is None
