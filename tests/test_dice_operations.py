"""Dice operations: keep and drop, advantage, exploding dice, rerolls and dice of any faces.

Each is proved four ways: its exact distribution is every roll counted (brute
force, for small pools) and icepool's where icepool is installed; sampled
frequencies agree with it; forced rolls give each die's face; bad arguments
are located errors.
"""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import pytest

from fracas import dsl
from fracas.dsl.diagnostics import RulesError
from fracas.interpreter import Scenario, ScenarioError, exact, forced, sample
from fracas.interpreter.tools.cli import main
from fracas.interpreter.runtime.chance import Dice
from fracas.interpreter.runtime.dice import DiceSum, Exploding, Faces, Keep, Rerolled
from test_agreement import assert_sampling_matches_exact


def rules_for(expression: str) -> dsl.Ruleset:
    return dsl.loads(f"outcome x: number = 0\naction go() {{\n    x = {expression}\n}}\n{RUN_TIME}", "dice.rules")


# Numbers that reach a dice function only when the rules run: written out, `fracas check` refuses them first.
RUN_TIME = "param zero = 0\nparam minus = -1\nparam six = 6\nparam seven = 7\nparam nine = 9\n"


def odds(expression: str) -> dict:
    return exact(rules_for(expression), Scenario("go", {})).marginal("x")


def every_roll(count: int, faces: list, value) -> dict:
    """Each outcome's probability, from every sequence of faces of `count` dice (each face equally likely)."""
    out: dict = {}
    for roll in itertools.product(faces, repeat=count):
        key = value(list(roll))
        out[key] = out.get(key, 0) + Fraction(1, len(faces) ** count)
    return out


def highest(keep: int):
    return lambda faces: sum(sorted(faces, reverse=True)[:keep])


def lowest(keep: int):
    return lambda faces: sum(sorted(faces)[:keep])


def exploding_die(sides: int, depth: int) -> dict:
    """One exploding die, from every sequence of rolls it can make."""
    out: dict = {}

    def roll(total: int, p: Fraction, left: int) -> None:
        for face in range(1, sides + 1):
            q = p / sides
            if face == sides and left:
                roll(total + face, q, left - 1)
            else:
                out[total + face] = out.get(total + face, 0) + q

    roll(0, Fraction(1), depth)
    return out


def sum_of(die: dict, count: int) -> dict:
    out: dict = {0: Fraction(1)}
    for _ in range(count):
        following: dict = {}
        for total, p in out.items():
            for value, q in die.items():
                following[total + value] = following.get(total + value, 0) + p * q
        out = following
    return out


# ---- exact: every roll counted ----------------------------------------------------------------

POOLS = [(count, sides) for count in range(0, 6) for sides in (1, 2, 3, 6)]


@pytest.mark.parametrize("count, sides", POOLS)
def test_keeping_the_highest_dice_is_every_roll_counted(count, sides):
    for keep in range(count + 2):
        assert Keep(count, sides, keep).distribution() == every_roll(count, range(1, sides + 1), highest(keep))


@pytest.mark.parametrize("count, sides", POOLS)
def test_keeping_the_lowest_dice_is_every_roll_counted(count, sides):
    for keep in range(count + 2):
        assert Keep(count, sides, keep, highest=False).distribution() == every_roll(
            count, range(1, sides + 1), lowest(keep))


@pytest.mark.parametrize("expression, count, sides, value", [
    ("keep_highest(4, 6, 3)", 4, 6, highest(3)),
    ("keep_lowest(3, 8, 2)", 3, 8, lowest(2)),
    ("drop_lowest(4, 6, 1)", 4, 6, highest(3)),
    ("drop_highest(4, 4, 3)", 4, 4, lowest(1)),
    ("drop_lowest(2, 6, 5)", 2, 6, highest(0)),
    ("keep_highest(2, 6, 9)", 2, 6, highest(2)),
    ("advantage(20)", 2, 20, highest(1)),
    ("disadvantage(20)", 2, 20, lowest(1)),
])
def test_each_keep_and_drop_builtin_is_every_roll_counted(expression, count, sides, value):
    assert odds(expression) == every_roll(count, range(1, sides + 1), value)


