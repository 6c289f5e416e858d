"""An Exalted War attack with its counterattack, by hand (rules/exalted-war.rules).

Unit Commanders only, the scenario's choices: no rerolls, War DV or no response.
An attack roll is a sum of d10s each showing 0 (1-6), 1 (7-9) or 2 (10)
successes: a polynomial power. A damage roll is a binomial at 4 in 10. The attack
and the counterattack are independent until step 10 joins them.
"""

from __future__ import annotations

from typing import Any

from .counting import as_fractions, binomial, power, primes_of

OUTCOMES = ("trail", "health_levels", "counter_health_levels", "ended", "stopped")

SIDES = 10
SUCCESS_AT = 7
DOUBLE_AT = 10
# Faces of one attack die by successes shown: 0, 1, 2.
ATTACK_DIE = [SUCCESS_AT - 1, DOUBLE_AT - SUCCESS_AT, SIDES - DOUBLE_AT + 1]

MISSES = "the attack misses"
NO_DAMAGE = "the target is struck but takes no damage"
STOPPED = "the attack's cycle of War Events has ended"
CYCLE_TO_5 = "1 2 3 4 5 "
CYCLE_TO_8 = "1 2 3 4 5 6 7 8 "

STATS = ("health", "wits", "war", "charisma", "intelligence", "magnitude", "accuracy", "damage", "defense", "might",
         "hardness", "soak", "dv_modifier", "penalty")


def _stats(combatant: dict[str, Any]) -> dict[str, int]:
    if combatant.get("role", "commander") != "commander":
        raise ValueError("this baseline resolves Unit Commanders only")
    return {name: combatant.get(name, 10 if name == "health" else 0) for name in STATS}


def war_dv(c: dict[str, int], response: str) -> int:
    if response == "do_nothing":
        return 0
    return -(-(c["intelligence"] + c["war"] + c["defense"]) // 2) + c["dv_modifier"]  # rounded up


def cycle(attacker: dict[str, int], defender: dict[str, int], response: str) -> tuple[dict[Any, int], int]:
    """Steps 1-8: counts by MISSES, NO_DAMAGE or the health levels dealt, over a common total."""
    dice = attacker["wits"] + attacker["war"] + attacker["accuracy"]
    rolled = power(ATTACK_DIE, dice)
    bonus = attacker["magnitude"] - defender["magnitude"] - attacker["penalty"] - war_dv(defender, response)
    flat = attacker["charisma"] + attacker["damage"]
    pools = {}
    for successes, count in enumerate(rolled):
        net = successes + bonus
        if net <= 0:
            pools[MISSES] = pools.get(MISSES, 0) + count
            continue
        raw = net + flat
        if defender["hardness"] >= raw:
            pools[NO_DAMAGE] = pools.get(NO_DAMAGE, 0) + count
            continue
        pool = max(0, raw - defender["soak"], attacker["magnitude"])
        pools[pool] = pools.get(pool, 0) + count
    # Damage rolls of different sizes, brought over one total: SIDES ** (dice + the largest pool).
    largest = max((k for k in pools if isinstance(k, int)), default=0)
    out: dict[Any, int] = {}
    for key, count in pools.items():
        if not isinstance(key, int):
            out[key] = count * SIDES**largest
            continue
        scale = count * SIDES ** (largest - key)
        for hits, ways in enumerate(binomial(key, SIDES - SUCCESS_AT + 1, SUCCESS_AT - 1)):
            dealt = hits + attacker["might"]
            out[dealt] = out.get(dealt, 0) + scale * ways
    return out, SIDES ** (dice + largest)


def war_attack(attacker: dict[str, Any], defender: dict[str, Any], counterattack: bool = True,
               defender_response: str = "war_dv", counter_response: str = "war_dv") -> dict[tuple, Any]:
    """The joint distribution of OUTCOMES."""
    a, d = _stats(attacker), _stats(defender)
    attack, attack_total = cycle(a, d, defender_response)
    if counterattack:
        counter, counter_total = cycle(d, a, counter_response)
    else:
        counter, counter_total = {None: 1}, 1
    joint: dict[tuple, int] = {}
    for result, count in attack.items():
        if result == MISSES or result == NO_DAMAGE:
            trail = CYCLE_TO_5 if result == MISSES else CYCLE_TO_8
            key = (trail, 0, 0, result, STOPPED)
            joint[key] = joint.get(key, 0) + count * counter_total
            continue
        dealt = min(d["health"], result)
        for answer, ways in counter.items():
            if answer is None:
                trail, suffered = CYCLE_TO_8 + "9 10", 0
            elif answer == MISSES:
                trail, suffered = CYCLE_TO_8 + "9 " + CYCLE_TO_5 + "10", 0
            else:
                trail = CYCLE_TO_8 + "9 " + CYCLE_TO_8 + "10"
                suffered = 0 if answer == NO_DAMAGE else min(a["health"], answer)
            key = (trail, dealt, suffered, "", "")
            joint[key] = joint.get(key, 0) + count * ways
    return as_fractions(joint, attack_total * counter_total, primes_of(SIDES))
