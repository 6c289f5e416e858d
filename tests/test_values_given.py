"""Functions and steps that give values: `fn name(...): T { ... return v }` and `step name(...): T { ... }`.

A fn written with statements computes and changes nothing; a step that gives a
value may roll and change the world, and its value is taken as the whole value
of a `let`, an assignment or a `return`. Both engines give it the same meaning.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from test_agreement import assert_sampling_matches_exact

from fracas import dsl
from fracas.dsl.diagnostics import RulesError
from fracas.interpreter import Scenario, exact, forced, sample

HEADER = """
kind piece { health: int = 5  bonus: int? = none }
outcome result: int = 0
outcome note: text = ""
"""


def load(text: str) -> dsl.Ruleset:
    return dsl.loads(HEADER + text, "t.rules")


def odds(text: str, outcome: str = "result", inputs: dict | None = None) -> dict:
    return exact(load(text), Scenario("go", inputs or {})).marginal(outcome)


def problems(text: str) -> list[tuple[int, int, str, str]]:
    with pytest.raises(RulesError) as caught:
        load(text)
    lines = HEADER.count("\n")
    return [(d.line - lines, d.column, d.message, d.hint) for d in caught.value.diagnostics]


def only_problem(text: str) -> tuple[int, int, str, str]:
    (found,) = problems(text)
    return found


# ---- fns written with statements -------------------------------------------------------------------

SUM_OVER_TWO = """
fn sum_over(xs: list of int, at_least: int): int {
    let total = 0
    for x in xs {
        if x >= at_least {
            total += x
        } else if x < 0 {
            total -= 1
        }
    }
    return total
}
"""


def test_a_fn_with_statements_computes_with_locals_loops_and_conditions():
    assert odds(SUM_OVER_TWO + "action go() { result = sum_over([1, 3, -4, 5], 2) }") == {3 + 5 - 1: 1}


def test_a_fn_with_statements_may_call_itself():
    text = """
fn factorial(k: int): int {
    if k <= 1 {
        return 1
    }
    return k * factorial(k - 1)
}
action go() { result = factorial(5) }
"""
    assert odds(text) == {120: 1}


def test_a_fn_with_statements_is_called_where_chance_is_met_in_both_engines():
    text = SUM_OVER_TWO + "action go() { result = sum_over([1d4, 1d4], 3) }"
    assert odds(text) == {0: Fraction(4, 16), 3: Fraction(4, 16), 4: Fraction(4, 16), 6: Fraction(1, 16),
                          7: Fraction(2, 16), 8: Fraction(1, 16)}
    assert forced(load(text), Scenario("go", {}), [3, 4]).outcomes["result"] == 7


def test_a_fn_with_statements_must_say_what_it_gives():
    line, column, message, hint = only_problem("fn f(x: int) {\n    return x\n}\n")
    assert (line, column, message) == (1, 4, "fn 'f' is written with statements: say what it gives")
    assert "fn f(...): int {" in hint


def test_a_fn_checks_what_it_returns_against_its_type():
    assert only_problem('fn f(x: int): int {\n    return x / 2\n}\n')[2] == "expected int, found number"
    assert only_problem('fn g(x: int): int = x / 2\n')[2] == "expected int, found number"


def test_a_fn_must_give_its_value_on_every_way_through():
    line, column, message, hint = only_problem("fn f(x: int): int {\n    if x > 0 {\n        return x\n    }\n}\n")
    assert (line, message) == (1, "fn 'f' gives a value of type int, but can reach its end without giving it")
    assert hint == "end every way through it with 'return VALUE'"


def test_a_fn_with_statements_cannot_roll_dice():
    line, column, message, hint = only_problem("fn f(x: int): int {\n    let r = x + 1d6\n    return r\n}\n")
    assert (line, column, message) == (2, 13, "a fn written with statements cannot depend on chance")
    assert "step f(...): TYPE" in hint


def test_a_fn_with_statements_may_describe_dice_that_a_step_rolls():
    text = """
