"""Every runaway stops within seconds with a located error naming its limit, sampled or exact."""

from __future__ import annotations

import pytest

from fracas import dsl
from fracas.dsl.limits import Limits
from fracas.interpreter import Scenario, ScenarioError, exact, sample

HEADER = 'rules "runaways"\noutcome x: int = 0\n'


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
    assert line in (4, 5) and message == "this resolution did more than 1000000 steps of work"
    assert "--limit work=N" in hint


@pytest.mark.parametrize("engine", ["sampled", "exact"])
def test_a_sum_over_a_nested_comprehension_stops_at_the_work_limit(engine):
    line, message, _ = stopped("x = sum([sum([i * j for j in range(10000)]) for i in range(10000)])", engine)
    assert line == 4 and message == "this resolution did more than 1000000 steps of work"


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
    assert line == 4 and message == "one statement has more than 200000 ways to turn out"
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
