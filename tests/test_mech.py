"""rules/mech.rules, a missile volley with hit locations, against an exact calculation written here by hand.

The hand calculation follows the rules' opening comment, not the rules file:
dynamic programming over the mech's armor and structure, a cluster roll per
rack and a location roll per group of missiles.
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import pytest

from fracas import dsl
from fracas.interpreter import Scenario, exact

MECH = dsl.load(Path(__file__).resolve().parent.parent / "rules" / "mech.rules")

GROUP, HEAD_CAP, CRITICAL_ON = 5, 3, 8
CLUSTER = {6: (2, 2, 3, 3, 4, 4, 4, 5, 5, 6, 6), 10: (3, 3, 4, 6, 6, 6, 6, 8, 8, 10, 10)}  # by 2d6 from 2
NAMES = ("head", "ct", "lt", "rt", "la", "ra", "ll", "rl")
HEAD, CT, LT, RT, LA, RA, LL, RL = range(8)
INWARD = {HEAD: None, CT: None, LT: CT, RT: CT, LA: LT, RA: RT, LL: LT, RL: RT}
LOCATION = {2: CT, 3: RA, 4: RA, 5: RL, 6: RT, 7: CT, 8: LT, 9: LL, 10: LA, 11: LA, 12: HEAD}
TWO_D6 = {total: Fraction(6 - abs(total - 7), 36) for total in range(2, 13)}
LIGHT = ((2, 5, 4, 4, 3, 3, 4, 4), (3, 4, 4, 4, 2, 2, 3, 3))
OUTCOMES = ("missiles_hit", "damage_dealt", "criticals", "mech_destroyed", "locations_destroyed", "destroyed")


def fallen(structure: tuple[int, ...]) -> bool:
    return structure[HEAD] == 0 or structure[CT] == 0


def land(armor: tuple[int, ...], structure: tuple[int, ...], at: int | None, amount: int):
    """A group of missiles at a location: armor, then structure, then inward; the damage dealt too."""
    armor_left, structure_left = list(armor), list(structure)
    left = min(amount, HEAD_CAP) if at == HEAD else amount
    dealt = 0
    while at is not None and left > 0:
        for layer in (armor_left, structure_left):
            taken = min(left, layer[at])
            layer[at] -= taken
            left -= taken
            dealt += taken
        at = INWARD[at]
    return tuple(armor_left), tuple(structure_left), dealt


def add(into: dict[tuple, Fraction], key: tuple, p: Fraction) -> None:
    into[key] = into.get(key, 0) + p


def volley(racks: list[int], armor: tuple[int, ...], structure: tuple[int, ...]) -> dict[tuple, Fraction]:
    """(armor, structure, missiles, dealt, criticals) after each rack, then the outcomes' joint distribution."""
    states = {(armor, structure, 0, 0, 0): Fraction(1)}
    for size in racks:
        after: dict[tuple, Fraction] = {}
        for (arm, st, missiles, dealt, crits), p in states.items():
            if fallen(st):  # the rest of the volley is lost
                add(after, (arm, st, missiles, dealt, crits), p)
                continue
            for roll, q in TWO_D6.items():
                hits = CLUSTER[size][roll - 2]
                inner = {(arm, st, missiles + hits, dealt, crits): p * q}
                for group in range(math.ceil(hits / GROUP)):
                    amount = min(GROUP, hits - GROUP * group)
                    following: dict[tuple, Fraction] = {}
                    for (a, s, m, d, c), r in inner.items():
                        if fallen(s):
                            add(following, (a, s, m, d, c), r)
                            continue
                        for where, w in TWO_D6.items():
                            a2, s2, more = land(a, s, LOCATION[where], amount)
                            critical = sum(TWO_D6[t] for t in TWO_D6 if t >= CRITICAL_ON) if where == 2 else 0
                            for c2, share in ((c + 1, critical), (c, 1 - critical)):
                                if share:
                                    add(following, (a2, s2, m, d + more, c2), r * w * share)
                    inner = following
                for key, r in inner.items():
                    add(after, key, r)
        states = after
    joint: dict[tuple, Fraction] = {}
    for (_, st, missiles, dealt, crits), p in states.items():
        gone = [NAMES[i] for i in range(8) if st[i] == 0]
        add(joint, (missiles, dealt, crits, fallen(st), len(gone), " ".join(gone)), p)
    return joint


def fracas_joint(racks: list[str], target: dict) -> dict[tuple, Fraction]:
    odds = exact(MECH, Scenario("missile_volley", {"racks": racks, "target": target}), outcomes_only=True)
    found: dict[tuple, Fraction] = {}
    for values, p in odds.joint():
        add(found, tuple(values[name] for name in OUTCOMES), p)
    return found


def test_the_hand_calculation_of_one_rack_knows_the_average_the_rules_state():
    joint = volley([10], *LIGHT)
    assert sum(p * key[0] for key, p in joint.items()) == Fraction(227, 36)  # MECH-06


def test_a_rack_of_10_at_a_fresh_light_mech_matches_the_hand_calculation():
    assert fracas_joint(["lrm10"], {"type": "light"}) == volley([10], *LIGHT)


@pytest.mark.parametrize("racks", [["lrm6"], ["lrm10", "lrm6"]])
def test_racks_at_a_damaged_mech_match_the_hand_calculation(racks):
    armor, structure = (2, 5, 3, 4, 0, 3, 4, 4), (3, 4, 4, 4, 1, 2, 3, 3)
    target = {"type": "light", "armor": list(armor), "structure": list(structure)}
    assert fracas_joint(racks, target) == volley([int(rack[3:]) for rack in racks], armor, structure)
