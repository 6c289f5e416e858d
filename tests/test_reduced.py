"""The exact engine's probabilities, whole numbers over a denominator, made fractions in lowest terms at the end."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from fracas.interpreter.core.dist import Scaled, reduced

DENOMINATORS = {"short": 6**10, "just short": 2**380, "long": 6**400 * 10**50, "a large prime in it": 6**200 * 1009}


@pytest.mark.parametrize("denominator", DENOMINATORS.values(), ids=DENOMINATORS.keys())
def test_a_probability_is_reduced_to_lowest_terms_whatever_its_denominator(denominator):
    rng = random.Random(denominator.bit_length())
    numerators = [0, denominator, 1] + [rng.randrange(denominator) * rng.choice([1, 2, 3, 6, 36]) % denominator
                                        for _ in range(40)]
    found = reduced({n: Scaled(n, denominator) for n in numerators})
    for n, p in found.items():
        expected = Fraction(n, denominator)
        assert (p.numerator, p.denominator) == (expected.numerator, expected.denominator)


def test_probabilities_that_are_already_fractions_stay_as_they_are():
    assert reduced({"a": Fraction(1, 3), "b": 1}) == {"a": Fraction(1, 3), "b": 1}
