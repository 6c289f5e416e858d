"""An item of a list set in place: `m.armor[i] -= 2`, `spare[i] += 1`, `hits[2] = roll(1, 6)`."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest

from fracas import dsl
from fracas.interpreter import Scenario, ScenarioError, exact, forced, sample

MECH = """
kind mech { armor: list of int }
outcome left: list of int = [0, 0, 0]
outcome total: int = 0
"""


def load(body: str) -> dsl.Ruleset:
    return dsl.loads(MECH + body, "items.rules")


def refusals(body: str) -> list[str]:
    with pytest.raises(dsl.RulesError) as caught:
        load(body)
    return [d.message for d in caught.value.diagnostics]


def test_an_item_of_a_thing_s_list_is_changed_where_the_roll_lands():
    rules = load("action strike(m: mech) {\n m.armor[roll(1, 3) - 1] -= 2\n left = m.armor\n}\n")
    odds = exact(rules, Scenario("strike", {"m": {"armor": [5, 6, 7]}})).marginal("left")
    assert odds == {(3, 6, 7): Fraction(1, 3), (5, 4, 7): Fraction(1, 3), (5, 6, 5): Fraction(1, 3)}


def test_the_thing_keeps_its_changed_list_in_the_final_state():
    rules = load("action strike(m: mech) { m.armor[1] *= 3 }\n")
    run = sample(rules, Scenario("strike", {"m": {"armor": [5, 6, 7]}}))
    assert run.state.world["m"].get("armor") == (5, 18, 7)


def test_an_item_of_a_local_and_of_an_outcome_can_be_set():
    rules = load("action go() {\n let spare = [1, 1, 1]\n spare[0] += 4\n left[2] = spare[0]\n"
                 " total = spare[0] + spare[1]\n}\n")
    odds = exact(rules, Scenario("go", {}))
    assert odds.marginal("left") == {(0, 0, 5): 1}
    assert odds.marginal("total") == {6: 1}


def test_a_value_drawn_into_an_item_leaves_the_rest_of_the_list():
    rules = load("action go() {\n let ys = [10, 0]\n ys[1] = roll(1, 6)\n total = ys[0] + ys[1]\n}\n")
    assert exact(rules, Scenario("go", {})).marginal("total") == {10 + face: Fraction(1, 6) for face in range(1, 7)}


def test_a_fn_may_set_an_item_of_its_own_local():
    rules = load("fn bumped(a: list of int, at: int): list of int {\n let b = a\n b[at] += 10\n return b\n}\n"
                 "action go() { left = bumped([1, 2, 3], 2) }\n")
    assert exact(rules, Scenario("go", {})).marginal("left") == {(1, 2, 13): 1}


def test_the_index_is_rolled_before_the_value_as_written():
    rules = load("action go() { left[roll(1, 3) - 1] = roll(1, 6) }\n")
    assert forced(rules, Scenario("go", {}), [2, 5]).state.outcomes["left"] == (0, 5, 0)


def test_exact_odds_of_items_set_by_rolls_equal_an_enumeration_by_hand():
    rules = load("step slot(): int { return roll(1, 3) - 1 }\n"
                 "action go() {\n left[roll(1, 3) - 1] = roll(1, 6)\n let ys = left\n ys[1] += 10\n"
                 " let at = slot()\n ys[at] -= 1\n ys[2] = slot()\n total = ys[0] + ys[1] + ys[2]\n}\n")
    by_hand: Counter[int] = Counter()
    for where, face, at, last in itertools.product(range(3), range(1, 7), range(3), range(3)):
        ys = [0, 0, 0]
        ys[where] = face
        ys[1] += 10
        ys[at] -= 1
        ys[2] = last
        by_hand[sum(ys)] += 1
    ways = sum(by_hand.values())
    assert exact(rules, Scenario("go", {})).marginal("total") == {t: Fraction(c, ways) for t, c in by_hand.items()}


def test_an_index_outside_the_list_is_a_located_error():
    rules = load("action go() {\n left[roll(1, 4) - 1] = 1\n}\n")
    with pytest.raises(ScenarioError) as caught:
        exact(rules, Scenario("go", {}))
    found = caught.value.diagnostics[0]
    assert (found.message, found.line, found.column) == ("index 3 is outside a list of 3", 6, 7)


def test_only_a_list_has_items_to_set():
    assert refusals("action go() { total[0] = 1 }\n") == [
        "only an item of a list can be set by its index, and 'total' is an int"]


def test_an_item_takes_a_value_of_the_list_s_item_type():
    assert refusals("action go(m: mech) {\n m.armor[0] = \"a\"\n m.armor[1] += \"a\"\n}\n") == [
        "expected int, found text", "cannot add text to int"]


def test_an_index_is_a_whole_number():
    assert refusals("action go() { left[true] = 1 }\n") == ["expected int, found bool"]


def test_an_item_that_may_be_none_is_not_changed_by_an_operator():
    assert refusals("action go() {\n let xs: list of int? = [1]\n xs[0] += 1\n}\n") == [
        "an item of 'xs' may be none here, so '+=' may not work on it"]


def test_an_item_of_a_step_s_parameter_is_the_caller_s_and_cannot_be_set():
    found = refusals("step s(xs: list of int) { xs[0] = 1 }\naction go() { s([1]) }\n")
    assert found == ["'xs' is a parameter of step 's': assigning it would change nothing the caller sees"]
