"""A sampled Epicinium attack through the API, against the same rules written by hand."""

from __future__ import annotations

import random
from pathlib import Path

import dsl
from bench import best_time, verdict
from interpreter import load_scenario, prepare, sample

ROOT = Path(__file__).resolve().parents[2]
RUNS = 2000


def by_hand(rng: random.Random) -> tuple[int, int]:
    """3 Gunners (27 shots of 1) at a Rifleman in a City under Bonedrought, in plain Python."""
    hp = max(1, 2 - 1)  # a rifleman figure's 2 hitpoints, less 1 for Bonedrought
    bodies = [[hp, 0, "target"] for _ in range(3)] + [[max(1, 2 - 1), 0, "powered"]]
    for _ in range(3 * 3 * 3):
        living = [b for b in bodies if b[1] < b[0]]
        body = living[rng.randrange(len(living))] if living else bodies[rng.randrange(len(bodies))]
        body[1] = min(body[0], body[1] + 1)
    figures_lost = sum(1 for b in bodies if b[2] == "target" and b[1] >= b[0])
    stacks_lost = sum(1 for b in bodies if b[2] == "powered" and b[1] >= b[0])
    return figures_lost, stacks_lost


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
