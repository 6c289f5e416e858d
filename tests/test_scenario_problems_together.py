"""A scenario's every problem is told at once, each at its key and in the file's order, not one a run."""

from __future__ import annotations

from pathlib import Path

import pytest

from fracas import dsl
from fracas.interpreter import Scenario, ScenarioError, exact, load_scenario
from fracas.interpreter.tools.cli import main

ROOT = Path(__file__).resolve().parents[1]

RULES = dsl.loads("""
param bonus = 1
choice careful: bool = false "whether to be careful"
kind fighter {
    strength: int
    reach: int = strength + 1
    require strength >= 0
}
outcome total: int = 0
action duel(a: fighter, b: fighter, rounds: int = 1)
    require a.strength > b.strength "the stronger strikes first" {
    total = a.reach + b.reach + rounds
}
""", "duel.rules")


def problems(inputs: dict, **given) -> list[str]:
    with pytest.raises(ScenarioError) as found:
        exact(RULES, Scenario("duel", inputs, **given))
    return [d.message for d in found.value.diagnostics]


def test_every_input_that_does_not_fit_is_told():
    told = problems({"a": {"strength": "x"}, "b": {"strength": 1.5}, "rounds": "two"})
    assert told == ["a.strength: expected int, found the text \"x\"", "b.strength: expected a whole number, found 1.5",
                    "rounds: expected int, found the text \"two\""]


def test_unknown_inputs_and_fields_are_told_with_the_rest():
    told = problems({"a": {"strength": 2, "speed": 3}, "b": {}, "c": 1})
    assert "c: action 'duel' has no input 'c'" in told
    assert "a.speed: unknown field 'speed' of fighter" in told
    assert "b: a fighter needs 'strength' (int)" in told
    assert len(told) == 3


@pytest.mark.parametrize("key, table, what", [("bonus", "params", "a parameter"), ("careful", "choices", "a choice")])
def test_an_input_named_as_a_parameter_or_a_choice_is_told_where_those_go(key, table, what):
    with pytest.raises(ScenarioError) as found:
        exact(RULES, Scenario("duel", {"a": {"strength": 2}, "b": {"strength": 1}, key: 1}))
    (told,) = found.value.diagnostics
    assert told.message == f"{key}: action 'duel' has no input '{key}'"
    assert told.hint == (f"'{key}' is {what} of the rules, not an input: a scenario gives it under [{table}], "
                         f"sweep varies it as {table}.{key}")


@pytest.mark.parametrize("key, table, what", [("param", "params", "parameters"), ("Parameters", "params", "parameters"),
                                             ("choice", "choices", "choices"), ("option", "choices", "choices")])
def test_a_table_named_like_the_parameters_or_the_choices_is_told_its_name(key, table, what):
    with pytest.raises(ScenarioError) as found:
        exact(RULES, Scenario("duel", {"a": {"strength": 2}, "b": {"strength": 1}, key: {"bonus": 2}}))
    (told,) = found.value.diagnostics
    assert told.message == f"{key}: action 'duel' has no input '{key}'"
    assert told.hint == f"a scenario gives the rules' {what} under [{table}]"


def test_a_default_that_reads_a_field_that_did_not_fit_adds_no_problem_of_its_own():
    assert problems({"a": {"strength": "x"}, "b": {"strength": 1}}) == ["a.strength: expected int, found the text \"x\""]


def test_constraints_are_not_tested_on_inputs_that_did_not_fit():
    # The action's requirement reads a, which was never made: not tested; b was, and its own bound is.
    assert problems({"a": {"strength": "x"}, "b": {"strength": 5}}) == ["a.strength: expected int, found the text \"x\""]
    told = problems({"a": {"strength": "x"}, "b": {"strength": -1}})
    assert len(told) == 2 and told[1].startswith("b.strength: -1 breaks")


def test_each_item_of_a_list_that_does_not_fit_is_told():
    lists = dsl.loads("""
outcome total: int = 0
action add(xs: list of int) {
    total = sum(xs)
}
""", "lists.rules")
    with pytest.raises(ScenarioError) as found:
        exact(lists, Scenario("add", {"xs": [1, "a", 2, "b"]}))
    assert [d.message for d in found.value.diagnostics] == ['xs[1]: expected int, found the text "a"',
                                                            'xs[3]: expected int, found the text "b"']


