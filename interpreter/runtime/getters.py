"""Getters of several items at once, in C where they can be: the tuple of a sequence's items at some places, or a
mapping's at some keys."""

from __future__ import annotations

import operator
from collections.abc import Callable, Hashable, Sequence
from typing import Any


def tuple_getter(indices: Sequence[Hashable]) -> Callable[[Any], tuple[Any, ...]]:
    """values -> the tuple of those at `indices`, however many (itemgetter gives a tuple only of two or more)."""
    if not indices:
        return lambda values: ()
    if len(indices) == 1:
        index = indices[0]
        return lambda values: (values[index],)
    return operator.itemgetter(*indices)
