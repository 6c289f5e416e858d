"""The highest or lowest of independent rolls, as one distribution: worked out value by value from each roll's
cumulative weights, not from every combination of their values, so two big rolls stay within the limits."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest

from fracas import dsl
from fracas.interpreter import Scenario, ScenarioError, exact


def odds(expression: str, **limits: int) -> dict:
    text = f"outcome x: number = 0\naction go() {{\n    x = {expression}\n}}\n"
    return exact(dsl.loads(text, "extremes.rules"), Scenario("go", {}), **limits).marginal("x")


def enumerated(pick, *dice: list[int]) -> dict:
    """Every combination of the dice's faces, counted."""
    counts = Counter(pick(faces) for faces in itertools.product(*dice))
    total = sum(counts.values())
    return {value: Fraction(count, total) for value, count in sorted(counts.items())}


D6, D4 = list(range(1, 7)), list(range(1, 5))


@pytest.mark.parametrize("expression, pick, dice", [
    ("max(1d6, 1d4)", max, [D6, D4]),
    ("min(1d6, 1d4)", min, [D6, D4]),
    ("max(1d6, 1d6, 1d4)", max, [D6, D6, D4]),
    ("min(1d6, 1d4, 3)", min, [D6, D4, [3]]),
    ("max(1d6, 4, 1d4)", max, [D6, [4], D4]),
    ("max(1d4, 7, 1d6)", max, [D4, [7], D6]),  # the number always the highest
])
def test_the_extreme_of_rolls_is_every_combination_counted(expression, pick, dice):
    assert odds(expression) == enumerated(pick, *dice)


@pytest.mark.parametrize("expression, expected", [
    ("sum([1d6, 2, 1d6])", enumerated(sum, D6, [2], D6)),
    ("len([x for x in [1d6, 1d6] if x > 3])", enumerated(lambda faces: sum(f > 3 for f in faces), D6, D6)),
    ("sum([d for d in [1d4, 1d4, 1d4] if d != 2])", enumerated(lambda faces: sum(f for f in faces if f != 2), D4, D4, D4)),
])
def test_a_list_of_draws_within_the_limit_is_every_combination_counted(expression, expected):
    assert odds(expression) == expected


def test_the_highest_of_a_roll_of_sums_is_counted_by_their_weights():
    two_d6 = [a + b for a, b in itertools.product(D6, D6)]  # faces weighted by how often each sum comes up
    assert odds("max(2d6, 1d8)") == enumerated(max, two_d6, list(range(1, 9)))


def test_two_rolls_of_more_combinations_than_the_limit_have_their_highest_worked_out():
    # A million combinations of two d1000, against a limit of 200,000: the highest of them is v with
    # probability (v^2 - (v - 1)^2) / 1000^2.
    found = odds("max(roll(1, 1000), roll(1, 1000))")
    assert len(found) == 1000 and all(p == Fraction(2 * v - 1, 10**6) for v, p in found.items())


def test_the_lowest_of_exploding_dice_past_the_limit_is_worked_out_too():
    found = odds("min(explode(1, 8, 100), explode(1, 6, 100))")
    assert sum(found.values()) == 1 and found[1] == 1 - Fraction(7, 8) * Fraction(5, 6)


@pytest.mark.parametrize("listed", ["[roll(1, 100) for i in range(4)]", "[roll(1, 100) for i in range(4) if i >= 0]",
                                    "[roll(1, 100), roll(1, 100), 7, roll(1, 100), roll(1, 100)]"])
def test_a_list_of_draws_past_the_limit_says_to_fold_them_as_they_are_drawn(listed):
    with pytest.raises(ScenarioError) as caught:
        odds(f"sum({listed})")
    (found,) = caught.value.diagnostics
    assert found.message == "a list of 4 items drawn at random has more than 200000 combinations of their values"
    assert found.hint.startswith("each item is a draw of its own, so their combinations multiply: draw them in a loop")
