"""A step that calls itself, in the exact engine: the states in the call keep of their caller's frame only what is
read after the call comes back (or at the end, where the step stops the resolution), so the dice of each level,
once read, stop telling states apart, as in a loop."""

from __future__ import annotations

from fractions import Fraction

from fracas import dsl
from fracas.interpreter import Scenario, exact

TWO_TALLIES = """
outcome total: int = 0

step again(left: int) {
    if left == 0 {
        return
    }
    let t = tally(3, 8, [[1, 2, 3], [4], [5, 6], [7, 8]])
    let u = tally(3, 8, [[1, 2, 3], [4, 5], [6, 7, 8]])
    total += max(0, t[0] - u[0])
    again(left - 1)
}

action by_calls(depth: int) {
    again(depth)
}

action by_loop(depth: int) {
    let left = depth
    while left > 0 {
        let t = tally(3, 8, [[1, 2, 3], [4], [5, 6], [7, 8]])
        let u = tally(3, 8, [[1, 2, 3], [4, 5], [6, 7, 8]])
        total += max(0, t[0] - u[0])
        left -= 1
    }
}
"""


def odds(text: str, action: str, inputs: dict, **limits: int) -> dict:
    return exact(dsl.loads(text, "recursive.rules"), Scenario(action, inputs), **limits).marginal("total")


def test_a_step_that_calls_itself_forgets_each_level_s_dice_once_read():
    # Each level's two tallies were kept in every state below it: more than 100,000 states at depth 4, where the
    # loop needs under 2,000.
    assert odds(TWO_TALLIES, "by_calls", {"depth": 4}, max_states=2000) == odds(TWO_TALLIES, "by_loop", {"depth": 4})


KEPT_ACROSS = """
outcome total: int = 0
outcome last: int = 0

step count_down(n: int) {
    let roll = 1d4
    if n > 0 {
        count_down(n - 1)
    }
    last = roll        # read after the call: the caller's own roll, not the one below
    total = total * 10 + roll
}

action go() {
    count_down(2)
}
"""


def test_a_value_read_after_the_call_is_the_caller_s_own():
    result = exact(dsl.loads(KEPT_ACROSS, "kept.rules"), Scenario("go", {}))
    # The outermost call ends last: its roll is the last; the rolls come back innermost first.
    joint = result.joint()
    assert len(joint) == 4 ** 3 and all(p == Fraction(1, 64) for _, p in joint)
    assert all(values["total"] % 10 == values["last"] for values, _ in joint)


STOPPED_INSIDE = """
outcome depth_reached: int = 0

step dig(n: int) {
    depth_reached += 1
    if 1d2 == 1 {
        stop "struck rock"
    }
    if n > 1 {
        dig(n - 1)
    }
}

action go() {
    let found = 1d6
    dig(3)
    found = 0  # what it was is read only where a step below stopped the resolution
}

example "R-01 a local of the action is read at the end, where a step below it stopped the resolution" {
    run go()
    expect prob(stopped == "struck rock") == 7/8
    expect prob(found == 6 and stopped == "struck rock") == 1/6 * 7/8
    expect always(stopped == "struck rock" or found == 0)
}
"""


def test_a_local_of_the_caller_survives_a_stop_deep_in_the_calls():
    from fracas.interpreter.tools.examples import run_examples

    rules = dsl.loads(STOPPED_INSIDE, "stopped.rules")
    [result] = run_examples(rules)
    assert result.passed, result.message
