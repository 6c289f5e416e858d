"""The language's constructs, each on a small rules text, run exactly and sampled."""

from __future__ import annotations

from fractions import Fraction

import pytest

from fracas import dsl
from fracas.dsl import RulesError
from fracas.interpreter import Scenario, ScenarioError, exact, forced, sample

HEADER = """
kind die { sides: int = 6 }
outcome result: int = 0
outcome flag: bool = false
outcome note: text = ""
"""


def odds(body: str, inputs: dict | None = None, params: str = "", outcome: str = "result") -> dict:
    rules = dsl.loads(HEADER + params + f"action go(d: die = {{}}) {{\n{body}\n}}\n", "test.rules")
    return exact(rules, Scenario("go", inputs or {})).marginal(outcome)


def test_integers_stay_integers_and_division_is_exact():
    assert odds("result = floor(7 / 2)") == {3: 1}
    assert odds("result = ceil(7 / 2)") == {4: 1}


def test_floor_and_ceil_of_a_division_round_toward_lower_and_higher_numbers_either_side_of_zero():
    for expression, rounded in (("floor(-7 / 2)", -4), ("ceil(-7 / 2)", -3), ("floor(7 / -2)", -4),
                                ("ceil(7 / -2)", -3), ("floor(-8 / 2)", -4), ("ceil((1/3) / (1/6))", 2),
                                ("floor((7/2) / 1)", 3)):
        assert odds(f"result = {expression}") == {rounded: 1}, expression


def test_floor_and_ceil_of_a_roll_divided_are_distributions_of_whole_numbers():
    assert odds("result = floor(roll(1, 6) / 4)") == {0: Fraction(1, 2), 1: Fraction(1, 2)}
    assert odds("result = ceil(roll(1, 6) / 4)") == {1: Fraction(2, 3), 2: Fraction(1, 3)}
    rules = dsl.loads(HEADER + "action go(d: die = {}) {\nresult = ceil(roll(1, 6) / 4)\n}\n", "test.rules")
    assert forced(rules, Scenario("go", {}), [5]).outcomes["result"] == 2


def share(expression: str) -> object:
    rules = dsl.loads(HEADER + f"outcome share: number = 0\naction go() {{\n share = {expression}\n}}\n", "t.rules")
    [value] = exact(rules, Scenario("go", {})).marginal("share")
    return value


def test_whole_numbers_divided_evenly_stay_whole_numbers():
    for expression, whole in (("12 / 4", 3), ("-12 / 4", -3), ("12 / -3", -4), ("0 / 5", 0)):
        found = share(expression)
        assert (found, type(found)) == (whole, int), expression


def test_whole_numbers_divided_unevenly_are_exact_fractions_in_lowest_terms():
    for expression, fraction in (("6 / 4", Fraction(3, 2)), ("6 / -4", Fraction(-3, 2)), ("-7 / 2", Fraction(-7, 2))):
        found = share(expression)
        assert (found, type(found)) == (fraction, Fraction), expression
    assert odds("flag = 1 / 3 * 3 == 1 and 7 / 2 == 3.5", outcome="flag") == {True: 1}


def test_round_takes_halves_away_from_zero():
    assert odds("result = round(5 / 2) + round(-5 / 2) * 10") == {3 - 30: 1}


def test_decimal_literals_are_exact_fractions():
    assert odds("flag = 0.05 * 20 == 1", outcome="flag") == {True: 1}


def test_min_max_clamp_and_abs():
    assert odds("result = min(4, 2, 9) + max([1, 5]) * 10 + clamp(12, 0, 10) * 100 + abs(-3) * 1000") == {
        2 + 50 + 1000 + 3000: 1
    }


def test_clamp_with_its_low_above_its_high_is_a_located_error():
    with pytest.raises(ScenarioError) as caught:
        odds("result = clamp(5, 10, 0)")
    assert caught.value.diagnostics[0].message == "clamp's low, 10, is above its high, 0"


def test_a_die_is_uniform():
    assert odds("result = 1d6") == {face: Fraction(1, 6) for face in range(1, 7)}


def test_three_dice_sum_as_counting_every_throw_would():
    throws = [a + b + c for a in range(1, 5) for b in range(1, 5) for c in range(1, 5)]
    assert odds("result = 3d4") == {t: Fraction(throws.count(t), 64) for t in set(throws)}


