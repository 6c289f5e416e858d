"""Every runaway stops within seconds with a located error naming its limit, sampled or exact."""

from __future__ import annotations

from pathlib import Path

import pytest

from fracas import dsl
from fracas.dsl.limits import Limits
from fracas.interpreter import Scenario, ScenarioError, estimate, exact, sample
from fracas.interpreter.tools.examples import run_example

RULES = Path(__file__).resolve().parent.parent / "rules"

HEADER = 'rules "runaways"\noutcome x: int = 0\noutcome y: int = 0\n'


def stopped(body: str, engine: str, limits: Limits = Limits()) -> tuple[int, str, str]:
    rules = dsl.loads(HEADER + "action go() {\n" + body + "\n}\n", "runaway.rules", limits)
    with pytest.raises(ScenarioError) as caught:
        if engine == "exact":
            exact(rules, Scenario("go", {}))
        else:
            sample(rules, Scenario("go", {}), seed=1)
    d = caught.value.diagnostics[0]
    return d.line, d.message, d.hint


@pytest.mark.parametrize("engine", ["sampled", "exact"])
def test_nested_loops_of_ten_thousand_stop_at_the_work_limit(engine):
    line, message, hint = stopped("for i in range(10000) {\n  for j in range(10000) { x += 1 }\n}", engine)
    assert line in (5, 6) and message == "this resolution did more than 1000000 steps of work"
    assert "--limit work=N" in hint


@pytest.mark.parametrize("engine", ["sampled", "exact"])
def test_only_an_exact_run_that_stops_at_the_work_limit_suggests_sampling(engine):
    _, _, hint = stopped("for i in range(10000) {\n  for j in range(200) { x += 1 }\n}", engine)
    assert ("fracas odds --samples N" in hint) == (engine == "exact")


@pytest.mark.parametrize("engine", ["sampled", "exact"])
def test_a_sum_over_a_nested_comprehension_stops_at_the_work_limit(engine):
    line, message, _ = stopped("x = sum([sum([i * j for j in range(10000)]) for i in range(10000)])", engine)
    assert line == 5 and message == "this resolution did more than 1000000 steps of work"


@pytest.mark.parametrize("draw", ["roll(1, 1000)", "roll(1, 1000) / 7"], ids=["whole numbers", "fractions"])
def test_a_loop_adding_wide_draws_into_an_outcome_stops_at_the_work_limit(draw):
    # The total is carried through the loop and each draw summed into it: work charged as it is summed.
    text = ('rules "runaways"\noutcome total: number = 0\naction go() {\n  for i in range(10000) {\n'
            f"    total += {draw}\n  }}\n}}\n")
    rules = dsl.loads(text, "runaway.rules", Limits(work=20_000))
    with pytest.raises(ScenarioError) as caught:
        exact(rules, Scenario("go", {}))
    d = caught.value.diagnostics[0]
    assert d.line == 5 and d.message == "this resolution did more than 20000 steps of work"


def test_forty_chance_branches_in_one_statement_stop_at_the_state_limit():
    line, message, hint = stopped("let all = [" + ", ".join(["chance(1/2)"] * 40) + "]\nx = len(all)", "exact")
    assert line == 5 and message == "a list of 40 items drawn at random has more than 200000 combinations of their values"
    assert "--limit states=N" in hint


def test_a_raised_work_limit_lets_a_long_loop_finish():
    rules = dsl.loads(HEADER + "action go() { for i in range(3000) { x += 1 } }\n", "long.rules", Limits(work=10_000))
    assert exact(rules, Scenario("go", {})).marginal("x") == {3000: 1}
    assert sample(rules, Scenario("go", {}), seed=1).outcomes["x"] == 3000


@pytest.mark.parametrize("engine", ["sampled", "exact"])
def test_ten_thousand_shots_at_bodies_that_cannot_die_change_nothing_and_end(engine):
    rules = dsl.loads(HEADER + "action go() {\n  let pool = bodies(3, none)\n  pool = fire(volley(10000), pool)\n"
                      "  x = living(pool)\n}\n", "immortal.rules")
    if engine == "exact":
        assert exact(rules, Scenario("go", {})).marginal("x") == {3: 1}
    else:
        assert sample(rules, Scenario("go", {}), seed=1).outcomes["x"] == 3


def test_pools_drawn_anew_for_each_size_a_pool_can_have_add_up_to_the_work_limit():
    # Inside one statement: 3001 sizes, each a new pool's distribution; no one of them is over the limit.
    line, message, hint = stopped("x = successes(successes(3000, 6, at_least: 4), 6, at_least: 5)", "exact",
                                  Limits(work=20_000))
    assert line == 5 and message.startswith("the exact engine stopped: ")
    assert message.endswith(" takes this resolution past 20000 steps of work") and "--limit work=N" in hint


