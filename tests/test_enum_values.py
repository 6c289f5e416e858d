"""An enum's values are its rows: a table given for one would make a value equal to none of them.

Such a value once ran silently (every comparison with a row false), so an
attack given `role = {}` missed every time. It is refused where it is written:
in a scenario, by a choice, and in the rules.
"""

from __future__ import annotations

import pytest

from fracas import dsl
from fracas.dsl.diagnostics import RulesError
from fracas.interpreter import Scenario, ScenarioError, exact

STANCES = """enum stance { hold charge }
choice order: stance = hold "what the commander orders"
outcome which: text = ""
action fight(s: stance) {
    which = if s == hold then "hold" else if s == charge then "charge" else "neither"
}
"""


def refused(scenario: Scenario) -> str:
    with pytest.raises(ScenarioError) as caught:
        exact(dsl.loads(STANCES, "t.rules"), scenario)
    return caught.value.diagnostics[0].message


def test_an_enum_input_given_as_a_table_is_refused_with_its_rows():
    assert refused(Scenario("fight", {"s": {}})) == "s: expected a stance (one of hold, charge), found a table"


def test_a_choice_of_an_enum_given_as_a_table_is_refused():
    assert refused(Scenario("fight", {"s": "hold"}, choices={"order": {}})) == (
        "choices.order: expected a stance (one of hold, charge), found a table")


def test_an_enum_input_given_by_a_row_name_runs():
    assert exact(dsl.loads(STANCES, "t.rules"), Scenario("fight", {"s": "charge"})).marginal("which") == {"charge": 1}


def test_a_record_written_for_an_enum_in_the_rules_is_a_checker_error():
    with pytest.raises(RulesError) as caught:
        dsl.loads(STANCES + 'example "E" { run fight(s: {})  expect which == "neither" }\n', "t.rules")
    found = caught.value.diagnostics[0]
    assert (found.line, found.message) == (7, "a stance is one of its rows (hold, charge), not a record")


def test_a_field_of_a_whole_number_is_refused_with_the_right_article():
    with pytest.raises(RulesError) as caught:
        dsl.loads("outcome x: int = 0\naction go(n: int) { x = n.size }\n", "t.rules")
    assert caught.value.diagnostics[0].message == "an int has no field 'size'"


BUILTIN_WORDS = """enum damage_type { slashing fire cold }
enum roll_mode { normal advantage disadvantage }
table resist(damage_type, roll_mode): int default 0 {
           [normal  advantage  disadvantage]
    fire        1          2             3
}
outcome r: int = 0
outcome lost: int = 0
action strike(t: damage_type = fire, mode: roll_mode = normal) {
    r = resist[t, mode] + (if t == fire then 10 else 0)
    lost = lethal(fire(volley(3), bodies(2, 1)))
}
"""


def test_an_enum_value_may_bear_a_builtin_s_name_which_is_still_called_as_before():
    rules = dsl.loads(BUILTIN_WORDS, "words.rules")
    odds = exact(rules, Scenario("strike", {"t": "fire", "mode": "advantage"}))
    assert odds.marginal("r") == {12: 1} and odds.marginal("lost") == {2: 1}
    assert exact(rules, Scenario("strike", {"t": "cold"})).marginal("r") == {0: 1}


def test_a_fn_may_not_bear_a_builtin_s_name():
    with pytest.raises(RulesError) as caught:
        dsl.loads("fn fire(x: int) = x\n", "fn.rules")
    assert caught.value.diagnostics[0].message == "'fire' is the name of a builtin function"
