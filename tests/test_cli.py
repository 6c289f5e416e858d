"""The fracas command: its outputs and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from fracas.interpreter.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent
EPI = str(ROOT / "rules" / "epicinium.rules")
GUNNERS = str(ROOT / "rules" / "scenarios" / "epicinium-gunners-vs-riflemen.toml")
TRENCHES = str(ROOT / "rules" / "scenarios" / "epicinium-trenches.toml")


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_check_a_clean_file_exits_0(capsys):
    code, out, _ = run(capsys, "check", EPI)
    assert code == 0
    assert "ok" in out


def test_check_a_broken_file_exits_2_with_a_located_message(capsys, tmp_path):
    broken = tmp_path / "broken.rules"
    broken.write_text('rules "x"\nkind unit { figures: int }\nunit a { figurs 2 }\n')
    code, _, err = run(capsys, "check", str(broken))
    assert code == 2
    assert f"{broken}:3:10: error: unknown field 'figurs' of kind 'unit'" in err
    assert "hint: did you mean 'figures'?" in err
    assert "Traceback" not in err


def test_check_resolves_nothing_and_test_finds_what_only_a_run_meets_as_check_s_help_says(capsys, tmp_path):
    rules = tmp_path / "moves.rules"
    rules.write_text("kind move { power: int }\nmove tackle { power 40 }\noutcome dealt: int = 0\n"
                     "step boosted(m: move) {\n    m.power += 10\n    dealt = m.power\n}\n"
                     "action hit(with: move) {\n    boosted(with)\n}\n"
                     'example "M-01 a boosted tackle" {\n    run hit(with: tackle)\n    expect dealt == 50\n}\n')
    assert main(["check", str(rules)]) == 0
    assert main(["test", str(rules)]) == 1
    assert "'tackle' is a row: rows are constants" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    assert "found by 'fracas test', which runs the examples" in " ".join(capsys.readouterr().out.split())


def test_check_json_lists_diagnostics(capsys, tmp_path):
    broken = tmp_path / "broken.rules"
    broken.write_text("kind unit { figures: int\n")
    code, out, _ = run(capsys, "check", "--json", str(broken))
    assert code == 2
    data = json.loads(out)
    assert data["ok"] is False and data["diagnostics"][0]["line"] == 1


def test_check_counts_one_action_and_one_example_in_the_singular(capsys, tmp_path):
    rules = tmp_path / "one.rules"
    rules.write_text('outcome x: int = 0\naction go() { x = 1 }\nexample "one" {\n    run go()\n    expect x == 1\n}\n')
    assert run(capsys, "check", str(rules))[1] == f"{rules}: ok (1 action, 1 example)\n"


@pytest.mark.parametrize("text", ["", "# nothing written yet\n", 'rules "to come"\n'])
def test_check_an_empty_file_warns_and_exits_0(capsys, tmp_path, text):
    empty = tmp_path / "empty.rules"
    empty.write_text(text)
    code, out, err = run(capsys, "check", str(empty))
    assert code == 0
    assert out == f"{empty}: ok (0 actions, 0 examples)\n"
    assert err == (f"{empty}: warning: this rules file declares nothing\n"
                   "  hint: declare kinds, rows, parameters, outcomes and the actions that change them; "
                   "grammars/language.md shows each\n"
                   "1 warning\n")


def test_check_json_lists_a_warning_and_is_still_ok(capsys, tmp_path):
    empty = tmp_path / "empty.rules"
    empty.write_text("")
    code, out, _ = run(capsys, "check", "--json", str(empty))
    data = json.loads(out)
    assert code == 0 and data["ok"] is True
    assert [(d["severity"], d["message"]) for d in data["diagnostics"]] == [
        ("warning", "this rules file declares nothing")]


def test_a_warning_beside_errors_is_counted_apart(capsys, tmp_path):
    empty, broken = tmp_path / "empty.rules", tmp_path / "broken.rules"
    empty.write_text("")
    broken.write_text("kind unit { figures: int\n")
    code, _, err = run(capsys, "check", str(empty), str(broken))
    assert code == 2 and err.endswith("1 error, 1 warning\n")


def test_odds_json_gives_exact_fractions_that_sum_to_one(capsys):
    code, out, _ = run(capsys, "odds", EPI, GUNNERS, "--json")
    assert code == 0
    data = json.loads(out)
    assert data["mode"] == "exact"
    figures = data["outcomes"]["figures_lost"]["distribution"]
    assert sum(Fraction(p) for p in figures.values()) == 1
    assert sum(Fraction(row["p"]) for row in data["joint"]) == 1
    mean = Fraction(data["outcomes"]["figures_lost"]["mean"])
    assert mean == sum(int(v) * Fraction(p) for v, p in figures.items())


def test_odds_text_shows_mean_and_at_least(capsys):
    code, out, _ = run(capsys, "odds", EPI, TRENCHES)
    assert code == 0
    assert "figures_lost" in out and "mean" in out and "at least" in out
    assert "certain: bypassed_figures_lost = 0" in out


def test_odds_text_tells_apart_an_outcome_the_action_never_sets(capsys):
    code, out, _ = run(capsys, "odds", EPI, TRENCHES)
    assert code == 0
    assert "\nnot set by targeted_attack: air_figures_lost = 0\n" in out
    assert "air_figures_lost" not in out.split("certain:")[1].split("\n")[0]


def test_odds_with_samples_estimates(capsys):
    code, out, _ = run(capsys, "odds", EPI, TRENCHES, "--samples", "200", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["mode"] == "estimate" and data["samples"] == 200


@pytest.mark.parametrize("flag", ["--jobs", "--seed"])
def test_a_flag_of_sampling_without_samples_is_refused_rather_than_ignored(capsys, flag):
    code, out, err = run(capsys, "odds", EPI, TRENCHES, flag, "2")
    assert code == 2 and out == ""
    assert f"{flag} sets the" in err and "give --samples N too" in err


def test_sampled_odds_never_call_a_value_certain(capsys):
    code, out, _ = run(capsys, "odds", EPI, TRENCHES, "--samples", "50")
    assert code == 0
    assert "in all 50 samples: bypassed_figures_lost = 0" in out and "certain" not in out


def test_run_prints_events_outcomes_and_state(capsys):
    code, out, _ = run(capsys, "run", EPI, GUNNERS, "--seed", "3")
    assert code == 0
    assert "events" in out and "outcomes" in out and "state" in out
    assert "shot 1" in out


def test_run_json_is_the_same_for_the_same_seed(capsys):
    first = run(capsys, "run", EPI, GUNNERS, "--seed", "11", "--json")[1]
    second = run(capsys, "run", EPI, GUNNERS, "--seed", "11", "--json")[1]
    assert first == second
    assert json.loads(first)["seed"] == 11


def test_run_json_says_a_run_that_did_not_stop_stopped_as_the_rules_read_it(capsys):
    # `stopped` is "" where the resolution ran to its end, in the rules, in odds --json and here alike.
    assert json.loads(run(capsys, "run", EPI, GUNNERS, "--json")[1])["stopped"] == ""


def test_run_set_overrides_a_parameter(capsys):
    code, out, _ = run(capsys, "run", EPI, GUNNERS, "--set", "bonedrought_spares_air=false", "--json")
    assert code == 0


def test_run_set_unknown_parameter_exits_2(capsys):
    code, _, err = run(capsys, "run", EPI, GUNNERS, "--set", "bonedrougth_spares_air=false")
    assert code == 2
    assert "unknown parameter 'bonedrougth_spares_air'" in err
    assert "did you mean 'bonedrought_spares_air'?" in err


def test_run_writes_the_new_state_atomically(capsys, tmp_path):
    out_file = tmp_path / "after.toml"
    code, _, _ = run(capsys, "run", EPI, GUNNERS, "--write-state", str(out_file))
    assert code == 0
    text = out_file.read_text()
    assert 'action = "targeted_attack"' in text and "[target]" in text


def test_run_refuses_to_overwrite_its_scenario(capsys, tmp_path):
    scenario = tmp_path / "s.toml"
    scenario.write_text(Path(GUNNERS).read_text())
    code, _, err = run(capsys, "run", EPI, str(scenario), "--write-state", str(scenario))
    assert code == 2
    assert "overwrite an input file" in err
    assert scenario.read_text() == Path(GUNNERS).read_text()


def test_run_refuses_to_overwrite_a_file_its_rules_extend(capsys, tmp_path):
    for name in ("epicinium.rules", "epicinium-classic.rules"):
        (tmp_path / name).write_text((ROOT / "rules" / name).read_text())
    base = tmp_path / "epicinium.rules"
    code, _, err = run(capsys, "run", str(tmp_path / "epicinium-classic.rules"), GUNNERS, "--write-state", str(base))
    assert code == 2 and "overwrite an input file" in err
    assert base.read_text() == (ROOT / "rules" / "epicinium.rules").read_text()


@pytest.mark.parametrize("flag", ["--write-state", "--plot"])
def test_an_empty_file_name_for_an_output_is_refused(capsys, flag):
    command = "run" if flag == "--write-state" else "odds"
    code, _, err = run(capsys, command, EPI, GUNNERS, flag, "")
    assert code == 2 and f"{flag} needs a file name" in err


def test_output_that_cannot_be_written_is_an_error_not_a_crash():
    with open("/dev/full", "w") as full:
        result = subprocess.run([sys.executable, "-m", "fracas.interpreter.tools.cli", "odds", EPI, GUNNERS, "--json"],
                                cwd=ROOT, stdout=full, stderr=subprocess.PIPE, text=True)
    assert result.returncode == 2
    assert "fracas: error: cannot write the output" in result.stderr and "Traceback" not in result.stderr


def test_bad_scenario_value_exits_2_with_the_key_and_a_hint(capsys, tmp_path):
    scenario = tmp_path / "s.toml"
    scenario.write_text('action = "targeted_attack"\n[[attackers]]\ntype = "gunner"\n[target]\ntype = "rifelman"\n[space]\ntile = "city"\n')
    code, _, err = run(capsys, "odds", EPI, str(scenario))
    assert code == 2
    assert f"{scenario}:5:1: error: target.type: unknown unit_type 'rifelman'" in err
    assert "did you mean 'rifleman'?" in err


def test_scenario_that_is_not_toml_exits_2_with_its_line(capsys, tmp_path):
    scenario = tmp_path / "s.toml"
    scenario.write_text('action = "targeted_attack"\n[target\n')
    code, _, err = run(capsys, "odds", EPI, str(scenario))
    assert code == 2
    assert f"{scenario}:2:" in err and "not valid TOML" in err


def test_unknown_action_exits_2(capsys, tmp_path):
    scenario = tmp_path / "s.toml"
    scenario.write_text('action = "targetted_attack"\n')
    code, _, err = run(capsys, "odds", EPI, str(scenario))
    assert code == 2
    assert "unknown action 'targetted_attack'" in err and "did you mean 'targeted_attack'?" in err


DICE_ONLY = "param bonus = 1\noutcome total: int = 0\naction roll_it(dice: int = 2) {\n    total = roll(dice, 6) + bonus\n}\n"


@pytest.fixture
def dice_only(tmp_path) -> str:
    rules = tmp_path / "dice.rules"
    rules.write_text(DICE_ONLY)
    return str(rules)


def test_odds_without_a_scenario_runs_the_first_action_with_its_defaults(capsys, dice_only):
    code, out, _ = run(capsys, "odds", "--json", dice_only)
    assert code == 0 and json.loads(out)["outcomes"]["total"]["mean"] == "8"


@pytest.mark.parametrize("command, shown", [(["run"], "roll_it (seed 0)"), (["explain"], "roll_it (seed 0)"),
                                            (["sweep", "--vary", "params.bonus=1,2"], "mean(total) over params.bonus")])
def test_run_explain_and_sweep_take_no_scenario_too(capsys, dice_only, command, shown):
    code, out, _ = run(capsys, command[0], dice_only, *command[1:])
    assert code == 0 and shown in out


def test_odds_of_two_rules_files_without_a_scenario_sets_them_side_by_side(capsys, dice_only, tmp_path):
    variant = tmp_path / "more.rules"
    variant.write_text(f'extends "{Path(dice_only).name}"\noverride param bonus = 3\n')
    code, out, _ = run(capsys, "odds", dice_only, str(variant))
    assert code == 0 and "dice.rules against " in out and "change +2" in out


def test_a_scenario_named_other_than_toml_is_still_read_as_the_scenario(capsys, dice_only, tmp_path):
    scenario = tmp_path / "three-dice.txt"
    scenario.write_text("dice = 3\n")
    code, out, _ = run(capsys, "odds", "--json", dice_only, str(scenario))
    assert code == 0 and json.loads(out)["outcomes"]["total"]["mean"] == "23/2"


@pytest.mark.parametrize("command, shown", [
    (["odds", "--json"], '"mean": "23/2"'), (["run", "--seed", "3"], "3d6: "), (["explain", "--seed", "3"], "3d6: "),
    (["sweep", "--vary", "params.bonus=1,2"], "12.5")])
def test_a_flag_between_the_rules_and_the_scenario_leaves_the_scenario_read(capsys, dice_only, tmp_path, command,
                                                                             shown):
    scenario = tmp_path / "three-dice.toml"
    scenario.write_text("dice = 3\n")  # three dice, where the action's default is two
    code, out, err = run(capsys, command[0], dice_only, *command[1:], str(scenario))
    assert code == 0 and shown in out, err


def test_check_reads_files_on_either_side_of_a_flag(capsys, dice_only):
    code, out, _ = run(capsys, "check", dice_only, "--json", dice_only)
    assert code == 0 and json.loads(out)["ok"] is True


def test_a_flag_fracas_does_not_know_among_the_files_is_still_refused(capsys, dice_only):
    with pytest.raises(SystemExit) as exited:
        main(["odds", dice_only, "--bogus", "x.toml"])
    assert exited.value.code == 2 and "unrecognized arguments: --bogus x.toml" in capsys.readouterr().err


def test_a_misspelt_flag_is_told_with_the_command_s_usage_and_the_flag_meant(capsys, dice_only):
    with pytest.raises(SystemExit) as exited:
        main(["run", dice_only, "--seeds", "3"])
    err = capsys.readouterr().err
    assert exited.value.code == 2
    assert err.startswith("usage: fracas run ")
    assert err.rstrip().endswith("fracas run: error: unrecognized arguments: --seeds 3 (did you mean '--seed'?)")


def test_a_flag_another_command_takes_is_told_with_this_command_s_usage(capsys, dice_only):
    with pytest.raises(SystemExit):
        main(["explain", dice_only, "--samples", "10"])
    err = capsys.readouterr().err
    assert err.startswith("usage: fracas explain ") and "fracas explain: error: unrecognized arguments: --samples 10" in err


def test_an_input_without_a_default_and_without_a_scenario_is_told(capsys, tmp_path):
    rules = tmp_path / "dice.rules"
    rules.write_text("outcome total: int = 0\naction roll_it(dice: int) {\n    total = roll(dice, 6)\n}\n")
    code, _, err = run(capsys, "odds", str(rules))
    assert code == 2 and "(no scenario file): error: dice: action 'roll_it' needs input 'dice' (int)" in err


@pytest.mark.parametrize("command", [["odds"], ["sweep", "--vary", "target.figures=1,2", "--metric", "figures_lost"]])
def test_an_empty_action_name_is_an_unknown_action_not_the_first_one(capsys, tmp_path, command):
    scenario = tmp_path / "s.toml"
    scenario.write_text('action = ""\nattackers = [{type = "rifleman"}]\ntarget = {type = "rifleman"}\n'
                        'space = {tile = "grass"}\n')
    code, _, err = run(capsys, command[0], EPI, str(scenario), *command[1:])
    assert code == 2
    assert f"{scenario}:1:1: error: action: unknown action ''" in err


def test_test_command_passes_every_epicinium_example(capsys):
    code, out, _ = run(capsys, "test", EPI)
    assert code == 0
    lines = out.splitlines()
    assert lines[-1].endswith(" passed, 0 failed")
    for number in range(1, 22):
        assert any(line.startswith(f"PASS EPI-{number:02d} ") for line in lines), number


def test_test_command_reports_a_failing_example_and_exits_1(capsys, tmp_path):
    rules = tmp_path / "r.rules"
    rules.write_text(
        'kind unit { figures: int }\noutcome lost: int = 0\n'
        'action hit(target: unit) { lost = 1 }\n'
        'example "T-01 loses two" { run hit(target: {figures: 1}) expect lost == 2 }\n'
    )
    code, out, _ = run(capsys, "test", str(rules))
    assert code == 1
    assert "FAIL T-01 loses two\n  expect lost == 2 (line 4) is false:\n    lost    1\n" in out
    assert out.splitlines()[-1] == "0 passed, 1 failed"


def test_test_command_prints_each_result_as_json_for_a_machine(capsys, tmp_path):
    rules = tmp_path / "r.rules"
    rules.write_text(
        'kind unit { figures: int }\noutcome lost: int = 0\n'
        'action hit(target: unit) { lost = 1 }\n'
        'example "T-01 loses two" { run hit(target: {figures: 1}) expect lost == 2 }\n'
        'example "loses one" { run hit(target: {figures: 1}) expect lost == 1 }\n'
    )
    code, out, _ = run(capsys, "test", str(rules), "--json")
    assert code == 1
    found = json.loads(out)
    assert (found["ok"], found["passed"], found["failed"], found["diagnostics"]) == (False, 1, 1, [])
    failing, passing = found["examples"]
    assert (failing["id"], failing["title"], failing["line"], failing["passed"]) == ("T-01", "loses two", 4, False)
    assert failing["message"].startswith("expect lost == 2 (line 4) is false:") and failing["path"] == str(rules)
    assert (passing["id"], passing["title"], passing["line"], passing["passed"], passing["message"]) == (
        None, "loses one", 5, True, "")


def test_test_command_counts_the_files_its_errors_left_unrun(capsys, tmp_path):
    broken = tmp_path / "broken.rules"
    broken.write_text("action go() { x = }\n")
    code, out, err = run(capsys, "test", str(broken))
    assert code == 2 and f"{broken}:1:" in err
    assert out.splitlines()[-1] == "0 passed, 0 failed; 1 file not run, for the errors above"


def test_test_command_as_json_lists_a_broken_file_and_exits_2(capsys, tmp_path):
    broken = tmp_path / "broken.rules"
    broken.write_text("action go() { x = }\n")
    code, out, err = run(capsys, "test", str(broken), "--json")
    assert code == 2 and err == ""
    found = json.loads(out)
    assert found["ok"] is False and found["examples"] == [] and found["not_run"] == [str(broken)]
    [problem] = found["diagnostics"]
    assert (problem["path"], problem["line"], problem["severity"]) == (str(broken), 1, "error")


def test_bad_flag_exits_2(capsys):
    with pytest.raises(SystemExit) as caught:
        main(["odds", "--no-such-flag"])
    assert caught.value.code == 2


def test_odds_prints_json_or_csv_not_both(capsys):
    with pytest.raises(SystemExit) as caught:
        main(["odds", EPI, GUNNERS, "--json", "--csv"])
    assert caught.value.code == 2
    assert capsys.readouterr().err.endswith("error: argument --csv: not allowed with argument --json\n")


def test_version_prints_the_installed_version_and_exits_0(capsys):
    from importlib.metadata import version

    with pytest.raises(SystemExit) as caught:
        main(["--version"])
    assert caught.value.code == 0
    assert capsys.readouterr().out == f"fracas {version('fracas')}\n"


def test_odds_json_on_a_weewar_exchange_gives_the_joint_losses(capsys):
    troopers = str(ROOT / "rules" / "scenarios" / "weewar-troopers-on-plains.toml")
    code, out, _ = run(capsys, "odds", str(ROOT / "rules" / "weewar.rules"), troopers, "--json")
    assert code == 0
    data = json.loads(out)
    joint = {(row["values"]["attacker_loss"], row["values"]["defender_loss"]): Fraction(row["p"]) for row in data["joint"]}
    assert sum(joint.values()) == 1
    # Symmetric troopers: losses are independent and identically distributed.
    defender = {int(k): Fraction(p) for k, p in data["outcomes"]["defender_loss"]["distribution"].items()}
    assert joint[("5", "4")] == defender[5] * defender[4] == joint[("4", "5")]


def test_odds_text_shows_a_joint_grid_when_two_outcomes_vary(capsys):
    troopers = str(ROOT / "rules" / "scenarios" / "weewar-troopers-on-plains.toml")
    code, out, _ = run(capsys, "odds", str(ROOT / "rules" / "weewar.rules"), troopers)
    assert code == 0
    assert "joint: defender_loss (down) by attacker_loss (across)" in out


EXALTED = str(ROOT / "rules" / "exalted-war.rules")
ONE_DIE = """
action = "war_attack"
[attacker]
role = "commander"
wits = 2
charisma = 1
[defender]
role = "commander"
intelligence = 1
war = 1
"""


def test_choose_makes_a_choice_from_the_command_line(capsys, tmp_path):
    scenario = tmp_path / "s.toml"
    scenario.write_text(ONE_DIE)
    defended = json.loads(run(capsys, "odds", EXALTED, str(scenario), "--json")[1])
    undefended = json.loads(run(capsys, "odds", EXALTED, str(scenario), "--json", "--choose", "defender_response=do_nothing")[1])
    assert Fraction(undefended["outcomes"]["health_levels"]["mean"]) > Fraction(defended["outcomes"]["health_levels"]["mean"])


def test_each_choice_shows_every_option_side_by_side(capsys, tmp_path):
    scenario = tmp_path / "s.toml"
    scenario.write_text(ONE_DIE)
    code, out, _ = run(capsys, "odds", EXALTED, str(scenario), "--each-choice", "defender_response")
    assert code == 0
    assert "war_dv" in out and "do_nothing" in out and "normal_dv" in out
    code, out, _ = run(capsys, "odds", EXALTED, str(scenario), "--each-choice", "defender_response", "--json")
    options = json.loads(out)["options"]
    assert set(options) == {"war_dv", "do_nothing", "normal_dv"}


@pytest.mark.parametrize("compared", [["--each-choice", "defender_response"], ["two rules files"]])
def test_fractions_are_refused_for_a_comparison_rather_than_ignored(capsys, tmp_path, compared):
    scenario = tmp_path / "s.toml"
    scenario.write_text(ONE_DIE)
    files = [EXALTED, EXALTED] if compared == ["two rules files"] else [EXALTED]
    flags = [] if compared == ["two rules files"] else compared
    code, out, err = run(capsys, "odds", *files, str(scenario), *flags, "--fractions")
    assert code == 2 and out == ""
    assert f"--fractions adds the fractions to one odds table, not to a comparison ({' '.join(compared[:1])})" in err
    assert "--json or --csv gives every probability of each as a fraction" in err


def test_each_choice_lines_up_its_columns_under_long_values(capsys, tmp_path):
    scenario = tmp_path / "s.toml"
    scenario.write_text(ONE_DIE)
    code, out, _ = run(capsys, "odds", EXALTED, str(scenario), "--each-choice", "defender_response")
    assert code == 0
    header = next(line for line in out.splitlines() if line.endswith("normal_dv"))
    rows = [line for line in out.splitlines() if line.endswith("%")]
    assert any(len(line) > 60 for line in rows)  # a long text, the stop's reason, among the values
    assert {len(line) for line in rows} == {len(header)}


def test_each_choice_with_an_unknown_choice_exits_2(capsys, tmp_path):
    scenario = tmp_path / "s.toml"
    scenario.write_text(ONE_DIE)
    code, _, err = run(capsys, "odds", EXALTED, str(scenario), "--each-choice", "defender_respons")
    assert code == 2 and "did you mean 'defender_response'?" in err


def test_odds_for_a_commander_attack_with_a_counterattack(capsys):
    code, out, _ = run(capsys, "odds", EXALTED, str(ROOT / "rules/scenarios/exalted-commander-attack.toml"), "--json")
    assert code == 0
    data = json.loads(out)
    levels = data["outcomes"]["health_levels"]["distribution"]
    counter = data["outcomes"]["counter_health_levels"]["distribution"]
    assert sum(Fraction(p) for p in levels.values()) == 1 and len(levels) > 5
    assert Fraction(counter["0"]) < 1  # the counterattack can hurt


@pytest.mark.parametrize("line, message", [
    ("action = 3", "'action' must be the name of an action, in quotes"),
    ("params = 3", "'params' must be a table: [params]"),
    ("choices = [1]", "'choices' must be a table: [choices]"),
])
def test_a_malformed_scenario_envelope_is_located(capsys, tmp_path, line, message):
    scenario = tmp_path / "s.toml"
    scenario.write_text(f"# a scenario\n{line}\n")
    code, _, err = run(capsys, "odds", EPI, str(scenario))
    assert code == 2 and f"{scenario}:2:1: error: {message}" in err


def line_of(path: str, text: str) -> int:
    """The number of the first line of the file at `path` that holds `text`."""
    lines = Path(path).read_text().splitlines()
    return next(number for number, line in enumerate(lines, 1) if text in line)


def test_explain_shows_bodies_modifiers_shots_and_steps_with_their_rules(capsys):
    code, out, _ = run(capsys, "explain", EPI, GUNNERS, "--seed", "2")
    assert code == 0
    assert "3 bodies of 1 hitpoint for target" in out
    term = line_of(EPI, "add -1 when where.bonedrought")
    assert f"vulnerable: 2 -> 1 (line {term}: add -1 when where.bonedrought" in out
    assert f"<- {EPI}:{line_of(EPI, 'let pool = bodies(')}: let pool = bodies(" in out
    assert "shot 1 (1 damage from attackers[0])" in out
    assert "every body has taken lethal damage; they change nothing" in out
    # A step is shown with what it was given, at its declaration, and where it was called.
    called = line_of(EPI, "lose_figures(target, figures_lost, space)")
    assert (f"step lose_figures(u: target, lost: 3, where: space)    ({EPI}:{line_of(EPI, 'step lose_figures(')}, "
            f"called at line {called})") in out


def test_explain_shows_an_early_exit(capsys, tmp_path):
    scenario = tmp_path / "s.toml"
    scenario.write_text(ONE_DIE.replace("wits = 2", "wits = 1"))
    code, out, _ = run(capsys, "explain", EXALTED, str(scenario), "--seed", "1")
    assert code == 0 and "trail" in out
    assert ("stopped: the attack's cycle of War Events has ended" in out) == ("health_levels = 0" in out and "return" in out)


def test_a_long_sampling_shows_progress_on_a_terminal_and_stops_cleanly_on_ctrl_c(tmp_path):
    pty = pytest.importorskip("pty")
    import os
    import select
    import signal
    import time

    picture = tmp_path / "odds.png"
    terminal, their_end = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "fracas.interpreter.tools.cli", "odds", EPI, GUNNERS, "--samples", "1000000", "--plot", str(picture)],
        cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=their_end,
        # A test run started in the background inherits ctrl-c ignored; a user's fracas never does.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    os.close(their_end)
    shown = b""
    while b"sampling [" not in shown:  # the progress bar: it is sampling now
        shown += os.read(terminal, 1024)
    process.send_signal(signal.SIGINT)
    # The terminal is read until the end: a bar left unread would fill it and stop the run mid-write.
    deadline = time.monotonic() + 120
    while b"interrupted" not in shown or process.poll() is None:
        assert time.monotonic() < deadline, "still running two minutes after ctrl-c"
        if select.select([terminal], [], [], 0.1)[0]:
            try:
                shown += os.read(terminal, 1024)
            except OSError:  # the child's end closed: all of it read
                break
    out = process.stdout.read()
    process.wait()
    os.close(terminal)
    assert process.returncode == 130 and out == b""
    assert shown.replace(b"\r", b"").endswith(b"/1000000\nfracas: interrupted\n")
    assert not picture.exists() and os.listdir(tmp_path) == []


# ---- control characters from the inputs are shown escaped, never obeyed by the terminal

ESCAPES_RULES = 'outcome r: text = ""\nkind k { name: text = "a" }\nenum col { red blue }\naction go(who: k, c: col) { r = who.name }\n'


def escapes_files(tmp_path: Path, scenario_text: str) -> tuple[str, str]:
    rules, scenario = tmp_path / "e.rules", tmp_path / "e.toml"
    rules.write_text(ESCAPES_RULES)
    scenario.write_text(scenario_text)
    return str(rules), str(scenario)


def test_control_characters_of_a_scenario_text_are_escaped_in_the_report(capsys, tmp_path):
    files = escapes_files(tmp_path, 'action = "go"\nc = "red"\n[who]\nname = "\\u001b]0;title\\u0007\\u001b[2J\\u0000"\n')
    code, out, _ = run(capsys, "odds", *files)
    assert code == 0 and "\x1b" not in out and "\x00" not in out
    assert "certain: r = \\x1b]0;title\\x07\\x1b[2J\\x00\n" in out


def test_control_characters_in_a_message_and_its_source_line_are_escaped(capsys, tmp_path):
    rules, scenario = escapes_files(tmp_path, 'action = "go"\nc = "re\\u001b[31md"\n[who]\nname = "x"\n')
    code, _, err = run(capsys, "run", rules, scenario)
    assert code == 2
    assert err.startswith(f"{scenario}:2:1: error: c: unknown col 're\\x1b[31md'\n")


def test_control_characters_in_an_example_title_are_escaped(capsys, tmp_path):
    rules = tmp_path / "e.rules"
    rules.write_text('outcome r: int = 0\naction go() { r = 1 }\nexample "X-01 \x1b[2Jwiped" { run go() expect r == 1 }\n')
    code, out, _ = run(capsys, "test", str(rules))
    assert code == 0 and out == "PASS X-01 \\x1b[2Jwiped\n1 passed, 0 failed\n"


def test_a_scenario_naming_an_action_of_rules_that_declare_none_says_so(tmp_path, capsys):
    (tmp_path / "empty.rules").write_text("# nothing yet\n")
    (tmp_path / "s.toml").write_text('action = "exchange"\n')
    code, _, err = run(capsys, "odds", str(tmp_path / "empty.rules"), str(tmp_path / "s.toml"))
    assert code == 2 and "unknown action 'exchange'" in err and "hint: these rules declare no action" in err


def test_a_key_of_a_hundred_thousand_characters_is_shown_by_its_start_and_end(tmp_path, capsys):
    (tmp_path / "r.rules").write_text("outcome o: int = 0\naction go() { o = 1 }\n")
    (tmp_path / "s.toml").write_text('action = "go"\n' + "k" * 100_000 + " = 1\n")
    code, _, err = run(capsys, "odds", str(tmp_path / "r.rules"), str(tmp_path / "s.toml"))
    assert code == 2 and len(err) < 1000
    assert "action 'go' has no input '" + "k" * 40 + "..." + "k" * 20 + " (100000 characters)'" in err
    assert "hint: it takes none" in err



def test_the_json_form_of_a_diagnostic_keeps_a_long_word_whole():
    from fracas.dsl.diagnostics import Diagnostic

    diagnostic = Diagnostic("s.toml", 2, 1, "unknown input '" + "k" * 500 + "'")
    assert "k" * 500 in diagnostic.as_dict()["message"] and "k" * 500 not in diagnostic.format()


def test_each_choice_names_itself_where_an_option_breaks_a_constraint(capsys, tmp_path):
    rules = tmp_path / "r.rules"
    rules.write_text('enum stance { hold charge }\nchoice order: stance = hold "the order"\n'
                     'require order != charge "no charging"\noutcome result: int = 0\naction fight() { result = 1 }\n')
    scenario = tmp_path / "s.toml"
    scenario.write_text('action = "fight"\n')
    code, out, err = run(capsys, "odds", str(rules), str(scenario), "--each-choice", "order")
    assert code == 2 and out == ""
    assert err.startswith("--each-choice order: error: choices.order: charge breaks the constraint 'order != charge'")
    assert f"the constraint is at {rules}:3" in err


def test_each_choice_of_a_choice_also_chosen_is_a_usage_error(capsys, tmp_path):
    scenario = tmp_path / "s.toml"
    scenario.write_text(ONE_DIE)
    code, _, err = run(capsys, "odds", EXALTED, str(scenario), "--each-choice", "defender_response",
                       "--choose", "defender_response=do_nothing")
    assert code == 2 and "--each-choice defender_response and --choose defender_response=do_nothing both set it" in err


# ---- a state file and the files that act on it


GILGAMESH = ROOT / "rules" / "gilgamesh.rules"
CORVETTE, BROADSIDE = (str(ROOT / "rules" / "gilgamesh" / name) for name in ("corvette.toml", "1-broadside.toml"))


def test_odds_take_a_state_file_and_an_action_file_as_run_does(capsys):
    from fracas import dsl
    from fracas.interpreter import exact
    from fracas.interpreter.tools.scenario import combine, load_scenario

    code, out, err = run(capsys, "odds", str(GILGAMESH), CORVETTE, BROADSIDE, "--json")
    assert code == 0, err
    expected = exact(dsl.load(GILGAMESH), combine([load_scenario(CORVETTE), load_scenario(BROADSIDE)]))
    shown = json.loads(out)["outcomes"]["hull_left"]["distribution"]
    assert {int(value): Fraction(p) for value, p in shown.items()} == expected.marginal("hull_left")


@pytest.mark.parametrize("argv", [["check", CORVETTE], ["run", CORVETTE, str(GILGAMESH)],
                                  ["odds", CORVETTE, str(GILGAMESH)]], ids=["check", "run", "odds"])
def test_a_scenario_file_given_for_the_rules_is_named_as_such(capsys, argv):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert f"{CORVETTE} is a scenario file (TOML) where a rules file is wanted" in err


@pytest.mark.parametrize("command", ["check", "odds", "run"])
def test_a_missing_scenario_file_given_for_the_rules_is_told_missing(capsys, tmp_path, command):
    missing = str(tmp_path / "no-such-file.toml")
    code, out, err = run(capsys, command, missing, str(tmp_path / "x.toml"))
    assert code == 2 and out == ""
    assert f"{missing}: error: no such file" in err and "scenario file (TOML)" not in err


def test_two_flags_setting_the_states_limit_are_refused_rather_than_one_winning(capsys):
    code, out, err = run(capsys, "odds", EPI, TRENCHES, "--max-states", "5", "--limit", "states=100")
    assert code == 2 and out == "" and "both set the exact engine's states limit" in err


def test_a_refused_flag_with_json_is_told_as_json_like_every_other_problem(capsys):
    code, out, err = run(capsys, "odds", EPI, TRENCHES, "--json", "--jobs", "2")
    assert code == 2 and err == ""
    found = json.loads(out)
    assert found["ok"] is False and "--jobs sets the worker processes" in found["diagnostics"][0]["message"]


@pytest.mark.parametrize("flag", ["--plot", "--write-state"])
def test_an_output_named_with_a_trailing_slash_is_a_folder_and_refused(capsys, tmp_path, flag):
    command = ["odds", EPI, TRENCHES] if flag == "--plot" else ["run", EPI, TRENCHES]
    code, out, err = run(capsys, *command, flag, f"{tmp_path / 'out.png'}/")
    assert code == 2 and "names a folder" in err and not (tmp_path / "out.png").exists()


TWO_ACTIONS = "outcome o: int = 0\naction first() { o = 1 }\naction second(n: int = 2) { o = n }\n"


@pytest.mark.parametrize("command", ["odds", "run", "explain"])
def test_action_picks_the_action_to_resolve_without_a_scenario_file(capsys, tmp_path, command):
    rules = tmp_path / "two.rules"
    rules.write_text(TWO_ACTIONS)
    assert main([command, str(rules), "--action", "second"]) == 0
    assert capsys.readouterr().out.startswith("second (")


def test_action_takes_the_place_of_the_one_a_scenario_names(capsys, tmp_path):
    rules, scenario = tmp_path / "two.rules", tmp_path / "first.toml"
    rules.write_text(TWO_ACTIONS)
    scenario.write_text('action = "first"\n')
    assert main(["odds", str(rules), str(scenario), "--action", "second"]) == 0
    assert "certain: o = 2" in capsys.readouterr().out


@pytest.mark.parametrize("command", [["odds"], ["sweep", "--vary", "n=1,2", "--jobs", "1"]])
def test_an_unknown_action_is_blamed_on_the_flag_with_the_one_meant(capsys, tmp_path, command):
    rules = tmp_path / "two.rules"
    rules.write_text(TWO_ACTIONS)
    assert main([command[0], str(rules), *command[1:], "--action", "secnd"]) == 2
    assert capsys.readouterr().err.splitlines()[:2] == ["--action secnd: error: action: unknown action 'secnd'",
                                                        "  hint: did you mean 'second'?"]


def test_sweep_resolves_the_action_named_by_the_flag(capsys, tmp_path):
    rules = tmp_path / "two.rules"
    rules.write_text(TWO_ACTIONS)
    assert main(["sweep", str(rules), "--action", "second", "--vary", "n=1,5", "--jobs", "1", "--csv"]) == 0
    assert [row.split(",")[2] for row in capsys.readouterr().out.splitlines()[1:]] == ["1", "5"]


def test_sweep_of_an_input_the_action_lacks_is_told_at_the_flag_before_any_case_runs(capsys, tmp_path):
    rules = tmp_path / "two.rules"
    rules.write_text(TWO_ACTIONS)
    assert main(["sweep", str(rules), "--action", "second", "--vary", "nn=1,2", "--jobs", "1"]) == 2
    assert "fracas: error: --vary nn: the action 'second' has no input 'nn'; did you mean 'n'?" in capsys.readouterr().err