def test_two_dice_sum_by_convolution():
    dist = odds("result = 2d6")
    assert dist[7] == Fraction(1, 6) and dist[2] == Fraction(1, 36)


def test_roll_takes_counts_from_values():
    assert odds("result = roll(1, d.sides)", {"d": {"sides": 4}}) == {f: Fraction(1, 4) for f in range(1, 5)}


def test_chance_is_a_bernoulli_trial():
    assert odds("flag = chance(1/3)", outcome="flag") == {False: Fraction(2, 3), True: Fraction(1, 3)}


@pytest.mark.parametrize("roll, flag", [(1, True), (0, False)])
def test_a_forced_chance_comes_out_true_for_1_and_false_for_0(roll, flag):
    rules = dsl.loads(HEADER + "action go() {\nflag = chance(1/3)\n}\n", "test.rules")
    assert forced(rules, Scenario("go", {}), [roll]).outcomes["flag"] is flag


@pytest.mark.parametrize("p, roll, told", [
    ("0", 1, "a chance of 0 can only come out as 0: its forced number is 0, not 1"),
    ("1", 0, "a chance of 1 can only come out as 1: its forced number is 1, not 0"),
])
def test_a_certain_chance_refuses_the_forced_number_it_cannot_come_out_as(p, roll, told):
    rules = dsl.loads(HEADER + f"action go() {{\nflag = chance({p})\n}}\n", "test.rules")
    with pytest.raises(ScenarioError) as caught:
        forced(rules, Scenario("go", {}), [roll])
    assert told in caught.value.diagnostics[0].message


@pytest.mark.parametrize("p, roll", [("0", 1), ("1", 1)])
def test_trials_at_0_or_1_refuse_a_count_they_cannot_come_out_as(p, roll):
    rules = dsl.loads(HEADER + f"action go() {{\nresult = trials(2, {p})\n}}\n", "test.rules")
    with pytest.raises(ScenarioError) as caught:
        forced(rules, Scenario("go", {}), [roll])
    assert f"2 trials at {p} can only come out as" in caught.value.diagnostics[0].message


def test_trials_is_one_binomial_even_for_sixty_trials():
    dist = odds("result = trials(60, 0.55)")
    assert sum(dist.values()) == 1
    assert dist[60] == Fraction(11, 20) ** 60


def test_pick_chooses_uniformly_and_merges_equal_items():
    assert odds("result = pick([1, 2, 2, 3])") == {1: Fraction(1, 4), 2: Fraction(1, 2), 3: Fraction(1, 4)}


def test_successes_count_doubles_unless_switched_off():
    with_doubles = odds("result = successes(1, 10, at_least: 7, double_at: 10)")
    assert with_doubles == {0: Fraction(6, 10), 1: Fraction(3, 10), 2: Fraction(1, 10)}
    plain = odds("result = successes(1, 10, at_least: 7)")
    assert plain == {0: Fraction(6, 10), 1: Fraction(4, 10)}


def test_twenty_dice_of_successes_sum_to_one():
    dist = odds("result = successes(20, 10, at_least: 7, double_at: 10)")
    assert sum(dist.values()) == 1 and max(dist) == 40


def test_a_tally_counts_dice_by_group_as_one_multinomial():
    dist = odds("let t = tally(2, 6, [[1], [5, 6]])\nresult = t[0] * 10 + t[1]")
    # ones, fives-or-sixes: each die lands in the first group 1 time in 6, the second 2 in 6.
    assert dist == {0: Fraction(9, 36), 1: Fraction(12, 36), 2: Fraction(4, 36), 10: Fraction(6, 36),
                    11: Fraction(4, 36), 20: Fraction(1, 36)}


def test_twenty_dice_tallied_in_three_groups_sum_to_one():
    dist = odds("let t = tally(20, 10, [[1, 2, 3, 4, 5, 6], [7, 8, 9], [10]])\nresult = t[1] + 2 * t[2]")
    assert sum(dist.values()) == 1
    assert dist == odds("result = successes(20, 10, at_least: 7, double_at: 10)")


