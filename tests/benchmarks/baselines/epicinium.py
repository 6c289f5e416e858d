"""An Epicinium targeted attack by hand (rules/epicinium.rules): shots at bodies, one at a time.

The state after each shot is how many bodies of each group (target figures,
the collateral building, trench bodies) have taken each amount of damage; a
shot moves one living body up, chosen uniformly among the living. Weights are
whole numbers: each shot multiplies the common total by the least common
multiple of the living counts it meets. No bypassed unit, no air target.
"""

from __future__ import annotations

from math import lcm
from typing import Any

from .counting import as_fractions, primes_of

OUTCOMES = ("figures_lost", "air_figures_lost", "bypassed_figures_lost", "stacks_lost", "power_lost",
            "units_killed", "tile_destroyed")

BONEDROUGHT_SPARES_AIR = True
BARE_TILES_ARE_DESTROYED = True
# type: (figures, hitpoints, shots per figure, damage per shot, air, mechanical)
UNITS = {
    "rifleman": (3, 2, 1, 1, False, False),
    "gunner": (3, 2, 3, 1, False, False),
    "sapper": (3, 1, 1, 1, False, False),
    "militia": (3, 1, 1, 1, False, False),
    "tank": (3, 3, 0, 0, False, True),
}
# tile: (stacks, hitpoints of one, power, destructible, trenches)
TILES = {
    "dirt": (0, 1, 0, False, False),
    "grass": (0, 1, 0, True, False),
    "trenches": (0, 1, 0, False, True),
    "forest": (5, 1, 0, True, False),
    "city": (5, 2, 5, True, False),
    "town": (5, 2, 5, True, False),
}
TARGET, COLLATERAL, TRENCHES = "target", "collateral", "trenches"


def vulnerable(hitpoints: int, space: dict[str, Any], air: bool) -> int:
    """EPI-15."""
    if space.get("bonedrought", False) and not (air and BONEDROUGHT_SPARES_AIR):
        hitpoints -= 1
    if space.get("gas", 0) > 0 and not air:
        hitpoints -= 1
    return max(hitpoints, 1)


def targeted_attack(attackers: list[dict[str, Any]], target: dict[str, Any], space: dict[str, Any]) -> dict:
    """The joint distribution of OUTCOMES."""
    given = target["type"]
    kind = UNITS[given] if isinstance(given, str) else (
        given["figures"], given["hitpoints"], given.get("shots", 0), given.get("damage", 0), given.get("air", False),
        given.get("mechanical", False))  # a type written in place, as the scenario may
    if kind[4]:
        raise ValueError("this baseline has no air target")
    tile = TILES[space["tile"]]
    stacks = space.get("stacks", tile[0])
    power = space.get("power", tile[2])
    figures = target.get("figures", kind[0])
    # Groups of like bodies: (role, how many, hitpoints).
    groups = [(TARGET, figures, vulnerable(kind[1], space, False))]
    if stacks > 0:
        groups.append((COLLATERAL, 1, vulnerable(tile[1], space, False)))
    if tile[4] and not kind[5]:
        groups.append((TRENCHES, 3, vulnerable(1, space, False)))
    shots = []
    for attacker in attackers:
        shooter = UNITS[attacker["type"]]
        shots += [shooter[3]] * (attacker.get("figures", shooter[0]) * shooter[2])

    # A state counts the bodies of each group at each damage 0..hitpoints, side by side.
    offsets, start = [], []
    for _, count, hitpoints in groups:
        offsets.append(len(start))
        start += [count] + [0] * hitpoints
    moves_by_damage = {}
    for damage in set(shots):
        moves = []
        for (_, _, hitpoints), offset in zip(groups, offsets):
            for taken in range(hitpoints):
                moves.append((offset + taken, offset + min(hitpoints, taken + damage)))
        moves_by_damage[damage] = moves
    living_slots = [offset + taken for (_, _, hitpoints), offset in zip(groups, offsets) for taken in range(hitpoints)]

    states, total = {tuple(start): 1}, 1
    for damage in shots:
        moves = moves_by_damage[damage]
        living = {state: sum(state[i] for i in living_slots) for state in states}
        step = lcm(*(n for n in living.values() if n)) if any(living.values()) else 1
        after: dict[tuple, int] = {}
        for state, weight in states.items():
            alive = living[state]
            if alive == 0:  # EPI-03: the shot hits a lethal body and changes nothing
                after[state] = after.get(state, 0) + weight * step
                continue
            share = weight * (step // alive)
            for source, destination in moves:
                count = state[source]
                if count:
                    moved = list(state)
                    moved[source] -= 1
                    moved[destination] += 1
                    moved = tuple(moved)
                    after[moved] = after.get(moved, 0) + share * count
        states, total = after, total * step

    joint: dict[tuple, int] = {}
    for state, weight in states.items():
        lethal = {role: state[offset + hitpoints] for (role, _, hitpoints), offset in zip(groups, offsets)}
        lost = lethal[TARGET]
        buildings = lethal.get(COLLATERAL, 0)
        lost_power = buildings if power > 0 else 0
        destroyed = stacks - buildings == 0 and tile[3] and (buildings > 0 or BARE_TILES_ARE_DESTROYED)
        key = (lost, 0, 0, buildings, lost_power, int(lost > 0 and lost == figures), destroyed)
        joint[key] = joint.get(key, 0) + weight
    bodies = sum(count for _, count, _ in groups)
    return as_fractions(joint, total, primes_of(*range(2, bodies + 1)))
