"""An expression over chance, worked out for each value of the distributions it reads (dist.apply)."""

from __future__ import annotations

import operator

import pytest

from fracas.interpreter.core.dist import Budget, Dist, apply
from fracas.interpreter.core.errors import RunError

TWO_D6 = Dist({total: 6 - abs(total - 7) for total in range(2, 13)}, 36)
LOADED = Dist({1: 1, 2: 1, 3: 4}, 6)


def one_value(value: object) -> Dist:
    """A plain value as a distribution of one value: apply then works out every combination, as for two dice."""
    return Dist({value: 1}, 1)


def as_pairs(found: object) -> object:
    return (found.weights, found.total) if type(found) is Dist else found


@pytest.mark.parametrize("drawn", [TWO_D6, LOADED], ids=["fair", "loaded"])
def test_one_distribution_among_plain_values_gives_what_every_combination_gives(drawn):
    plain = apply(lambda a, d, b: a * d - b, (3, drawn, 2), Budget(1000, None))
    every = apply(lambda a, d, b: a * d - b, (one_value(3), drawn, one_value(2)), Budget(1000, None))
    assert as_pairs(plain) == as_pairs(every) and plain.weights[3 * 3 - 2] == drawn.weights[3]


def test_values_that_meet_add_their_weights():
    found = apply(lambda d: d >= 7, (TWO_D6,), Budget(1000, None))
    assert found.weights == {False: 15, True: 21} and found.total == 36


def test_a_function_of_one_value_whatever_is_drawn_gives_that_value_over_the_draw_s_total():
    found = apply(lambda d, x: x, (LOADED, "same"), Budget(1000, None))
    assert found.weights == {"same": 6} and found.total == 6
    assert apply(operator.neg, (one_value(4),), Budget(1000, None)) == -4  # certain: a plain value


def test_a_value_that_is_itself_a_distribution_is_mixed_in_by_its_weight():
    # A pool whose size is drawn: 1 die or 2, each a coin of faces 0 and 1.
    coins = {1: Dist({0: 1, 1: 1}, 2), 2: Dist({0: 1, 1: 2, 2: 1}, 4)}
    found = apply(coins.__getitem__, (Dist({1: 1, 2: 1}, 2),), Budget(1000, None))
    assert {value: weight / found.total for value, weight in found.weights.items()} == {0: 3 / 8, 1: 1 / 2, 2: 1 / 8}


def test_more_values_than_one_statement_may_enumerate_is_refused():
    with pytest.raises(RunError, match="more than 10 ways to turn out"):
        apply(operator.neg, (TWO_D6,), Budget(10, None))


def test_one_distribution_is_worked_out_value_by_value_not_as_a_product_of_every_argument(monkeypatch):
    from fracas.interpreter.core import dist

    def no_product(*values):
        raise AssertionError("a product of the arguments' values made")

    monkeypatch.setattr(dist.itertools, "product", no_product)
    assert apply(operator.add, (LOADED, 10), Budget(1000, None)).weights == {11: 1, 12: 1, 13: 4}
    with pytest.raises(AssertionError):
        apply(operator.add, (LOADED, LOADED), Budget(1000, None))
