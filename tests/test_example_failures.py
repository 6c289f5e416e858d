"""An example fails loudly and at its place, never passes by accident.

Forced rolls the run never asks for mean the example fixes other dice than
it thinks; two examples of one title would be one pytest id; a rule that
cannot be carried out names its file, line and column.
"""

from __future__ import annotations

import pytest

import dsl
from dsl.diagnostics import RulesError
from interpreter.cli import main
from interpreter.api import Scenario, forced
from interpreter.errors import ScenarioError
from interpreter.examples import run_examples

ONE_DIE = """outcome result: int = 0
action go() { result = 1d6 }
"""


def results(text: str) -> list[tuple[bool, str]]:
    return [(r.passed, r.message) for r in run_examples(dsl.loads(text, "t.rules"))]


def test_forced_rolls_left_unused_fail_the_example_and_are_named():
    text = ONE_DIE + 'example "U-01 one die" {\n    run go()\n    rolls [6, 4, 5, 6]\n    expect result == 6\n}\n'
    assert results(text) == [(False, "t.rules:5:15: 3 forced rolls were not used: 4, 5, 6")]


def test_one_forced_roll_left_unused_is_said_in_the_singular():
    text = ONE_DIE + 'example "U-02 one die" { run go() rolls [6, 1] expect result == 6 }\n'
    assert results(text) == [(False, "t.rules:3:45: 1 forced roll was not used: 1")]


def test_forced_rolls_all_used_pass():
    text = ONE_DIE + 'example "U-03 one die" { run go() rolls [6] expect result == 6 }\n'
    assert results(text) == [(True, "")]


def test_two_examples_with_one_title_are_a_located_error_pointing_to_the_first(capsys, tmp_path):
    rules = tmp_path / "twice.rules"
    rules.write_text(ONE_DIE + 'example "D-01 a die" { run go() expect result >= 1 }\n'
                     + 'example "D-01 a die" { run go() expect result <= 6 }\n')
    assert main(["check", str(rules)]) == 2
    assert capsys.readouterr().err == (
        f'{rules}:4:9: error: a second example titled "D-01 a die"\n'
        '    4 | example "D-01 a die" { run go() expect result <= 6 }\n'
        "      |         ^~~~~~~~~~~~\n"
        "  hint: the first is at line 3; give each example its own title\n"
        "1 error\n")


def test_examples_of_one_id_with_their_own_titles_are_fine():
    text = ONE_DIE + ('example "D-01 a die" { run go() expect result >= 1 }\n'
                      'example "D-01 a die, again" { run go() expect result <= 6 }\n')
    assert [passed for passed, _ in results(text)] == [True, True]


@pytest.mark.parametrize("body, message", [
    ("let xs = [1, 2]\n    result = xs[5]", "t.rules:4:17: index 5 is outside a list of 2"),
    ("result = pick([])", "t.rules:3:14: cannot pick from an empty list"),
])
def test_an_example_whose_run_fails_says_where(body, message):
    text = f'outcome result: int = 0\naction go() {{\n    {body}\n}}\nexample "R-01 runs" {{ run go() expect result == 1 }}\n'
    assert results(text) == [(False, message)]


def test_a_failing_run_is_located_in_the_test_command_too(capsys, tmp_path):
    rules = tmp_path / "r.rules"
    rules.write_text('outcome result: int = 0\naction go() { result = pick([]) }\n'
                     'example "R-02 an empty pick" { run go() expect result == 1 }\n')
    assert main(["test", str(rules)]) == 1
    assert capsys.readouterr().out == (f"FAIL R-02 an empty pick: {rules}:2:24: cannot pick from an empty list\n"
                                       "0 passed, 1 failed\n")


def test_the_checker_still_reports_other_problems_beside_a_duplicate_title():
    with pytest.raises(RulesError) as caught:
        dsl.loads(ONE_DIE + 'example "D-01 a" { run go() expect result >= 1 }\n'
                  + 'example "D-01 a" { run go() expect reslt <= 6 }\n', "t.rules")
    assert [d.message for d in caught.value.diagnostics] == ['a second example titled "D-01 a"',
                                                            "unknown name 'reslt'"]


def test_the_api_refuses_forced_rolls_left_unused_too():
    with pytest.raises(ScenarioError) as caught:
        forced(dsl.loads(ONE_DIE, "t.rules"), Scenario("go", {}), [6, 1])
    assert [d.brief() for d in caught.value.diagnostics] == ["t.rules: 1 forced roll was not used: 1"]
