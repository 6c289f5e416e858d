"""rules/crt.rules, a hex-and-counter wargame's combat, against an exact calculation written here by hand.

The hand calculation follows the rules' opening comment, not the rules file: the
ratio of strengths as a Fraction, the chart as a dictionary of rows, the
exchange's losses from the sorted strengths.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from fracas import dsl
from fracas.interpreter import Scenario, exact

CRT = dsl.load(Path(__file__).resolve().parent.parent / "rules" / "crt.rules")

CHART = {  # the die -> the result in each column, 1:2 to 5:1
    1: "AR DR DR DE DE DE".split(),
    2: "AR AR DR DR DE DE".split(),
    3: "AE AR EX DR DR DE".split(),
    4: "AE AE AR EX DR DR".split(),
    5: "AE AE AR AR EX DR".split(),
    6: "AE AE AE AR AR EX".split(),
}
MULTIPLIER = {"clear": 1, "woods": 2, "city": 3}
BELOW = "not allowed: the odds are below 1:2"
ACROSS = "not allowed: 1:2 across a river"


def column(attack: int, defend: int) -> int | None:
    ratio = Fraction(attack, defend)
    if ratio < Fraction(1, 2):
        return None
    return 0 if ratio < 1 else min(int(ratio), 5)


def exchange_loss(strengths: list[int], printed: int) -> int:
    lost = 0
    for strength in sorted(strengths):
        if lost >= printed:
            break
        lost += strength
    return lost


def by_hand(attackers: list[int], defender: int, ground: str = "clear", river: bool = False,
            surrounded: bool = False) -> dict[tuple[Any, ...], Fraction]:
    """(letter, defender_eliminated, attacker_lost, stopped) -> probability."""
    attack, defend = sum(attackers), defender * MULTIPLIER[ground]
    col = column(attack, defend)
    if col is None:
        return {(None, False, 0, BELOW): Fraction(1)}
    if river:
        col -= 1
        if col < 0:
            return {(None, False, 0, ACROSS): Fraction(1)}
    joint: dict[tuple[Any, ...], Fraction] = {}
    for die in range(1, 7):
        letter = CHART[die][col]
        eliminated = letter in ("DE", "EX") or (letter == "DR" and surrounded)
        lost = attack if letter == "AE" else exchange_loss(attackers, defender) if letter == "EX" else 0
        key = (letter, eliminated, lost, "")
        joint[key] = joint.get(key, 0) + Fraction(1, 6)
    return joint


def by_fracas(attackers: list[int], defender: int, ground: str = "clear", river: bool = False,
              surrounded: bool = False) -> dict[tuple[Any, ...], Fraction]:
    inputs = {"attackers": [{"strength": s} for s in attackers], "defender": {"strength": defender},
              "ground": ground, "river": river, "surrounded": surrounded}
    joint: dict[tuple[Any, ...], Fraction] = {}
    for values, p in exact(CRT, Scenario("attack", inputs)).joint():
        letter = values["letter"]
        key = (None if letter is None else str(letter), values["defender_eliminated"], values["attacker_lost"],
               values.get("stopped", ""))
        joint[key] = joint.get(key, 0) + p
    return joint


# The newcomer's nine scenarios: every column, each ground, the river, a surrounded defender, the refusals.
SCENARIOS = {
    "city": ([6, 5, 4], 2, "city", False, False),
    "everything": ([2, 3, 9], 1, "city", True, True),
    "exchange": ([6, 1, 2], 3, "clear", False, False),
    "not allowed": ([2], 3, "city", False, False),
    "overwhelming": ([8, 6], 2, "clear", False, False),
    "river at 1:2": ([3], 6, "clear", True, False),
    "river": ([5, 3], 4, "clear", True, False),
    "surrounded": ([7, 5], 2, "woods", False, True),
    "woods": ([4, 3], 2, "woods", False, False),
}


@pytest.mark.parametrize("name", SCENARIOS)
def test_the_exact_odds_equal_the_hand_calculation(name):
    attackers, defender, ground, river, surrounded = SCENARIOS[name]
    assert by_fracas(attackers, defender, ground, river, surrounded) == by_hand(
        attackers, defender, ground, river, surrounded)


def test_every_small_attack_on_every_ground_equals_the_hand_calculation():
    # Each column is met, and each side of every rounding: one or two attackers of 1 to 4 against 1 to 3.
    pools = [[a] for a in range(1, 5)] + [[a, b] for a in range(1, 5) for b in range(a, 5)]
    for attackers, defender, ground, river in itertools.product(pools, range(1, 4), MULTIPLIER, (False, True)):
        assert by_fracas(attackers, defender, ground, river) == by_hand(attackers, defender, ground, river), (
            attackers, defender, ground, river)
