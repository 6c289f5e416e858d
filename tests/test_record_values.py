"""A record written in the rules is a value: `fracas check` refuses to change its fields, as every run would.

Only the scenario's things change (an action's inputs and what they hold). A
local given a record `{hp: 3}` holds a value, until it is given something else.
"""

from __future__ import annotations

import pytest

from fracas import dsl
from fracas.dsl.diagnostics import RulesError

BASE = """rules "records"
kind creature { hp: int = 20  tags: list of int = [] }
outcome r: int = 0
"""


def problems(body: str) -> list[str]:
    try:
        dsl.loads(BASE + body, "records.rules")
    except RulesError as error:
        return [f"{d.line}: {d.message}" for d in error.diagnostics]
    return []


def test_a_field_of_a_record_given_to_an_input_cannot_change():
    found = problems("action a1(c: creature) {\n    c = {hp: 3}\n    c.hp -= 1\n    r = c.hp\n}\n")
    assert found == ["6: 'c' holds a record written in the rules (line 5): a record is a value, and its fields "
                     "never change"]


def test_a_field_of_a_local_record_cannot_change():
    assert problems("action a1() {\n    let c: creature = {hp: 3}\n    c.hp = 1\n}\n") == [
        "6: 'c' holds a record written in the rules (line 5): a record is a value, and its fields never change"]


def test_an_item_of_a_record_s_list_cannot_change_either():
    assert len(problems("action a1() {\n    let c: creature = {tags: [1]}\n    c.tags[0] = 2\n}\n")) == 1


def test_a_record_passed_on_from_a_local_or_by_one_branch_is_refused_too():
    found = problems("action a1(c: creature) {\n    let d: creature = {hp: 1}\n    c = if r > 0 then c else d\n"
                     "    c.hp -= 1\n}\n")
    assert found == ["7: 'c' holds a record written in the rules (line 5): a record is a value, and its fields "
                     "never change"]


def test_a_local_given_a_thing_again_may_change_it():
    assert problems("action a1(c: creature, d: creature) {\n    let e: creature = {hp: 3}\n    e = d\n"
                    "    e.hp -= 1\n    r = c.hp\n}\n") == []


def test_an_input_s_own_fields_change_as_always():
    rules = dsl.loads(BASE + "action a1(c: creature) {\n    c.hp -= 1\n    r = c.hp\n}\n")
    assert "a1" in rules.actions


@pytest.mark.parametrize("held, body", [
    ("outcome", "action a1() {\n    r += 1/2\n}\n"),
    ("local", "action a1() {\n    let x = 1\n    x += 1/2\n    r = x\n}\n"),
    ("field", "action a1(c: creature) {\n    c.hp += 1/2\n}\n"),
    ("input", "action a1(n: int) {\n    n += 1/2\n    r = n\n}\n"),
    ("item", "outcome xs: list of int = [0]\naction a1() {\n    xs[0] += 1/2\n}\n"),
])
def test_a_fraction_added_to_an_int_names_what_holds_it(held, body):
    [found] = problems(body)
    assert found.endswith(f"an int {held} cannot take a fraction")


def test_an_unknown_function_gives_one_error_not_a_cascade():
    found = problems("action a1() {\n    let amount = rol(1, 8) + 3\n    r += min(amount, 10)\n}\n")
    assert found == ["5: unknown function 'rol'"]


def test_a_record_given_in_one_branch_is_not_held_in_the_other():
    assert problems("action a1(a: creature) {\n    let d: creature = a\n    if a.hp <= 0 {\n        d = {hp: 0}\n"
                    "    } else {\n        d.hp -= 1\n    }\n    r = d.hp\n}\n") == []


@pytest.mark.parametrize("leave", ["return", 'stop "done"'])
def test_a_record_given_in_a_branch_that_leaves_is_not_held_after_it(leave):
    assert problems("action a1(a: creature) {\n    let d: creature = a\n    if a.hp == 0 {\n        d = {hp: 0}\n"
                    f"        r = d.hp\n        {leave}\n    }}\n    d.hp -= 1\n    r = d.hp\n}}\n") == []


@pytest.mark.parametrize("then, otherwise", [("d = {hp: 0}", "d = b"), ("d = b", "d = {hp: 0}")])
def test_a_record_either_branch_may_leave_is_held_after_the_if(then, otherwise):
    found = problems(f"action a1(a: creature, b: creature) {{\n    let d: creature = a\n"
                     f"    if a.hp > 5 {{ {then} }} else {{ {otherwise} }}\n    d.hp -= 1\n    r = d.hp\n}}\n")
    assert found == ["7: 'd' holds a record written in the rules (line 6): a record is a value, and its fields "
                     "never change"]


def test_a_record_a_loop_may_leave_is_held_after_it():
    found = problems("action a1(a: creature) {\n    let d: creature = a\n    for i in range(2) {\n"
                     "        d = {hp: i}\n    }\n    d.hp -= 1\n}\n")
    assert found and found[0].startswith("9: 'd' holds a record written in the rules (line 7)")


def test_a_record_given_to_a_let_of_no_kind_is_told_the_kind_to_say():
    with pytest.raises(RulesError) as caught:
        dsl.loads(BASE + "action a1() {\n    let c = {hp: 3}\n    r = c.hp\n}\n", "records.rules")
    [found] = caught.value.diagnostics
    assert (found.line, found.message, found.hint) == (5, "a record needs a known kind here",
                                                        "say its kind in the let: let c: creature = {...}")