def test_a_tally_forced_and_sampled_reads_each_die_in_turn():
    rules = dsl.loads(HEADER + "action go() {\n let t = tally(3, 6, [[6], [1]])\n result = t[0] * 10 + t[1]\n}\n",
                      "t.rules")
    assert forced(rules, Scenario("go", {}), [6, 1, 6]).outcomes["result"] == 21
    possible = exact(rules, Scenario("go", {})).marginal("result")
    assert all(sample(rules, Scenario("go", {}), seed=seed).outcomes["result"] in possible for seed in range(50))


@pytest.mark.parametrize("groups, message", [
    ("[[1, two], [two]]", "face 2 is in two groups"),
    ("[[seven]]", "a d6 has no face 7"),
])
def test_a_tally_with_bad_groups_is_a_located_error(groups, message):
    rules = dsl.loads(HEADER + f"param two = 2\nparam seven = 7\naction go() {{\n let t = tally(3, 6, {groups})\n}}\n",
                      "t.rules")
    with pytest.raises(ScenarioError) as caught:
        exact(rules, Scenario("go", {}))
    assert caught.value.diagnostics[0].message == message
    assert caught.value.diagnostics[0].line == 9


@pytest.mark.parametrize("groups, column, message", [
    ("[[1, 2], [2, 6]]", 32, "face 2 is in two groups"),
    ("[[1], [7]]", 29, "a d6 has no face 7"),
])
def test_a_tally_with_bad_groups_written_out_is_refused_before_running(groups, column, message):
    with pytest.raises(RulesError) as caught:
        dsl.loads(HEADER + f"action go() {{\n let t = tally(3, 6, {groups})\n}}\n", "t.rules")
    (found,) = caught.value.diagnostics
    assert (found.line, found.column, found.message) == (7, column, message)


def test_a_tally_with_more_outcomes_than_the_state_limit_stops_the_exact_engine():
    rules = dsl.loads(HEADER + "action go() {\n let t = tally(200, 6, [[1], [2], [3], [4], [5]])\n}\n", "t.rules")
    with pytest.raises(ScenarioError) as caught:
        exact(rules, Scenario("go", {}))
    assert "the exact engine stopped" in caught.value.diagnostics[0].message


def test_an_if_on_chance_splits_the_distribution():
    body = 'if chance(1/4) { result = 10 } else { result = 1d2 }'
    assert odds(body) == {1: Fraction(3, 8), 2: Fraction(3, 8), 10: Fraction(1, 4)}


def test_a_for_loop_accumulates_chance_and_merges_states():
    assert odds("for i in [1, 2, 3] { if chance(1/2) { result += 1 } }") == {
        0: Fraction(1, 8), 1: Fraction(3, 8), 2: Fraction(3, 8), 3: Fraction(1, 8)
    }


def test_stop_ends_the_resolution_and_is_reported():
    rules = dsl.loads(HEADER + 'action go() {\n if chance(1/2) { stop "missed" }\n result = 1\n}\n', "t.rules")
    for outcomes_only in (False, True):
        dist = exact(rules, Scenario("go", {}), outcomes_only=outcomes_only)
        assert dist.marginal("result") == {0: Fraction(1, 2), 1: Fraction(1, 2)}
        assert dist.marginal("stopped") == {"": Fraction(1, 2), "missed": Fraction(1, 2)}
        assert [(values["result"], values["stopped"], p) for values, p in dist.joint()] == [
            (0, "missed", Fraction(1, 2)), (1, "", Fraction(1, 2))]


def test_steps_run_in_order_and_change_state():
    rules = dsl.loads(HEADER + """
step add(n: int) { result = result * 10 + n }
action go() { add(1)  add(2)  add(3) }
""", "t.rules")
    assert exact(rules, Scenario("go", {})).marginal("result") == {123: 1}


def test_functions_are_pure_expressions():
    rules = dsl.loads(HEADER + """
fn distance(a: int, b: int) = abs(a - b)
fn twice(x: int) = x * 2
action go() { result = twice(distance(3, 8)) }
""", "t.rules")
    assert exact(rules, Scenario("go", {})).marginal("result") == {10: 1}


def test_a_function_calling_itself_forever_stops_with_a_located_error():
    rules = dsl.loads(HEADER + "fn forever(x: int) = forever(x + 1)\naction go() { result = forever(1) }\n", "t.rules")
    with pytest.raises(ScenarioError) as caught:
        exact(rules, Scenario("go", {}))
    d = caught.value.diagnostics[0]
    assert d.line == 6 and "deeper than" in d.message


