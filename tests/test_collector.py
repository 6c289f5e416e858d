"""The exact engine pauses Python's cyclic garbage collector while it resolves, and leaves it as it found it."""

from __future__ import annotations

import gc

import pytest

from fracas import dsl
from fracas.dsl.limits import Limits
from fracas.interpreter import Scenario, ScenarioError, exact
from fracas.interpreter.core import collector, engines

RULES = 'rules "Two dice"\noutcome total: int = 0\naction throw() {\n    total = roll(1, 6) + roll(1, 6)\n}\n'


def collector_while_resolving(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether the collector ran, as seen each time the engine runs an action from now on."""
    seen: list[bool] = []
    run_all = engines.run_all

    def watched(*args, **kwargs):
        seen.append(gc.isenabled())
        return run_all(*args, **kwargs)

    monkeypatch.setattr("fracas.interpreter.core.resolve.run_all", watched)
    return seen


def test_the_collector_is_paused_while_the_exact_engine_resolves_and_runs_after(monkeypatch):
    seen = collector_while_resolving(monkeypatch)
    odds = exact(dsl.loads(RULES), Scenario("throw", {}), outcomes_only=True)
    assert seen == [False]
    assert gc.isenabled()
    assert odds.joint()[0][0] == {"total": 2}


def test_the_collector_runs_again_after_a_resolution_stopped_by_a_limit(monkeypatch):
    seen = collector_while_resolving(monkeypatch)
    rules = dsl.loads(RULES, "t.rules", Limits(states=3))
    with pytest.raises(ScenarioError):
        exact(rules, Scenario("throw", {}))
    assert seen == [False]
    assert gc.isenabled()


def test_a_collector_the_caller_paused_stays_paused(monkeypatch):
    seen = collector_while_resolving(monkeypatch)
    gc.disable()
    try:
        exact(dsl.loads(RULES), Scenario("throw", {})).joint()
        assert not gc.isenabled()
    finally:
        gc.enable()
    assert seen == [False]


def test_pauses_that_overlap_turn_the_collector_on_again_only_when_the_last_ends():
    first, second = collector.paused(), collector.paused()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)
    assert not gc.isenabled()
    second.__exit__(None, None, None)
    assert gc.isenabled()


@pytest.mark.parametrize("outcomes_only", [True, False], ids=["outcomes only", "whole states"])
def test_an_exact_resolution_leaves_no_garbage_for_the_collector(outcomes_only):
    # Nothing it made is in a reference cycle: all of it is freed as it goes, none waits for a collection.
    rules = dsl.loads(RULES.replace("roll(1, 6) + roll(1, 6)", "roll(1, 6) + successes(roll(1, 6), 6, at_least: 5)"))
    exact(rules, Scenario("throw", {}), outcomes_only=outcomes_only).joint()  # its code made and kept
    gc.collect()
    gc.disable()
    try:
        exact(rules, Scenario("throw", {}), outcomes_only=outcomes_only).joint()
        assert gc.collect() == 0
    finally:
        gc.enable()
