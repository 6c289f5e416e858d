"""A value of a thousand digits is a value like any other: reports round it for reading without a float's limit.

The language allows numbers up to the digits limit; a float holds about 308.
Means, spreads, changes and a sweep's values past that are rounded by the
decimal module instead, and the exact values stay whole in CSV and JSON.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from fracas.interpreter.api import approx, as_float
from fracas.interpreter.tools.cli import main

BIG = "1" + "0" * 160  # its square, the variance, is past the largest float


def write(tmp_path, value: str = BIG) -> tuple[str, str]:
    rules = tmp_path / "big.rules"
    rules.write_text(f"param start: int = 1\noutcome n: number = 0\n"
                     f"action go() {{\n n = start * {value}\n if chance(1/2) {{ n = 0 }}\n}}\n")
    scenario = tmp_path / "go.toml"
    scenario.write_text('action = "go"\n')
    return str(rules), str(scenario)


def run(capsys, *args: str) -> tuple[int, str]:
    code = main(list(args))
    return code, capsys.readouterr().out


def test_the_odds_of_a_value_whose_variance_no_float_holds_show_its_mean_and_spread(tmp_path, capsys):
    code, out = run(capsys, "odds", *write(tmp_path))
    assert code == 0 and "mean 5e+159    sd 5e+159" in out


def test_a_mean_past_the_largest_float_is_rounded_as_any_other(tmp_path, capsys):
    code, out = run(capsys, "odds", *write(tmp_path, "1" + "0" * 400 + " / 3"))
    assert code == 0 and "mean 1.667e+399" in out


def test_the_change_of_a_mean_between_two_rules_files_past_the_largest_float(tmp_path, capsys):
    rules, scenario = write(tmp_path, "1" + "0" * 400)
    code, out = run(capsys, "odds", rules, rules, scenario)
    assert code == 0 and "change +0" in out and "5e+399" in out


def test_a_sweep_of_a_mean_past_the_largest_float_shows_each_value(tmp_path, capsys):
    rules, scenario = write(tmp_path, "1" + "0" * 400)
    code, out = run(capsys, "sweep", rules, scenario, "--vary", "params.start=1,2", "--metric", "mean(n)")
    assert code == 0 and "5e+399" in out and "1e+400" in out


def test_a_sweep_in_csv_keeps_the_exact_value_and_rounds_the_decimal_one(tmp_path, capsys):
    rules, scenario = write(tmp_path, "1" + "0" * 400)
    code, out = run(capsys, "sweep", rules, scenario, "--vary", "params.start=2", "--metric", "mean(n)", "--csv")
    row = out.splitlines()[1].split(",")
    assert code == 0 and row[2] == "1" + "0" * 400 and row[3].startswith("1" + "0" * 400 + ".000000")


@pytest.mark.parametrize("value, shown", [(Fraction(10**400, 3), "3.333e+399"), (-10**400, "-1e+400"),
                                          (Fraction(1, 3), "0.3333"), (10**320, "1e+320")])
def test_a_number_is_rounded_to_four_figures_whatever_its_size(value, shown):
    assert approx(value) == shown


def test_past_the_largest_float_a_float_is_an_infinity_of_the_same_sign():
    assert as_float(10**400) == float("inf") and as_float(-10**400) == float("-inf")
    assert as_float(Fraction(1, 4)) == 0.25


@pytest.mark.parametrize("value, shown", [(Fraction(387486025, 387420489), "1.000"),
                                          (Fraction(100002, 1000), "100.0"), (2, "2"), (Fraction(5, 2), "2.5")])
def test_a_number_that_is_not_whole_is_not_shown_as_a_whole_number(value, shown):
    assert approx(value) == shown