def test_comprehensions_filter_and_map():
    assert odds("result = sum([x * x for x in [1, 2, 3, 4] if x > 2])") == {25: 1}


def test_in_tests_membership():
    assert odds("flag = 3 in [1, 2, 3] and 4 not in [1, 2]", outcome="flag") == {True: 1}


def test_conditional_expression():
    assert odds("result = if 2 > 1 then 5 else 6") == {5: 1}


def test_lists_index_from_zero():
    assert odds("result = [7, 8, 9][1]") == {8: 1}


def test_an_index_outside_the_list_is_a_located_error():
    rules = dsl.loads(HEADER + "action go() { result = [7][3] }\n", "t.rules")
    with pytest.raises(ScenarioError) as caught:
        exact(rules, Scenario("go", {}))
    assert caught.value.diagnostics[0].message == "index 3 is outside a list of 1"


def test_division_by_zero_is_a_located_error():
    rules = dsl.loads(HEADER + "action go() {\n result = floor(1 / (result - result))\n}\n", "t.rules")
    with pytest.raises(ScenarioError) as caught:
        exact(rules, Scenario("go", {}))
    assert (caught.value.diagnostics[0].line, caught.value.diagnostics[0].message) == (7, "division by zero")


def test_a_probability_outside_0_and_1_is_a_located_error():
    rules = dsl.loads(HEADER + "action go(p: number) { flag = chance(p) }\n", "t.rules")
    with pytest.raises(ScenarioError) as caught:
        exact(rules, Scenario("go", {"p": Fraction(3, 2)}))
    assert caught.value.diagnostics[0].message == "a probability must be between 0 and 1, not 3/2"


def test_a_field_of_what_may_be_none_is_a_checker_error_with_the_check_to_write():
    with pytest.raises(dsl.RulesError) as caught:
        dsl.loads(HEADER + "action go(other: die? = none) { result = other.sides }\n", "t.rules")
    (problem,) = caught.value.diagnostics
    assert problem.message == "'other' may be none here" and "if other != none" in problem.hint


def test_modifiers_apply_their_terms_in_order_within_bounds():
    rules = dsl.loads(HEADER + """
modifier armour(value: int, heavy: bool) {
    add 2 when heavy
    multiply 3
    at most 10
}
action go() { result = armour(1, true) * 100 + armour(1, false) }
""", "t.rules")
    assert exact(rules, Scenario("go", {})).marginal("result") == {9 * 100 + 3: 1}


def test_modifiers_are_listed_in_the_event_log():
    rules = dsl.loads(HEADER + "modifier m(v: int) {\n add 1\n}\naction go() { result = m(1) }\n", "t.rules")
    events = sample(rules, Scenario("go", {}), seed=1).events
    assert any(e["kind"] == "modifier" and e["result"] == "2" and e["terms"] == [7] for e in events)


def test_forced_rolls_drive_dice():
    rules = dsl.loads(HEADER + "action go() { result = 2d6 }\n", "t.rules")
    assert forced(rules, Scenario("go", {}), [6, 5]).outcomes["result"] == 11


def test_running_out_of_forced_rolls_is_a_located_error():
    rules = dsl.loads(HEADER + "action go() { result = 2d6 }\n", "t.rules")
    with pytest.raises(ScenarioError) as caught:
        forced(rules, Scenario("go", {}), [6])
    assert "ran out" in caught.value.diagnostics[0].message


def test_sampling_draws_only_possible_outcomes():
    rules = dsl.loads(HEADER + "action go() { result = 3d6 + trials(5, 1/2) }\n", "t.rules")
    possible = exact(rules, Scenario("go", {})).marginal("result")
    for seed in range(50):
        assert sample(rules, Scenario("go", {}), seed=seed).outcomes["result"] in possible


def test_entities_change():
    rules = dsl.loads(HEADER + "die big { sides 20 }\naction go(d: die = {}) { d.sides = 8\n result = d.sides + big.sides }\n",
                      "t.rules")
    run = sample(rules, Scenario("go", {}), seed=0)
    assert run.outcomes["result"] == 28 and run.new_state()["d"] == {"sides": 8}


