"""A value that may be none is used as a number, a thing or a list only where the rules checked it.

`fracas check` finds what used to fail at run time ("cannot compare none"),
and follows the checks a rulebook writes: inside `if x != none { ... }`, on
the right of `x != none and ...`, after `if x == none { return }`.
"""

from __future__ import annotations

import pytest

from fracas import dsl
from fracas.dsl.diagnostics import RulesError

HEADER = """
kind piece_type { size: int  upgrade: piece_type? = none }
piece_type pawn { size 1  upgrade knight }
piece_type knight { size 3 }
kind piece { type: piece_type  bonus: int? = none }
outcome result: int = 0
step clear(p: piece) { p.bonus = none }
"""


def problems(body: str) -> list[tuple[int, str]]:
    text = HEADER + "action go(p: piece, x: int? = none) {\n" + body + "\n}\n"
    try:
        dsl.loads(text, "o.rules")
    except RulesError as error:
        return [(d.line - HEADER.count("\n") - 1, d.message) for d in error.diagnostics]
    return []


@pytest.mark.parametrize("body", [
    "if x > 3 { result = 1 }",
    "result = x + 1",
    "result = -x",
    "result = max(x, 1)",
    "result = floor(x)",
])
def test_an_optional_number_used_as_a_number_must_be_checked(body):
    assert problems(body) == [(1, "'x' may be none here")]


def test_the_hint_names_the_check_to_write():
    with pytest.raises(RulesError) as caught:
        dsl.loads(HEADER + "action go(x: int? = none) { result = x }\n", "o.rules")
    assert caught.value.diagnostics[0].hint == (
        "check it first: inside 'if x != none { ... }', after 'x != none and', or after 'if x == none { return }'; "
        "a check holds until the place is set again (through any name that may hold the same thing) "
        "or a step is called")


def test_a_call_is_worked_out_anew_each_time_so_the_hint_says_to_take_its_value_first():
    text = HEADER + "fn maybe(): int? = if chance(1/2) then 3 else none\n"
    with pytest.raises(RulesError) as caught:
        dsl.loads(text + "action go() { if maybe() != none { result = maybe() + 1 } }\n", "o.rules")
    assert caught.value.diagnostics[0].hint == (
        "take its value first and check that: let v = maybe(), then 'if v != none { ... }'")


def test_a_field_of_an_optional_thing_must_be_checked():
    assert problems("result = p.type.upgrade.size") == [(1, "'p.type.upgrade' may be none here")]


def test_comparing_with_none_is_how_it_is_checked():
    assert problems("if x == none or x != 3 { result = 1 }") == []


@pytest.mark.parametrize("body", [
    "if x != none { result = x + 1 }",
    "if x != none and x > 3 { result = 2 }",
    "if x == none or x > 3 { result = 2 }",
    "if not (x == none) { result = x }",
    "result = if x != none then x else 0",
    "if x == none { result = 0 } else { result = x }",
    "if p.type.upgrade != none { result = p.type.upgrade.size }",
    "result = sum([y for y in [x, 1] if y != none])",
])
def test_inside_the_check_the_value_is_known_not_none(body):
    assert problems(body) == []


@pytest.mark.parametrize("leave", ["return", 'stop "nothing to do"'])
def test_after_leaving_when_none_the_rest_of_the_block_knows_it(leave):
    assert problems(f"if x == none {{ {leave} }}\nresult = x + 1") == []


def test_after_an_else_that_leaves_the_rest_knows_it_too():
    assert problems('if x != none { result = 1 } else { stop "none" }\nresult = x') == []


def test_assigning_a_value_that_may_be_none_undoes_the_check():
    assert problems("if x != none { x = p.bonus\n result = x }") == [(2, "'x' may be none here")]


def test_assigning_a_number_makes_it_known():
    assert problems("x = 3\nresult = x") == []


