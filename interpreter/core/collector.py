"""Python's cyclic garbage collector, paused where the exact engine and its results make containers by the million.

The engine's states, worlds, outcomes and probabilities are tuples, dictionaries
and small objects, many of them kept alive at once (the states waiting, what the
engine remembers), none of them in a reference cycle. Each of the collector's
full passes goes over every one of them: they took a quarter of the time of an
exact run that ends in 26,000 states. What little cyclic garbage a resolution
leaves (a program's closures) is collected once the collector runs again.
"""

from __future__ import annotations

import _thread
import gc
from collections.abc import Iterator
from contextlib import contextmanager

# Pauses may overlap (threads resolving at once): the first turns the collector off, if it was on, and the
# last to end turns it on again.
_lock = _thread.allocate_lock()
_pauses = 0
_turned_off = False


@contextmanager
def paused() -> Iterator[None]:
    """The collector paused for the block; running again after it if it was running before it."""
    global _pauses, _turned_off
    with _lock:
        if not _pauses:
            _turned_off = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _lock:
            _pauses -= 1
            if not _pauses and _turned_off:
                gc.enable()