def test_unknown_parameters_and_choices_are_told_together():
    told = problems({"a": {"strength": 2}, "b": {"strength": 1}}, params={"bonu": 2, "malus": 1},
                    choices={"carefull": True})
    assert [message.split(":")[0] for message in told] == ["params.bonu", "params.malus", "choices.carefull"]


def test_inputs_that_all_fit_are_then_tested_against_the_actions_requirements():
    [told] = problems({"a": {"strength": 1}, "b": {"strength": 2}})
    assert "the stronger strikes first" in told


def test_the_command_line_tells_each_problem_at_its_line_in_the_files_order(capsys, tmp_path):
    scenario = tmp_path / "bad.toml"
    scenario.write_text('action = "exchange"\n[attacker]\ntype = "troopr"\nhealth = "ten"\ncolour = "red"\n'
                        '[defender]\ntype = "trooper"\nhealth = 1.5\n')
    assert main(["odds", str(ROOT / "rules" / "weewar.rules"), str(scenario)]) == 2
    err = capsys.readouterr().err
    lines = [int(line.split(":")[1]) for line in err.splitlines() if ": error: " in line]
    assert lines == sorted(lines) and set(lines) >= {3, 4, 5, 8}
    assert "did you mean 'trooper'?" in err and "unknown field 'colour' of unit" in err


def test_parameters_that_do_not_fit_are_told_with_the_inputs_that_do_not():
    told = problems({"a": {"strength": "x"}, "b": {"strength": 1}}, params={"bonus": "many", "malus": 1},
                    choices={"careful": "maybe"})
    assert sorted(message.split(":")[0] for message in told) == ["a.strength", "choices.careful", "params.bonus",
                                                                "params.malus"]


def test_flags_are_told_in_the_order_given(capsys, tmp_path):
    scenario = tmp_path / "ok.toml"
    scenario.write_text('action = "exchange"\n[attacker]\ntype = "trooper"\nplace = { q = 0, r = 0 }\n'
                        '[defender]\ntype = "trooper"\nplace = { q = 1, r = 0 }\n')
    assert main(["odds", str(ROOT / "rules" / "weewar.rules"), str(scenario), "--set", "zzz=1", "--set", "aaa=2"]) == 2
    flags = [line.split(":")[0] for line in capsys.readouterr().err.splitlines() if ": error: " in line]
    assert flags == ["--set zzz=1", "--set aaa=2"]


BOUNDED = dsl.loads("""
kind fighter {
    strength: int in 0..10
}
outcome total: int = 0
action bout(a: fighter, b: fighter, rounds: int in 1..3 = 1)
    require b.strength > 0 "the second must stand"
    require a.strength > b.strength "the stronger strikes first" {
    total = a.strength + rounds
}
""", "bout.rules")


def bout_problems(inputs: dict) -> list[str]:
    with pytest.raises(ScenarioError) as found:
        exact(BOUNDED, Scenario("bout", inputs))
    return [d.message for d in found.value.diagnostics]


def test_an_input_s_bound_is_told_with_another_input_that_did_not_fit():
    told = bout_problems({"a": {"strength": 11}, "b": {"strength": 0}, "rounds": 4})
    assert told == ["a.strength: 11 breaks the constraint 'strength in 0..10'",
                    "rounds: 4 breaks the constraint 'rounds in 1..3'",
                    "b.strength: 0 breaks the constraint 'b.strength > 0': the second must stand"]


def test_every_requirement_the_inputs_break_is_told_at_once():
    told = bout_problems({"a": {"strength": 0}, "b": {"strength": 0}, "rounds": 4})
    assert len(told) == 3 and told[0].startswith("rounds: 4 breaks") and "the second must stand" in told[1]
    assert "the stronger strikes first" in told[2]


def test_a_requirement_that_cannot_be_evaluated_once_another_broke_is_not_told():
    rules = dsl.loads("""
outcome total: int = 0
action share(n: int)
    require n > 0 "something to share"
    require 10 / n > 1 "less than ten each" {
    total = n
}
""", "share.rules")
    with pytest.raises(ScenarioError) as found:
        exact(rules, Scenario("share", {"n": 0}))
    assert [d.message for d in found.value.diagnostics] == [
        "n: 0 breaks the constraint 'n > 0': something to share"]