def test_four_dice_drop_the_lowest_averages_as_the_rulebooks_say():
    assert exact(rules_for("drop_lowest(4, 6, 1)"), Scenario("go", {})).mean("x") == Fraction(15869, 1296)


@pytest.mark.parametrize("count, sides, depth", [(1, 6, 0), (1, 6, 1), (1, 6, 3), (2, 4, 2), (3, 3, 1), (2, 1, 3),
                                                 (0, 6, 2)])
def test_exploding_dice_are_every_sequence_of_rolls_counted(count, sides, depth):
    assert odds(f"explode({count}, {sides}, {depth})") == sum_of(exploding_die(sides, depth), count)


def test_a_die_that_reaches_its_depth_keeps_its_last_face():
    dist = odds("explode(1, 6, 1)")
    assert dist[12] == Fraction(1, 36) and 18 not in dist


@pytest.mark.parametrize("count, sides, faces", [(1, 6, [1]), (2, 6, [1, 2]), (3, 4, [4]), (2, 3, [1, 2, 3])])
def test_a_reroll_once_is_every_first_and_second_roll_counted(count, sides, faces):
    die: dict = {}
    for first in range(1, sides + 1):
        for second in range(1, sides + 1):
            face = second if first in faces else first
            die[face] = die.get(face, 0) + Fraction(1, sides * sides)
    assert odds(f"roll({count}, {sides}, reroll: {faces})") == sum_of(die, count)


@pytest.mark.parametrize("count, sides, faces", [(1, 6, [1]), (2, 6, [1, 2]), (3, 4, [4]), (2, 10, [1, 2, 3, 4, 5])])
def test_rerolling_while_a_face_shows_is_the_die_without_those_faces(count, sides, faces):
    # Rolled again and again: a kept face's chance is 1/sides, times the geometric
    # series of the listed faces showing first, 1 / (1 - listed/sides).
    kept = Fraction(1, sides) / (1 - Fraction(len(faces), sides))
    die = {face: kept for face in range(1, sides + 1) if face not in faces}
    assert odds(f"roll({count}, {sides}, reroll_while: {faces})") == sum_of(die, count)


@pytest.mark.parametrize("count, faces", [(4, [-1, 0, 1]), (3, [1, 1, 2]), (2, [0, 5, 10]), (0, [3]),
                                          (2, ["1/2", 1])])
def test_dice_of_custom_faces_are_every_roll_counted(count, faces):
    numbers = [Fraction(face) for face in faces]
    expected = every_roll(count, numbers, sum)
    assert odds(f"custom_dice({count}, [{', '.join(map(str, faces))}])") == expected


def test_fudge_dice_sum_to_an_int():
    assert all(type(value) is int for value in odds("custom_dice(4, [-1, 0, 1])"))
    assert all(type(value) is int for value in odds("custom_dice(2, [1/2, 3/2])"))


def test_a_pool_of_a_hundred_dice_keeps_ten_exactly_and_sums_to_one():
    dist = Keep(100, 10, 10).distribution()
    assert sum(dist.values()) == 1 and min(dist) == 10 and max(dist) == 100
    # All ten kept dice show 10 when at least ten of the hundred do.
    assert dist[100] == 1 - sum(math.comb(100, k) * Fraction(1, 10) ** k * Fraction(9, 10) ** (100 - k)
                                for k in range(10))


# ---- exact: the same as icepool's ---------------------------------------------------------------


def icepool_odds(die) -> dict:
    return {o: p for o, p in zip(die.outcomes(), die.probabilities()) if p}


@pytest.mark.parametrize("count, sides, keep", [(10, 6, 3), (4, 6, 3), (2, 20, 1), (5, 10, 5), (100, 10, 10),
                                                (7, 8, 6)])
def test_keeping_dice_agrees_with_icepool(count, sides, keep):
    icepool = pytest.importorskip("icepool")
    assert Keep(count, sides, keep).distribution() == icepool_odds(icepool.d(sides).pool(count).highest(keep).sum())
    assert Keep(count, sides, keep, highest=False).distribution() == icepool_odds(
        icepool.d(sides).pool(count).lowest(keep).sum())


@pytest.mark.parametrize("count, sides, depth", [(10, 6, 3), (3, 10, 2), (1, 4, 5)])
def test_exploding_dice_agree_with_icepool(count, sides, depth):
    icepool = pytest.importorskip("icepool")
    die = DiceSum(count, Exploding(sides, depth))
    assert die.distribution() == icepool_odds(count @ icepool.d(sides).explode(depth=depth))


