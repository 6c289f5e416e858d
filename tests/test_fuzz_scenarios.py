"""Whatever a scenario file holds, fracas resolves it or says what is wrong: never a crash."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fracas import dsl
from fuzzing import RULES_FILES, random_scenario, scenario_runs_or_diagnoses

LOADED = {path.stem: dsl.load(path) for path in RULES_FILES}


@pytest.mark.parametrize("name", sorted(LOADED))
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_random_scenarios_resolve_or_give_diagnostics(name, seed):
    rules = LOADED[name]
    scenario_runs_or_diagnoses(rules, random_scenario(random.Random(seed), rules))


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=200))
def test_random_text_as_a_scenario_gives_diagnostics(text):
    scenario_runs_or_diagnoses(LOADED["epicinium"], text)
