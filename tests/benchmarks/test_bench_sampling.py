"""A sampled Epicinium attack through the API, against the same rules written by hand.

Two baselines, each checked to give fracas's exact outcome distribution within
sampling error: the whole attack by hand (modifiers, outcomes, the new state;
it fires every shot), and the minimal sampler of baselines/epicinium_sampler.py
(shots, bodies and what was lost, stopping once every body is dead).
"""

from __future__ import annotations

import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from baselines.epicinium_sampler import gunners_at_riflemen, minimal_attack
from bench import best_time, seconds, verdict
from fracas import dsl
from fracas.interpreter import Scenario, exact, load_scenario, prepare, sample

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


def two_gunner_figures_by_hand(rng: random.Random) -> tuple[dict, dict]:
    """6 shots at a Rifleman squad in a full City: figures and the building may live or die."""
    target = {"type": "rifleman", "figures": 3}
    space = {"tile": "city", "stacks": 5, "power": 5, "bonedrought": False, "gas": 0}
    return targeted_attack(rng, [{"type": "gunner", "figures": 2}], target, space)


def minimal_outcomes(attack):
    def run(rng: random.Random) -> dict:
        lost, stacks = attack(rng)
        return {"figures_lost": lost, "stacks_lost": stacks}
    return run


BENCHMARK = ROOT / "rules" / "scenarios" / "epicinium-gunners-vs-riflemen.toml"
# The benchmark's attack kills every body whatever the dice: the baselines are also checked on one that
# does not, so that agreeing with the exact odds means agreeing on chance.
RANDOM = Scenario("targeted_attack", {"attackers": [{"type": "gunner", "figures": 2}], "target": {"type": "rifleman"},
                                      "space": {"tile": "city"}})
BASELINES = {
    "whole-benchmark": (BENCHMARK, lambda rng: by_hand(rng)[0]),
    "whole-random": (RANDOM, lambda rng: two_gunner_figures_by_hand(rng)[0]),
    "minimal-benchmark": (BENCHMARK, minimal_outcomes(gunners_at_riflemen)),
    "minimal-random": (RANDOM, minimal_outcomes(lambda rng: minimal_attack(rng, [1] * 6, [2, 2, 2], [2]))),
}


@pytest.mark.parametrize("name", BASELINES)
def test_the_hand_written_attack_agrees_with_the_rules_file(name):
    """A baseline is only fair if it is the same rules: each outcome value as often as the exact odds say."""
    scenario, attack = BASELINES[name]
    rules = dsl.load(ROOT / "rules" / "epicinium.rules")
    odds = exact(rules, load_scenario(scenario) if isinstance(scenario, Path) else scenario)
    rng = random.Random(7)
    runs = [attack(rng) for _ in range(20_000)]
    for outcome in runs[0]:
        found: dict = {}
        for run in runs:
            found[run[outcome]] = found.get(run[outcome], 0) + 1
        marginal = odds.marginal(outcome)
        assert set(found) <= set(marginal), outcome
        for value, p in marginal.items():
            spread = max(float(p * (1 - p)) ** 0.5, 1e-9)
            assert abs(found.get(value, 0) / len(runs) - float(p)) <= 5 * spread / len(runs) ** 0.5, (outcome, value)


def test_sampled_attack_against_hand_written_python():
    rules = dsl.load(ROOT / "rules" / "epicinium.rules")
    scenario = load_scenario(BENCHMARK)
    prepared = prepare(rules, scenario)
    seeds = iter(range(10**9))
    # Outcomes and new state only, as a game resolving its attacks wants them, drawing from one generator
    # kept from run to run as the hand-written samplers do (a new one seeded per run costs some 4 us more).
    # Many short timings, the best kept: on a shared machine, the one least disturbed by other work.
    kept = random.Random(1)
    fracas = best_time(lambda: sample(rules, scenario, prepared=prepared, events=False, rng=kept),
                       repeat=10, number=RUNS // 8)
    seeded = best_time(lambda: sample(rules, scenario, seed=next(seeds), prepared=prepared, events=False),
                       repeat=10, number=RUNS // 8)
    logged = best_time(lambda: sample(rules, scenario, seed=next(seeds), prepared=prepared), repeat=10,
                       number=RUNS // 8)
    rng = random.Random(1)
    whole = best_time(lambda: by_hand(rng), repeat=10, number=RUNS // 2)
    minimal = best_time(lambda: gunners_at_riflemen(rng), repeat=10, number=RUNS * 5)
    verdict("sampled-attack", fracas / whole, 1.5,
            f"fracas {fracas * 1e6:.1f} us per run ({seeded * 1e6:.1f} us with a generator seeded per run), "
            f"the whole attack by hand {whole * 1e6:.1f} us per run (firing every shot)")
    verdict("sampled-attack-minimal", fracas / minimal, 3,
            f"fracas {fracas * 1e6:.1f} us per run, the minimal sampler by hand {minimal * 1e6:.2f} us per run")
    # The benchmark's attack ends one way whatever the dice, which a run remembered by the values it drew
    # (core.resolve._Remembered) makes a look-up: the same measure on an attack that ends many ways.
    prepared_random = prepare(rules, RANDOM)
    fracas_random = best_time(lambda: sample(rules, RANDOM, prepared=prepared_random, events=False, rng=kept),
                              repeat=10, number=RUNS // 8)
    minimal_random = best_time(lambda: BASELINES["minimal-random"][1](rng), repeat=10, number=RUNS * 2)
    verdict("sampled-attack-random-minimal", fracas_random / minimal_random, 3,
            f"fracas {fracas_random * 1e6:.1f} us per run, the minimal sampler by hand {minimal_random * 1e6:.2f} us "
            "per run, 6 shots at 4 bodies of 2 hitpoints (figures and the building may live or die)")
    # The issue names no target for the event log. Ours, 5: on top of the attack, the log writes some 40
    # entries (bodies, every shot, modifiers, steps, changes), each a line of text with its rule line
    # and its data; a hand-written log of that much costs about as much again as the attack by hand.
    verdict("sampled-attack-events", logged / whole, 5,
            f"fracas {logged * 1e6:.0f} us per run with its event log, the whole attack by hand {whole * 1e6:.1f} us")


SAMPLES = 100_000


def test_odds_by_sampling_as_a_process_against_the_hand_sampler():
    """`fracas odds --samples 100000` on one core, against the minimal sampler run as many times, each a process."""
    fracas = [str(Path(sys.executable).with_name("fracas")), "odds", "rules/epicinium.rules",
              str(BENCHMARK.relative_to(ROOT)), "--samples", str(SAMPLES), "--seed", "1", "--jobs", "1"]
    hand = [sys.executable, "tests/benchmarks/baselines/epicinium_sampler.py", str(SAMPLES), "1"]
    # fracas's disk caches (the checked rules, their code and programs, kept for this checkout) warm from
    # an untimed short run, as the other end-to-end benchmarks warm theirs: the timed run is not the first.
    process_time(fracas[:fracas.index("--samples") + 1] + ["1000"] + fracas[fracas.index("--samples") + 2:], repeat=1)
    ours = process_time(fracas, repeat=1)
    baseline = process_time(hand, repeat=3)
    verdict("odds-samples-process", ours / baseline, 3,
            f"fracas odds --samples {SAMPLES} --jobs 1: {seconds(ours)}, the minimal sampler by hand: {seconds(baseline)}")


def process_time(args: list[str], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        done = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, check=True)
        best = min(best, time.perf_counter() - start)
        assert "samples" in done.stdout
    return best