def test_a_row_named_in_a_step_cannot_change():
    with pytest.raises(dsl.RulesError) as caught:
        dsl.loads(HEADER + "die big { sides 20 }\naction go() { big.sides = 8 }\n", "t.rules")
    assert caught.value.diagnostics[0].message == "'big' is a row: rows are constants"


def test_a_row_given_as_an_input_cannot_change_either():
    rules = dsl.loads(HEADER + "die big { sides 20 }\naction go(d: die) { d.sides = 8 }\n", "t.rules")
    with pytest.raises(ScenarioError) as caught:
        exact(rules, Scenario("go", {"d": "big"}))
    assert "rows are constants" in caught.value.diagnostics[0].message


TABLES = HEADER + """
enum ground { open rough }
kind piece_type { moves: int }
piece_type archer { moves 2 }
piece_type knight { moves 4 }
table strength(piece_type, ground): int default -1 {
              [open  rough]
    archer       3     -2
}
"""


def test_a_table_is_looked_up_by_two_rows():
    rules = dsl.loads(TABLES + "action go() { result = strength[archer, rough] * 10 + strength[archer, open] }\n", "t.rules")
    assert exact(rules, Scenario("go", {})).marginal("result") == {-20 + 3: 1}


def test_a_missing_table_row_gives_the_default():
    rules = dsl.loads(TABLES + "action go() { result = strength[knight, open] }\n", "t.rules")
    assert exact(rules, Scenario("go", {})).marginal("result") == {-1: 1}


def test_a_table_with_a_row_of_the_wrong_kind_is_an_error():
    with pytest.raises(dsl.RulesError) as caught:
        dsl.loads(TABLES + "table bad(piece_type, ground): int {\n [open]\n rough 1\n}\n", "t.rules")
    assert caught.value.diagnostics[0].message == "'rough' is not a piece_type"


def test_a_table_row_with_too_few_values_is_an_error():
    with pytest.raises(dsl.RulesError) as caught:
        dsl.loads(TABLES + "table bad(piece_type, ground): int {\n [open rough]\n archer 1\n}\n", "t.rules")
    assert caught.value.diagnostics[0].message == "row 'archer' has 1 value for 2 columns"


def test_a_table_lookup_with_keys_of_the_wrong_kind_is_an_error():
    with pytest.raises(dsl.RulesError) as caught:
        dsl.loads(TABLES + "action go() { result = strength[open, archer] }\n", "t.rules")
    assert [d.message for d in caught.value.diagnostics] == ["expected piece_type, found ground",
                                                             "expected ground, found piece_type"]


def test_an_enum_declares_a_kind_and_its_rows():
    rules = dsl.loads(TABLES + "action go(g: ground = rough) { flag = g == rough and g != open }\n", "t.rules")
    assert exact(rules, Scenario("go", {})).marginal("flag") == {True: 1}


def test_a_typed_let_may_later_hold_a_fraction():
    assert odds("let share: number = 0\nshare = 1/3\nresult = floor(share * 9)") == {3: 1}


def test_range_counts_from_zero():
    assert odds("result = sum(range(5))") == {10: 1}


def test_records_written_in_a_step_join_a_list():
    rules = dsl.loads(HEADER + """
kind mark { size: int  heavy: bool = true }
action go(marks: list of mark = []) {
    marks += [{size: 3}]
    result = marks[0].size + len(marks)
    flag = marks[0].heavy
}
""", "t.rules")
    run = sample(rules, Scenario("go", {}), seed=0)
    assert run.outcomes == {"result": 4, "flag": True, "note": ""}
    assert run.new_state()["marks"] == [{"size": 3, "heavy": True}]


def test_most_keywords_can_still_be_field_names():
    rules = dsl.loads(HEADER + "kind piece { let: int  set: int }\naction go(p: piece = {let: 2, set: 3}) { result = p.let * p.set }\n",
                      "t.rules")
    assert exact(rules, Scenario("go", {})).marginal("result") == {6: 1}


def test_a_reserved_word_where_it_cannot_be_a_name_says_so():
    with pytest.raises(dsl.RulesError) as caught:
        dsl.loads("kind piece { size: int = 1  then int }\n", "t.rules")  # no ':' makes it a field's name
    d = caught.value.diagnostics[0]
    assert d.message == "'then' is a reserved word of the language and cannot be a name here"
    assert d.hint == "choose another name, such as 'then_'"