@pytest.mark.parametrize("faces, once", [((1,), True), ((1, 2), True), ((1,), False), ((1, 2, 3), False)])
def test_rerolled_dice_agree_with_icepool(faces, once):
    icepool = pytest.importorskip("icepool")
    die = DiceSum(10, Rerolled(6, faces, once))
    theirs = icepool.d(6).reroll(list(faces), depth=1 if once else "inf")
    assert die.distribution() == icepool_odds(10 @ theirs)


def test_custom_dice_agree_with_icepool():
    icepool = pytest.importorskip("icepool")
    assert DiceSum(4, Faces((-1, 0, 1))).distribution() == icepool_odds(4 @ icepool.Die([-1, 0, 1]))
    assert DiceSum(5, Faces((1, 1, 2, 6))).distribution() == icepool_odds(5 @ icepool.Die([1, 1, 2, 6]))


# ---- sampled frequencies agree with the exact odds -----------------------------------------------


@pytest.mark.parametrize("expression", [
    "keep_highest(4, 6, 3)", "keep_lowest(3, 6, 1)", "drop_highest(3, 4, 1)", "advantage(6)", "disadvantage(8)",
    "explode(2, 4, 2)", "roll(2, 6, reroll: [1, 2])", "roll(2, 6, reroll_while: [1])", "custom_dice(3, [-1, 0, 0, 1])",
])
def test_sampled_frequencies_match_the_exact_odds(expression):
    assert_sampling_matches_exact(rules_for(expression), Scenario("go", {}))


def test_each_die_is_one_random_number_in_order():
    rng, again = random.Random(7), random.Random(7)
    faces = [again.randrange(6) + 1 for _ in range(5)]
    assert Keep(5, 6, 2).sample(rng) == sum(sorted(faces)[-2:])
    rng, again = random.Random(3), random.Random(3)
    assert DiceSum(3, Faces((-1, 0, 1))).sample(rng) == sum((-1, 0, 1)[again.randrange(3)] for _ in range(3))


def test_a_roll_without_rerolls_draws_as_plain_dice_always_did():
    rules = rules_for("roll(5, 6, reroll: [], reroll_while: [])")
    assert [sample(rules, Scenario("go", {}), seed=s).outcomes["x"] for s in range(5)] == [
        Dice(5, 6).sample(random.Random(s)) for s in range(5)]


# ---- forced rolls: one number per die thrown ----------------------------------------------------


@pytest.mark.parametrize("expression, rolls, value", [
    ("keep_highest(4, 6, 3)", [6, 1, 5, 2], 13),
    ("drop_lowest(4, 6, 1)", [3, 3, 1, 6], 12),
    ("keep_lowest(3, 10, 1)", [7, 2, 9], 2),
    ("drop_highest(3, 10, 2)", [7, 2, 9], 2),
    ("advantage(20)", [4, 17], 17),
    ("disadvantage(20)", [4, 17], 4),
    ("explode(2, 6, 5)", [6, 6, 2, 3], 17),  # the first die explodes twice
    ("explode(1, 6, 1)", [6, 6], 12),  # its one extra roll spent, the second 6 stands
    ("roll(2, 6, reroll: [1])", [1, 1, 4], 5),  # the rerolled 1 stands
    ("roll(1, 6, reroll_while: [1, 2])", [1, 2, 2, 5], 5),
    ("custom_dice(4, [-1, 0, 1])", [0, 2, 2, 1], 1),  # each number is the index of a face
])
def test_forced_rolls_give_each_die_thrown(expression, rolls, value):
    assert forced(rules_for(expression), Scenario("go", {}), rolls).outcomes["x"] == value


def test_a_forced_face_out_of_range_is_a_located_error():
    with pytest.raises(ScenarioError) as caught:
        forced(rules_for("keep_highest(2, 6, 1)"), Scenario("go", {}), [7, 1])
    d = caught.value.diagnostics[0]
    assert d.line == 3 and "a d6 needs a number from 1 to 6, not 7" in d.message
    assert d.hint == ("the numbers after 'rolls' are taken in the order the rules roll: this one came to a roll that "
                      "cannot show it")  # not to give more numbers


