"""An outcome of many values shows the unlikely values at either end of its table as one line each."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fracas.interpreter.tools.cli import main

EXPLODING = "outcome o: int = 0\naction go() { o = explode(2, 6, 12) }\n"


def odds(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, *flags: str) -> str:
    rules = tmp_path / "tails.rules"
    rules.write_text(text)
    assert main(["odds", str(rules), *flags]) == 0
    return capsys.readouterr().out


def test_the_values_past_the_last_one_of_at_least_a_hundredth_of_a_percent_are_one_line(tmp_path, capsys):
    lines = odds(tmp_path, capsys, EXPLODING).splitlines()
    assert lines[-1].split() == ["40..156", "<0.01%", "0.01%", "(117", "values,", "0.01%", "together)"]
    assert lines[-2].split()[:2] == ["39", "0.01%"]


def test_an_outcome_of_few_values_shows_each_however_unlikely(tmp_path, capsys):
    out = odds(tmp_path, capsys, "outcome o: int = 0\naction go() { o = explode(1, 2, 18) }\n")  # 20 values
    assert ".." not in out and out.count("<0.01%") >= 5


def test_an_outcome_of_a_few_dozen_values_gathers_its_unlikely_end_too(tmp_path, capsys):
    lines = odds(tmp_path, capsys, "outcome o: int = 0\naction go() { o = explode(1, 6, 6) }\n").splitlines()  # 36
    assert lines[-1].split() == ["31..42", "<0.01%", "0.01%", "(11", "values,", "0.01%", "together)"]


def test_fractions_json_and_csv_keep_every_value(tmp_path, capsys):
    assert ".." not in odds(tmp_path, capsys, EXPLODING, "--fractions")
    assert len(json.loads(odds(tmp_path, capsys, EXPLODING, "--json"))["outcomes"]["o"]["distribution"]) == 155
    assert "156" in odds(tmp_path, capsys, EXPLODING, "--csv")


def test_a_comparison_gathers_the_values_at_either_end_below_a_hundredth_of_a_percent_in_every_column(tmp_path, capsys):
    text = "choice deep: bool = false\n" + EXPLODING.replace("o = explode(2, 6, 12)",
                                                          "o = if deep then explode(2, 6, 12) else roll(2, 6)")
    rows = odds(tmp_path, capsys, text, "--each-choice", "deep").splitlines()
    assert rows[rows.index("o") + 1].split() == ["2", "2.78%", "2.78%"]
    [gathered] = [row for row in rows if ".." in row]
    assert gathered.split() == ["40..156", "0.00%", "0.01%", "(117", "values)"]


def test_a_value_too_unlikely_for_a_block_of_the_bar_shows_a_sliver(tmp_path, capsys):
    out = odds(tmp_path, capsys, "outcome o: int = 0\naction go() { o = explode(1, 6, 6) }\n")
    rows = {row.split()[0]: row for row in out.splitlines() if row.strip() and row.split()[0].isdigit()}
    assert rows["1"].endswith("█") and rows["29"].endswith("▏")


def test_an_outcome_that_is_sometimes_none_gathers_its_numbers_tails_and_shows_none_apart(tmp_path, capsys):
    out = odds(tmp_path, capsys, "outcome o: int? = none\n"
               "action go() { o = if chance(1/2) then none else explode(2, 6, 12) }\n")
    rows = [row.split() for row in out.splitlines() if row.startswith("  ")]
    assert rows[1][:2] == ["none", "50.00%"] and rows[-1][0] == "37..156"


def test_an_outcome_that_is_sometimes_none_gathers_a_low_tail_after_none_too(tmp_path, capsys):
    out = odds(tmp_path, capsys, "outcome o: int? = none\n"
               "action go() { o = if chance(1/2) then none else 200 - explode(2, 6, 12) }\n")
    rows = [row.split() for row in out.splitlines() if row.startswith("  ")]
    assert rows[1][:2] == ["none", "50.00%"] and rows[2][0] == "44..163"


def test_a_joint_grid_gathers_its_rows_at_either_end_below_a_hundredth_of_a_percent(tmp_path, capsys):
    text = "outcome a: int = 0\noutcome b: int = 0\naction go() {\n    a = explode(1, 6, 8)\n    b = roll(1, 3)\n}\n"
    lines = odds(tmp_path, capsys, text, "--joint", "a,b").splitlines()
    assert lines[-1].split() == ["31..54", "<0.01%", "<0.01%", "<0.01%"]
    assert lines[-2].split()[0] == "29"
