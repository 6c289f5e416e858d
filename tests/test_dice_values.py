"""Dice as values: a field or parameter of type dice holds a roll described, and roll(d) makes it.

`1d6 + 1` written where a dice value is wanted is that description; written
anywhere else it is a roll made there, as it always was. Sampled, forced and
exact runs all roll a dice value the same way.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from fracas import dsl
from fracas.dsl.diagnostics import RulesError
from fracas.dsl.diff import compare
from fracas.interpreter import Scenario, ScenarioError, exact, forced, sample
from fracas.interpreter.runtime.chance import parse_dice

RULES = """
kind weapon { damage: dice = 1d3  bonus: int = 0 }
weapon sword { damage 1d6 + 1 }
weapon club  { damage 2 }
weapon axe   { damage 1d8 + 1d4 - 1 }
param extra: dice = 0
outcome result: int = 0
action hit(w: weapon) { result = roll(w.damage + extra) + w.bonus }
"""


def rules(text: str = RULES) -> dsl.Ruleset:
    return dsl.loads(text, "d.rules")


def odds(inputs: dict, params: dict | None = None, text: str = RULES) -> dict:
    return exact(rules(text), Scenario("hit", inputs, params or {})).marginal("result")


def problems(text: str) -> list[tuple[str, str]]:
    with pytest.raises(RulesError) as caught:
        rules(text)
    return [(d.message, d.hint) for d in caught.value.diagnostics]


def test_a_dice_field_is_rolled_where_roll_is_written():
    assert odds({"w": "sword"}) == {face + 1: Fraction(1, 6) for face in range(1, 7)}


def test_a_kind_default_of_dice_is_a_description_too():
    assert odds({"w": {}}) == {face: Fraction(1, 3) for face in range(1, 4)}


def test_a_number_in_a_dice_field_always_rolls_itself():
    assert odds({"w": "club"}) == {2: 1}


def test_dice_of_different_sides_add_up_and_a_number_is_taken_away():
    dist = odds({"w": "axe"})
    assert min(dist) == 1 and max(dist) == 11 and dist[1] == Fraction(1, 32)


def test_a_dice_parameter_adds_its_dice_before_the_roll():
    dist = odds({"w": "club"}, {"extra": "1d4"})
    assert dist == {2 + face: Fraction(1, 4) for face in range(1, 5)}


def test_forced_rolls_give_each_die_in_the_order_written():
    result = forced(rules(), Scenario("hit", {"w": "axe"}), [8, 3])
    assert result.outcomes["result"] == 8 + 3 - 1


def test_a_sampled_roll_stays_within_the_dice():
    results = {sample(rules(), Scenario("hit", {"w": "sword"}), seed=seed).outcomes["result"] for seed in range(40)}
    assert results <= set(range(2, 8)) and len(results) > 3


def test_roll_of_a_literal_is_the_roll_itself():
    text = "outcome result: int = 0\naction hit() { result = roll(2d6 + 1) }\n"
    assert exact(rules(text), Scenario("hit", {})).marginal("result")[8] == Fraction(6, 36)


def test_dice_makes_a_dice_value_from_counts_the_rules_compute():
    text = ("kind caster { level: int }\noutcome result: int = 0\n"
            "action hit(c: caster) { let d: dice = dice(c.level, 6)\n result = roll(d) }\n")
    dist = exact(rules(text), Scenario("hit", {"c": {"level": 2}})).marginal("result")
    assert dist[12] == Fraction(1, 36)


def test_a_local_of_type_dice_grows_with_plus_and_minus():
    text = ("outcome result: int = 0\n"
            "action hit() { let d: dice = 1d4\n d += 1d4\n d -= 2\n result = roll(d) }\n")
    assert exact(rules(text), Scenario("hit", {})).marginal("result")[0] == Fraction(1, 16)


def test_dice_values_compare_as_descriptions():
    text = RULES + ('example "D-01 the sword" { run hit(w: sword)\n'
                    '    expect w.damage == 1d6 + 1 and w.damage != 2d6 and extra == 0 }\n')
    from fracas.interpreter.tools.examples import run_examples

    assert [r.passed for r in run_examples(rules(text))] == [True]


def test_a_scenario_gives_dice_as_text_and_a_state_writes_them_back():
    result = sample(rules(), Scenario("hit", {"w": {"damage": "2d6 + 1d4 - 1"}}))
    assert str(result.state.world["w"].get("damage")) == "2d6 + 1d4 - 1"


def test_dice_a_scenario_gives_in_quotes_but_not_as_dice_are_told_what_is_wrong():
    with pytest.raises(ScenarioError) as caught:
        exact(rules(), Scenario("hit", {"w": {"damage": "3d6-"}}))
    [told] = caught.value.diagnostics
    assert (told.message, told.hint) == ("w.damage: '3d6-' is no dice", 'write them as the rules do: "2d6 + 1", "1d6 - 3"')


@pytest.mark.parametrize("text, written", [("weapon knife { damage 1d-3 }", "1d"), ("weapon pike { damage 2d6+3d-1 }", "3d"),
                                           ("action stab(w: weapon) { result = roll(2d-1) }", "2d")])
def test_dice_of_another_game_without_their_sides_are_told_to_write_the_sides(text, written):
    [(message, hint)] = problems(RULES + text + "\n")
    assert (message, hint) == (f"'{written}' is no die: dice are written with their sides", "as 2d6 - 1, or 1d6 + 2")


@pytest.mark.parametrize("text, shown", [("1d6", "1d6"), ("1d6+1d6", "2d6"), (" 3 + 1d4 ", "1d4 + 3"),
                                         ("7", "7"), ("1d6 - 1d4", "None"), ("d6", "None")])
def test_dice_text_is_read_as_the_rules_write_it(text, shown):
    assert str(parse_dice(text)) == shown


def test_a_dice_value_where_a_number_is_wanted_asks_for_roll():
    found = problems(RULES.replace("roll(w.damage + extra)", "w.damage"))
    assert found == [("expected int, found dice", "a value of type dice describes a roll; "
                      "roll it where the rules roll it: roll(w.damage + w.bonus)")]


@pytest.mark.parametrize("statement, message", [
    ("result = w.damage * 2", "'*' needs numbers, not dice and int"),
    ("result -= w.damage", "'-=' needs numbers, not int and dice"),
    ("result = if w.damage > 3 then 1 else 0", "'>' compares numbers, not dice and int"),
    ("result = len(volley(1, damage: w.damage))", "expected int, found dice"),
    ("result = max(w.damage, 1)", "'max' needs numbers, not a dice"),
])
def test_every_use_as_a_number_is_refused_with_the_roll_to_write(statement, message):
    (found,) = problems(RULES.replace("result = roll(w.damage + extra) + w.bonus", statement))
    assert found == (message, "a value of type dice describes a roll; roll it where the rules roll it: roll(w.damage)")


def test_dice_cannot_be_taken_away():
    assert problems("param p: dice = 1d6 - 1d4\n") == [
        ("dice cannot be taken away", "a dice value adds dice, and adds or takes away a number: 2d6 + 1d4 - 1")]


def test_a_roll_kept_in_a_parameter_without_a_type_says_to_give_it_the_type_dice():
    assert problems("param p = 1d6\n") == [
        ("a constant cannot depend on chance", "roll dice in a step, not in a row, parameter or default; "
         "to keep a roll for later, give it the type dice, as in 'name: dice = 1d6'")]


def test_roll_of_a_number_still_needs_its_sides():
    (found,) = problems("outcome r: int = 0\naction go() { r = roll(3) }\n")
    assert found[0] == "'roll' needs 'sides'"


@pytest.mark.parametrize("written, hint", [("d6", "did you mean 1d6?"), ("D20", "did you mean 1d20?")])
def test_one_die_without_its_count_is_told_how_dice_are_written(written, hint):
    assert problems(f"outcome r: int = 0\naction go() {{ r = {written} }}\n") == [(f"unknown name '{written}'", hint)]


def test_dice_with_a_capital_d_are_told_to_use_a_small_one():
    assert problems("outcome r: int = 0\naction go() { r = 2D6 }\n") == [
        ("'2D6': dice are written with a small d", "write 2d6")]


@pytest.mark.parametrize("written, hint", [
    ("4d6kh3", "write keep_highest(4, 6, 3)"),
    ("3d6kl1", "write keep_lowest(3, 6, 1)"),
    ("4d6dl1", "write drop_lowest(4, 6, 1)"),
    ("5d6dh2", "write drop_highest(5, 6, 2)"),
    ("3d6ro1", "write roll(3, 6, reroll: [1])"),
    ("3d6r1", "write roll(3, 6, reroll_while: [1])"),
    ("2d10e", "write explode(2, 10, 10) (the last number: how many times a die may explode)"),
])
def test_dice_in_another_notation_are_told_the_builtin_that_does_it(written, hint):
    assert problems(f"outcome r: int = 0\naction go() {{ r = {written} }}\n") == [
        (f"'{written}': dice take no letters after them here", hint)]


@pytest.mark.parametrize("written, shown", [("4d6!", "explode(4, 6, 10)"), ("d10!!", "explode(1, 10, 10)")])
def test_exploding_dice_written_with_a_bang_are_told_to_use_explode(written, shown):
    [(message, hint)] = problems(f"outcome r: int = 0\naction go() {{ r = {written} }}\n")
    assert message == f"'{written}': dice take no '!' after them here" and hint.startswith(f"write {shown}")


def test_dice_run_into_another_name_are_told_to_put_an_operator_between():
    assert problems("outcome r: int = 0\naction go() { r = 2d6bonus }\n") == [
        ("the dice 2d6 run into the name 'bonus'", "put a space or an operator between them, as in 2d6 + x")]


def test_rolling_more_dice_than_the_limit_is_a_located_error():
    text = "outcome r: int = 0\naction go() { let d: dice = dice(6000, 6)\n d += d\n r = roll(d) }\n"
    with pytest.raises(ScenarioError) as caught:
        exact(rules(text), Scenario("go", {}))
    assert [d.brief() for d in caught.value.diagnostics] == [
        "d.rules:4:6: rolling 12000d6: 12000 dice are over the limit of 10000"]


def test_a_variant_that_changes_a_weapon_s_dice_shows_in_a_diff():
    variant = RULES.replace("damage 1d6 + 1", "damage 1d8 + 1")
    (change,) = compare(rules(), rules(variant))
    assert (change.name, change.details) == ("sword", ("damage: 1d6 + 1 -> 1d8 + 1",))


def test_sampled_dice_values_match_the_exact_odds():
    from test_agreement import assert_sampling_matches_exact

    assert_sampling_matches_exact(rules(), Scenario("hit", {"w": "axe"}, {"extra": "1d4"}))


def test_a_state_written_with_dice_reads_back_as_the_same_dice(tmp_path, capsys):
    from fracas.interpreter.tools.cli import main

    rules_file, scenario = tmp_path / "d.rules", tmp_path / "s.toml"
    rules_file.write_text(RULES)
    scenario.write_text('action = "hit"\n[w]\ndamage = "2d6 + 1d4 - 1"\n')
    assert main(["run", str(rules_file), str(scenario), "--write-state", str(tmp_path / "state.toml")]) == 0
    assert 'damage = "2d6 + 1d4 - 1"' in (tmp_path / "state.toml").read_text()
    capsys.readouterr()
    assert main(["run", str(rules_file), str(tmp_path / "state.toml"), "--toml"]) == 0
    assert 'damage = "2d6 + 1d4 - 1"' in capsys.readouterr().out


def test_a_metric_writes_a_dice_value_with_dice():
    from fracas.interpreter.tools.sweep import metric_expression

    with pytest.raises(RulesError) as caught:
        metric_expression("prob(w.damage == 1d6)", rules(), "hit")
    assert [(d.message, d.hint) for d in caught.value.diagnostics] == [
        ("a dice value here is written dice(count, sides)", "as in dice(1, 6) + 1")]
    metric_expression("prob(w.damage == dice(1, 6) + 1)", rules(), "hit")


def test_dice_cannot_be_taken_away_from_a_local_either():
    text = "outcome r: int = 0\naction go() { let d: dice = 2d6\n d -= 1d4\n r = roll(d) }\n"
    assert problems(text) == [
        ("dice cannot be taken away", "a dice value adds dice, and adds or takes away a number: 2d6 + 1d4 - 1")]


@pytest.mark.parametrize("written, shown", [('"2d6"', "2d6"), ('"1d4 + 2"', "1d4 + 2"), ('" d20 "', "1d20"),
                                            ('"2d6 + d4"', "2d6 + 1d4")])
def test_dice_rolled_in_quotes_are_one_error_saying_to_write_them_without(written, shown):
    with pytest.raises(RulesError) as caught:
        dsl.loads(f"outcome o: int = 0\naction go() {{ o = roll({written}) }}\n", "quoted.rules")
    [told] = caught.value.diagnostics
    assert (told.message, told.hint) == ("dice are written without quotes", f"write roll({shown})")


@pytest.mark.parametrize("written, highest, lowest", [("w.damage", 7, 2), ("w.damage + 2d6", 19, 4), ("3", 3, 3)])
def test_max_roll_and_min_roll_are_the_highest_and_lowest_totals_a_dice_value_can_roll(written, highest, lowest):
    text = RULES.replace("action hit(w: weapon) { result = roll(w.damage + extra) + w.bonus }",
                         "outcome low: int = 0\naction hit(w: weapon) {\n    result = max_roll(" + written + ")\n"
                         "    low = min_roll(" + written + ")\n}")
    found = exact(rules(text), Scenario("hit", {"w": "sword"}))
    assert (found.marginal("result"), found.marginal("low")) == ({highest: 1}, {lowest: 1})


def test_the_largest_of_a_dice_value_is_told_to_be_its_max_roll():
    [(message, hint)] = problems(RULES.replace("roll(w.damage + extra)", "max(w.damage)"))
    assert message == "'max' needs numbers, not a dice" and hint.startswith(
        "the highest total it can roll is max_roll(w.damage); ")


def test_the_least_of_a_dice_value_is_told_to_be_its_min_roll():
    [(_, hint)] = problems(RULES.replace("roll(w.damage + extra)", "min(w.damage)"))
    assert hint.startswith("the lowest total it can roll is min_roll(w.damage); ")


def test_max_roll_and_min_roll_take_a_negative_number_added_and_use_no_forced_roll():
    text = RULES.replace("action hit(w: weapon) { result = roll(w.damage + extra) + w.bonus }",
                         "outcome low: int = 0\naction hit(w: weapon) {\n    result = max_roll(w.damage) + roll(1, 6)\n"
                         "    low = min_roll(w.damage)\n}")
    run = forced(rules(text), Scenario("hit", {"w": {"damage": "1d4 - 3"}}), [2])
    assert (run.outcomes["result"], run.outcomes["low"]) == (3, -2)
