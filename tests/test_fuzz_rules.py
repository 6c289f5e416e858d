"""Whatever text a modder writes, loading it either works or gives diagnostics: never a crash."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fracas import dsl
from fracas.dsl.diagnostics import RulesError
from fracas.interpreter.tools.examples import run_examples

ROOT = Path(__file__).resolve().parent.parent
SOURCE = (ROOT / "rules" / "epicinium.rules").read_text()
TOKENS = re.findall(r"\s+|\w+|[^\w\s]", SOURCE)


@pytest.fixture(autouse=True, scope="module")
def own_cache_folder(tmp_path_factory):
    """Mutants that load are kept in a cache folder of this module's own, not the user's, which they would only fill."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
        yield


def loads_or_diagnoses(text: str, run: bool = False) -> None:
    try:
        rules = dsl.loads(text, "fuzz.rules")
    except RulesError as error:
        assert error.diagnostics
        for diagnostic in error.diagnostics:
            assert diagnostic.message
            diagnostic.format()
        return
    if run:
        # A mutated file that still loads must run its examples to PASS or a located FAIL.
        for result in run_examples(rules):
            assert result.passed or result.message


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=200))
def test_random_text_loads_or_gives_diagnostics(text):
    loads_or_diagnoses(text)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["delete", "duplicate", "swap", "number"]),
                          st.integers(0, len(TOKENS) - 1), st.integers(-5, 999)), min_size=1, max_size=4))
def test_mutated_rules_load_or_give_diagnostics(mutations):
    tokens = list(TOKENS)
    for kind, at, number in mutations:
        at %= len(tokens)
        if kind == "delete":
            del tokens[at]
        elif kind == "duplicate":
            tokens.insert(at, tokens[at])
        elif kind == "swap" and at + 1 < len(tokens):
            tokens[at], tokens[at + 1] = tokens[at + 1], tokens[at]
        elif kind == "number" and tokens[at].isdigit():
            tokens[at] = str(number)
    loads_or_diagnoses("".join(tokens), run=True)
