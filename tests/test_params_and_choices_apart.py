"""A choice given as a parameter, or a parameter as a choice, is told where it goes."""

from __future__ import annotations

from fracas import dsl
from fracas.interpreter import Scenario, ScenarioError, exact
from fracas.interpreter.tools.cli import main

RULES = """outcome o: int = 0
param push_cost = 2
choice push: bool = false "spend stress for a die"
action go() { o = if push then push_cost else 0 }
"""


def told(scenario: Scenario) -> str:
    try:
        exact(dsl.loads(RULES, "apart.rules"), scenario)
    except ScenarioError as error:
        [diagnostic] = error.diagnostics
        return diagnostic.hint
    raise AssertionError("the scenario was taken")


def test_a_choice_given_as_a_parameter_is_told_to_go_under_choices():
    assert told(Scenario("go", {}, params={"push": True})) == (
        "'push' is a choice: give it under [choices] (on the command line, --choose push=...)")


def test_a_parameter_given_as_a_choice_is_told_to_go_under_params():
    assert told(Scenario("go", {}, choices={"push_cost": 3})) == (
        "'push_cost' is a parameter: give it under [params] (on the command line, --set push_cost=...)")


def test_set_of_a_choice_on_the_command_line_says_choose(tmp_path, capsys):
    rules = tmp_path / "apart.rules"
    rules.write_text(RULES)
    assert main(["odds", str(rules), "--set", "push=true"]) == 2
    assert "--choose push=..." in capsys.readouterr().err
