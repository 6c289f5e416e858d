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


def same(a: object, b: object) -> bool:
    """Whether two runtime values are one value to the rules, which never take `true` for 1 or `false` for 0 as
    Python's == does (in lists too): what values of any type (an owner, a source) are compared by."""
    if a is b:
        return True
    if (a.__class__ is bool) is not (b.__class__ is bool):
        return False
    if a.__class__ is tuple and b.__class__ is tuple:
        return len(a) == len(b) and all(map(same, a, b))  # type: ignore[arg-type]
    return a == b


def loosely_equal(value: object) -> bool:
    """Whether Python's == may take another value for this one that the rules tell apart (`same`): a truth
    value, a whole number, a list. A query by any other owner compares by == alone, as fast as ever."""
    return value.__class__ in _LOOSE


_LOOSE = frozenset({bool, int, tuple, Fraction})  # a whole Fraction too, though the rules make those ints


def apart(value: object) -> object:
    """A key for a value of any type that keys apart what `same` tells apart: Python's hash and == would not."""
    kind = value.__class__
    if kind is bool:
        return (bool, value)
    if kind is tuple:
        return (tuple, tuple(map(apart, value)))  # type: ignore[call-overload]
    return value


def plain_order(keys: list[Any]) -> bool:
    """Whether the keys compare as their stable keys do, so that they are sorted as they are, without a
    key made for each (a joint distribution has thousands): all whole numbers, all tuples of them, or
    tuples of one length whose every place holds one kind of value throughout, whole numbers, truth
    values or texts (a joint distribution's values of typed outcomes, and why a run stopped)."""
    kinds = set(map(type, keys))
    if kinds <= {int}:
        return True
    if kinds != {tuple}:
        return False
    if len(set(map(len, keys))) != 1:
        return set(map(type, chain.from_iterable(keys))) <= {int}
    # One pass over the places (whole numbers alone pass it too), not one over every value first.
    return all(len(found := set(map(type, place))) == 1 and found <= _PLAIN_PLACES for place in zip(*keys))


_PLAIN_PLACES = {int, bool, str}  # each ordered within its own kind as its stable keys order it


def stable_sorted(pairs: Iterable[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """Pairs sorted by stable_key of their first item."""
    pairs = list(pairs)
    if plain_order(list(map(itemgetter(0), pairs))):
        return sorted(pairs, key=itemgetter(0))
    return sorted(pairs, key=lambda pair: stable_key(pair[0]))