def test_forced_rolls_that_run_out_are_told_to_give_more():
    with pytest.raises(ScenarioError) as caught:
        forced(rules_for("keep_highest(2, 6, 1)"), Scenario("go", {}), [3])
    d = caught.value.diagnostics[0]
    assert "a d6 needs another number (1 to 6), but the rolls ran out" in d.message
    assert d.hint == "give more numbers after 'rolls'"


def test_a_forced_face_index_runs_from_zero():
    with pytest.raises(ScenarioError) as caught:
        forced(rules_for("custom_dice(1, [-1, 0, 1])"), Scenario("go", {}), [3])
    assert "from 0 to 2" in caught.value.diagnostics[0].message


# ---- bad arguments are located errors ----------------------------------------------------------


@pytest.mark.parametrize("expression, message", [
    ("keep_highest(3, zero, 1)", "dice need at least one side"),
    ("keep_highest(minus, 6, 1)", "'count' cannot be negative (-1)"),
    ("keep_lowest(3, 6, 2 * minus)", "'keep' cannot be negative (-2)"),
    ("drop_lowest(3, 6, 20000)", "'drop' is 20000, over the limit of 10000"),
    ("drop_highest(20000, 6, 1)", "'count' is 20000, over the limit of 10000"),
    ("advantage(zero)", "dice need at least one side"),
    ("disadvantage(20000)", "a die of 20000 sides is over the limit of 10000"),
    ("explode(2, 6, minus)", "'depth' cannot be negative (-1)"),
    ("explode(2, 6, 20000)", "'depth' is 20000, over the limit of 10000"),
    ("roll(2, 6, reroll: [seven])", "a d6 has no face 7"),
    ("roll(2, 6, reroll_while: [zero])", "a d6 has no face 0"),
    ("roll(2, 6, reroll_while: [1, 2, 3, 4, 5, six])", "rerolling every face of a d6 would never stop"),
    ("roll(2, 6, reroll: [1], reroll_while: [six])", "rerolled once or while it shows a face, not both"),
    ("custom_dice(2, [x for x in [1] if x > 1])", "a die needs at least one face"),  # [] written: fracas check
    ("custom_dice(2 * minus, [1])", "'count' cannot be negative (-2)"),
    ("roll(0, zero)", "dice need at least one side"),  # no die rolled: the sides are wrong all the same
    ("roll(0, 6, reroll: [nine])", "a d6 has no face 9"),
    ("roll(0, 6, reroll: [1], reroll_while: [six])", "rerolled once or while it shows a face, not both"),
    ("successes(3, 6, at_least: 4, reroll: [nine])", "a d6 has no face 9"),
    ("successes(3, 10, at_least: seven, double_at: 5)", "double_at 5 is below at_least 7"),
])
def test_a_bad_argument_is_a_located_error(expression, message):
    with pytest.raises(ScenarioError) as caught:
        exact(rules_for(expression), Scenario("go", {}))
    d = caught.value.diagnostics[0]
    assert d.line == 3 and d.column > 0 and message in d.message


@pytest.mark.parametrize("expression", ["keep_highest(3, zero, 1)", "roll(2, zero)", "roll(dice(2, zero))"])
def test_a_die_of_no_sides_is_no_limit_to_raise(expression):
    with pytest.raises(ScenarioError) as caught:
        exact(rules_for(expression), Scenario("go", {}))
    d = caught.value.diagnostics[0]
    assert "at least one side" in d.message and d.hint == "a die has 1 side or more (a fixed number needs no die)"


def test_a_bad_argument_stops_fracas_odds_with_exit_code_2(tmp_path, capsys):
    rules = tmp_path / "dice.rules"
    rules.write_text("outcome x: int = 0\nparam minus = -1\naction go() {\n    x = explode(2, 6, minus)\n}\n")
    scenario = tmp_path / "go.toml"
    scenario.write_text('action = "go"\n')
    assert main(["odds", str(rules), str(scenario)]) == 2
    err = capsys.readouterr().err
    assert "dice.rules:4:" in err and "'depth' cannot be negative" in err and "Traceback" not in err


