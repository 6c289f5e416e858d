"""The exact engine's shortcuts change no probability, and sampled runs end where exact odds say they may: every
example of the shipped rules, run with the shortcuts and without them, for outcomes alone and for whole states."""

from __future__ import annotations

import random

import pytest

from fracas import dsl
from fuzzing import RULES_FILES, examples_agree, examples_of, retuned_examples_agree


@pytest.mark.parametrize("path", RULES_FILES, ids=[path.stem for path in RULES_FILES])
def test_every_example_gets_the_same_odds_without_the_exact_engines_shortcuts_and_sampled_runs_end_within_them(path):
    rules = dsl.load(path)
    assert examples_of(rules)
    examples_agree(rules, lambda: dsl.load(path), examples_of(rules))


@pytest.mark.parametrize("seed", range(3))
def test_examples_of_retuned_rules_get_the_same_odds_without_the_shortcuts(seed):
    """Rules with a few numbers changed take other ways through the engine: a sample of them, as the long
    fuzzing run (make fuzz) tries many more."""
    rng = random.Random(seed)
    path = rng.choice(RULES_FILES)
    retuned_examples_agree(path.read_text(), path, rng)
