"""The exact engine's probabilities, whole numbers over a denominator, made fractions in lowest terms at the end."""

from __future__ import annotations

import pickle
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


def test_a_reduced_probability_is_a_fraction_like_any_other():
    # Made without Fraction's constructor (as Python 3.12 makes a fraction in lowest terms): it must not show.
    p = reduced({"a": Scaled(2 * 6**300, 3 * 6**300)})["a"]
    assert type(p) is Fraction and (p.numerator, p.denominator) == (2, 3)
    assert p == Fraction(2, 3) and hash(p) == hash(Fraction(2, 3)) and {p: 1}[Fraction(2, 3)] == 1
    assert p + Fraction(1, 3) == 1 and str(p) == "2/3" and pickle.loads(pickle.dumps(p)) == p
