"""A draw's states that meet where they go merge as the draw makes them: not each one sent on alone."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from fracas import dsl
from fracas.dsl.limits import Limits
from fracas.interpreter import Scenario, ScenarioError, exact, load_scenario
from fracas.interpreter.core import carry, engines
from shortcuts import without_finding_cells_by_value, without_gathering_draws

ROOT = Path(__file__).resolve().parent.parent

# Six pools of dice, each rolled for successes into a field: the pool's size is forgotten once they are rolled,
# so the 27 pairs of a pool and its successes meet as 7 states. A roll after them keeps the tail from running
# straight from there.
POOLS = """rules "gathered"
kind unit {
    taken: int = 0
    require taken >= 0
}
outcome lost: int = 0
outcome extra: int = 0
action hit(target: unit) {
    let dice = roll(1, 6)
    target.taken = successes(dice, 6, at_least: 4)
    extra = roll(1, 2)
    lost = target.taken
}
"""
TARGET = {"target": {}}


def states_sent_on(rules: dsl.Ruleset, scenario: Scenario, monkeypatch: pytest.MonkeyPatch) -> dict[int, int]:
    """How many states each block that draws sends on, in an outcomes-only run."""
    exact(rules, scenario, outcomes_only=True)  # the code made
    sent: dict[int, int] = {}
    run_block = engines._block_all

    def counted(routine, pc, group, *rest):
        for found in run_block(routine, pc, group, *rest):
            if routine.blocks[pc].draw_slot is not None:
                sent[pc] = sent.get(pc, 0) + 1
            yield found

    with monkeypatch.context() as patched:
        patched.setattr(engines, "_block_all", counted)
        exact(rules, scenario, outcomes_only=True)
    return sent


def odds_without_gathering(rules: dsl.Ruleset, scenario: Scenario, monkeypatch: pytest.MonkeyPatch,
                           outcomes_only: bool = True) -> dict:
    with monkeypatch.context() as patched:
        without_gathering_draws(patched)
        return exact(dsl.loads(rules.sources[rules.path].text, rules.path), scenario, outcomes_only=outcomes_only).states


def test_the_successes_of_six_pools_go_on_as_the_seven_states_they_make_not_as_27_pairs(monkeypatch):
    rules, scenario = dsl.loads(POOLS, "gathered.rules"), Scenario("hit", TARGET)
    sent = states_sent_on(rules, scenario, monkeypatch)
    assert sorted(sent.values()) == [6, 7, 14]  # the pool's size, its successes, the roll after
    with monkeypatch.context() as patched:
        without_gathering_draws(patched)
        assert sorted(states_sent_on(rules, scenario, monkeypatch).values()) == [6, 14, 27]


def test_gathered_states_have_the_odds_of_states_sent_on_alone(monkeypatch):
    rules, scenario = dsl.loads(POOLS, "gathered.rules"), Scenario("hit", TARGET)
    odds = exact(rules, scenario, outcomes_only=True)
    # No successes: a 1-in-2 miss for each die of a pool of 1 to 6.
    assert odds.marginal("lost")[0] == sum(Fraction(1, 6) * Fraction(1, 2) ** dice for dice in range(1, 7))
    assert odds.states == odds_without_gathering(rules, scenario, monkeypatch)
    whole = exact(rules, scenario, outcomes_only=False).states
    assert whole == odds_without_gathering(rules, scenario, monkeypatch, outcomes_only=False)



def test_a_certain_value_meets_the_values_drawn(monkeypatch):
    """A pool of six dice counts no success without a roll, here: its state is made as it is, and meets the
    others'."""
    text = POOLS.replace("successes(dice, 6, at_least: 4)", "if dice < 6 then successes(dice, 6, at_least: 4) else 0")
    rules, scenario = dsl.loads(text, "gathered.rules"), Scenario("hit", TARGET)
    sent = states_sent_on(rules, scenario, monkeypatch)
    assert sorted(sent.values()) == [6, 6, 12]  # the pool's size, 0 to 5 successes, the roll after
    odds = exact(rules, scenario, outcomes_only=True)
    assert odds.marginal("lost")[0] == Fraction(1, 6) + sum(Fraction(1, 6) * Fraction(1, 2) ** dice
                                                           for dice in range(1, 6))
    assert odds.states == odds_without_gathering(rules, scenario, monkeypatch)


