"""`fracas odds A.rules B.rules SCENARIO`: two rules files side by side.

An outcome is compared only with an outcome of the same type: a true/false
outcome in one file and a number in the other are shown apart, and an outcome
one file does not declare is said to be missing, not shown as never happening.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fracas import dsl
from fracas.interpreter import Scenario, exact
from fracas.interpreter.tools import report
from fracas.interpreter.tools.cli import main

BOOL_HIT = """rules "A"
outcome hit: bool = false
outcome extra: int = 0
action attack(n: int) {
    hit = 1d6 >= n
    extra = 1d2
}
"""

INT_HIT = """rules "B"
outcome hit: int = 0
action attack(n: int) {
    hit = if 1d6 >= n then 1 else 0
    hit += 1d2 - 1
}
"""

SCENARIO = 'action = "attack"\nn = 3\n'


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    paths = {}
    for name, text in {"a.rules": BOOL_HIT, "b.rules": INT_HIT, "s.toml": SCENARIO}.items():
        (tmp_path / name).write_text(text)
        paths[name] = str(tmp_path / name)
    return paths


def compare(capsys, first: str, second: str, scenario: str) -> str:
    assert main(["odds", first, second, scenario]) == 0
    return capsys.readouterr().out


def block(out: str, outcome: str) -> list[str]:
    """The lines of one outcome's block: its header and its rows."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split() and line.split()[0] == outcome)
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].startswith(" ")), len(lines))
    return lines[start:end]


def row(lines: list[str], label: str) -> list[str]:
    return next(line for line in lines if line.split() and line.split()[0] == label).split()[1:]


def test_an_outcome_of_different_types_says_so(capsys, files):
    out = compare(capsys, files["a.rules"], files["b.rules"], files["s.toml"])
    assert "types differ: bool in a, int in b" in block(out, "hit")[0]


def test_a_true_row_holds_no_number_of_the_other_file(capsys, files):
    lines = block(compare(capsys, files["a.rules"], files["b.rules"], files["s.toml"]), "hit")
    assert row(lines, "true") == ["66.67%"]
    assert row(lines, "1") == ["50.00%"]
    assert row(lines, "0") == ["16.67%"]


def test_outcomes_of_different_types_get_no_change_in_mean(capsys, files):
    lines = block(compare(capsys, files["a.rules"], files["b.rules"], files["s.toml"]), "hit")
    assert not any("change" in line or line.split()[0] == "mean" for line in lines)


def test_an_outcome_missing_from_one_file_is_not_declared_there(capsys, files):
    lines = block(compare(capsys, files["a.rules"], files["b.rules"], files["s.toml"]), "extra")
    assert "not declared in b" in lines[0]
    assert row(lines, "1") == ["50.00%", "-"]
    assert "0.00%" not in [cell for line in lines for cell in line.split()]


def test_an_outcome_missing_from_the_first_file_is_not_declared_there(capsys, files):
    lines = block(compare(capsys, files["b.rules"], files["a.rules"], files["s.toml"]), "extra")
    assert "not declared in b" in lines[0]
    assert row(lines, "2") == ["-", "50.00%"]


def test_a_certain_truth_and_a_certain_number_are_not_the_same(capsys, tmp_path, files):
    (tmp_path / "yes.rules").write_text('outcome hit: bool = true\naction attack(n: int) { hit = true }\n')
    (tmp_path / "one.rules").write_text('outcome hit: int = 1\naction attack(n: int) { hit = 1 }\n')
    out = compare(capsys, str(tmp_path / "yes.rules"), str(tmp_path / "one.rules"), files["s.toml"])
    assert "certain in every column" not in out
    assert "types differ: bool in yes, int in one" in out


def test_an_int_and_a_number_outcome_are_still_compared(capsys, tmp_path, files):
    (tmp_path / "whole.rules").write_text('outcome hit: int = 0\naction attack(n: int) { hit = 1d2 }\n')
    (tmp_path / "exact.rules").write_text('outcome hit: number = 0\naction attack(n: int) { hit = 1d4 / 2 }\n')
    lines = block(compare(capsys, str(tmp_path / "whole.rules"), str(tmp_path / "exact.rules"), files["s.toml"]),
                  "hit")
    assert row(lines, "1") == ["50.00%", "25.00%"]
    assert row(lines, "mean")[-2:] == ["change", "-0.25"]


def test_rules_that_never_stop_show_every_resolution_running_to_its_end(capsys, tmp_path, files):
    (tmp_path / "stops.rules").write_text(
        'outcome hit: int = 0\naction attack(n: int) { hit = 1d2  if hit == 2 { stop "too much" } }\n')
    (tmp_path / "runs.rules").write_text('outcome hit: int = 0\naction attack(n: int) { hit = 1d2 }\n')
    lines = block(compare(capsys, str(tmp_path / "stops.rules"), str(tmp_path / "runs.rules"), files["s.toml"]),
                  "stopped")
    assert row(lines, "too") == ["much", "50.00%", "0.00%"]
    assert lines[1].split() == ['""', "50.00%", "100.00%"]  # the row of "": not stopped


def test_a_truth_and_a_number_have_no_difference_of_means(files):
    scenario = Scenario("attack", {"n": 3})
    truth, number = (exact(dsl.load(files[name]), scenario) for name in ("a.rules", "b.rules"))
    assert not report.comparable([truth, number], "hit")
    assert not report.comparable([truth, number], "extra")
    assert report.comparable([truth, truth], "hit")


def test_a_scenario_that_does_not_fit_one_of_the_two_rules_files_says_which(capsys, tmp_path):
    (tmp_path / "old.rules").write_text("outcome r: int = 0\naction go() { r = 1d6 }\n")
    (tmp_path / "new.rules").write_text("outcome r: int = 0\naction go() { r = 1d6 }\naction duel() { r = 1d4 }\n")
    (tmp_path / "d.toml").write_text('action = "duel"\n')
    assert main(["odds", str(tmp_path / "old.rules"), str(tmp_path / "new.rules"), str(tmp_path / "d.toml")]) == 2
    assert f"error: action: unknown action 'duel' (with {tmp_path / 'old.rules'})" in capsys.readouterr().err
