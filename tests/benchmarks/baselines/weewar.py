"""A Weewar exchange by hand (rules/weewar.rules): two binomials, each divided by 6 and floored.

The attacker makes six draws per health point at p, the defender strikes back
with six per health point at its own p; both losses land at the end, so they
are independent. Only the units, terrains and the wound bonus the benchmark
scenarios need; no splash (no unit here causes any).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from .counting import as_fractions, binomial, primes_of

OUTCOMES = ("defender_loss", "attacker_loss", "splash_loss")

DRAWS_PER_HEALTH = 6
# type: (class, defense, min range, max range); attack values by target class.
UNITS = {"trooper": ("soft", 6, 1, 1), "tank": ("hard", 10, 1, 1)}
ATTACK = {"trooper": {"hard": 3, "soft": 6}, "tank": {"hard": 7, "soft": 10}}
TERRAIN_ATTACK = {"plains": {}, "woods": {"soft": 2}}
TERRAIN_DEFENSE = {"plains": {}, "woods": {"hard": -3, "soft": 3}}
# WEE-04: a previous attack from a distance, from the attacker's hex, from a hex
# adjacent to both, from another hex adjacent to the defender, from the opposite hex.
WOUND_FROM_DISTANCE, WOUND_SAME_HEX, WOUND_ADJACENT_TO_BOTH, WOUND_OTHER_ADJACENT, WOUND_OPPOSITE = 1, 1, 1, 2, 3
WOUND_RANGED = 1


def distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    dq, dr = a[0] - b[0], a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def wound_bonus(origin_of_attack: tuple[int, int], target: dict[str, Any]) -> int:
    at = _hex(target["place"])
    origins = [_hex(past["origin"]) for past in target.get("history", [])]
    if distance(origin_of_attack, at) >= 2:
        return WOUND_RANGED * len(origins)
    total = 0
    for origin in origins:
        if distance(origin, at) >= 2:
            total += WOUND_FROM_DISTANCE
        elif origin == origin_of_attack:
            total += WOUND_SAME_HEX
        elif origin == (2 * at[0] - origin_of_attack[0], 2 * at[1] - origin_of_attack[1]):
            total += WOUND_OPPOSITE
        elif distance(origin, origin_of_attack) == 1:
            total += WOUND_ADJACENT_TO_BOTH
        else:
            total += WOUND_OTHER_ADJACENT
    return total


def hit_chance(shooter: dict[str, Any], target: dict[str, Any]) -> Fraction | None:
    """WEE-01: p = 0.05 * (margin + bonus) + 0.5 clamped to [0, 1]; None when it cannot hit (WEE-05)."""
    kind, target_kind = UNITS[shooter["type"]], UNITS[target["type"]]
    reach = distance(_hex(shooter["place"]), _hex(target["place"]))
    attack = ATTACK[shooter["type"]][target_kind[0]]
    if attack <= 0 or not kind[2] <= reach <= kind[3]:
        return None
    margin = (attack + TERRAIN_ATTACK[shooter.get("terrain", "plains")].get(kind[0], 0)
              - target_kind[1] - TERRAIN_DEFENSE[target.get("terrain", "plains")].get(target_kind[0], 0))
    p = Fraction(margin + wound_bonus(_hex(shooter["place"]), target), 20) + Fraction(1, 2)
    return min(max(p, Fraction(0)), Fraction(1))


def losses(shooter_health: int, target_health: int, p: Fraction | None) -> tuple[list[int], int]:
    """Counts of the health lost by the target, 0 up, over a common total (WEE-02, WEE-09)."""
    if p is None:
        return [1], 1
    draws = DRAWS_PER_HEALTH * shooter_health
    hits = binomial(draws, p.numerator, p.denominator - p.numerator)
    lost = [0] * (min(shooter_health, target_health) + 1)
    for count_of_hits, count in enumerate(hits):
        lost[min(count_of_hits // DRAWS_PER_HEALTH, target_health)] += count
    return lost, p.denominator**draws


def exchange(attacker: dict[str, Any], defender: dict[str, Any], neighbours: tuple = ()) -> dict[tuple, Fraction]:
    """The joint distribution of OUTCOMES."""
    if attacker.get("splash", 0):
        raise ValueError("this baseline has no splash")
    attacker_health, defender_health = attacker.get("health", 10), defender.get("health", 10)
    p, counter_p = hit_chance(attacker, defender), hit_chance(defender, attacker)
    if p is None:
        raise ValueError("the attacker cannot hit the defender: fracas stops; not modelled here")
    dealt, dealt_total = losses(attacker_health, defender_health, p)
    suffered, suffered_total = losses(defender_health, attacker_health, counter_p)
    joint = {(d, a, 0): x * y for d, x in enumerate(dealt) if x for a, y in enumerate(suffered) if y}
    primes = primes_of(p.denominator, counter_p.denominator if counter_p is not None else 1)
    return as_fractions(joint, dealt_total * suffered_total, primes)


def _hex(place: dict[str, int]) -> tuple[int, int]:
    return place["q"], place["r"]