def test_the_largest_of_those_pools_alone_is_within_the_same_limit():
    rules = dsl.loads(HEADER + "action go() {\n x = successes(3000, 6, at_least: 5)\n}\n", "pool.rules",
                      Limits(work=20_000))
    assert len(exact(rules, Scenario("go", {})).marginal("x")) == 3001


# Exact runaways that never hold many states at once, each stopped where its work is: the rules, the line that
# stops, the limit.
FEW_STATES_AT_A_TIME = {
    # Each of 3001 states draws a pool of its own size: millions of branches of numbers thousands of digits long,
    # merged into a few thousand states.
    "states branching on long distributions": (
        "x = successes(3000, 6, at_least: 4)\nx = successes(x, 6, at_least: 5)\nif x > 5 { y = 1 }", 6, 100_000),
    # Two million sums of a value drawn into the outcome, few for whole numbers, but each weight is long.
    "states summing long distributions into an outcome": (
        "x = successes(2000, 6, at_least: 4)\nx = successes(x, 6, at_least: 5)", 6, 300_000),
    # x waits, carried, while q and r are drawn; the `if` reads q and r but not x, and x goes back into each state.
    "a carried value split back into states again and again": (
        "x = roll(1, 3000)\nlet q = roll(1, 1000)\nlet r = roll(1, 2)\nif q > r { y = min(q, 3) } else { y = 1 }",
        8, 100_000),
    "an expression over wide draws worked out in many states": (
        "let q = roll(1, 3000)\nx = min(roll(1, 400) + roll(1, 400) + q, 2)", 6, 100_000),
    # A walk between two walls: its passes are solved exactly, an elimination over 200 states met at the loop.
    "a loop solved over hundreds of states": ("while x > -100 and x < 100 { x += roll(1, 3) - 2 }", 5, 100_000),
}


@pytest.mark.parametrize("body, line, work", FEW_STATES_AT_A_TIME.values(), ids=FEW_STATES_AT_A_TIME)
def test_an_exact_runaway_of_few_states_at_a_time_stops_at_the_work_limit(body, line, work):
    found, message, _ = stopped(body, "exact", Limits(work=work))
    assert found == line and message == f"this resolution did more than {work} steps of work"


def test_a_weapon_of_thousands_of_attacks_stops_at_the_work_limit():
    # Found by fuzzing: each of the thousands of hit counts draws its wound rolls, with the attacks carried.
    text = RULES.joinpath("miniatures.rules").read_text()
    text = text.replace("attacks: dice = 1 ", "attacks: dice = 3000 ")
    rules = dsl.loads(text, "miniatures.rules", Limits(work=100_000))
    example = next(e for e in rules.examples if e.example_id == "MIN-07")
    result = run_example(rules, example)
    assert not result.passed and "this resolution did more than 100000 steps of work (hint: " in result.message


def test_a_dice_value_rolled_anew_for_each_count_stops_at_the_work_limit():
    # Inside one of the pools' distributions, or where a block counts the states drawn: whichever passes it.
    line, message, hint = stopped("let n = roll(1, 300)\nx = roll(dice(n, 20) + 1d2)", "exact", Limits(work=100_000))
    assert line == 6 and (message.startswith("the exact engine stopped: ") and
                          message.endswith(" takes this resolution past 100000 steps of work")
                          or message == "this resolution did more than 100000 steps of work")


def test_chance_worked_out_by_an_earlier_resolution_stops_at_the_same_limit():
    # A process that resolves again and again (the language server's) remembers what it worked out: the work is
    # charged all the same.
    first = stopped("let n = roll(1, 300)\nx = roll(n, 20)", "exact", Limits(work=100_000))
    assert stopped("let n = roll(1, 300)\nx = roll(n, 20)", "exact", Limits(work=100_000)) == first


def test_long_sums_of_dice_added_into_an_outcome_stop_at_the_work_limit():
    # Each sum of 100d100 has 9,901 weights of 655 bits: their product took seconds that nothing charged.
    line, message, _ = stopped("x += roll(100, 100)\nx += roll(100, 100)", "exact")
    assert line == 6 and message == "this resolution did more than 1000000 steps of work"


def test_a_sum_of_many_dice_of_long_weights_is_charged_as_the_weights_grow():
    # Adding a die to weights thousands of bits long costs several steps a weight, not half a step.
    rules = dsl.loads(HEADER + "action go() {\n x = roll(200, 100)\n}\n", "runaway.rules", Limits(work=100_000))
    with pytest.raises(ScenarioError) as caught:
        exact(rules, Scenario("go", {}))
    assert "200d100 takes this resolution past 100000 steps of work" in caught.value.diagnostics[0].message