fn with_bonus(d: dice): dice {
    let extra: dice = 1d4
    return d + extra
}
action go() { result = roll(with_bonus(1d6)) }
"""
    assert odds(text)[2] == Fraction(1, 24)


def test_a_fn_with_statements_cannot_roll_through_a_fn_it_calls():
    text = "fn die() = 1d6\nfn f(): int {\n    return die() + 1\n}\n"
    assert only_problem(text)[:3] == (3, 12, "a fn written with statements cannot depend on chance")


@pytest.mark.parametrize("statement, message", [
    ("result = 3", "a fn cannot change 'result': it changes nothing but its own locals"),
    ("p.health = 3", "a fn cannot change 'p.health': it changes nothing but its own locals"),
    ('stop "no"', "a fn cannot stop the resolution: it computes a value and changes nothing"),
    ("event hit(1)", "a fn cannot record an event: it computes a value and changes nothing"),
    ("heal(p)", "a fn cannot call a step: it computes a value and changes nothing"),
])
def test_a_fn_changes_nothing(statement, message):
    text = f"step heal(p: piece) {{ p.health += 1 }}\nfn f(p: piece): int {{\n    {statement}\n    return 1\n}}\n"
    assert only_problem(text)[:3] == (3, 5, message)


def test_a_fn_cannot_take_the_value_of_a_step():
    text = "step s(): int { return 1 }\nfn f(): int {\n    let x = s()\n    return x\n}\n"
    line, column, message, hint = only_problem(text)
    assert (line, column, message) == (3, 13, "a fn cannot call 's', a step: it computes a value and changes nothing")


def test_a_fn_nested_deeper_than_python_nests_blocks_still_runs():
    depth = 30
    loops = "".join("    " * i + f"for i{i} in [1] {{\n" for i in range(1, depth + 1))
    closing = "".join("    " * i + "}\n" for i in range(depth, 0, -1))
    text = (f"fn deep(): int {{\n    let n = 0\n{loops}{'    ' * (depth + 1)}n += i{depth}\n"
            f"{'    ' * (depth + 1)}if n > 0 {{ return n + 1 }}\n{closing}    return n\n}}\n"
            "action go() { result = deep() }")
    assert odds(text) == {2: 1}


def test_a_loop_in_a_fn_counts_as_work():
    text = "fn f(): int {\n    let n = 0\n    for i in range(100) {\n        n += 1\n    }\n    return n\n}\n" \
           "action go() { result = f() }"
    rules = dsl.loads(HEADER + text, "t.rules", limits=dsl.Limits(work=50))
    with pytest.raises(Exception, match="did more than 50 steps of work"):
        sample(rules, Scenario("go", {}))


# ---- steps that give values ---------------------------------------------------------------------------

HURT = """
step hurt(p: piece, amount: int): int {
    let before = p.health
    p.health -= min(amount, p.health)
    return before - p.health
}
"""


def test_a_step_gives_its_value_to_a_let_and_changes_the_world_too():
    text = HURT + "action go(p: piece = {}) {\n    let lost = hurt(p, 7)\n    result = lost * 10 + p.health\n}\n"
    assert odds(text) == {50: 1}


def test_a_step_value_may_be_assigned_or_added():
    text = HURT + "action go(p: piece = {}) {\n    result = hurt(p, 2)\n    result += hurt(p, 2)\n}\n"
    assert odds(text) == {4: 1}


def test_a_step_that_gives_a_value_may_roll_and_both_engines_agree():
    text = """
step attack(): int {
    let hit = 1d6
    if hit == 6 {
        return 10 + 1d4
    }
    return hit
}
action go() {
    let first = attack()
    let second = attack()
    result = first + second
}
"""
    rules = load(text)
    dist = exact(rules, Scenario("go", {})).marginal("result")
    assert dist[2] == Fraction(1, 36) and dist[28] == Fraction(1, 36 * 16)
    assert forced(rules, Scenario("go", {}), [6, 3, 2]).outcomes["result"] == 13 + 2
    assert_sampling_matches_exact(rules, Scenario("go", {}), samples=2000)


def test_a_step_that_calls_itself_gives_its_value_in_both_engines():
    text = """
