"""A folded draw's sums as one product of polynomials: the same sums, in the same order, as pair by pair."""

from __future__ import annotations

import random

import pytest

from fracas.interpreter.core.dist import Dist
from fracas.interpreter.core.sums import SumTable


def pair_by_pair(olds: list, tops: list[int], drawn: Dist) -> tuple[dict, list]:
    """Each sum's numerator, and the sums in the order a pair first made them."""
    table: dict = {}
    order: list = []
    for old, top in zip(olds, tops):
        for value, weight in drawn.weights.items():
            if old + value not in table:
                order.append(old + value)
            table[old + value] = table.get(old + value, 0) + top * weight
    return table, order


def summed(olds: list[int], tops: list[int], drawn: Dist) -> tuple[dict, list]:
    sums = SumTable(drawn)
    order = [new for old, top in zip(olds, tops) for new in sums.add(old, top)]
    return sums.table(lambda steps: None), order


@pytest.mark.parametrize("seed", range(40))
def test_whole_numbers_plus_a_range_drawn_are_every_pair_summed_in_the_order_pairs_met_them(seed):
    rng = random.Random(seed)
    low = rng.randrange(-5, 5)
    drawn = Dist({value: rng.randrange(1, 2**rng.choice([3, 40, 300])) for value in range(low, low + rng.randrange(1, 12))}, 1)
    olds = rng.sample(range(-30, 30), rng.randrange(1, 25))
    tops = [rng.randrange(1, 2**rng.choice([2, 90])) for _ in olds]
    assert summed(olds, tops, drawn) == pair_by_pair(olds, tops, drawn)


def test_old_values_far_apart_are_summed_pair_by_pair_to_the_same_sums():
    drawn = Dist({1: 1, 2: 1, 3: 1}, 3)
    olds, tops = [0, 10_000, -10_000], [1, 2, 3]
    assert summed(olds, tops, drawn) == pair_by_pair(olds, tops, drawn)


@pytest.mark.parametrize("weights, fits", [({1: 1, 2: 1, 3: 1}, True), ({0: 1}, True), ({1: 1, 3: 1}, False),
                                           ({2: 1, 1: 1}, False), ({True: 1, 2: 1}, False), ({}, False)],
                         ids=["a range", "one value", "a gap", "descending", "not whole numbers", "nothing"])
def test_only_a_range_of_whole_numbers_in_order_is_summed_as_polynomials(weights, fits):
    assert SumTable.fits(weights) is fits


def test_a_group_with_no_whole_number_yet_has_no_sums():
    assert SumTable(Dist({1: 1}, 1)).table(lambda steps: None) == {}


def test_the_first_state_of_a_group_makes_every_sum_of_its_range():
    sums = SumTable(Dist({1: 1, 2: 1, 3: 1}, 3))
    assert sums.add(10, 1) == [11, 12, 13]
    assert sums.add(11, 1) == [14]