def test_a_limit_of_the_exact_engine_names_the_draw_of_the_most_values():
    # The states pile up where x is set, from two draws of 199 values each: the hint names the draw, not the pile.
    body = "let a = roll(2, 100)\nlet b = roll(2, 100)\nx = a * 1000 + b"
    rules = dsl.loads(HEADER + "action go() {\n" + body + "\n}\n", "runaway.rules")
    with pytest.raises(ScenarioError) as caught:
        exact(rules, Scenario("go", {}), max_states=10_000)
    hint = caught.value.diagnostics[0].hint
    assert hint.endswith("; the draw at line 5 gives 199 values to each state: where later rules read less of it "
                         "(a total, a yes or no), draw only that, as a step that gives it")


def test_a_limit_met_after_narrow_draws_names_none():
    _, _, hint = stopped("let all = [" + ", ".join(["chance(1/2)"] * 40) + "]\nx = len(all)", "exact")
    assert "the draw at line" not in hint


def test_a_pool_rolling_again_ten_thousand_deep_stops_at_the_work_limit():
    line, message, _ = stopped("x = successes(3, 10, at_least: 8, again_at: 10, depth: 10000)", "exact")
    assert line == 5 and message == ("the exact engine stopped: 3d10 counting 8+, again at 10 (at most 10000 a die) "
                                     "takes this resolution past 1000000 steps of work")


def test_a_limit_met_after_a_step_that_gives_many_values_names_the_call():
    text = (HEADER + "step pair(): int {\n  let a = roll(2, 100)\n  let b = roll(2, 100)\n  return a * 1000 + b\n}\n"
            "action go() {\n  let p = pair()\n  let q = pair()\n  x = p + q\n}\n")
    with pytest.raises(ScenarioError) as caught:
        exact(dsl.loads(text, "runaway.rules"), Scenario("go", {}), max_states=50_000)
    assert caught.value.diagnostics[0].hint.endswith(
        "; the step called at line 10 gives 39601 values to each state: where later rules read less of it (a total, "
        "a yes or no), give only that from the step")


# Sampled dice that may roll far more dice than they hold: each die rolled past the room the work limit leaves is
# counted, so that a draw of them stops at the limit, located, in a second (it ran for minutes).
ROLLING_ON = {
    "exploding ones": "x = explode(10000, 1, 10000)",
    "a die rolled again while nearly every face shows": "x = roll(10000, 1000, reroll_while: [f for f in range(1000) if f >= 2])",
    "a pool whose every die brings another": "x = successes(10000, 10, at_least: 8, again_at: 1, depth: 10000)",
}


@pytest.mark.parametrize("body", ROLLING_ON.values(), ids=ROLLING_ON)
def test_a_sampled_run_of_dice_that_roll_on_stops_at_the_work_limit(body):
    line, message, hint = stopped(body, "sampled", Limits(work=20_000))
    assert line == 5 and message == "this resolution did more than 20000 steps of work"
    assert "--limit work=N" in hint and "--samples" not in hint


@pytest.mark.parametrize("body", ROLLING_ON.values(), ids=ROLLING_ON)
def test_many_sampled_runs_of_dice_that_roll_on_stop_at_the_work_limit(body):
    # Runs after the first draw from what the first met, without running its blocks: counted there too.
    rules = dsl.loads(HEADER + "action go() {\n" + body + "\n}\n", "runaway.rules", Limits(work=20_000))
    with pytest.raises(ScenarioError) as caught:
        estimate(rules, Scenario("go", {}), 50, seed=1)
    d = caught.value.diagnostics[0]
    assert d.line == 5 and d.message == "this resolution did more than 20000 steps of work"


def test_sampled_dice_within_the_room_left_roll_as_they_always_did():
    # 100 exploding ones roll 10,100 dice: within the limit of 20,000, as before.
    rules = dsl.loads(HEADER + "action go() {\n x = explode(100, 1, 100)\n}\n", "runaway.rules", Limits(work=20_000))
    assert sample(rules, Scenario("go", {}), seed=1).outcomes["x"] == 10_100


def test_counting_the_dice_of_a_sampled_draw_changes_no_roll():
    # Under a low limit each die is counted, under the default one not: the same seed, the same dice.
    body = "action go() {\n x = explode(40, 6, 10000)\n y = roll(40, 6, reroll_while: [1, 2])\n}\n"
    counted = dsl.loads(HEADER + body, "runaway.rules", Limits(work=20_000))
    plain = dsl.loads(HEADER + body, "runaway.rules")
    for seed in range(20):
        assert (sample(counted, Scenario("go", {}), seed=seed).outcomes
                == sample(plain, Scenario("go", {}), seed=seed).outcomes)


