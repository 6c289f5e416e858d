"""The Python API a programmer embeds: load once, resolve many, get plain objects back."""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path

import pytest

from fracas import dsl
from fracas.interpreter import Scenario, ScenarioError, estimate, exact, forced, sample

ROOT = Path(__file__).resolve().parent.parent
EPI = dsl.load(ROOT / "rules" / "epicinium.rules")

ATTACK = Scenario(
    "targeted_attack",
    {"attackers": [{"type": "gunner"}], "target": {"type": "militia"}, "space": {"tile": "forest"}},
)


def test_exact_probabilities_are_fractions_summing_to_one():
    dist = exact(EPI, ATTACK)
    marginal = dist.marginal("figures_lost")
    assert all(isinstance(p, Fraction) for p in marginal.values())
    assert sum(marginal.values()) == 1


def test_exact_matches_a_hand_calculation():
    # 9 shots, 3 militia bodies and one tree, all of 1 hitpoint: the first four
    # shots kill all four bodies whatever they hit.
    dist = exact(EPI, ATTACK)
    assert dist.marginal("figures_lost") == {3: Fraction(1)}
    assert dist.marginal("stacks_lost") == {1: Fraction(1)}


def test_three_shots_at_four_bodies_spare_each_one_equally():
    one = Scenario("targeted_attack", {**ATTACK.inputs, "attackers": [{"type": "gunner", "figures": 1}]})
    assert exact(EPI, one).marginal("stacks_lost") == {0: Fraction(1, 4), 1: Fraction(3, 4)}


def test_odds_of_outcomes_alone_give_the_final_states_as_a_mapping_of_states():
    one = Scenario("targeted_attack", {**ATTACK.inputs, "attackers": [{"type": "gunner", "figures": 1}]})
    states = exact(EPI, one, outcomes_only=True).states
    assert len(states) == 2 and sum(states.values()) == 1
    as_dict = dict(states.items())
    assert states == as_dict and list(states) == list(as_dict)
    for state, p in as_dict.items():
        assert state in states and states[state] == p
        assert state.frames == ({},) and state.world == {} and state.stopped is None
    assert {state.outcomes["stacks_lost"]: p for state, p in states.items()} == {0: Fraction(1, 4), 1: Fraction(3, 4)}


def test_odds_of_outcomes_alone_agree_with_those_of_whole_states():
    whole, alone = exact(EPI, ATTACK), exact(EPI, ATTACK, outcomes_only=True)
    assert alone.joint() == whole.joint() and alone.outcome_names == whole.outcome_names
    assert all(alone.marginal(name) == whole.marginal(name) for name in whole.outcome_names)


def test_sample_returns_outcomes_events_and_the_new_state():
    run = sample(EPI, ATTACK, seed=5)
    assert run.outcomes["figures_lost"] == 3
    assert run.new_state()["target"]["figures"] == 0
    assert run.new_state()["space"]["tile"] == "forest"
    assert any(event["kind"] == "shot" for event in run.events)
    assert any(event["kind"] == "event" and "unit_killed" in event["text"] for event in run.events)


def test_sampling_is_reproducible_by_seed():
    one = Scenario("targeted_attack", {**ATTACK.inputs, "attackers": [{"type": "gunner", "figures": 1}]})
    assert sample(EPI, one, seed=9).as_json() == sample(EPI, one, seed=9).as_json()


def test_a_run_may_draw_from_the_callers_own_generator_kept_from_run_to_run():
    one = Scenario("targeted_attack", {**ATTACK.inputs, "attackers": [{"type": "gunner", "figures": 1}]})
    kept, again = random.Random(3), random.Random(3)
    drawn = [sample(EPI, one, rng=kept, events=False) for _ in range(40)]
    assert all(run.seed is None for run in drawn)
    assert drawn[0].outcomes == sample(EPI, one, seed=3).outcomes  # a new generator seeded 3 draws the same first
    assert [run.outcomes for run in drawn] == [sample(EPI, one, rng=again).outcomes for _ in range(40)]
    assert {run.outcomes["stacks_lost"] for run in drawn} == {0, 1}  # the generator goes on: not one run 40 times


def test_forced_rolls_choose_the_bodies():
    one = Scenario("targeted_attack", {**ATTACK.inputs, "attackers": [{"type": "rifleman", "figures": 1}]})
    # Bodies in canonical order: the tree of the space, then the militia's figures.
    assert forced(EPI, one, [0]).outcomes["stacks_lost"] == 1
    assert forced(EPI, one, [1]).outcomes["figures_lost"] == 1


def test_estimate_reports_frequencies():
    dist = estimate(EPI, ATTACK, samples=50, seed=1)
    assert dist.mode == "estimate" and dist.marginal("figures_lost") == {3: Fraction(1)}


def test_parameters_can_be_overridden():
    grass = Scenario("targeted_attack", {**ATTACK.inputs, "space": {"tile": "grass"}})
    assert exact(EPI, grass).marginal("tile_destroyed") == {True: 1}
    kept = exact(EPI, grass, overrides={"bare_tiles_are_destroyed": False})
    assert kept.marginal("tile_destroyed") == {False: 1}


def test_a_bad_input_raises_scenario_error_with_a_hint():
    bad = Scenario("targeted_attack", {**ATTACK.inputs, "target": {"type": "militia", "figures": "three"}})
    with pytest.raises(ScenarioError) as caught:
        exact(EPI, bad)
    assert "target.figures: expected int, found the text \"three\"" in caught.value.diagnostics[0].message


def test_the_exact_engine_stops_at_its_state_limit_with_a_located_error():
    with pytest.raises(ScenarioError) as caught:
        exact(EPI, ATTACK, max_states=1)
    diagnostic = caught.value.diagnostics[0]
    assert diagnostic.path.endswith("epicinium.rules") and diagnostic.line > 0
    assert "exact engine" in diagnostic.message


def test_a_roll_of_no_dice_takes_no_forced_number_and_no_trials_takes_its_count():
    rules = dsl.loads("outcome a: int = 0\noutcome b: int = 0\naction go() {\n    a = roll(0, 6)\n"
                      "    b = trials(0, 1/2)\n}\n", "zero.rules")
    run = forced(rules, Scenario("go", {}), [0])
    assert (run.outcomes["a"], run.outcomes["b"]) == (0, 0)
    with pytest.raises(ScenarioError, match="0 trials at 1/2 needs another number"):
        forced(rules, Scenario("go", {}), [])