def test_the_states_limit_counts_gathered_states_with_those_already_waiting(monkeypatch):
    """27 states gathered (each pool's successes told apart by its size), none of the draws over 7 values: a
    limit of 20 stops the run there, as merging them there would have."""
    text = POOLS.replace("successes(dice, 6, at_least: 4)", "successes(dice, 6, at_least: 4) + 10 * dice")
    rules, scenario = dsl.loads(text, "gathered.rules", Limits(states=20)), Scenario("hit", TARGET)
    with pytest.raises(ScenarioError) as gathered:
        exact(rules, scenario, outcomes_only=True)
    with monkeypatch.context() as patched:
        without_gathering_draws(patched)
        with pytest.raises(ScenarioError) as alone:
            exact(dsl.loads(text, "gathered.rules", Limits(states=20)), scenario, outcomes_only=True)
    assert gathered.value.diagnostics[0].format() == alone.value.diagnostics[0].format()
    assert "more than 20 states" in gathered.value.diagnostics[0].message
    assert gathered.value.diagnostics[0].line == 10  # the successes drawn



def test_a_certain_value_is_counted_against_the_limit_as_the_state_it_meets(monkeypatch):
    """From a review: a certain value's state was counted with its world as it came, apart from the drawn
    states it is one with, and a run of 3 final states was refused at a limit of 3."""
    text = """rules "certain"
kind unit {
    dice: int = 0
    hp: int = 10
}
outcome got: int = 0
outcome x: int = 0
action go(a: unit, b: unit) {
    a.dice = roll(1, 3) - 1
    let r = if a.dice > 0 then successes(a.dice, 6, at_least: 4) else 0
    b.hp -= r
    x = roll(1, 1)
    got = b.hp
}
"""
    rules, scenario = dsl.loads(text, "certain.rules", Limits(states=3)), Scenario("go", {"a": {}, "b": {}})
    odds = exact(rules, scenario, outcomes_only=True)
    assert odds.marginal("got") == {8: Fraction(1, 12), 9: Fraction(1, 3), 10: Fraction(7, 12)}
    assert odds.states == odds_without_gathering(rules, scenario, monkeypatch)

def test_states_that_carry_different_values_meet_as_the_engine_merges_them(monkeypatch):
    """Each pool's size kept in an outcome the draw leaves alone (carried, a value of its own in each state):
    the states that meet carry each its value, as they would where they wait."""
    text = POOLS.replace("outcome extra: int = 0", "outcome extra: int = 0\noutcome size: int = 0").replace(
        "    let dice = roll(1, 6)\n", "    let dice = roll(1, 6)\n    size = dice\n")
    rules, scenario = dsl.loads(text, "gathered.rules"), Scenario("hit", TARGET)
    odds = exact(rules, scenario, outcomes_only=True)
    # Six dice, each succeeding: lost 6, whatever extra is rolled.
    assert odds.marginal("size")[6] == Fraction(1, 6) and odds.marginal("lost")[6] == Fraction(1, 6) / 64
    assert odds.states == odds_without_gathering(rules, scenario, monkeypatch)


def test_states_carrying_different_values_that_meet_add_into_one_sum(monkeypatch):
    """From a review: a sum of states carrying different values was copied at each state that met it after,
    n states costing n * n parts copied. Summed in place, as where they wait, it copies no more than there."""
    text = """rules "sizes"
kind unit {
    taken: int = 0
}
outcome lost: int = 0
outcome extra: int = 0
outcome size: int = 0
action hit(target: unit) {
    let n = roll(1, 60)
    size = n
    target.taken = roll(1, n)
    extra = roll(1, 2)
    lost = target.taken
}
"""
    scenario = Scenario("hit", TARGET)

    def parts_added(gathering: bool) -> tuple[int, dict]:
        added = [0]
        real = carry._add_into
        with monkeypatch.context() as patched:
            if not gathering:
                without_gathering_draws(patched)
            patched.setattr(carry, "_add_into", lambda into, other: added.__setitem__(0, added[0] + len(other.parts))
                            or real(into, other))
            states = exact(dsl.loads(text, "sizes.rules"), scenario, outcomes_only=True).states
        return added[0], states

    gathered, odds = parts_added(True)
    alone, plain = parts_added(False)
    assert odds == plain and len(odds) == 60 * 61 // 2 * 2
    assert gathered <= alone