def test_the_dice_a_counted_draw_rolled_are_work_of_the_run():
    # About 18,000 dice a draw (a die rolled again while it shows 1 is rolled twice on average), ten draws: past
    # 20,000 steps of four dice each. Without the dice rolled again counted (the draw has no bound), they all fit.
    line, message, _ = stopped("for i in range(10) {\n  x += roll(9000, 2, reroll_while: [1])\n}", "sampled",
                               Limits(work=20_000))
    assert line in (5, 6) and message == "this resolution did more than 20000 steps of work"


# Draws of many dice in a loop: each die a sampled draw rolls is a step of work (ten thousand draws of ten thousand
# dice ran for minutes).
MANY_DICE = {
    "a sum of dice": "roll(10000, 6)",
    "dice written out": "10000d6",
    "trials": "trials(10000, 1/2)",
    "the highest dice of a pool": "keep_highest(10000, 6, 3)",
    "a pool's successes": "successes(10000, 10, at_least: 8)",
}


@pytest.mark.parametrize("draw", MANY_DICE.values(), ids=MANY_DICE)
def test_a_sampled_loop_of_draws_of_many_dice_stops_at_the_work_limit(draw):
    line, message, _ = stopped(f"for i in range(10000) {{\n  x += {draw}\n}}", "sampled", Limits(work=100_000))
    assert line == 6 and message == "this resolution did more than 100000 steps of work"


def test_a_sampled_loop_of_long_volleys_at_a_large_pool_stops_at_the_work_limit():
    # Each volley counts its shots and the bodies it is fired at: 20,000 steps here, a fifth of the limit.
    line, message, _ = stopped("let pool = bodies(10000, 1000000)\nfor i in range(10000) {\n"
                               "  pool = fire(volley(10000), pool)\n}", "sampled", Limits(work=100_000))
    assert line == 7 and message == "this resolution did more than 100000 steps of work"


# Builtins that go through many items, called again and again: past a hundred items, each is a step of work (ten
# thousand calls over ten thousand items took up to a minute, and never met a limit).
OVER_MANY_ITEMS = {
    "a sum": "x += sum(big)",
    "a sort": "x += len(sort(big))",
    "a card taken out": "x += len(without(big, 0))",
    "the largest": "x = max(big)",
    "a range": "x += len(range(10000))",
    "boxes crossed": "x += crossed(big, 0, 5000)",
    "the living of a pool": "x += living(pool)",
    "the lethal of a pool": "x += lethal(pool)",
    "the damage a pool took": "x += damage_taken(pool)",
    "a pool made": "x += count_bodies(bodies(10000, 5))",
    "a volley made": "x += len(volley(10000))",
    "an item picked": "x += pick(big)",
}


@pytest.mark.parametrize("engine", ["sampled", "exact"])
@pytest.mark.parametrize("call", OVER_MANY_ITEMS.values(), ids=OVER_MANY_ITEMS)
def test_a_loop_of_builtins_over_ten_thousand_items_stops_at_the_work_limit(call, engine):
    body = (f"let big = [i for i in range(10000)]\nlet pool = bodies(10000, 5)\nfor i in range(10000) {{\n"
            f"  {call}\n}}")
    line, message, _ = stopped(body, engine, Limits(work=200_000))
    # At the call, or at the loop whose blocks' steps a sampled run counts by the pass.
    assert line in (7, 8) and message == "this resolution did more than 200000 steps of work"


def test_builtins_over_a_hundred_items_or_fewer_count_no_work_of_their_own():
    # A thousand sums of a hundred items: within 20,000 steps, as the loop alone is.
    rules = dsl.loads(HEADER + "action go() {\n  let few = [i for i in range(100)]\n"
                      "  for i in range(1000) { x += sum(few) }\n}\n", "few.rules", Limits(work=20_000))
    assert sample(rules, Scenario("go", {}), seed=1).outcomes["x"] == 1000 * 4950


def test_a_sampled_army_fired_at_shot_by_shot_stays_within_the_default_limit():
    # Five hundred single shots, each at the pool of two thousand bodies the last one left: a second of work,
    # a quarter of the default limit (each body a volley reads counts a quarter of a step).
    rules = dsl.loads(HEADER + "action go() {\n  let pool = bodies(2000, 2)\n  for i in range(500) {\n"
                      "    pool = fire(volley(1), pool)\n  }\n  x = living(pool)\n}\n", "army.rules")
    assert 1500 <= sample(rules, Scenario("go", {}), seed=1).outcomes["x"] < 2000