TWO_ACTIONS = dsl.loads("""
kind army { armies: int }
outcome left: int = 0
action skirmish(attack: army, defence: army) { left = attack.armies - 1 }
action battle(attack: army, defence: army) { left = attack.armies - defence.armies }
action muster(reserve: army) { left = reserve.armies }
""", "two.rules")


def told_of(inputs: dict) -> tuple[str, str]:
    with pytest.raises(ScenarioError) as found:
        exact(TWO_ACTIONS, Scenario(None, inputs))
    (told,) = found.value.diagnostics
    return told.message, told.hint


def test_a_scenario_without_an_action_whose_inputs_fit_several_is_refused():
    armies = {"attack": {"armies": 3}, "defence": {"armies": 2}}
    assert told_of(armies) == ("action: the scenario names no action, and its inputs fit 2 actions: skirmish, battle",
                               'name the one it is for at its top, as in action = "skirmish"')


def test_a_scenario_without_an_action_whose_inputs_are_another_s_is_refused():
    assert told_of({"reserve": {"armies": 4}}) == (
        "action: the scenario names no action, and its inputs are those of 'muster', not of the rules' first",
        'name the one it is for at its top, as in action = "muster"')


def test_a_scenario_without_an_action_or_inputs_runs_the_first_action():
    rules = dsl.loads("outcome n: int = 0\naction one(k: int = 2) { n = k }\naction two() { n = 5 }\n", "d.rules")
    assert exact(rules, Scenario(None, {})).marginal("n") == {2: 1}
    assert exact(rules, Scenario(None, {"k": 3})).marginal("n") == {3: 1}  # inputs that fit only the first


def test_a_missing_input_whose_kind_has_every_default_is_told_how_to_give_it():
    rules = dsl.loads("kind counter { n: int = 0 }\nkind tally { n: int }\noutcome r: int = 0\n"
                      "action go(c: counter, t: tally) { r = c.n + t.n }\n", "k.rules")
    with pytest.raises(ScenarioError) as found:
        exact(rules, Scenario("go", {}))
    counter, tally = found.value.diagnostics
    assert counter.message == "c: action 'go' needs input 'c' (counter)"
    assert counter.hint == "every field of counter has a default: give it as c = {}, or let the action make one, " \
                           "c: counter = {}"
    assert tally.hint == ""


def test_an_action_that_needs_an_input_not_given_does_not_fit_a_scenario_without_an_action():
    rules = dsl.loads("kind army { armies: int }\noutcome left: int = 0\n"
                      "action fight(a: army, bonus: int = 0) { left = a.armies + bonus }\n"
                      "action duel(a: army, b: army) { left = a.armies - b.armies }\n", "am.rules")
    assert exact(rules, Scenario(None, {"a": {"armies": 3}})).marginal("left") == {3: 1}


@pytest.mark.parametrize("given, shown", [(8.5, "8.5"), ("17/2", "17/2"), ("60%", "60%")])
def test_a_number_that_is_not_whole_is_told_as_the_scenario_writes_it(given, shown):
    assert problems({"a": {"strength": given}, "b": {"strength": 1}}) == [
        f"a.strength: expected a whole number, found {shown}"]


def test_a_typo_on_a_line_is_told_before_the_input_it_leaves_missing(tmp_path):
    scenario = tmp_path / "typo.toml"
    scenario.write_text('action = "duel"\nrounds = 1\n[a]\nstrenght = 3\n')
    with pytest.raises(ScenarioError) as found:
        exact(RULES, load_scenario(scenario))
    told = [(d.line, d.message) for d in found.value.diagnostics]
    assert (4, "a.strenght: unknown field 'strenght' of fighter") in told
    assert [line for line, _ in told] == sorted(line for line, _ in told if line) + [0]  # the lines, then the file's
    assert "needs input 'b'" in told[-1][1]


def test_a_missing_input_of_a_kind_with_rows_is_told_to_give_one_of_them():
    rules = dsl.loads("kind move { power: int }\nmove tackle { power 40 }\nmove surf { power 90 }\noutcome o: int = 0\n"
                      "action hit(with: move) { o = with.power }\n", "moves.rules")
    with pytest.raises(ScenarioError) as found:
        exact(rules, Scenario("hit", {}))
    [told] = found.value.diagnostics
    assert told.hint == 'give one of its rows, as with = "tackle" (the move rows are: tackle, surf)'
