"""A choice among a kind's rows (a move among the moves), and a record given for a parameter or choice, a value."""

from __future__ import annotations

from fractions import Fraction

import pytest

from fracas import dsl
from fracas.dsl.diagnostics import RulesError
from fracas.interpreter import Scenario, ScenarioError, exact
from fracas.interpreter.tools.cli import main

MOVES = """kind move { power: int in 0..500  accuracy: int = 100 }
move tackle { power 40 }
move surf { power 90 }
move blizzard { power 110  accuracy 70 }
choice used: move = tackle "the move the attacker uses"
param boost: move = tackle
outcome dealt: int = 0
action hit() {
    if roll(1, 100) <= used.accuracy {
        dealt = used.power + boost.power - 40  # the boost is a tackle's 40 unless set
    }
}
example "M-01 a move chosen in an example" {
    set used = blizzard
    run hit()
    expect prob(dealt == 110) == 7/10
}
"""


def rules() -> dsl.Ruleset:
    return dsl.loads(MOVES, "moves.rules")


def test_a_choice_among_a_kind_s_rows_takes_the_row_chosen():
    assert exact(rules(), Scenario("hit", {}, choices={"used": "blizzard"})).marginal("dealt") == {
        0: Fraction(3, 10), 110: Fraction(7, 10)}


def test_every_row_of_the_kind_is_an_option_of_each_choice(tmp_path, capsys):
    path = tmp_path / "moves.rules"
    path.write_text(MOVES)
    assert main(["odds", str(path), "--each-choice", "used"]) == 0
    assert capsys.readouterr().out.splitlines()[2].split() == ["tackle", "surf", "blizzard"]


def test_a_row_misspelt_for_the_choice_is_offered_the_one_meant(tmp_path, capsys):
    path = tmp_path / "moves.rules"
    path.write_text(MOVES)
    assert main(["odds", str(path), "--choose", "used=surff"]) == 2
    assert "unknown move 'surff'" in capsys.readouterr().err


def test_a_choice_of_a_kind_without_rows_still_needs_options():
    with pytest.raises(RulesError) as caught:
        dsl.loads("kind move { power: int }\nchoice used: move = {power: 3}\noutcome o: int = 0\naction go() { o = 1 }\n",
                  "none.rules")
    assert caught.value.diagnostics[0].message.startswith("choice 'used' needs options")


@pytest.mark.parametrize("section", ["params", "choices"])
def test_a_record_given_for_a_parameter_or_a_choice_is_a_value_the_rules_read(section):
    name = "boost" if section == "params" else "used"
    given = {name: {"power": 7}}
    assert exact(rules(), Scenario("hit", {}, **{section: given})).marginal("dealt") == {7: 1}


def test_a_record_given_for_a_parameter_is_held_to_its_kind_s_constraints():
    with pytest.raises(ScenarioError) as caught:
        exact(rules(), Scenario("hit", {}, params={"boost": {"power": -5}}))
    assert "params.boost.power: -5 breaks the constraint 'power in 0..500'" in caught.value.diagnostics[0].brief()


def test_a_choice_of_an_optional_enum_still_takes_none_as_its_default():
    rules = dsl.loads("enum stance { hold charge }\nchoice st: stance? = none\noutcome o: int = 0\n"
                      "action go() { o = if st == hold then 1 else 2 }\n", "stance.rules")
    assert exact(rules, Scenario("go", {})).marginal("o") == {2: 1}


def test_a_choice_of_a_kind_with_rows_defaults_to_one_of_its_rows():
    with pytest.raises(RulesError) as caught:
        dsl.loads("kind move { power: int }\nmove tackle { power 40 }\nchoice m: move = {power: 3}\n"
                  "outcome o: int = 0\naction go() { o = m.power }\n", "record.rules")
    [told] = caught.value.diagnostics
    assert (told.message, told.hint) == ("a choice's default is one of its options: one of the move rows",
                                         "the move rows are: tackle")


@pytest.mark.parametrize("default, dealt", [("if big then surf else tackle", 40), ("pm", 90), ("first", 110)])
def test_a_choice_of_a_kind_with_rows_may_default_to_an_expression_a_parameter_or_another_choice(default, dealt):
    rules = dsl.loads("kind move { power: int }\nmove tackle { power 40 }\nmove surf { power 90 }\n"
                      "move blizzard { power 110 }\nparam big = false\nparam pm: move = surf\n"
                      f"choice first: move = blizzard\nchoice m: move = {default}\noutcome o: int = 0\n"
                      "action go() { o = m.power }\n", "defaults.rules")
    assert exact(rules, Scenario("go", {})).marginal("o") == {dealt: 1}


def test_a_choice_that_may_be_none_runs_none_among_its_options(tmp_path, capsys):
    path = tmp_path / "stance.rules"
    path.write_text("enum stance { hold charge }\nchoice st: stance? = none\noutcome o: int = 0\n"
                    "action go() { o = if st == hold then 1 else 2 }\n")
    assert main(["odds", str(path), "--each-choice", "st"]) == 0
    assert capsys.readouterr().out.splitlines()[2].split() == ["hold", "charge", "none"]