@pytest.mark.parametrize("expression, column, message", [
    ("keep_highest(3, 0, 1)", 25, "dice need at least one side"),
    ("roll(2, -3)", 17, "dice need at least one side"),
    ("roll(dice(2, 0))", 22, "dice need at least one side"),
    ("successes(-1, 10, at_least: 7)", 19, "'count' cannot be negative (-1)"),
    ("keep_lowest(3, 6, -2)", 27, "'keep' cannot be negative (-2)"),
    ("drop_highest(3, 6, drop: -1)", 34, "'drop' cannot be negative (-1)"),
    ("explode(2, 6, -1)", 23, "'depth' cannot be negative (-1)"),
    ("roll(2, 6, reroll: [1, 7])", 32, "a d6 has no face 7"),
    ("roll(2, 6, reroll_while: [0])", 35, "a d6 has no face 0"),
    ("roll(2, 6, reroll_while: [1, 2, 3, 4, 5, 6])", 34, "rerolling every face of a d6 would never stop"),
    ("roll(2, 6, reroll: [1], reroll_while: [2])", 47, "a die is rerolled once or while it shows a face, not both"),
    ("successes(3, 6, at_least: 4, reroll: [9])", 47, "a d6 has no face 9"),
    ("successes(3, 10, at_least: 7, double_at: 5)", 50, "double_at 5 is below at_least 7"),
    ("successes(3, 10, at_least: 8, again_at: 10)", 9,
     "'again_at' needs 'depth': how many dice at most one die brings, one after another"),
    ("successes(3, 10, at_least: 8, depth: 3)", 46,
     "'depth' counts the dice a die at 'again_at' brings, but no again_at is given"),
    ("successes(3, 10, at_least: 8, again_at: 10, depth: -1)", 60, "'depth' cannot be negative (-1)"),
])
def test_a_count_or_sides_written_out_of_reach_is_refused_before_running(expression, column, message):
    with pytest.raises(RulesError) as caught:
        dsl.loads(f"outcome x: number = 0\naction go() {{\n    x = {expression}\n}}\n", "dice.rules")
    (found,) = caught.value.diagnostics
    assert (found.line, found.column, found.message) == (3, column, message)


def test_a_count_given_by_a_word_the_builtin_does_not_take_is_told_only_as_unknown():
    with pytest.raises(RulesError) as caught:
        dsl.loads("outcome x: number = 0\naction go() {\n    x = roll(4, 6, keep: -1)\n}\n", "dice.rules")
    assert [d.message for d in caught.value.diagnostics] == ["'roll' has no parameter 'keep'"]


@pytest.mark.parametrize("expression, column", [
    ("roll(3, 6, reroll: 1)", 28),
    ("roll(3, 6, reroll_while: 1)", 34),
    ("successes(3, 6, at_least: 5, reroll: 1)", 46),
    ("tally(3, 6, [1, 2])[0]", 22),  # a face where a group of them goes
    ("roll(3, [6])", 17),
])
def test_a_number_written_for_a_list_of_faces_is_a_type_error(expression, column):
    with pytest.raises(RulesError) as caught:
        dsl.loads(f"outcome x: number = 0\naction go() {{\n    x = {expression}\n}}\n", "dice.rules")
    found = caught.value.diagnostics[0]
    assert (found.line, found.column) == (3, column) and found.message.startswith("expected")


def test_fracas_check_refuses_a_face_list_of_text(tmp_path, capsys):
    rules = tmp_path / "dice.rules"
    rules.write_text('outcome x: int = 0\naction go() {\n    x = custom_dice(2, ["a", "b"])\n}\n')
    assert main(["check", str(rules)]) == 2
    assert "dice.rules:3:" in capsys.readouterr().err


def test_a_wrong_argument_name_is_caught_before_running(tmp_path, capsys):
    rules = tmp_path / "dice.rules"
    rules.write_text("outcome x: int = 0\naction go() {\n    x = roll(2, 6, rerol: [1])\n}\n")
    assert main(["check", str(rules)]) == 2
    assert "did you mean" in capsys.readouterr().err


def test_a_tally_counts_a_face_in_no_group_nowhere_and_an_empty_group_as_0():
    assert odds("tally(2, 6, [[], [6]])[0]") == {0: 1}
    assert odds("sum(tally(1, 6, [[1, 2], [6]]))") == {0: Fraction(1, 2), 1: Fraction(1, 2)}  # 3, 4, 5 counted nowhere
