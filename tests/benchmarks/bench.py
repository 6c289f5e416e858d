"""Timing helpers for the benchmarks: best-of-N wall times and the one-line verdict."""

from __future__ import annotations

import time
from collections.abc import Callable


def best_time(fn: Callable[[], object], repeat: int = 5, number: int = 1) -> float:
    """The best of `repeat` timings of `number` calls: the least disturbed by other work."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - start) / number)
    return best


def verdict(name: str, ratio: float, target: float, detail: str = "") -> str:
    line = f"BENCH {name}: ratio {ratio:.2f} (target <= {target:g}) {'MET' if ratio <= target else 'MISSED'}"
    if detail:
        print(f"\n  {detail}")
    print(line)
    return line