def test_the_draws_of_a_loop_s_passes_meet_as_the_engine_merges_them(monkeypatch):
    """A roll each pass overwrites the last: the states of the pass before, told apart by it, meet after it."""
    text = """rules "passes"
outcome total: int = 0
action go() {
    let n = 0
    let last = 0
    while n < 3 {
        last = roll(1, 3)
        total += last
        n += 1
    }
}
"""
    rules, scenario = dsl.loads(text, "passes.rules"), Scenario("go", {})
    odds = exact(rules, scenario, outcomes_only=True)
    assert odds.marginal("total")[3] == Fraction(1, 27) and odds.marginal("total")[9] == Fraction(1, 27)
    assert odds.states == odds_without_gathering(rules, scenario, monkeypatch)


def test_an_attack_s_damage_rolls_of_every_size_go_on_as_the_damage_dealt(monkeypatch):
    """The commander's attack at 20 dice each way: 37 damage pools rolled, 40 values of damage dealt."""
    path = ROOT / "rules" / "scenarios" / "exalted-commander-attack.toml"
    rules, shipped = dsl.load(ROOT / "rules" / "exalted-war.rules"), load_scenario(path)
    inputs = {role: {**values, "wits": 20 - values["war"] - values["accuracy"]} for role, values in
              ((role, shipped.inputs[role]) for role in ("attacker", "defender"))}
    scenario = Scenario(shipped.action, inputs, choices=shipped.choices)
    sent = states_sent_on(rules, scenario, monkeypatch)
    with monkeypatch.context() as patched:
        without_gathering_draws(patched)
        alone = states_sent_on(rules, scenario, monkeypatch)
    assert sum(sent.values()) * 5 < sum(alone.values())
    assert exact(rules, scenario, outcomes_only=True).states == odds_without_gathering(rules, scenario, monkeypatch)


# Pools of 7 to 18 dice rolled for successes: each pool's draw has 8 to 19 values, over a total of its own, and
# the states of every pool meet at each value.
BIG_POOLS = """rules "big pools"
kind unit {
    taken: int = 0
}
outcome lost: int = 0
outcome extra: int = 0
action hit(target: unit) {
    let dice = roll(1, 12) + 6
    target.taken = successes(dice, 6, at_least: 4)
    extra = roll(1, 2)
    lost = target.taken
}
"""


def test_a_draw_s_values_find_the_states_they_meet_by_the_value_alone(monkeypatch):
    rules, scenario = dsl.loads(BIG_POOLS, "big.rules"), Scenario("hit", TARGET)
    found: list[int] = []
    states = engines._Gathered.states

    def counted(self):
        found.extend(len(cells) for cells in self.by_value.values())
        return states(self)

    with monkeypatch.context() as patched:
        patched.setattr(engines._Gathered, "states", counted)
        odds = exact(rules, scenario, outcomes_only=True)
    # The pool's size, 12 values of one state; then its successes: one key without the value for all twelve
    # pools, under which their 162 values find the 19 states they make (0 to 18 successes) by the value.
    assert found == [12, 19]
    assert odds.marginal("lost")[18] == Fraction(1, 12) * Fraction(1, 2) ** 18


def test_states_found_by_value_have_the_odds_of_states_found_by_their_keys(monkeypatch):
    rules, scenario = dsl.loads(BIG_POOLS, "big.rules"), Scenario("hit", TARGET)
    for outcomes_only in (True, False):
        odds = exact(rules, scenario, outcomes_only=outcomes_only).states
        with monkeypatch.context() as patched:
            without_finding_cells_by_value(patched)
            assert odds == exact(dsl.loads(BIG_POOLS, "big.rules"), scenario, outcomes_only=outcomes_only).states
        assert odds == odds_without_gathering(rules, scenario, monkeypatch, outcomes_only=outcomes_only)
