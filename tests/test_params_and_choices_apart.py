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


def told(scenario: Scenario, text: str = RULES) -> str:
    try:
        exact(dsl.loads(text, "apart.rules"), scenario)
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


WHOLE_BY_DEFAULT = "param p = 0\noutcome o: bool = false\naction go() { o = chance(p) }\n"


def test_a_fraction_set_in_an_example_for_a_parameter_whole_by_its_default_says_how_to_declare_it():
    text = WHOLE_BY_DEFAULT + 'example "P-01 half" {\n    set p = 1/2\n    run go()\n    expect prob(o) == 1/2\n}\n'
    try:
        dsl.loads(text, "whole.rules")
    except dsl.RulesError as error:
        [told] = error.diagnostics
        assert (told.message, told.hint) == ("'p' is a whole number, as its default 0 is: it takes no fraction",
                                             "to take one, declare it as one: param p: number = 0")
    else:
        raise AssertionError("the example was taken")


def test_a_fraction_given_for_a_parameter_whole_by_its_default_says_how_to_declare_it():
    assert told(Scenario("go", {}, params={"p": "1/2"}), WHOLE_BY_DEFAULT) == (
        "'p' is a whole number, as its default 0 is: to take a fraction, declare it as one, param p: number = 0")
