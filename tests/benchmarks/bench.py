"""Timing helpers for the benchmarks: best-of-N wall times, fresh processes, and the one-line verdict."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).with_name("worker.py")


def best_time(fn: Callable[[], object], repeat: int = 5, number: int = 1) -> float:
    """The best of `repeat` timings of `number` calls: the least disturbed by other work."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - start) / number)
    return best


def ratio_text(ratio: float) -> str:
    """Two decimals, or two significant digits when that would show nothing."""
    return f"{ratio:.2f}" if ratio >= 0.1 else f"{ratio:.2g}"


def verdict(name: str, ratio: float, target: float, detail: str = "") -> str:
    line = f"BENCH {name}: ratio {ratio_text(ratio)} (target <= {target:g}) {'MET' if ratio <= target else 'MISSED'}"
    if detail:
        print(f"\n  {detail}")
    print(line)
    return line


def missed(name: str, target: float, reason: str, at_least: float | None = None, detail: str = "") -> str:
    """The verdict of a case that could not be measured to the end: MISSED, with why."""
    ratio = f"> {ratio_text(at_least)}" if at_least is not None else "n/a"
    line = f"BENCH {name}: ratio {ratio} (target <= {target:g}) MISSED ({reason})"
    if detail:
        print(f"\n  {detail}")
    print(line)
    return line


def in_fresh_process(args: list[str], timeout: float) -> dict:
    """One run of worker.py; {'error': ...} when it fails or is stopped at `timeout` seconds."""
    try:
        done = subprocess.run([sys.executable, str(WORKER), *args], cwd=ROOT, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"stopped after {timeout:g} s", "timed_out": True}
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        return {"error": f"the worker failed: {done.stderr.strip()[-400:]}"}
    return json.loads(lines[-1])


def fastest_fresh(args: list[str], timeout: float, repeat: int = 3, quick: float = 1.0) -> dict:
    """The fastest of up to `repeat` fresh runs; one is enough when it takes `quick` seconds or more."""
    best: dict | None = None
    for _ in range(repeat):
        found = in_fresh_process(args, timeout)
        if "error" in found:
            return found
        if best is None or found["seconds"] < best["seconds"]:
            best = found
        if found["seconds"] >= quick:
            break
    assert best is not None
    return best


def fastest_in_turn(sides: list[list[str]], timeout: float, repeat: int = 3, quick: float = 5.0) -> list[dict]:
    """The fastest of up to `repeat` fresh runs of each side, the sides taking turns, so that a slower stretch of
    the machine's minutes falls on each alike; a side runs no more once a run of it takes `quick` seconds or
    more, or fails (its error stands)."""
    best: list[dict] = [{} for _ in sides]
    running = [True] * len(sides)
    for _ in range(repeat):
        for side, args in enumerate(sides):
            if not running[side]:
                continue
            found = in_fresh_process(args, timeout)
            if "error" in found or not best[side] or found["seconds"] < best[side]["seconds"]:
                best[side] = found
            running[side] = "error" not in found and found["seconds"] < quick
    return best


def seconds(s: float) -> str:
    return f"{s:.2f} s" if s >= 1 else f"{s * 1e3:.1f} ms" if s >= 1e-3 else f"{s * 1e6:.0f} us"
