"""The exact engine's shortcuts change no probability: every example of the shipped rules, run with them and
without them, for outcomes alone and for whole states."""

from __future__ import annotations

import random

import pytest

from fracas import dsl
from fuzzing import RULES_FILES, examples_agree_without_shortcuts, examples_of, retuned_examples_agree


@pytest.mark.parametrize("path", RULES_FILES, ids=[path.stem for path in RULES_FILES])
def test_every_example_gets_the_same_odds_without_the_exact_engines_shortcuts(path):
    rules = dsl.load(path)
    assert examples_of(rules)
    examples_agree_without_shortcuts(rules, lambda: dsl.load(path), examples_of(rules))


@pytest.mark.parametrize("seed", range(3))
def test_examples_of_retuned_rules_get_the_same_odds_without_the_shortcuts(seed):
    """Rules with a few numbers changed take other ways through the engine: a sample of them, as the long
    fuzzing run (make fuzz) tries many more."""
    rng = random.Random(seed)
    path = rng.choice(RULES_FILES)
    retuned_examples_agree(path.read_text(), path, rng)