def test_a_step_called_in_between_may_have_changed_a_field():
    assert problems("if p.bonus != none { clear(p)\n result = p.bonus }") == [(2, "'p.bonus' may be none here")]


@pytest.mark.parametrize("body", [
    "let q = p\nif p.bonus != none { q.bonus = none\n result += p.bonus }",
    "if p.bonus != none { for q in [p] { q.bonus = none }\n result += p.bonus }",
    "let q = p\nif p.type.upgrade != none { q.type = pawn\n result += p.type.upgrade.size }",
])
def test_setting_the_same_field_through_another_name_undoes_the_check(body):
    # The other name may hold the very same thing: after it, what was checked may be none.
    assert len(problems(body)) == 1 and problems(body)[0][1].endswith("may be none here")


def test_a_step_given_one_thing_twice_cannot_rely_on_a_check_of_the_one_through_the_other():
    text = HEADER + ("step duel(a: piece, b: piece) { if a.bonus != none { b.bonus = none\n result += a.bonus } }\n"
                     "action go(p: piece) { duel(p, p) }\n")
    with pytest.raises(RulesError) as caught:
        dsl.loads(text, "o.rules")
    assert [d.message for d in caught.value.diagnostics] == ["'a.bonus' may be none here"]


def test_setting_a_field_of_another_name_keeps_the_check_of_other_fields():
    assert problems("let q = p\nif p.bonus != none { q.type = pawn\n result += p.bonus }") == []


def test_a_loop_that_makes_it_none_again_undoes_the_check_before_its_next_pass():
    body = "if p.bonus == none { return }\nfor i in range(2) { result += p.bonus\n p.bonus = none }"
    assert problems(body) == [(2, "'p.bonus' may be none here")]


@pytest.mark.parametrize("body", [
    "if x != none { for x in [x, none] { result += x } }",
    "if x == none { return }\nfor x in [1, none] { result += x }",
    "if x != none { result = sum([x + 1 for x in [1, none]]) }",
])
def test_a_loop_s_name_that_reuses_a_checked_name_is_not_checked(body):
    assert [message for _, message in problems(body)] == ["'x' may be none here"]


def test_a_loop_s_name_that_reuses_a_thing_s_name_knows_nothing_of_its_fields():
    body = "let ps: list of piece = [p]\nif p.bonus != none { for p in ps { result += p.bonus } }"
    assert [message for _, message in problems(body)] == ["'p.bonus' may be none here"]


def test_an_optional_value_passed_where_a_thing_is_wanted_must_be_checked():
    text = HEADER + "step grow(t: piece_type) { result += t.size }\naction go(p: piece) {\n    grow(p.type.upgrade)\n}\n"
    with pytest.raises(RulesError) as caught:
        dsl.loads(text, "o.rules")
    assert [d.message for d in caught.value.diagnostics] == ["'p.type.upgrade' may be none here"]


def test_a_modifier_term_reads_its_amount_only_when_its_condition_holds():
    text = HEADER + "modifier m(v: int, extra: int? = none) { add extra when extra != none }\n"
    dsl.loads(text, "o.rules")


def test_none_may_be_looked_for_in_a_list():
    assert problems("if x in [1, 2] { result = 1 }") == []


@pytest.mark.parametrize("reduce", ["min", "max"])
def test_the_least_or_greatest_of_a_list_that_may_hold_none_is_refused(reduce):
    text = HEADER + f"action go() {{ let xs: list of int? = [1, none]\n result = {reduce}(xs) }}\n"
    with pytest.raises(RulesError) as caught:
        dsl.loads(text, "o.rules")
    assert caught.value.diagnostics[0].message == f"'{reduce}' needs numbers, not a list of int?"
    assert "[x for x in xs if x != none]" in caught.value.diagnostics[0].hint


def test_the_numbers_of_such_a_list_kept_first_have_their_least():
    assert problems("let xs: list of int? = [1, none]\nresult = min([y for y in xs if y != none])") == []
