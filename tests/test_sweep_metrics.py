"""A sweep's metric is read like an example's `expect` line, and its intervals are honest.

The metric names outcomes, reads them through prob, mean, always, never and
possible, and gives one number (or one truth) per case. A metric that cannot
be is refused with its place in the metric text, before any case runs.
"""

from __future__ import annotations

import csv
import io
import math
from fractions import Fraction
from pathlib import Path

import pytest

from fracas import dsl
from fracas.dsl.diagnostics import RulesError
from fracas.interpreter.tools import sweep as sweep_module
from fracas.interpreter.tools.cli import main
from fracas.interpreter.tools.sweep import metric_expression

ROOT = Path(__file__).resolve().parent.parent
EPI = str(ROOT / "rules" / "epicinium.rules")
CITY = str(ROOT / "rules" / "scenarios" / "epicinium-riflemen-vs-city.toml")
TWO_CASES = ["--vary", "target.type=rifleman,gunner", "--jobs", "1"]
SAMPLED = ["--limit", "states=2"]  # beyond the exact engine: every case is estimated


def sweep(capsys, metric: str, *extra: str) -> tuple[int, str, str]:
    code = main(["sweep", EPI, CITY, *TWO_CASES, "--metric", metric, *extra])
    out, err = capsys.readouterr()
    return code, out, err


def sweep_rows(capsys, metric: str, *extra: str) -> list[dict[str, str]]:
    code, out, err = sweep(capsys, metric, "--csv", *extra)
    assert code == 0, err
    return list(csv.DictReader(io.StringIO(out)))


# ---- the metric is checked like an expect line


def test_a_number_where_prob_needs_a_condition_is_refused_at_its_place(capsys):
    code, out, err = sweep(capsys, "prob(figures_lost)")
    assert code == 2 and out == ""
    assert "--metric:1:6: error: expected bool, found int" in err


def test_a_bad_metric_stops_before_any_case_runs(capsys, monkeypatch):
    def no_case(job):
        raise AssertionError("a case ran")

    monkeypatch.setattr(sweep_module, "run_case", no_case)
    code, _, err = sweep(capsys, "prob(figures_lost)")
    assert code == 2 and "expected bool, found int" in err


def test_a_metric_that_rolls_dice_is_refused_at_the_roll_before_any_case_runs(capsys, monkeypatch):
    def no_case(job):
        raise AssertionError("a case ran")

    monkeypatch.setattr(sweep_module, "run_case", no_case)
    code, out, err = sweep(capsys, "mean(figures_lost) + roll(1, 6)")
    assert code == 2 and out == ""
    assert "--metric:1:22: error: an expectation cannot roll dice" in err


@pytest.mark.parametrize("metric, found", [("stopped", "a text"), ("[1, 2]", "a list of int"), ("none", "none")])
def test_a_metric_must_be_a_number_or_a_condition(capsys, metric, found):
    code, _, err = sweep(capsys, metric)
    assert code == 2
    assert f"--metric:1:1: error: a metric is a number or a condition, not {found}" in err
    assert "Fraction" not in err and "Rational" not in err


def test_a_metric_reading_a_text_through_mean_is_refused(capsys):
    code, _, err = sweep(capsys, "mean(stopped)")
    assert code == 2 and "--metric:1:6: error: expected number, found text" in err


def test_an_unknown_name_in_the_metric_is_located_with_a_hint(capsys):
    code, _, err = sweep(capsys, "mean(figures_lots)")
    assert code == 2
    assert "--metric:1:6: error: unknown name 'figures_lots'" in err and "figures_lost" in err


def test_an_outcome_outside_any_aggregate_is_refused_when_the_metric_has_one(capsys):
    code, _, err = sweep(capsys, "mean(figures_lost) + figures_lost")
    assert code == 2
    assert "--metric:1:22: error: 'figures_lost' outside prob, mean" in err


def test_the_metric_check_raises_a_located_rules_error():
    rules = dsl.load(EPI)
    with pytest.raises(RulesError) as caught:
        metric_expression("prob(figures_lost)", rules, "targeted_attack")
    (diagnostic,) = caught.value.diagnostics
    assert (diagnostic.path, diagnostic.line, diagnostic.column) == ("--metric", 1, 6)


# ---- what a well-formed metric computes


def test_a_bare_condition_means_its_probability(capsys):
    rows = sweep_rows(capsys, "figures_lost == 3")
    assert Fraction(rows[0]["value"]) == Fraction(97, 1152)


def test_a_bare_number_means_its_mean(capsys):
    rows = sweep_rows(capsys, "figures_lost")
    assert Fraction(rows[0]["value"]) == Fraction(673, 384)


def test_a_metric_may_read_the_action_inputs_as_an_expect_line_can(capsys):
    rows = sweep_rows(capsys, "mean(target.figures)")
    assert Fraction(rows[0]["value"]) == 3 - Fraction(673, 384)


@pytest.mark.parametrize("metric, titled", [("figures_lost", "mean(figures_lost)"),
                                            ("figures_lost > 1", "prob(figures_lost > 1)"),
                                            ("mean(figures_lost) * 2", "mean(figures_lost) * 2")])
def test_a_bare_metric_is_titled_by_what_is_worked_out_its_mean_or_its_probability(capsys, metric, titled):
    code, out, _ = sweep(capsys, metric)
    assert code == 0 and out.splitlines()[0] == f"{titled} over target.type"


def test_a_metric_may_do_arithmetic_on_aggregates(capsys):
    rows = sweep_rows(capsys, "prob(figures_lost == 3) - 1")
    assert Fraction(rows[0]["value"]) == Fraction(97, 1152) - 1


