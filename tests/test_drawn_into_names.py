"""A value drawn whole into a name (`let x = roll(...)`, `x = fire(..., x)`) is drawn straight into the name's
slot: no block of its own copies it there, and every probability and sampled run stays the same."""

from __future__ import annotations

from fractions import Fraction

from fracas import dsl
from fracas.interpreter import Scenario, exact, sample
from shortcuts import block_runs, without_drawing_into_names

HEADER = 'rules "drawn into names"\noutcome total: int = 0\noutcome kept: int = 0\n'
RULES = HEADER + """action go() {
    let a = roll(2, 6)
    let x = 0
    for i in range(3) {
        x = x + roll(1, 4)
    }
    total = a + x
    kept = a
}
"""


def go(text: str = RULES) -> tuple[dsl.Ruleset, Scenario]:
    return dsl.loads(text, "drawn.rules"), Scenario("go", {})


def test_a_value_drawn_whole_into_a_name_has_the_odds_of_one_copied_there(monkeypatch):
    runs = block_runs(monkeypatch)
    straight = exact(*go(), outcomes_only=True)
    straight_runs = sum(runs.values())
    runs.clear()
    with monkeypatch.context() as patched:
        without_drawing_into_names(patched)
        copied = exact(*go(), outcomes_only=True)
    assert straight.states == copied.states
    assert straight_runs < sum(runs.values())  # the copies' blocks run no more


def test_a_local_drawn_anew_from_its_own_value_adds_up_as_dice_do():
    odds = exact(*go(), outcomes_only=True)
    assert odds.marginal("kept")[7] == Fraction(6, 36)
    # 2d6 + 3d4: its least, 5, one way in 36 * 64; its mean, 7 + 7.5.
    assert odds.marginal("total")[5] == Fraction(1, 36 * 64)
    assert odds.mean("total") == Fraction(29, 2)


def test_a_sampled_run_draws_the_same_values_either_way(monkeypatch):
    straight = [sample(*go(), seed=seed).outcomes for seed in range(12)]
    with monkeypatch.context() as patched:
        without_drawing_into_names(patched)
        assert [sample(*go(), seed=seed).outcomes for seed in range(12)] == straight


def test_a_name_drawn_into_and_read_again_is_not_forgotten_when_an_outcome_takes_it():
    """`total += d` takes the value drawn into an outcome, as a block that forgets it would; d is read after."""
    rules = dsl.loads(HEADER + "action go() {\n    let d = roll(1, 6)\n    total += d\n    kept = d * 2\n}\n",
                      "drawn.rules")
    joint = exact(rules, Scenario("go", {}), outcomes_only=True).joint()
    assert [(row["total"], row["kept"], p) for row, p in joint] == [(d, 2 * d, Fraction(1, 6)) for d in range(1, 7)]


def test_a_final_state_names_the_rules_names_and_not_the_values_drawn_for_a_statement():
    rules = dsl.loads(HEADER + "action go() {\n    let d = roll(1, 6)\n    total += d\n    let e = roll(1, 2)\n}\n",
                      "drawn.rules")
    states = exact(rules, Scenario("go", {})).states
    assert len(states) == 12 and all(set(state.frames[0]) == {"d", "e"} for state in states)
