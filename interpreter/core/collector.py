"""Python's cyclic garbage collector, paused where the exact engine and its results make containers by the million.

The engine's states, worlds, outcomes and probabilities are tuples, dictionaries
and small objects, many of them kept alive at once (the states waiting, what the
engine remembers), none of them in a reference cycle. Each of the collector's
full passes goes over every one of them: they took a quarter of the time of an
exact run that ends in 26,000 states. What little cyclic garbage a resolution leaves (a
program's closures) is collected once the collector runs again.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """The collector paused for the block, then running again if it was (a pause within a pause leaves it paused)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
