"""fracas odds --joint DOWN,ACROSS: two outcomes' joint distribution as a grid, where more than two vary."""

from __future__ import annotations

from pathlib import Path

from fracas.interpreter.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXALTED = str(ROOT / "rules" / "exalted-war.rules")
ATTACK = str(ROOT / "rules" / "scenarios" / "exalted-commander-attack.toml")
WEEWAR = str(ROOT / "rules" / "weewar.rules")
TROOPERS = str(ROOT / "rules" / "scenarios" / "weewar-troopers-on-plains.toml")


def odds(capsys, *flags: str) -> tuple[int, str, str]:
    code = main(["odds", EXALTED, ATTACK, *flags])
    out, err = capsys.readouterr()
    return code, out, err


def test_where_more_than_two_outcomes_vary_the_table_says_how_to_see_two_together(capsys):
    code, out, _ = odds(capsys)
    assert code == 0 and "joint:" not in out
    assert out.rstrip().endswith("5 outcomes vary: --joint health_levels,counter_health_levels ends the table with "
                                 "those two together, as a grid")


def test_joint_ends_the_table_with_the_two_outcomes_named(capsys):
    code, out, _ = odds(capsys, "--joint", "health_levels,counter_health_levels")
    assert code == 0
    grid = out[out.index("joint: health_levels (down) by counter_health_levels (across)"):].splitlines()
    assert grid[1].split() == [str(n) for n in range(11)]  # each count of health levels the counterattack dealt
    assert grid[2].split()[0] == "0" and grid[2].split()[2:] == ["."] * 10  # no damage dealt: no counterattack


def test_joint_may_pick_another_pair_than_the_default_one(capsys):
    main(["odds", WEEWAR, TROOPERS, "--joint", "attacker_loss,defender_loss"])
    out = capsys.readouterr().out
    assert "joint: attacker_loss (down) by defender_loss (across)" in out
    assert "joint: defender_loss (down)" not in out


def test_joint_names_an_unknown_outcome_with_a_suggestion(capsys):
    code, _, err = odds(capsys, "--joint", "health_level,ended")
    assert code == 2 and "--joint: unknown outcome 'health_level'; did you mean 'health_levels'?" in err


def test_joint_lists_the_outcomes_when_no_name_is_close(capsys):
    code, _, err = odds(capsys, "--joint", "zzz,ended")
    assert code == 2 and "--joint: unknown outcome 'zzz'; the outcomes are: " in err and "health_levels" in err


def test_joint_takes_two_different_outcomes(capsys):
    assert "--joint takes two outcomes with a comma between them" in odds(capsys, "--joint", "ended")[2]
    assert "--joint names ended twice" in odds(capsys, "--joint", "ended,ended")[2]


def test_joint_does_not_go_with_json_whose_output_has_the_whole_joint(capsys):
    code, out, _ = odds(capsys, "--joint", "ended,trail", "--json")  # a JSON error, for the machine that asked
    assert code == 2 and "does not go with --json" in out


def two_outcomes(tmp_path: Path, faces: int) -> str:
    rules = tmp_path / "two.rules"
    rules.write_text(f"outcome flag: bool = false\noutcome s: int = 0\naction go() {{\n    s = roll(1, {faces})\n"
                     "    flag = s > 1\n}\n")
    return str(rules)


def test_two_outcomes_whose_grid_is_too_wide_across_are_shown_the_other_way_round(capsys, tmp_path):
    assert main(["odds", two_outcomes(tmp_path, 30)]) == 0
    out = capsys.readouterr().out
    assert "joint: s (down) by flag (across)" in out and max(map(len, out.splitlines())) <= 120


def test_two_outcomes_of_too_many_values_for_a_grid_are_told_how_to_ask_for_it(capsys, tmp_path):
    assert main(["odds", two_outcomes(tmp_path, 80)]) == 0
    out = capsys.readouterr().out
    assert "joint:" not in out and out.rstrip().endswith(
        "flag and s vary together (2 by 80 values, too many for a grid here): --joint flag,s ends the table with "
        "them as a grid")


def test_a_grid_asked_for_is_shown_however_large(capsys, tmp_path):
    assert main(["odds", two_outcomes(tmp_path, 80), "--joint", "s,flag"]) == 0
    assert "joint: s (down) by flag (across)" in capsys.readouterr().out
