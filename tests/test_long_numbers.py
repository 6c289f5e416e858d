"""Exact probabilities with more digits than Python writes by default (4,300) are shown, written and explained in full."""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction

from fracas import dsl
from fracas.interpreter import Scenario, exact
from fracas.interpreter.api import exact_text, show
from fracas.interpreter.tools.examples import run_examples

LONG = Fraction(2**15000 + 1, 3**9500)  # 4,516 digits over 4,533

RULES = '''rules "Many trials"
outcome hit: bool = false
action try_hard() {
    hit = trials(9500, 1/3) > 3200
}
example "a probability of thousands of digits, expected wrongly" {
    run try_hard()
    expect prob(hit) == 1/2
}
'''


def test_a_fraction_of_thousands_of_digits_is_written_in_full():
    numerator, denominator = exact_text(LONG).split("/")  # read back as decimals: int() has the same limit
    assert Decimal(numerator) == Decimal(LONG.numerator) and Decimal(denominator) == Decimal(LONG.denominator)
    assert show(LONG) == exact_text(LONG) and show(LONG.denominator) == denominator


def test_a_short_number_is_written_as_python_writes_it():
    assert exact_text(Fraction(1, 3)) == "1/3" and exact_text(-12) == "-12" and show(7) == "7"


def test_odds_of_thousands_of_digits_are_written_in_full_as_json():
    odds = exact(dsl.loads(RULES), Scenario("try_hard", {}))
    written = json.loads(json.dumps(odds.as_json()))
    numerator, denominator = written["outcomes"]["hit"]["distribution"]["true"].split("/")
    p = odds.marginal("hit")[True]
    assert Decimal(numerator) == Decimal(p.numerator) and Decimal(denominator) == Decimal(p.denominator)
    assert len(denominator) > 4300


def test_an_expectation_that_fails_on_such_a_probability_is_explained_not_broken():
    [result] = run_examples(dsl.loads(RULES))
    assert not result.passed
    assert "prob(hit)" in result.message and "(0." in result.message


def test_the_odds_table_with_fractions_and_the_ways_of_an_outcome_write_such_a_probability_in_full(tmp_path, capsys):
    from fracas.interpreter.tools.cli import main

    rules, scenario = tmp_path / "many.rules", tmp_path / "many.toml"
    rules.write_text(RULES)
    scenario.write_text('action = "try_hard"\n')
    for command in (["odds", "--fractions"], ["explain", "--why", "hit=true", "--fractions"]):
        assert main([*command, str(rules), str(scenario)]) == 0
        out, err = capsys.readouterr()
        assert "internal error" not in err and max(map(len, out.split())) > 4300
