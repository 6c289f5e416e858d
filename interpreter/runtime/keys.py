"""A total, deterministic order over runtime values.

Sorting by stable_key never depends on PYTHONHASHSEED or object identity, so
canonical pools and printed distributions come out the same on every run.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from itertools import chain
from operator import itemgetter
from typing import Any


def stable_key(value: object) -> tuple:
    kind = type(value)
    if kind is int:  # the common cases first, by exact type
        return (2, value)
    if kind is str:
        return (3, value)
    if kind is tuple:
        return (4, tuple(map(stable_key, value)))
    if value is None:
        return (0,)
    if isinstance(value, bool):
        return (1, int(value))
    if isinstance(value, (int, Fraction)):
        return (2, value)
    if isinstance(value, str):
        return (3, value)
    if isinstance(value, tuple):
        return (4, tuple(map(stable_key, value)))
    key = getattr(value, "stable_key", None)
    if callable(key):
        return (5, key())
    raise TypeError(f"no stable order for {type(value).__name__}")


def plain_order(keys: list[Any]) -> bool:
    """Whether the keys are all whole numbers, or all tuples of them: these compare as their stable keys
    do, so they are sorted as they are, without a key made for each (a joint distribution has thousands)."""
    kinds = set(map(type, keys))
    return kinds <= {int} or (kinds == {tuple} and set(map(type, chain.from_iterable(keys))) <= {int})


def stable_sorted(pairs: Iterable[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """Pairs sorted by stable_key of their first item."""
    pairs = list(pairs)
    if plain_order(list(map(itemgetter(0), pairs))):
        return sorted(pairs, key=itemgetter(0))
    return sorted(pairs, key=lambda pair: stable_key(pair[0]))
