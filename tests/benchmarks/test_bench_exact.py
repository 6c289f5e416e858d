"""The exact distribution of an attack, against sampling it to within half a percentage point."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import dsl
from bench import best_time, verdict
from interpreter import exact, load_scenario, prepare, sample
from interpreter.runtime import chance

ROOT = Path(__file__).resolve().parents[2]
# Runs for a 95% interval of +-0.5 percentage points at the worst case p = 1/2.
RUNS_FOR_HALF_A_POINT = round(1.96**2 * 0.25 / 0.005**2)


def fresh_exact(rules, scenario):
    chance.clear_caches()  # measure the work, not the memo
    return exact(rules, scenario)


def test_exact_against_sampling_to_half_a_point():
    rules = dsl.load(ROOT / "rules" / "epicinium.rules")
    scenario = load_scenario(ROOT / "rules" / "scenarios" / "epicinium-gunners-vs-riflemen.toml")
    exact_time = best_time(lambda: fresh_exact(rules, scenario), repeat=5)
    prepared = prepare(rules, scenario)
    seeds = iter(range(10**9))
    per_run = best_time(lambda: sample(rules, scenario, seed=next(seeds), prepared=prepared, events=False),
                        repeat=3, number=300)
    sampling_time = per_run * RUNS_FOR_HALF_A_POINT
    # The verdict's ratio is exact time over sampling time: the target asks exact to be 10x faster.
    verdict("exact-vs-sampling", exact_time / sampling_time, 0.1,
            f"exact {exact_time * 1e3:.1f} ms; sampling {RUNS_FOR_HALF_A_POINT} runs ~{sampling_time:.1f} s "
            f"({per_run * 1e6:.0f} us per run)")


def test_peak_memory_of_the_largest_exact_case():
    rules = dsl.load(ROOT / "rules" / "exalted-war.rules")
    scenario = load_scenario(ROOT / "rules" / "scenarios" / "exalted-commander-attack.toml")
    tracemalloc.start()
    dist = exact(rules, scenario)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"\n  largest exact case (Exalted commander attack with a counterattack): {len(dist.states)} final states, "
          f"peak memory {peak / 2**20:.1f} MiB")
    assert dist.states
