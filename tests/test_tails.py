"""Past the last draw, where only the outcomes are observed, each state runs on to its end straight, with the same odds."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from fracas import dsl
from fracas.dsl.limits import Limits
from fracas.interpreter import Scenario, ScenarioError, exact, load_scenario
from fracas.interpreter.core import tails
from fracas.interpreter.core.codegen import generator_for
from fracas.interpreter.core.interned import Interned
from shortcuts import block_calls, block_runs, without_running_tails_straight

ROOT = Path(__file__).resolve().parent.parent
HEADER = 'rules "tails"\noutcome total: int = 0\noutcome big: bool = false\n'


def rules_of(body: str, limits: Limits = Limits()) -> dsl.Ruleset:
    return dsl.loads(HEADER + "action go() {\n" + body + "\n}\n", "tails.rules", limits)


def without_tails(rules: dsl.Ruleset, scenario: Scenario, monkeypatch: pytest.MonkeyPatch) -> dict:
    with monkeypatch.context() as patched:
        without_running_tails_straight(patched)
        return exact(dsl.loads(rules.sources[rules.path].text, rules.path, rules.limits), scenario,
                     outcomes_only=True).states


def test_a_state_past_the_last_draw_runs_to_the_end_without_the_engine_running_its_blocks(monkeypatch):
    rules = rules_of("let x = roll(2, 6)\ntotal = x + 1\nbig = total > 9")
    runs = block_runs(monkeypatch)
    odds = exact(rules, Scenario("go", {}), outcomes_only=True)
    assert set(runs) == {0}  # the draw's block; the one after it, where the 11 totals are made, runs straight
    assert odds.marginal("big") == {False: Fraction(26, 36), True: Fraction(10, 36)}
    assert odds.states == without_tails(rules, Scenario("go", {}), monkeypatch)


def test_the_engine_runs_the_blocks_where_a_value_that_tells_states_apart_dies(monkeypatch):
    # After the draw, x is read and forgotten: the engine merges its 11 states into 2 before the branches.
    rules = rules_of("let x = roll(2, 6)\nlet high = x > 7\nif high {\n  total = 1\n} else {\n  total = 2\n}\n"
                     "big = total > 1")
    runs = block_runs(monkeypatch)
    odds = exact(rules, Scenario("go", {}), outcomes_only=True)
    after_the_draw = min(pc for pc in runs if pc > 0)
    assert runs[after_the_draw] == 11 and len(runs) == 2
    assert odds.marginal("total") == {1: Fraction(15, 36), 2: Fraction(21, 36)}


def test_whole_states_are_run_block_by_block(monkeypatch):
    """Where the final states are observed whole, the engine runs every block: a tail merges nothing there."""
    rules = rules_of("let x = roll(2, 6)\ntotal = x + 1\nbig = total > 9")
    runs = block_runs(monkeypatch)
    exact(rules, Scenario("go", {}))
    assert len(runs) == 2


def test_the_values_carried_past_a_tail_go_back_into_the_final_states_unrun(monkeypatch):
    """The miniatures' volley leaves its results carried; the block after the loop of wounds runs once for each
    state that reaches it, not once for each combination of the results it leaves alone."""
    path = ROOT / "rules" / "scenarios" / "miniatures-rifles-at-zealots.toml"
    rules, scenario = dsl.load(ROOT / "rules" / "miniatures.rules"), load_scenario(path)
    exact(rules, scenario, outcomes_only=True)  # the code made
    calls = block_calls(rules, scenario.action, monkeypatch)
    odds = exact(rules, scenario, outcomes_only=True)
    routine = generator_for(rules).routines[scenario.action]
    [projection] = [found for (whole, _), found in routine.projections.items() if not whole]
    in_tail = sum(calls[pc] for pc in tails.tail_of(routine, projection))
    assert 0 < in_tail < len(odds.states) / 10
    assert odds.states == without_tails(rules, scenario, monkeypatch)


def test_a_rule_that_fails_in_a_tail_fails_at_its_line_as_block_by_block(monkeypatch):
    rules = rules_of("let x = roll(1, 6)\nlet y = 6 / (x - 3)\ntotal = floor(y)")
    with pytest.raises(ScenarioError) as straight:
        exact(rules, Scenario("go", {}), outcomes_only=True)
    with monkeypatch.context() as patched:
        without_running_tails_straight(patched)
        with pytest.raises(ScenarioError) as by_blocks:
            exact(rules_of("let x = roll(1, 6)\nlet y = 6 / (x - 3)\ntotal = floor(y)"), Scenario("go", {}),
                  outcomes_only=True)
    found = straight.value.diagnostics[0]
    assert (found.line, found.message) == (6, "division by zero")
    assert (found.line, found.message) == (by_blocks.value.diagnostics[0].line, by_blocks.value.diagnostics[0].message)


def test_a_long_loop_in_a_tail_stops_at_the_work_limit():
    rules = rules_of("let x = roll(1, 6)\nfor i in range(3000) {\n  total += x\n}", Limits(work=1000))
    with pytest.raises(ScenarioError) as caught:
        exact(rules, Scenario("go", {}), outcomes_only=True)
    found = caught.value.diagnostics[0]
    assert found.line in (6, 7) and found.message == "this resolution did more than 1000 steps of work"


def test_a_long_stretch_of_runs_to_the_end_is_told_to_the_progress_bar():
    rules = rules_of("let a = roll(1, 150)\nlet b = roll(1, 150)\ntotal = a * 1000 + b")
    told: list[int] = []
    exact(rules, Scenario("go", {}), outcomes_only=True, progress=lambda pos, states: told.append(states))
    # The engine tells of 150 states at most, at the draws; the 22,500 past them run to the end.
    assert max(told) > 1000


def test_final_states_that_differ_only_in_how_they_were_reached_merge_by_their_outcomes(monkeypatch):
    """A world a tail changed is numbered apart, not hashed: equal worlds of two runs, with equal outcomes, are one
    final state all the same."""
    text = ('rules "tails"\nkind die {\n  sides: int = 6\n  require sides > 0\n}\noutcome total: int = 0\n'
            "action go(d: die) {\n  let x = roll(1, 2)\n  let y = roll(1, 2)\n  total = x + y\n  d.sides = 4\n}\n")
    rules = dsl.loads(text, "tails.rules")
    apart: list[object] = []
    numbered = Interned.apart
    monkeypatch.setattr(Interned, "apart", lambda self, world: apart.append(world) or numbered(self, world))
    odds = exact(rules, Scenario("go", {"d": {}}), outcomes_only=True)
    assert len(apart) == 4 and all(world == apart[0] for world in apart)  # a world for each run, all equal
    assert odds.marginal("total") == {2: Fraction(1, 4), 3: Fraction(1, 2), 4: Fraction(1, 4)}
    assert len(odds.states) == 3