step hits(k: int): int {
    if k == 0 {
        return 0
    }
    let one = trials(1, 1/2)
    let rest = hits(k - 1)
    return rest + one
}
action go() { result = hits(3) }
"""
    rules = load(text)
    assert exact(rules, Scenario("go", {})).marginal("result") == {0: Fraction(1, 8), 1: Fraction(3, 8),
                                                                   2: Fraction(3, 8), 3: Fraction(1, 8)}
    assert forced(rules, Scenario("go", {}), [1, 0, 1]).outcomes["result"] == 2
    assert_sampling_matches_exact(rules, Scenario("go", {}), samples=2000)


def test_a_step_may_give_the_value_another_step_gives():
    text = HURT + "step hurt_twice(p: piece): int {\n    return hurt(p, 1) + 0\n}\n"
    assert only_problem(text)[2].startswith("the value of the step 'hurt' is taken only as the whole value")
    text = HURT + ("step hurt_again(p: piece): int {\n    return hurt(p, 1)\n}\n"
                   "action go(p: piece = {}) { result = hurt_again(p) }")
    assert odds(text) == {1: 1}


def test_a_step_giving_a_value_called_as_a_statement_still_runs():
    text = HURT + "action go(p: piece = {}) {\n    hurt(p, 2)\n    result = p.health\n}\n"
    assert odds(text) == {3: 1}


def test_a_step_value_inside_an_expression_is_refused_with_the_let_to_write():
    text = HURT + "action go(p: piece = {}) {\n    result = 1 + hurt(p, 2)\n}\n"
    line, column, message, hint = only_problem(text)
    assert (line, column) == (8, 18)
    assert message == ("the value of the step 'hurt' is taken only as the whole value of 'let', an assignment "
                       "or 'return'")
    assert hint == "take it first: let hurt_value = hurt(p, 2); then use the local"


def test_a_step_without_a_type_gives_no_value():
    text = "step heal(p: piece) { p.health += 1 }\naction go(p: piece = {}) {\n    let x = heal(p)\n}\n"
    line, column, message, hint = only_problem(text)
    assert (line, column, message) == (3, 13, "'heal' is a step that gives no value")
    assert "step heal(...): int" in hint


def test_a_step_that_gives_a_value_needs_one_after_return():
    text = "step s(): int {\n    return\n}\n"
    assert only_problem(text)[:3] == (2, 5, "step 's' gives a value of type int: 'return' needs the value")


def test_a_step_that_gives_a_value_cannot_reach_its_end_without_one():
    text = "step s(x: int): int {\n    if x > 1 {\n        return 1\n    }\n}\n"
    assert only_problem(text)[2] == "step 's' gives a value of type int, but can reach its end without giving it"


def test_a_step_that_gives_a_value_may_stop_the_resolution_instead():
    text = 'step s(x: int): int {\n    if x > 1 {\n        return 1\n    }\n    stop "none left"\n}\n' \
           "action go() { result = s(0) }"
    assert odds(text, "stopped") == {"none left": 1}


def test_a_step_without_a_type_returning_a_value_is_told_to_declare_it():
    text = "step s(x: int) {\n    return x + 1\n}\n"
    line, column, message, hint = only_problem(text)
    assert (line, column, message) == (2, 12, "step 's' gives no value: 'return' only ends it")
    assert hint.startswith("to give a value, say its type after the parameters: step s(...): int { ... }")


def test_a_text_after_return_is_still_the_reason_in_a_step_that_gives_none():
    text = 'step s() {\n    note = "in"\n    return "nothing to do"\n}\naction go() { s() }'
    rules = load(text)
    run = sample(rules, Scenario("go", {}))
    assert [e["text"] for e in run.events if e["kind"] == "return"] == ["end of step: nothing to do"]


def test_a_text_after_return_is_the_value_of_a_step_that_gives_text():
    text = 'step name_of(p: piece): text {\n    return "whole"\n}\naction go(p: piece = {}) { note = name_of(p) }'
    assert odds(text, "note") == {"whole": 1}


def test_explain_shows_the_value_a_step_gives():
    text = HURT + "action go(p: piece = {}) { result = hurt(p, 2) }"
    run = sample(load(text), Scenario("go", {}))
    assert [e["text"] for e in run.events if e["kind"] == "return"] == ["end of step, giving 2"]


def test_a_step_taken_as_a_value_undoes_what_a_check_proved():
    text = HURT + ("action go(p: piece = {bonus: 1}) {\n    if p.bonus != none {\n        let lost = hurt(p, 1)\n"
                   "        result = p.bonus + lost\n    }\n}\n")
    assert only_problem(text)[2] == "'p.bonus' may be none here"


# ---- parameters --------------------------------------------------------------------------------------


def test_assigning_a_parameter_of_a_step_is_refused_with_the_copy_to_write():
    text = "step spend(amount: int) {\n    amount -= 1\n    result = amount\n}\n"
    line, column, message, hint = only_problem(text)
    assert (line, column) == (2, 5)
    assert message == "'amount' is a parameter of step 'spend': assigning it would change nothing the caller sees"
    assert hint == ("work on a copy: let amount_left = amount; to give the caller a result, say its type "
                    "(step spend(...): int) and return it")


def test_assigning_a_parameter_of_a_fn_is_refused():
    text = "fn f(x: int): int {\n    x = x * 2\n    return x\n}\n"
    assert only_problem(text)[2] == "'x' is a parameter of fn 'f': assigning it would change nothing the caller sees"


def test_a_field_of_a_parameter_may_change_and_the_caller_sees_it():
    text = "step heal(p: piece) { p.health += 1 }\naction go(p: piece = {}) {\n    heal(p)\n    result = p.health\n}\n"
    assert odds(text) == {6: 1}


def test_an_action_may_still_change_its_own_inputs():
    assert odds("action go(n: int = 2) {\n    n += 1\n    result = n\n}\n") == {3: 1}


# ---- syntax -------------------------------------------------------------------------------------------


def test_a_statement_after_return_in_its_block_is_named():
    text = "action go() {\n    if result > 0 {\n        return\n        result += 1\n    }\n}\n"
    line, column, message, hint = only_problem(text)
    assert (line, column, message) == (4, 9, "this is read as the value of the 'return' before it")
    assert "never runs" in hint


# ---- fracas diff -------------------------------------------------------------------------------------


def test_a_diff_shows_what_a_step_or_fn_gives_and_how_a_fn_is_written():
    from fracas.dsl.diff import compare

    base = HURT + "fn double(x: int) = x * 2\n"
    variant = (HURT.replace("): int {", "): number {") +
               "fn double(x: int): int {\n    let twice = x + x\n    return twice\n}\n")
    changes = {change.name: change.details for change in compare(load(base), load(variant))}
    assert changes == {"hurt": ("gives: int -> number",),
                       "double": ("written: = expression -> { statements }",)}


def test_an_action_that_says_it_gives_a_value_is_told_where_its_results_go():
    line, column, message, hint = only_problem("action go(): int {\n    return 1\n}\n")
    assert (line, column, message) == (1, 12, "an action gives no value")
    assert hint.startswith("its results are the outcomes it sets")
