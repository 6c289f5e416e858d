"""The benchmarks' hand-written calculations are the same rules as the shipped files.

A baseline is a fair yardstick only if it computes what fracas computes: at
small sizes each one equals fracas's exact fractions (the benchmarks check the
large sizes again as they run). The dice baselines, for which fracas has no
builtin yet, are checked against brute force, and against icepool when it is
installed (`make bench` installs it).
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from fracas import dsl
from benchmarks.baselines import cases, dice
from benchmarks.baselines.counting import as_fractions
from fracas.dsl.builtins import SIGNATURES
from fracas.interpreter import Scenario, exact

_LOADED: dict[str, dsl.Ruleset] = {}


def fracas_odds(case: cases.Case) -> dict[tuple, Fraction]:
    if case.rules_text is not None:
        rules = dsl.loads(case.rules_text)
    else:
        rules = _LOADED.setdefault(case.rules_file, dsl.load(cases.ROOT / case.rules_file))
    odds = exact(rules, Scenario(case.action, case.inputs, params=case.params, choices=case.choices))
    return cases.project(odds.joint(), case.outcomes)


def assert_same_odds(case: cases.Case) -> None:
    by_hand = case.baseline()
    assert sum(by_hand.values()) == 1
    assert fracas_odds(case) == by_hand


# ---- Exalted: rules/exalted-war.rules ---------------------------------------------------------

SMALL_ATTACKER = {"wits": 1, "war": 1, "accuracy": 1}  # 3 dice; War 1 lowers its War DV to 3
SMALL_DEFENDER = {"wits": 1, "war": 1, "accuracy": 0}  # 2 dice


def test_an_exalted_attack_with_its_counterattack_by_hand_equals_fracas():
    assert_same_odds(cases.exalted_attack("small", "", SMALL_ATTACKER, SMALL_DEFENDER))


def test_an_exalted_attack_on_a_defender_who_does_nothing_by_hand_equals_fracas():
    assert_same_odds(cases.exalted_attack("undefended", "", SMALL_ATTACKER, SMALL_DEFENDER,
                                          {"defender_response": "do_nothing", "counter_response": "do_nothing"}))


def test_an_exalted_attack_without_a_counterattack_by_hand_equals_fracas():
    assert_same_odds(cases.exalted_attack("alone", "", SMALL_ATTACKER, SMALL_DEFENDER, {"counterattack": False}))


def test_an_exalted_attack_stopped_by_hardness_and_pinging_through_soak_by_hand_equals_fracas():
    # Hardness 6 stops raw damage up to 6; soak 9 leaves the pool to the Magnitude (EXW-10, EXW-12).
    assert_same_odds(cases.exalted_attack("hard", "", SMALL_ATTACKER, {**SMALL_DEFENDER, "hardness": 6, "soak": 9}))


def test_the_exalted_case_grows_its_pools_by_wits():
    case = cases.exalted_each_way(15)
    for role in ("attacker", "defender"):
        stats = case.inputs[role]
        assert stats["wits"] + stats["war"] + stats["accuracy"] == 15


# ---- Weewar: rules/weewar.rules -----------------------------------------------------------------


@pytest.mark.parametrize("scenario", ["weewar-tank-ganging-up", "weewar-troopers-on-plains"])
@pytest.mark.parametrize("health", [1, 2, 3])
def test_a_weewar_exchange_by_hand_equals_fracas(scenario, health):
    assert_same_odds(cases.weewar_exchange(scenario, health))


def test_a_weewar_exchange_of_unequal_units_by_hand_equals_fracas():
    case = cases.weewar_exchange("weewar-troopers-on-plains", 2)
    case.inputs["defender"]["health"] = 3
    case.inputs["defender"]["terrain"] = "woods"
    assert_same_odds(case)


# ---- Epicinium: rules/epicinium.rules -------------------------------------------------------------


@pytest.mark.parametrize("squads", [1, 2])
def test_gunner_squads_at_a_tank_in_a_city_by_hand_equals_fracas(squads):
    assert_same_odds(cases.epicinium_squads(squads))


@pytest.mark.parametrize("scenario", ["epicinium-riflemen-vs-city", "epicinium-trenches",
                                      "epicinium-gunners-vs-riflemen"])
def test_a_shipped_targeted_attack_by_hand_equals_fracas(scenario):
    action, inputs, _ = cases.shipped_scenario(scenario)
    assert_same_odds(cases.epicinium_attack(scenario, "", inputs))


def test_a_targeted_attack_that_levels_a_town_by_hand_equals_fracas():
    # Two shots of a Gunner figure at a Militia figure and the Town's last building.
    inputs = {"attackers": [{"type": "gunner", "figures": 1}], "target": {"type": "militia", "figures": 1},
              "space": {"tile": "town", "stacks": 1, "power": 0, "gas": 1}}
    assert_same_odds(cases.epicinium_attack("town", "", inputs))


def test_a_targeted_attack_on_bare_grass_by_hand_equals_fracas():
    # EPI-20, the literal reading: Grass becomes Dirt after any damage step on it.
    inputs = {"attackers": [{"type": "rifleman", "figures": 2}], "target": {"type": "rifleman", "figures": 2},
              "space": {"tile": "grass", "bonedrought": True}}
    assert_same_odds(cases.epicinium_attack("grass", "", inputs))


# ---- a duel: the newcomers' margin duel -------------------------------------------------------------


@pytest.mark.parametrize("health", [1, 4, 7])
def test_a_duel_to_the_end_by_hand_equals_fracas(health):
    assert_same_odds(cases.duel_at_health(health))


def test_a_duel_of_unequal_duelists_by_hand_equals_fracas():
    # b strikes harder but parries worse and has less health: a wins more often than not, and a side swapped
    # in either calculation would show.
    case = cases.duel_at_health(6, b={"attack": 8, "defence": 2, "health": 4})
    assert_same_odds(case)
    a_wins = sum(p for (wins, _, _), p in case.baseline().items() if wins)
    assert Fraction(1, 2) < a_wins < 1


# ---- dice -----------------------------------------------------------------------------------------


def test_two_rolls_of_2d6_by_hand_equal_fracas():
    text = cases.FOUR_10D6.replace("range(4)", "range(2)").replace("roll(10, 6)", "roll(2, 6)")
    case = cases.Case("2d6+2d6", "", "four_rolls", {}, dice.OUTCOMES, lambda: dice.sums_of_rolls(2, 2, 6),
                      rules_text=text)
    assert_same_odds(case)


def enumerated(count: int, sides: int, value) -> dict[tuple, Fraction]:
    """Every roll of `count` dice, one by one."""
    tally: dict[tuple, int] = {}
    for faces in itertools.product(range(1, sides + 1), repeat=count):
        key = (value(sorted(faces)),)
        tally[key] = tally.get(key, 0) + 1
    return as_fractions(tally, sides**count, (2, 3))


def test_keeping_the_highest_dice_by_hand_equals_every_roll_counted():
    assert dice.keep_highest(4, 6, 3) == enumerated(4, 6, lambda faces: sum(faces[1:]))
    assert dice.keep_highest(5, 4, 1) == enumerated(5, 4, lambda faces: faces[-1])


def test_keeping_the_lowest_dice_by_hand_equals_every_roll_counted():
    assert dice.keep_lowest(4, 6, 2) == enumerated(4, 6, lambda faces: sum(faces[:2]))


def test_an_exploding_die_by_hand_adds_a_roll_on_its_highest_face():
    # d4 exploding at most twice: 1-3 at 1/4; 4 then 1-3 at 1/16; 4, 4 then 1-4 at 1/64.
    expected = {(v,): Fraction(1, 4) for v in (1, 2, 3)}
    expected.update({(4 + v,): Fraction(1, 16) for v in (1, 2, 3)})
    expected.update({(8 + v,): Fraction(1, 64) for v in (1, 2, 3, 4)})
    assert dice.explode(4, 2) == expected


def test_successes_by_hand_count_tens_twice_when_asked():
    doubled = dice.successes(2, 10, 7, 10)
    assert doubled[(4,)] == Fraction(1, 100) and doubled[(0,)] == Fraction(36, 100)
    assert dice.successes(2, 10, 7, None)[(2,)] == Fraction(16, 100)


# Against icepool, the benchmarks' other yardstick (installed by `make bench`).

DICE_OPERATIONS = [
    ("keep_highest(10, 6, 3)", lambda: dice.keep_highest(10, 6, 3), lambda ip: ip.d6.highest(10, 3)),
    ("keep_highest(4, 6, 3)", lambda: dice.keep_highest(4, 6, 3), lambda ip: ip.d6.highest(4, 3)),
    ("keep_highest(2, 20, 1)", lambda: dice.keep_highest(2, 20, 1), lambda ip: ip.d20.highest(2)),
    ("keep_lowest(5, 8, 2)", lambda: dice.keep_lowest(5, 8, 2), lambda ip: ip.d8.lowest(5, 2)),
    ("explode(1, 6, 9)", lambda: dice.explode(6, 9), lambda ip: ip.d6.explode(depth=9)),
    ("roll(10, 6)", lambda: dice.sum_of_dice(10, 6), lambda ip: 10 @ ip.d6),
]


@pytest.mark.parametrize("expression, by_hand, theirs", DICE_OPERATIONS, ids=[d[0] for d in DICE_OPERATIONS])
def test_dice_by_hand_equal_icepool(expression, by_hand, theirs):
    icepool = pytest.importorskip("icepool")
    die = theirs(icepool)
    assert by_hand() == {(outcome,): p for outcome, p in zip(die.outcomes(), die.probabilities())}


@pytest.mark.parametrize("expression, by_hand, theirs", DICE_OPERATIONS, ids=[d[0] for d in DICE_OPERATIONS])
def test_dice_by_hand_equal_fracas(expression, by_hand, theirs):
    builtin = expression.split("(")[0]
    if builtin not in SIGNATURES:
        pytest.skip(f"fracas has no {builtin}() builtin yet")
    assert_same_odds(cases.Case(expression, "", "throw", {}, dice.OUTCOMES, by_hand,
                                rules_text=cases.dice_rules(expression)))
