"""A duel to the end by hand: each side strikes in turn, dealing the margin of a d20 attack over a d20 defence.

An absorbing Markov chain over the two healths. Health only goes down, so the
states are taken in order of their total health, highest first, each once with
all the probability that reaches it; a round in which both strikes fail changes
nothing, and is divided out. A round's ways are whole numbers over SIDES**4; the
probability a state passes on is one Fraction for the state, times those.
"""

from __future__ import annotations

import heapq
from fractions import Fraction
from typing import Any

OUTCOMES = ("a_wins", "a_left", "b_left")
SIDES = 20


def margins(attack: int, defence: int) -> dict[int, int]:
    """The damage of one strike (0: none) -> its ways out of SIDES**2."""
    ways: dict[int, int] = {}
    for hit in range(1, SIDES + 1):
        for parry in range(1, SIDES + 1):
            damage = max(0, hit + attack - parry - defence)
            ways[damage] = ways.get(damage, 0) + 1
    return ways


def duel(a: dict[str, Any], b: dict[str, Any]) -> dict[tuple, Fraction]:
    """The joint distribution of OUTCOMES."""
    strikes, answers = margins(a["attack"], b["defence"]), margins(b["attack"], a["defence"])
    every = SIDES**4  # the ways of a round's two strikes
    start = (a["health"], b["health"])
    mass = {start: Fraction(1)}
    waiting = [(-sum(start), start)]
    final: dict[tuple, Fraction] = {}
    while waiting:
        _, state = heapq.heappop(waiting)
        p = mass.pop(state)
        x, y = state
        ways: dict[tuple[int, int], int] = {}
        for damage, strike in strikes.items():
            left = y - damage
            if left <= 0:  # b falls: no answer
                ways[(x, left)] = ways.get((x, left), 0) + strike * SIDES**2
                continue
            for back, answer in answers.items():
                after = (x - back, left)
                ways[after] = ways.get(after, 0) + strike * answer
        share = p / (every - ways.pop(state, 0))
        for after, count in ways.items():
            q = share * count
            if after[0] > 0 and after[1] > 0:
                if after in mass:
                    mass[after] += q
                else:
                    mass[after] = q
                    heapq.heappush(waiting, (-sum(after), after))
            else:
                key = (after[1] <= 0, max(after[0], 0), max(after[1], 0))
                final[key] = final.get(key, 0) + q
    return final
