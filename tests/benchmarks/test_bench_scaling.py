"""How exact and sampled time grow with the attack: more attackers, figures and bodies."""

from __future__ import annotations

import time
from pathlib import Path

import dsl
from interpreter import Scenario, exact, prepare, sample
from interpreter.runtime import chance

ROOT = Path(__file__).resolve().parents[2]


def test_scaling_of_a_targeted_attack():
    rules = dsl.load(ROOT / "rules" / "epicinium.rules")
    print("\n  squads  shots  bodies  exact states   exact ms   sampled us/run")
    largest_in_a_second = None
    for squads in (1, 2, 4, 6, 8, 12, 16):
        # Rifleman squads (3 shots each) at a Gunner unit of 2-hitpoint figures in a City:
        # the outcome stays uncertain as the attack grows.
        scenario = Scenario("targeted_attack", {
            "attackers": [{"type": "rifleman"}] * squads,
            "target": {"type": "gunner", "figures": 2 * squads + 2},
            "space": {"tile": "city"},
        })
        chance.clear_caches()
        start = time.perf_counter()
        dist = exact(rules, scenario)
        exact_ms = (time.perf_counter() - start) * 1e3
        prepared = prepare(rules, scenario)
        start = time.perf_counter()
        for seed in range(200):
            sample(rules, scenario, seed=seed, prepared=prepared, events=False)
        sampled_us = (time.perf_counter() - start) / 200 * 1e6
        shots, bodies = 3 * squads, 2 * squads + 2 + 1
        print(f"  {squads:6}  {shots:5}  {bodies:6}  {len(dist.states):12}  {exact_ms:9.1f}  {sampled_us:15.0f}")
        if exact_ms < 1000:
            largest_in_a_second = (shots, bodies)
    print(f"  largest attack computed exactly within a second here: {largest_in_a_second[0]} shots "
          f"at {largest_in_a_second[1]} bodies")
