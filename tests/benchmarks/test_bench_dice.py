"""Exact success distributions of dice pools, against icepool computing the same."""

from __future__ import annotations

import pytest

from bench import best_time, verdict
from interpreter.runtime.chance import SuccessPool
from interpreter.runtime.weights import UNLIMITED

icepool = pytest.importorskip("icepool")


def ours(pool: SuccessPool) -> dict:
    return pool._weights(UNLIMITED).probabilities()  # uncached: the work itself


def theirs(count: int, doubles: bool) -> object:
    die = icepool.d10.map(lambda face: (2 if doubles and face == 10 else 1) if face >= 7 else 0)
    return (count @ die).probabilities()


@pytest.mark.parametrize("name, count, doubles", [("20d10-doubles", 20, True), ("damage-roll-20d10", 20, False)])
def test_success_distribution_against_icepool(name, count, doubles):
    pool = SuccessPool(count, 10, 7, 10 if doubles else None)
    mine = best_time(lambda: ours(pool), repeat=7)
    other = best_time(lambda: theirs(count, doubles), repeat=7)
    verdict(name, mine / other, 1.0, f"fracas {mine * 1e3:.2f} ms, icepool {other * 1e3:.2f} ms")