CHOICES = HEADER + """
enum stance { guard flee }
choice reaction: stance = guard "how the target reacts"
choice brave: bool = false
action go() { result = if reaction == flee then 1 else 2
              flag = brave }
"""


def test_a_choice_takes_its_default():
    assert exact(dsl.loads(CHOICES, "t.rules"), Scenario("go", {})).marginal("result") == {2: 1}


def test_a_scenario_makes_a_choice():
    rules = dsl.loads(CHOICES, "t.rules")
    assert exact(rules, Scenario("go", {}, choices={"reaction": "flee"})).marginal("result") == {1: 1}


def test_an_unknown_choice_or_option_is_a_scenario_error():
    rules = dsl.loads(CHOICES, "t.rules")
    with pytest.raises(ScenarioError) as caught:
        exact(rules, Scenario("go", {}, choices={"reactoin": "flee"}))
    assert caught.value.diagnostics[0].hint == "did you mean 'reaction'?"
    with pytest.raises(ScenarioError) as caught:
        exact(rules, Scenario("go", {}, choices={"reaction": "fight"}))
    assert "unknown stance 'fight'" in caught.value.diagnostics[0].message


def test_a_choice_needs_options():
    with pytest.raises(dsl.RulesError) as caught:
        dsl.loads(HEADER + "choice amount: int = 3\n", "t.rules")
    assert caught.value.diagnostics[0].message == ("choice 'amount' needs options: make its type bool, an enum, or a "
                                                   "kind with rows")


def test_return_ends_the_step_but_not_the_resolution():
    rules = dsl.loads(HEADER + """
step half() {
    result += 1
    if chance(1/2) { return "early" }
    result += 10
}
action go() { half()  result += 100 }
""", "t.rules")
    dist = exact(rules, Scenario("go", {}))
    assert dist.marginal("result") == {101: Fraction(1, 2), 111: Fraction(1, 2)}
    assert "stopped" not in dist.outcome_names


def test_rerolling_failures_once_is_exact():
    # One d10, 7+ succeeds: fails 6 in 10; rerolling failures once, 36 in 100.
    assert odds("result = successes(1, 10, at_least: 7, reroll: [1, 2, 3, 4, 5, 6])") == {
        0: Fraction(36, 100), 1: Fraction(64, 100)}


def test_a_default_may_read_a_field_of_a_nested_thing():
    rules = dsl.loads(HEADER + """
kind gauge { capacity: int }
kind holder { gauge: gauge  spare: int = gauge.capacity - 3 }
action go(h: holder) { result = h.spare }
""", "t.rules")
    assert exact(rules, Scenario("go", {"h": {"gauge": {"capacity": 5}}})).marginal("result") == {2: 1}


def test_crossed_counts_the_marked_boxes_a_track_passes():
    assert odds("result = crossed([2, 4, 8], 1, 4) * 10 + crossed([2, 4, 8], 4, 7)") == {20: 1}


def test_absorb_fills_layers_in_order_and_drops_what_none_can_take():
    assert odds("let parts = absorb(7, [3, 2, 1])\nresult = parts[0] * 100 + parts[1] * 10 + parts[2]") == {321: 1}
    assert odds("result = sum(absorb(2, [0, 5]))") == {2: 1}


SECTIONS = ("kind section { armor: int  structure: int }\n"
            "kind machine { parts: list of section = [{armor: 1, structure: 1}]\n"
            "               core: section = {armor: 5, structure: 4} }\n"
            "outcome left: int = 0\n"
            "action hit(m: machine) {\n    m.core.armor -= 2\n    for part in m.parts { part.structure -= 1 }\n"
            "    left = m.core.armor * 10 + m.parts[0].structure\n}\n")


def test_a_record_an_input_takes_by_default_is_a_thing_the_rules_may_change():
    rules = dsl.loads(SECTIONS, "t.rules")
    assert exact(rules, Scenario("hit", {"m": {}})).marginal("left") == {30: 1}
    given = {"m": {"core": {"armor": 5, "structure": 4}, "parts": [{"armor": 1, "structure": 1}]}}
    assert exact(rules, Scenario("hit", given)).marginal("left") == {30: 1}


