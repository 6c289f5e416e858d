"""Percentages as rulebooks write them: 60% is exactly 60/100, in rules, tables and inputs."""

from __future__ import annotations

from fractions import Fraction

import pytest

from fracas import dsl
from fracas.dsl.diagnostics import RulesError
from fracas.interpreter import Scenario, exact

RULES = """
param hit_chance: number = 60%
outcome result: number = 0
action go() { result = hit_chance }
"""


def result(text: str, params: dict | None = None) -> Fraction:
    rules = dsl.loads(text, "p.rules")
    return next(iter(exact(rules, Scenario("go", {}, params or {})).marginal("result")))


def test_a_percentage_is_the_exact_fraction():
    assert result(RULES) == Fraction(3, 5)


def test_a_decimal_percentage_is_exact_too():
    assert result(RULES.replace("60%", "12.5%")) == Fraction(1, 8)


def test_a_percentage_is_a_number_in_every_expression():
    assert result("outcome result: number = 0\naction go() { result = -5% + 2 * 50% }\n") == Fraction(19, 20)


def test_a_percentage_is_the_chance_of_a_trial():
    rules = dsl.loads("outcome hit: bool = false\naction go() { hit = chance(25%) }\n", "p.rules")
    assert exact(rules, Scenario("go", {})).marginal("hit") == {False: Fraction(3, 4), True: Fraction(1, 4)}


def test_a_table_may_hold_percentages():
    text = ("enum a { x }\nenum b { u v }\ntable t(a, b): number default 0% {\n  [u v]\n  x 10% -2.5%\n}\n"
            "outcome result: number = 0\naction go() { result = t[x, u] + t[x, v] }\n")
    assert result(text) == Fraction(1, 10) - Fraction(1, 40)


@pytest.mark.parametrize("given", ["25%", "0.5%"])
def test_a_scenario_or_flag_may_give_a_percentage_as_text(given):
    assert result(RULES, {"hit_chance": given}) == Fraction(given[:-1]) / 100


def test_a_percent_sign_apart_from_its_number_says_how_to_write_it():
    with pytest.raises(RulesError) as caught:
        dsl.loads("outcome r: number = 0\naction go() { r = 60 % }\n", "p.rules")
    (problem,) = caught.value.diagnostics
    assert (problem.line, problem.column, problem.message) == (2, 22, "unexpected character '%'")
    assert problem.hint == "a percentage is written right after its number, with no space: 60%; % means nothing else"


def test_a_percentage_into_an_int_asks_for_rounding():
    with pytest.raises(RulesError) as caught:
        dsl.loads("param p: int = 50%\n", "p.rules")
    assert caught.value.diagnostics[0].message == "expected int, found number"


def test_a_diff_shows_a_percentage_as_written_and_the_same_value_written_otherwise_as_no_change():
    from fracas.dsl.diff import compare

    (change,) = compare(dsl.loads(RULES, "a.rules"), dsl.loads(RULES.replace("60%", "65%"), "b.rules"))
    assert change.details == ("value: 60% -> 65%",)
    assert compare(dsl.loads(RULES, "a.rules"), dsl.loads(RULES.replace("60%", "0.6"), "b.rules")) == []
