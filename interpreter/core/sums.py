"""The sums of whole numbers and a draw, as one product of polynomials: a folded `total += roll(10, 6)`.

States that differ only in the outcome a draw is added into give one table
of the outcome's new values: the numerator of a new value is the sum, over
the states, of each one's numerator times the weight of the value it needs
drawn. Where the old values are whole numbers close together and the values
drawn are every whole number of a range, that table is the product of two
polynomials (`convolve`, which packs long ones into one integer product), not
a double loop in Python over the pairs. The new values are also named in the
order their first pair would have met them (each state's range of sums, less
the sums met before), so that the states come out in the same order.
"""

from __future__ import annotations

from typing import Any

from collections.abc import Callable

from fracas.interpreter.runtime.weights import PRIMITIVE_STEPS, convolution_cost, convolve, product_steps

# A table of old values spread out past _SPREAD whole numbers a value, and _SPREAD_FROM more, is summed pair
# by pair: most of a polynomial over its range would be zeros (Weights._dense_form draws the same line).
_SPREAD = 4
_SPREAD_FROM = 16


class SumTable:
    """The states of one group added into one outcome: their old values with their numerators, the draw."""

    __slots__ = ("drawn", "weights", "low", "high", "olds", "tops", "starts", "ends", "_table")

    def __init__(self, drawn: Any):
        # The draw (a distribution: its weights by value, and their total), kept alive: its identity is
        # part of the group's key.
        self.drawn = drawn
        weights = self.weights = drawn.weights
        values = list(weights)  # every whole number from the lowest to the highest (see fits)
        self.low, self.high = values[0], values[-1]
        self.olds: list[int] = []
        self.tops: list[int] = []
        # The sums met so far, as ascending runs of whole numbers [starts[i], ends[i]], apart from each other.
        self.starts: list[int] = []
        self.ends: list[int] = []
        self._table: dict[int, int] | None = None

    @staticmethod
    def fits(weights: dict[Any, int]) -> bool:
        """Whether the values drawn are every whole number from the lowest to the highest, in that order."""
        values = list(weights)
        return bool(values) and all(type(v) is int for v in values) and values == list(
            range(values[0], values[0] + len(values)))

    def add(self, old: int, top: int) -> list[int]:
        """A state whose outcome is `old`, of numerator `top`: the sums it makes that none before it made,
        in the order of the values drawn."""
        self.olds.append(old)
        self.tops.append(top)
        return self._cover(old + self.low, old + self.high)

    def _cover(self, a: int, b: int) -> list[int]:
        starts, ends = self.starts, self.ends
        if not ends:  # the first state: its whole range
            starts.append(a)
            ends.append(b)
            return list(range(a, b + 1))
        if starts[-1] <= a <= ends[-1] + 1 and b >= ends[-1]:
            # Old values met in ascending order (most are): the range reaches past the last run, and only that.
            fresh = list(range(ends[-1] + 1, b + 1))
            ends[-1] = b
            return fresh
        from bisect import bisect_left  # here: the engine imports this module, a run without a fold need not

        first = bisect_left(ends, a)  # the first run that ends at a or after
        fresh: list[int] = []
        x, last = a, first
        while last < len(starts) and starts[last] <= b:
            if starts[last] > x:
                fresh.extend(range(x, starts[last]))
            x = max(x, ends[last] + 1)
            last += 1
        if x <= b:
            fresh.extend(range(x, b + 1))
        if last > first:
            a, b = min(a, starts[first]), max(b, ends[last - 1])
        starts[first:last] = [a]
        ends[first:last] = [b]
        return fresh

    def table(self, spend: Callable[[int], None]) -> dict[int, int]:
        """Each sum made with its numerator; its work (in the engine's steps) told to `spend` before it is done."""
        found = self._table
        if found is None:
            found = self._table = self._summed(spend)
        return found

    def _summed(self, spend: Callable[[int], None]) -> dict[int, int]:
        olds, tops, weights = self.olds, self.tops, self.weights
        if not olds:
            return {}
        lowest = min(olds)
        span = max(olds) - lowest + 1
        # A product of long weights takes seconds (two sums of 100d100: 9,901 weights of 655 bits each way):
        # charged first, so that a runaway stops at the work limit rather than running on.
        if span > _SPREAD * len(olds) + _SPREAD_FROM:
            longest = max(top.bit_length() for top in tops), max(weights.values()).bit_length()
            spend(len(olds) * len(weights) * product_steps(*longest) // PRIMITIVE_STEPS)
            pairs: dict[int, int] = {}
            for old, top in zip(olds, tops):
                for value, weight in weights.items():
                    pairs[old + value] = pairs.get(old + value, 0) + top * weight
            return pairs
        have = [0] * span
        for old, top in zip(olds, tops):
            have[old - lowest] += top
        drawn = list(weights.values())
        spend(convolution_cost(have, drawn) // PRIMITIVE_STEPS)
        product = convolve(have, drawn)
        start = lowest + self.low
        return {start + i: n for i, n in enumerate(product) if n}
