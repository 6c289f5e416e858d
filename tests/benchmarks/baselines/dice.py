"""Dice by hand: sums, the highest or lowest few of a pool, and exploding dice.

Each returns {(total,): Fraction}, keyed like the other baselines by a tuple of
outcome values (here the one outcome, `total`).
"""

from __future__ import annotations

from math import comb

from .counting import as_fractions, convolve, power, primes_of

OUTCOMES = ("total",)


def sum_of_dice(count: int, sides: int) -> dict[tuple, object]:
    counts = power([0] + [1] * sides, count)
    return as_fractions({(total,): c for total, c in enumerate(counts)}, sides**count, primes_of(sides))


def sums_of_rolls(rolls: int, count: int, sides: int) -> dict[tuple, object]:
    """The total of `rolls` separate rolls of `count` dice (four 10d6: rolls 4, count 10)."""
    one = power([0] + [1] * sides, count)
    counts = [1]
    for _ in range(rolls):
        counts = convolve(counts, one)
    return as_fractions({(total,): c for total, c in enumerate(counts)}, sides ** (count * rolls), primes_of(sides))


def successes(count: int, sides: int, at_least: int, double_at: int | None) -> dict[tuple, object]:
    """Successes of `count` dice: a face from `at_least` up is one, from `double_at` up two."""
    doubles = 0 if double_at is None else sides - double_at + 1
    die = [at_least - 1, sides - at_least + 1 - doubles, doubles]
    counts = power(die, count)
    return as_fractions({(total,): c for total, c in enumerate(counts)}, sides**count, primes_of(sides))


def keep_highest(count: int, sides: int, keep: int) -> dict[tuple, object]:
    """The sum of the `keep` highest of `count` dice."""
    return _keep(count, sides, keep, range(sides, 0, -1))


def keep_lowest(count: int, sides: int, keep: int) -> dict[tuple, object]:
    """The sum of the `keep` lowest of `count` dice."""
    return _keep(count, sides, keep, range(1, sides + 1))


def _keep(count: int, sides: int, keep: int, faces: range) -> dict[tuple, object]:
    # Faces in the order dice are kept: how many dice show each face is a
    # binomial choice among the dice not yet placed; the first `keep` placed count.
    # A state is (dice placed, kept total) -> ways.
    states = {(0, 0): 1}
    for face in faces:
        after: dict[tuple[int, int], int] = {}
        last = face == faces[-1]
        for (placed, total), ways in states.items():
            left = count - placed
            for showing in ([left] if last else range(left + 1)):
                kept = max(0, min(showing, keep - placed))
                key = (placed + showing, total + kept * face)
                after[key] = after.get(key, 0) + ways * comb(left, showing)
        states = after
    counts: dict[tuple, int] = {}
    for (_, total), ways in states.items():
        counts[(total,)] = counts.get((total,), 0) + ways
    return as_fractions(counts, sides**count, primes_of(sides))


def explode(sides: int, depth: int) -> dict[tuple, object]:
    """One die; its highest face adds another roll, at most `depth` times (the last counts as shown)."""
    # Built from the innermost roll out: a die that may explode `d` more times
    # is a plain face, or its highest face plus a die that may explode `d - 1`.
    counts, total = {face: 1 for face in range(1, sides + 1)}, sides
    for _ in range(depth):
        deeper = {face: total for face in range(1, sides)}
        for value, c in counts.items():
            deeper[sides + value] = deeper.get(sides + value, 0) + c
        counts, total = deeper, total * sides
    return as_fractions({(value,): c for value, c in counts.items()}, total, primes_of(sides))
