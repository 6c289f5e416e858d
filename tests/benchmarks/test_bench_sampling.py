"""A sampled Epicinium attack through the API, against the same rules written by hand."""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path

from fracas import dsl
from bench import best_time, verdict
from fracas.interpreter import exact, load_scenario, prepare, sample

ROOT = Path(__file__).resolve().parents[2]
RUNS = 2000

# ---- the targeted attack of rules/epicinium.rules, by hand --------------------------------
# The same data and the same steps as the rules file: modifiers from the space, the
# collateral body, the volley, lost figures, lost buildings and power, the tile's fate.

UNIT_TYPES = {
    "rifleman": {"figures": 3, "hitpoints": 2, "shots": 1, "damage": 1, "air": False, "mechanical": False,
                 "leaks_gas": False},
    "gunner": {"figures": 3, "hitpoints": 2, "shots": 3, "damage": 1, "air": False, "mechanical": False,
               "leaks_gas": False},
}
TILE_TYPES = {
    "city": {"stacks": 5, "hitpoints": 2, "power": 5, "becomes": "rubble", "trenches": False, "leaks_gas": False},
    "rubble": {"stacks": 0, "hitpoints": 1, "power": 0, "becomes": None, "trenches": False, "leaks_gas": False},
}
BONEDROUGHT_SPARES_AIR = True
BARE_TILES_ARE_DESTROYED = True
GAS_FROM_DESTRUCTION = 1


def vulnerable(hitpoints: int, space: dict, air: bool) -> int:
    if space["bonedrought"] and not (air and BONEDROUGHT_SPARES_AIR):
        hitpoints -= 1
    if space["gas"] > 0 and not air:
        hitpoints -= 1
    return max(hitpoints, 1)


def targeted_attack(rng: random.Random, attackers: list[dict], target: dict, space: dict) -> tuple[dict, dict]:
    """Outcomes and the new state of one attack (no bypassed unit)."""
    shots = []
    for attacker in attackers:
        kind = UNIT_TYPES[attacker["type"]]
        shots += [kind["damage"]] * (attacker["figures"] * kind["shots"])
    kind, tile = UNIT_TYPES[target["type"]], TILE_TYPES[space["tile"]]
    # Bodies: [hitpoints, damage, owner, tag]
    bodies = [[vulnerable(kind["hitpoints"], space, kind["air"]), 0, "target", ""] for _ in range(target["figures"])]
    if not kind["air"]:
        if space["stacks"] > 0:
            tag = "powered" if space["power"] > 0 else "unpowered"
            bodies.append([vulnerable(tile["hitpoints"], space, False), 0, "space", tag])
        if tile["trenches"] and not kind["mechanical"]:
            bodies += [[vulnerable(1, space, False), 0, "space", "trenches"] for _ in range(3)]
    for damage in shots:
        living = [b for b in bodies if b[1] < b[0]]
        body = living[rng.randrange(len(living))] if living else bodies[rng.randrange(len(bodies))]
        body[1] = min(body[0], body[1] + damage)

    outcomes = {"figures_lost": 0, "air_figures_lost": 0, "bypassed_figures_lost": 0, "stacks_lost": 0,
                "power_lost": 0, "units_killed": 0, "tile_destroyed": False}
    target, space = dict(target), dict(space)
    lost = sum(1 for b in bodies if b[2] == "target" and b[1] >= b[0])
    outcomes["figures_lost"] = lost
    target["figures"] -= lost
    if lost > 0 and target["figures"] == 0:
        outcomes["units_killed"] += 1
        if kind["leaks_gas"]:
            space["gas"] = max(space["gas"], GAS_FROM_DESTRUCTION)
    power = sum(1 for b in bodies if b[2] == "space" and b[3] == "powered" and b[1] >= b[0])
    stacks = power + sum(1 for b in bodies if b[2] == "space" and b[3] == "unpowered" and b[1] >= b[0])
    space["stacks"] -= stacks
    space["power"] -= power
    outcomes["stacks_lost"] += stacks
    outcomes["power_lost"] += power
    if space["stacks"] == 0 and tile["becomes"] is not None and (outcomes["stacks_lost"] > 0 or BARE_TILES_ARE_DESTROYED):
        if tile["leaks_gas"]:
            space["gas"] = max(space["gas"], GAS_FROM_DESTRUCTION)
        space["tile"], space["power"] = tile["becomes"], 0
        outcomes["tile_destroyed"] = True
    return outcomes, {"attackers": attackers, "target": target, "space": space}


def by_hand(rng: random.Random) -> tuple[dict, dict]:
    """3 Gunners at a Rifleman in a full City under Bonedrought, as the scenario file sets them."""
    attackers = [{"type": "gunner", "figures": 3} for _ in range(3)]
    target = {"type": "rifleman", "figures": 3}
    space = {"tile": "city", "stacks": 5, "power": 5, "bonedrought": True, "gas": 0}
    return targeted_attack(rng, attackers, target, space)


def test_the_hand_written_attack_agrees_with_the_rules_file():
    """The baseline is only fair if it is the same rules: its mean losses match the exact ones."""
    rules = dsl.load(ROOT / "rules" / "epicinium.rules")
    scenario = load_scenario(ROOT / "rules" / "scenarios" / "epicinium-gunners-vs-riflemen.toml")
    odds = exact(rules, scenario)
    rng = random.Random(7)
    runs = [by_hand(rng)[0] for _ in range(20_000)]
    for name in ("figures_lost", "stacks_lost", "units_killed"):
        marginal = odds.marginal(name)
        mean = sum(Fraction(value) * p for value, p in marginal.items())
        sampled = sum(run[name] for run in runs) / len(runs)
        spread = max(float(sum((value - mean) ** 2 * p for value, p in marginal.items())) ** 0.5, 1e-9)
        assert abs(sampled - float(mean)) <= 5 * spread / len(runs) ** 0.5, name


def test_sampled_attack_against_hand_written_python():
    rules = dsl.load(ROOT / "rules" / "epicinium.rules")
    scenario = load_scenario(ROOT / "rules" / "scenarios" / "epicinium-gunners-vs-riflemen.toml")
    prepared = prepare(rules, scenario)
    seeds = iter(range(10**9))
    # Outcomes and new state only, as a game resolving its attacks wants them.
    fracas = best_time(lambda: sample(rules, scenario, seed=next(seeds), prepared=prepared, events=False),
                       repeat=3, number=RUNS // 4)
    logged = best_time(lambda: sample(rules, scenario, seed=next(seeds), prepared=prepared), repeat=3, number=RUNS // 4)
    rng = random.Random(1)
    baseline = best_time(lambda: by_hand(rng), repeat=3, number=RUNS)
    verdict("sampled-attack", fracas / baseline, 1.5,
            f"fracas {fracas * 1e6:.0f} us per run ({logged * 1e6:.0f} us with its event log), "
            f"by hand {baseline * 1e6:.1f} us per run")
