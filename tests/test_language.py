"""The language's constructs, each on a small rules text, run exactly and sampled."""

from __future__ import annotations

from fractions import Fraction

import pytest

import dsl
from interpreter import Scenario, ScenarioError, exact, forced, sample

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


def test_round_takes_halves_away_from_zero():
    assert odds("result = round(5 / 2) + round(-5 / 2) * 10") == {3 - 30: 1}


def test_decimal_literals_are_exact_fractions():
    assert odds("flag = 0.05 * 20 == 1", outcome="flag") == {True: 1}


def test_min_max_clamp_and_abs():
    assert odds("result = min(4, 2, 9) + max([1, 5]) * 10 + clamp(12, 0, 10) * 100 + abs(-3) * 1000") == {
        2 + 50 + 1000 + 3000: 1
    }


def test_a_die_is_uniform():
    assert odds("result = 1d6") == {face: Fraction(1, 6) for face in range(1, 7)}


def test_two_dice_sum_by_convolution():
    dist = odds("result = 2d6")
    assert dist[7] == Fraction(1, 6) and dist[2] == Fraction(1, 36)


def test_roll_takes_counts_from_values():
    assert odds("result = roll(1, d.sides)", {"d": {"sides": 4}}) == {f: Fraction(1, 4) for f in range(1, 5)}


def test_chance_is_a_bernoulli_trial():
    assert odds("flag = chance(1/3)", outcome="flag") == {False: Fraction(2, 3), True: Fraction(1, 3)}


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


def test_an_if_on_chance_splits_the_distribution():
    body = 'if chance(1/4) { result = 10 } else { result = 1d2 }'
    assert odds(body) == {1: Fraction(3, 8), 2: Fraction(3, 8), 10: Fraction(1, 4)}


def test_a_for_loop_accumulates_chance_and_merges_states():
    assert odds("for i in [1, 2, 3] { if chance(1/2) { result += 1 } }") == {
        0: Fraction(1, 8), 1: Fraction(3, 8), 2: Fraction(3, 8), 3: Fraction(1, 8)
    }


def test_stop_ends_the_resolution_and_is_reported():
    rules = dsl.loads(HEADER + 'action go() {\n if chance(1/2) { stop "missed" }\n result = 1\n}\n', "t.rules")
    dist = exact(rules, Scenario("go", {}))
    assert dist.marginal("result") == {0: Fraction(1, 2), 1: Fraction(1, 2)}
    assert dist.marginal("stopped") == {"": Fraction(1, 2), "missed": Fraction(1, 2)}


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
    rules = dsl.loads(HEADER + "action go() { flag = chance(3/2) }\n", "t.rules")
    with pytest.raises(ScenarioError) as caught:
        exact(rules, Scenario("go", {}))
    assert "between 0 and 1" in caught.value.diagnostics[0].message


def test_a_field_of_none_is_a_located_error_with_a_hint():
    rules = dsl.loads(HEADER + "action go(other: die? = none) { result = other.sides }\n", "t.rules")
    with pytest.raises(ScenarioError) as caught:
        exact(rules, Scenario("go", {}))
    assert "none" in caught.value.diagnostics[0].message and "!= none" in caught.value.diagnostics[0].hint


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
