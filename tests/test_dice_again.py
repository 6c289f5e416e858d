"""A die of a pool at `again_at` or above brings another die: a 10-again, a Rule of Six.

Its successes count too, and it may bring another in turn, at most `depth` dice
a die. Proved as the other dice operations are: the exact odds are every
sequence of faces counted, sampled frequencies agree with them, forced rolls
give each die in the order thrown (and a call that leaves out what it needs is
refused before any run, with the other dice operations' refusals).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from fracas import dsl
from fracas.interpreter import Scenario, exact, forced
from fracas.interpreter.tools.cli import main
from test_agreement import assert_sampling_matches_exact


def rules_for(expression: str) -> dsl.Ruleset:
    return dsl.loads(f"outcome x: int = 0\naction go() {{\n    x = {expression}\n}}\n", "again.rules")


def odds(expression: str) -> dict:
    return exact(rules_for(expression), Scenario("go", {})).marginal("x")


def counted_by_hand(count: int, sides: int, at_least: int, again_at: int, depth: int, double_at: int | None = None,
                    reroll: tuple[int, ...] = ()) -> dict[int, Fraction]:
    """Every sequence of faces of each die counted: its first face (rolled again once if listed), then the
    dice it brings while they show again_at or above, `depth` at most."""
    def value(face: int) -> int:
        return 0 if face < at_least else 2 if double_at is not None and face >= double_at else 1

    def brought(left: int) -> dict[int, Fraction]:
        if left == 0:
            return {0: Fraction(1)}
        found: dict[int, Fraction] = {}
        for face in range(1, sides + 1):
            more = brought(left - 1) if face >= again_at else {0: Fraction(1)}
            for successes, p in more.items():
                found[value(face) + successes] = found.get(value(face) + successes, 0) + p / sides
        return found

    first: dict[int, Fraction] = {}
    for face in range(1, sides + 1):
        for shown in (range(1, sides + 1) if face in reroll else (face,)):
            first[shown] = first.get(shown, 0) + Fraction(1, sides) / (sides if face in reroll else 1)
    die: dict[int, Fraction] = {}
    for face, p in first.items():
        for successes, q in (brought(depth) if face >= again_at else {0: Fraction(1)}).items():
            die[value(face) + successes] = die.get(value(face) + successes, 0) + p * q
    pool = {0: Fraction(1)}
    for _ in range(count):
        added: dict[int, Fraction] = {}
        for total, p in pool.items():
            for successes, q in die.items():
                added[total + successes] = added.get(total + successes, 0) + p * q
        pool = added
    return {total: p for total, p in pool.items() if p}


# ---- the exact odds ------------------------------------------------------------------------------


@pytest.mark.parametrize("count, sides, at_least, again_at, depth, double_at, reroll", [
    (3, 10, 8, 10, 3, None, ()),        # a 10-again
    (4, 10, 8, 8, 2, None, ()),         # an 8-again
    (4, 6, 5, 6, 4, None, ()),          # sixes rolled again
    (2, 10, 7, 10, 4, 10, ()),          # a 10 counts twice and brings another
    (3, 6, 4, 5, 3, 6, (1, 2)),         # ones and twos rolled again once first
    (2, 4, 2, 1, 2, None, ()),          # every face brings another: the depth ends it
])
def test_a_pool_that_rolls_again_is_every_sequence_of_faces_counted(count, sides, at_least, again_at, depth, double_at,
                                                                    reroll):
    doubles = f", double_at: {double_at}" if double_at is not None else ""
    rerolls = f", reroll: {list(reroll)}" if reroll else ""
    again = f", again_at: {again_at}, depth: {depth}"
    expression = f"successes({count}, {sides}, at_least: {at_least}{doubles}{rerolls}{again})"
    assert odds(expression) == counted_by_hand(count, sides, at_least, again_at, depth, double_at, reroll)


def test_a_depth_of_0_brings_no_die():
    assert odds("successes(4, 10, at_least: 8, again_at: 10, depth: 0)") == odds("successes(4, 10, at_least: 8)")


def test_again_at_above_every_face_brings_no_die_as_at_least_there_counts_none():
    # A weapon row's again_at: 11 is a d10 that never rolls again, as at_least: 11 is one that never succeeds.
    assert odds("successes(4, 10, at_least: 8, again_at: 11, depth: 3)") == odds("successes(4, 10, at_least: 8)")


def test_twenty_dice_rolling_again_ten_deep_sum_to_one():
    assert sum(odds("successes(20, 10, at_least: 8, again_at: 10, depth: 10)").values()) == 1


def test_sampled_frequencies_match_the_exact_odds():
    assert_sampling_matches_exact(rules_for("successes(3, 6, at_least: 5, again_at: 6, depth: 3)"), Scenario("go", {}))


# ---- forced rolls: each die in the order thrown -----------------------------------------------------


@pytest.mark.parametrize("expression, rolls, value", [
    ("successes(2, 10, at_least: 8, again_at: 10, depth: 2)", [10, 10, 3, 9], 3),  # the first 10 brings two dice
    ("successes(1, 10, at_least: 8, again_at: 10, depth: 2)", [10, 10, 10], 3),  # its two brought, the last 10 stands
    ("successes(1, 10, at_least: 8, reroll: [1], again_at: 10, depth: 1)", [1, 10, 1], 1),  # a die brought: no reroll
    ("successes(2, 6, at_least: 5, again_at: 6, depth: 3)", [4, 6, 5], 2),
])
def test_forced_rolls_give_each_die_thrown_and_each_it_brings_after_it(expression, rolls, value):
    assert forced(rules_for(expression), Scenario("go", {}), rolls).outcomes["x"] == value


def test_a_logged_run_shows_every_die_thrown_and_brought():
    run = forced(rules_for("successes(2, 10, at_least: 8, again_at: 10, depth: 2)"), Scenario("go", {}), [10, 9, 4])
    assert run.events[0]["text"] == "2d10 counting 8+, again at 10 (at most 2 a die): 2 (rolled 10, 9, 4)"


# ---- the whole pool, as fracas odds shows it (what a call must say: test_dice_operations) ------------


def test_fracas_odds_shows_a_10_again_pool(tmp_path, capsys):
    rules = tmp_path / "again.rules"
    rules.write_text("outcome hits: int = 0\n"
                     "action go() { hits = successes(5, 10, at_least: 8, again_at: 10, depth: 4) }\n")
    assert main(["odds", str(rules), "--fractions"]) == 0
    shown = capsys.readouterr().out
    p0 = counted_by_hand(5, 10, 8, 10, 4)[0]
    assert f"{p0.numerator}/{p0.denominator}" in shown


@pytest.mark.parametrize("rolls, which", [
    ([9, 1], "die 2 of 3, rerolled,"),
    ([9, 10, 10], "the 2nd die that die 2 of 3 brings"),
])
def test_forced_rolls_that_run_out_say_which_die_wanted_one(rolls, which):
    from fracas.interpreter import ScenarioError

    rules = rules_for("successes(3, 10, at_least: 8, reroll: [1], again_at: 10, depth: 3)")
    with pytest.raises(ScenarioError) as caught:
        forced(rules, Scenario("go", {}), rolls)
    assert f"forced rolls: {which} needs another number (1 to 10), but the rolls ran out" in str(caught.value)
