"""A battle plays out file by file: each action reads a ship sheet and writes the next."""

from __future__ import annotations

import json
import tomllib
from fractions import Fraction
from pathlib import Path

import pytest

from fracas import dsl
from fracas.interpreter.api import Run, prepare
from fracas.interpreter.tools.cli import main
from fracas.interpreter.tools.scenario import combine, load_scenario

ROOT = Path(__file__).resolve().parent.parent
RULES = str(ROOT / "rules" / "gilgamesh.rules")
BATTLE = ROOT / "rules" / "gilgamesh"
ACTIONS = ["1-broadside.toml", "2-repair-shields.toml", "3-second-pass.toml"]


def reads_back_identically(sheet: Path, action: Path) -> bool:
    """The sheet, read with an action beside it and written again unchanged, is the same data."""
    rules = dsl.load(RULES)
    prepared = prepare(rules, combine([load_scenario(sheet), load_scenario(action)]))
    unchanged = Run(prepared, prepared.start, [], None).new_state()
    return unchanged == tomllib.loads(sheet.read_text())


def test_a_three_action_battle_runs_file_to_file(tmp_path, capsys):
    sheet = BATTLE / "corvette.toml"
    for number, action in enumerate(ACTIONS, 1):
        written = tmp_path / f"after-{number}.toml"
        assert main(["run", RULES, str(sheet), str(BATTLE / action), "--seed", str(number),
                     "--write-state", str(written)]) == 0
        assert reads_back_identically(written, BATTLE / action)
        sheet = written
    capsys.readouterr()
    final = tomllib.loads(sheet.read_text())
    assert "action" not in final and set(final) == {"ship"}
    assert final["ship"]["hull"]["damage"] > 0


def test_the_sheet_carries_damage_from_one_action_to_the_next(tmp_path, capsys):
    first = tmp_path / "after-1.toml"
    main(["run", RULES, str(BATTLE / "corvette.toml"), str(BATTLE / "1-broadside.toml"), "--seed", "1",
          "--write-state", str(first)])
    shields = [s for s in tomllib.loads(first.read_text())["ship"]["stations"] if s["name"] == "shields"][0]
    assert shields["track"]["damage"] == 4
    capsys.readouterr()
    main(["run", RULES, str(first), str(BATTLE / "2-repair-shields.toml"), "--json"])
    result = json.loads(capsys.readouterr().out)
    assert result["outcomes"]["repaired"] == "2"  # 9 - (3 + 4 suffered)
    assert result["state"]["ship"]["shields_active"] is False


def test_a_failed_run_writes_nothing(tmp_path, capsys):
    out = tmp_path / "after.toml"
    out.write_text("old = true\n")
    bad = tmp_path / "bad-action.toml"
    bad.write_text('action = "attack"\nweapon = { damage = 6, max_squares = 6 }\nsquares = 3\nattack_valu = 4\n')
    assert main(["run", RULES, str(BATTLE / "corvette.toml"), str(bad), "--write-state", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:4:1: error: attack_valu: action 'attack' has no input 'attack_valu'" in err
    assert "did you mean 'attack_value'?" in err
    assert out.read_text() == "old = true\n"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".after")]


def test_a_key_given_in_two_files_is_an_error_at_its_second_place(tmp_path, capsys):
    assert main(["run", RULES, str(BATTLE / "corvette.toml"), str(BATTLE / "corvette.toml")]) == 2
    assert "'ship' is already given in" in capsys.readouterr().err


def test_odds_for_an_attack_on_a_ship(capsys):
    assert main(["odds", RULES, str(ROOT / "rules" / "scenarios" / "gilgamesh-broadside.toml"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["outcomes"]["hit"]["distribution"] == {"false": "1/3", "true": "2/3"}
    hull = {int(k): Fraction(v) for k, v in data["outcomes"]["hull_left"]["distribution"].items()}
    assert hull == {9: Fraction(2, 3), 12: Fraction(1, 3)}


@pytest.mark.parametrize("key, second", [("action", 'action = "attack"\n'), ("params.bonus", "[params]\nbonus = 2\n")])
def test_an_action_or_parameter_given_in_two_files_is_an_error_at_its_second_place(tmp_path, capsys, key, second):
    first = tmp_path / "one.toml"
    first.write_text('action = "attack"\n[params]\nbonus = 1\n')
    again = tmp_path / "two.toml"
    again.write_text(second)
    assert main(["run", RULES, str(BATTLE / "corvette.toml"), str(first), str(again)]) == 2
    err = capsys.readouterr().err  # at the second place: the later file won without a word
    assert err.startswith(f"{again}:") and f"error: '{key}' is already given in {first}" in err