# ---- intervals of estimated cases


def test_an_estimated_metric_of_several_terms_has_a_finite_interval(capsys):
    rows = sweep_rows(capsys, "prob(figures_lost == 3) - 1", *SAMPLED, "--samples", "400")
    margins = [float(r["margin_95"]) for r in rows]
    assert all(r["estimated"] == "true" for r in rows)
    assert all(math.isfinite(m) and m > 0 for m in margins)


def test_shifting_a_metric_by_a_constant_keeps_its_interval(capsys):
    shifted = sweep_rows(capsys, "prob(figures_lost == 3) - 1", *SAMPLED, "--samples", "400")
    plain = sweep_rows(capsys, "prob(figures_lost == 3)", *SAMPLED, "--samples", "400")
    assert [float(r["margin_95"]) for r in shifted] == pytest.approx([float(r["margin_95"]) for r in plain])


def test_the_interval_of_a_mean_follows_the_spread_of_the_samples(capsys):
    rows = sweep_rows(capsys, "mean(figures_lost)", *SAMPLED, "--samples", "400")
    # The exact sd of figures_lost is 0.5955: 1.96 * 0.5955 / sqrt(400) is about 0.058.
    assert float(rows[0]["margin_95"]) == pytest.approx(0.058, abs=0.01)


def test_one_sample_gives_no_interval(capsys):
    rows = sweep_rows(capsys, "mean(figures_lost)", *SAMPLED, "--samples", "1")
    assert [(r["estimated"], r["margin_95"]) for r in rows] == [("true", ""), ("true", "")]


def test_one_sample_shows_no_zero_width_interval(capsys):
    code, out, _ = sweep(capsys, "mean(figures_lost)", *SAMPLED, "--samples", "1")
    assert code == 0
    assert "±" not in out.split("\n~")[0] and "~" in out
    assert "fewer than 2 samples" in out


def test_an_estimated_yes_or_no_metric_has_no_interval(capsys):
    rows = sweep_rows(capsys, "always(figures_lost >= 1)", *SAMPLED, "--samples", "50")
    assert [(r["estimated"], r["margin_95"]) for r in rows] == [("true", ""), ("true", "")]


@pytest.mark.parametrize("samples", ["1", "2", "400"])
def test_no_cell_is_ever_nan(capsys, samples):
    code, out, _ = sweep(capsys, "prob(figures_lost == 3) - 1", *SAMPLED, "--samples", samples)
    assert code == 0 and "nan" not in out.lower()


SWEPT = 'param mode = 0\noutcome r: int = 0\naction a() {\n    if mode == 1 { r = floor(1 / (mode - 1)) }\n}\n'


def test_a_case_that_fails_in_the_rules_is_shown_where_it_failed(capsys, tmp_path):
    rules, scenario = tmp_path / "sw.rules", tmp_path / "go.toml"
    rules.write_text(SWEPT)
    scenario.write_text('action = "a"\n')
    assert main(["sweep", str(rules), str(scenario), "--vary", "params.mode=0,1", "--jobs", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"fracas: error: sweep: the case params.mode=1 failed:\n"
                          f"{rules}:4:30: error: division by zero\n")


def test_a_metric_that_fails_on_a_case_is_shown_in_the_metric(capsys, tmp_path):
    rules, scenario = tmp_path / "sw.rules", tmp_path / "go.toml"
    rules.write_text(SWEPT)
    scenario.write_text('action = "a"\n')
    assert main(["sweep", str(rules), str(scenario), "--vary", "params.mode=0", "--metric", "1/0", "--jobs", "1"]) == 2
    assert capsys.readouterr().err.startswith("fracas: error: sweep: the case params.mode=0 failed:\n"
                                              "--metric:1:1: error: division by zero\n")


def test_an_empty_metric_is_refused_not_taken_for_the_default(capsys):
    assert main(["sweep", EPI, CITY, *TWO_CASES, "--metric", " "]) == 2
    assert "--metric is empty" in capsys.readouterr().err


def test_a_sampled_metric_on_which_every_run_agreed_has_no_margin(tmp_path, capsys):
    (tmp_path / "r.rules").write_text("param p: number = 1/50\noutcome hit: bool = false\n"
                                      "action go() { hit = chance(p) }\n")
    (tmp_path / "go.toml").write_text('action = "go"\n')
    assert main(["sweep", str(tmp_path / "r.rules"), str(tmp_path / "go.toml"), "--vary", "params.p=1/1000000",
                 "--metric", "prob(hit)", "--samples", "200", "--limit", "states=1"]) == 0
    out = capsys.readouterr().out
    assert "~0" in out and "±0" not in out and "or where every run agreed" in out


def test_a_case_past_the_exact_engine_s_work_limit_is_estimated_by_sampling(tmp_path, capsys):
    (tmp_path / "r.rules").write_text("param n = 60\noutcome a: int = 0\noutcome b: int = 0\n"
                                      "outcome ahead: bool = false\naction go() {\n for i in range(n) {\n"
                                      "  a += 1d6\n  b += 1d6\n }\n ahead = a > b\n}\n")
    (tmp_path / "go.toml").write_text('action = "go"\n')
    assert main(["sweep", str(tmp_path / "r.rules"), str(tmp_path / "go.toml"), "--vary", "params.n=2,60",
                 "--metric", "prob(ahead)", "--samples", "300"]) == 0
    out = capsys.readouterr().out
    assert "\n2            " in out and "60        ~" in out and "state or work limit" in out
