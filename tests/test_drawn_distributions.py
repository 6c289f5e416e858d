"""The exact engine remembers each primitive's distribution as it draws it, with what it cost: a primitive
drawn again, in this resolution or another of the process, is the same distribution, charged the same work,
and stopped by the same limits with the same errors as computing it again would be."""

from __future__ import annotations

import pytest

from fractions import Fraction

from fracas import dsl
from fracas.dsl.nodes import Pos
from fracas.interpreter import Scenario, exact
from fracas.interpreter.core import engines
from fracas.interpreter.core.errors import RunError
from fracas.interpreter.runtime.chance import SuccessPool, Uniform
from fracas.interpreter.runtime.dice import DiceSum, Exploding

RULES = dsl.loads('rules "draws"\noutcome x: int = 0\naction go() {\n    x = roll(2, 6)\n}\n', "draws.rules")
AT = Pos("draws.rules", 4, 9, 19)


class Run:
    """What ExactEngine.weights reads of a resolution: the work done so far, its limit and the rules."""

    def __init__(self, work: int = 0, work_limit: int | None = None):
        class Program:
            rules = RULES

        self.program = Program
        self.work = work
        self.work_limit = RULES.limits.work if work_limit is None else work_limit


def drawn(primitive, run: Run, states: int = 1000):
    return engines.ExactEngine(states).weights(primitive, AT, run)


def forgotten(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engines, "_DISTRIBUTIONS", {})


def error_of(primitive, run: Run, states: int = 1000) -> str:
    with pytest.raises(RunError) as caught:
        drawn(primitive, run, states)
    return f"{caught.value.message} | {caught.value.hint}"


def test_a_primitive_drawn_again_is_the_same_distribution_charged_the_same_work(monkeypatch):
    forgotten(monkeypatch)
    pool = SuccessPool(100, 6, 4)
    first, again = Run(), Run()
    found = drawn(pool, first)
    assert drawn(pool, again) is found
    assert again.work == first.work > 0
    assert sum(found.weights.values()) == found.total == 6**100


def test_an_equal_primitive_made_again_finds_the_distribution_drawn(monkeypatch):
    forgotten(monkeypatch)
    found = drawn(SuccessPool(9, 6, 4), Run())
    assert drawn(SuccessPool(9, 6, 4), Run()) is found


@pytest.mark.parametrize("primitive", [SuccessPool(60, 6, 4), DiceSum(40, Exploding(6, 3))],
                         ids=["success pool", "exploding dice"])
def test_a_remembered_distribution_past_the_work_left_stops_as_computing_it_does(monkeypatch, primitive):
    forgotten(monkeypatch)
    computed = Run()
    drawn(primitive, computed)
    # Just too little work left for what it cost, the work of its digits aside.
    left = 1
    tight = Run(work=RULES.limits.work - left)
    remembered = error_of(primitive, tight)
    forgotten(monkeypatch)
    assert error_of(primitive, Run(work=RULES.limits.work - left)) == remembered
    assert "exact engine stopped" in remembered


def test_a_remembered_distribution_past_the_states_limit_stops_as_computing_it_does(monkeypatch):
    forgotten(monkeypatch)
    pool = DiceSum(40, Exploding(6, 3))
    drawn(pool, Run(), states=100_000)
    remembered = error_of(pool, Run(), states=50)
    forgotten(monkeypatch)
    assert error_of(pool, Run(), states=50) == remembered
    assert "over the limit of 50" in remembered


def test_a_distribution_within_the_limits_is_drawn_whatever_limits_computed_it(monkeypatch):
    forgotten(monkeypatch)
    pool = SuccessPool(12, 6, 5)
    found = drawn(pool, Run(), states=13)
    assert drawn(pool, Run(), states=1000) is found
    assert drawn(pool, Run(), states=13) is found


def test_a_pick_of_equal_but_unlike_items_is_drawn_as_its_own_items(monkeypatch):
    forgotten(monkeypatch)
    drawn(Uniform((1, 2)), Run())
    assert set(map(type, drawn(Uniform((True, 2)), Run()).weights)) == {bool, int}


def test_distributions_past_the_most_remembered_are_forgotten_and_drawn_again(monkeypatch):
    forgotten(monkeypatch)
    monkeypatch.setattr(engines, "_MOST_DISTRIBUTIONS", 2)
    first = drawn(SuccessPool(3, 6, 4), Run())
    for count in (4, 5, 6):
        drawn(SuccessPool(count, 6, 4), Run())
    assert len(engines._DISTRIBUTIONS) <= 2
    again = drawn(SuccessPool(3, 6, 4), Run())
    assert again is not first and again.weights == first.weights and again.total == first.total


FOCUSED = dsl.loads("""rules "focus"
outcome by_one: int = 0
outcome by_true: int = 0
action go() {
    let p = bodies(1, 2, owner: 2) + bodies(1, 2, owner: 1)
    by_one = lethal(fire(volley(1, damage: 2), p, allocate: "focused", order: [1]), owner: 2)
    by_true = lethal(fire(volley(1, damage: 2), p, allocate: "focused", order: [true]), owner: 2)
}
""", "focus.rules")


def test_volleys_focused_by_equal_but_unlike_orders_are_drawn_apart(monkeypatch):
    # 1 and true are equal in Python, never in the rules: an order of [true] names neither body's owner.
    forgotten(monkeypatch)
    assert exact(FOCUSED, Scenario("go", {})).joint() == [({"by_one": 0, "by_true": 1}, Fraction(1))]
