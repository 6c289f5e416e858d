"""Results named by an enum are listed in the order the rules declare them, as a designer lists them.

An injury table reads unhurt, stunned, ko, casualty: so do the odds, the JSON,
the joint rows, a side-by-side comparison and a plot's axis; never alphabetically.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fracas import dsl
from fracas.interpreter import Scenario, exact
from fracas.interpreter.tools import plots, report
from fracas.interpreter.tools.cli import main

INJURY = """rules "Injuries"
enum injury { unhurt stunned ko casualty }
choice tough: bool = false
outcome hurt: injury = unhurt
outcome worst: injury? = none
action roll_injury() {
    let r = 2d6 - (if tough then 1 else 0)
    hurt = if r >= 10 then casualty else if r >= 8 then ko else if r >= 4 then stunned else unhurt
    worst = if r >= 11 then casualty else none
}
"""

DECLARED = ["unhurt", "stunned", "ko", "casualty"]


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "injury.rules").write_text(INJURY)
    (tmp_path / "s.toml").write_text('action = "roll_injury"\n')
    return str(tmp_path / "injury.rules"), str(tmp_path / "s.toml")


def shown_values(text: str, outcome: str) -> list[str]:
    lines = text.splitlines()
    start = lines.index(outcome) + 2
    return [line.split()[0] for line in lines[start:start + 4]]


def test_the_odds_table_lists_an_enum_s_values_as_declared():
    text = report.odds_table(exact(dsl.loads(INJURY), Scenario("roll_injury", {})))
    assert shown_values(text, "hurt") == DECLARED


def test_the_json_gives_them_in_the_same_order(files, capsys):
    assert main(["odds", *files, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert list(data["outcomes"]["hurt"]["distribution"]) == DECLARED
    assert list(data["outcomes"]["worst"]["distribution"]) == ["none", "casualty"]
    assert [row["values"]["hurt"] for row in data["joint"]] == ["unhurt", "stunned", "ko", "casualty", "casualty"]


def test_choices_side_by_side_keep_the_declared_order(files, capsys):
    assert main(["odds", *files, "--each-choice", "tough"]) == 0
    hurt = capsys.readouterr().out.split("\nhurt")[1].split("\n\n")[0]
    assert [line.split()[0] for line in hurt.splitlines()[1:5]] == DECLARED


def test_a_plot_of_an_enum_outcome_places_its_values_as_declared(files, capsys, monkeypatch, tmp_path):
    pytest.importorskip("matplotlib")
    drawn = []
    monkeypatch.setattr(plots, "_save", lambda figure, path: drawn.append(figure))
    assert main(["odds", *files, "--plot", str(tmp_path / "hurt.png")]) == 0
    [figure] = drawn
    assert [label.get_text() for label in figure.axes[0].get_xticklabels()] == DECLARED


def test_a_plot_of_two_distributions_places_values_as_declared_whichever_gives_them(monkeypatch, tmp_path):
    pytest.importorskip("matplotlib")
    rules = dsl.loads("enum injury { unhurt stunned ko casualty }\nchoice lucky: bool = false\n"
                      "outcome hurt: injury = unhurt\naction go() {\n"
                      "    hurt = if lucky then (if chance(1/2) then ko else casualty)\n"
                      "           else (if chance(1/2) then unhurt else ko)\n}\n", "two.rules")
    dists = [exact(rules, Scenario("go", {}, choices={"lucky": lucky})) for lucky in (True, False)]
    drawn = []
    monkeypatch.setattr(plots, "_save", lambda figure, path: drawn.append(figure))
    plots.plot_distributions(dists, ["lucky", "unlucky"], tmp_path / "two.png", "go")
    [figure] = drawn
    assert [label.get_text() for label in figure.axes[0].get_xticklabels()] == ["unhurt", "ko", "casualty"]