def test_a_comprehension_makes_records_of_the_kind_its_list_is_wanted_of():
    rules = dsl.loads("kind section { armor: int }\n"
                      "kind machine { parts: list of section = [{armor: i + 1} for i in range(3)] }\n"
                      "outcome left: int = 0\n"
                      "action hit(m: machine) {\n    for part in m.parts { part.armor -= 1 }\n"
                      "    let spare: list of section = [{armor: 10 * i} for i in range(3) if i > 0]\n"
                      "    left = sum([p.armor for p in m.parts]) * 100 + sum([s.armor for s in spare])\n}\n", "t.rules")
    assert exact(rules, Scenario("hit", {"m": {}})).marginal("left") == {330: 1}


def test_changing_a_field_of_a_record_written_in_the_rules_says_it_is_a_value_not_a_thing():
    rules = dsl.loads("kind piece { hp: int = 2 }\noutcome n: int = 0\nstep hurt(p: piece) { p.hp -= 1  n = p.hp }\n"
                      "action go() { hurt({hp: 5}) }\n", "t.rules")
    with pytest.raises(ScenarioError) as caught:
        exact(rules, Scenario("go", {}))
    d = caught.value.diagnostics[0]
    assert (d.line, d.message) == (3, "cannot change a field of piece{hp: 5}: a record written in the rules is a value, "
                                      "not a thing")
    assert d.hint.startswith("only the scenario's things change")


def test_a_record_given_as_an_input_s_default_is_a_thing_and_changes():
    rules = dsl.loads("kind piece { hp: int = 2 }\noutcome n: int = 0\n"
                      "action go(p: piece = {hp: 5}) { p.hp -= 1  n = p.hp }\n", "t.rules")
    assert exact(rules, Scenario("go", {})).marginal("n") == {4: 1}


def test_two_things_of_the_scenario_with_the_same_fields_are_two_things():
    rules = dsl.loads(HEADER + "action go(a: die, b: die) { flag = a == b }\n", "t.rules")
    assert exact(rules, Scenario("go", {"a": {"sides": 6}, "b": {"sides": 6}})).marginal("flag") == {False: 1}


def test_records_written_in_the_rules_with_the_same_fields_are_equal():
    rules = dsl.loads(HEADER + "action go() { let a: die = {sides: 6}\n let b: die = {sides: 6}\n flag = a == b }\n",
                      "t.rules")
    assert exact(rules, Scenario("go", {})).marginal("flag") == {True: 1}


def test_dice_values_compare_as_written_in_order():
    rules = dsl.loads(HEADER + "param a: dice = 0\nparam b: dice = 0\naction go() { flag = a == b }\n", "t.rules")
    same = exact(rules, Scenario("go", {}, params={"a": "1d6 + 1d6", "b": "2d6"})).marginal("flag")
    swapped = exact(rules, Scenario("go", {}, params={"a": "1d4 + 1d6", "b": "1d6 + 1d4"})).marginal("flag")
    assert (same, swapped) == ({True: 1}, {False: 1})


def test_join_puts_texts_one_after_another_with_no_separator_unless_given():
    assert odds('note = join(["a", "b"]) + "|" + join(["a", "b"], separator: ", ") + "|" + join([], "-")',
                outcome="note") == {"ab|a, b|": 1}


def test_join_takes_texts_only():
    with pytest.raises(RulesError) as caught:
        odds("note = join([1, 2])", outcome="note")
    assert caught.value.diagnostics[0].message == "expected text, found int"


def test_sort_gives_the_numbers_of_a_list_from_the_smallest_up():
    assert odds("result = sort([3, 1, 2])[0] * 100 + sort([3, 1, 2])[2] + floor(sort([2/3, 1/2])[0] * 4)") == {
        100 + 3 + 2: 1}


def test_sort_takes_numbers_only():
    with pytest.raises(RulesError) as caught:
        odds('result = len(sort(["b", "a"]))')
    assert caught.value.diagnostics[0].message == "expected number, found text"


def test_a_body_takes_damage_up_to_its_hitpoints_and_no_more():
    assert odds("result = damage_taken(fire(volley(2, damage: 2), bodies(1, 3)))") == {3: 1}
    assert odds("result = damage_taken(fire(volley(1, damage: 5), bodies(1, 3)))") == {3: 1}
    assert odds("result = damage_taken(fire(volley(2, damage: 2), bodies(1, none)))") == {0: 1}
