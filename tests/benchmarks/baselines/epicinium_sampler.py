"""A minimal sampler of an Epicinium targeted attack by hand: shots, bodies, and what was lost.

Only what decides the outcome: each shot hits a living body chosen uniformly,
and the sampler stops once every body is dead (later shots change nothing).
No modifiers, no new state: the hitpoints are given already weakened. Run as
a script, it samples the attack of rules/scenarios/epicinium-gunners-vs-riflemen.toml
and prints the distribution of each outcome, as `fracas odds --samples` does:

    python tests/benchmarks/baselines/epicinium_sampler.py SAMPLES [SEED]
"""

from __future__ import annotations

import random
import sys


def minimal_attack(rng: random.Random, shots: list[int], figures: list[int], buildings: list[int]) -> tuple[int, int]:
    """Figures and buildings lost when `shots` (their damages, in order) fire at the bodies of those hitpoints."""
    left = figures + buildings  # hitpoints left of each body
    living = list(range(len(left)))
    randrange = rng.randrange
    for damage in shots:
        if not living:
            break  # every body is dead: the shots left hit nothing that can change
        k = randrange(len(living))
        i = living[k]
        left[i] -= damage
        if left[i] <= 0:
            living[k] = living[-1]  # which living body sits where does not matter to a uniform pick
            living.pop()
    lost = sum(1 for hp in left[:len(figures)] if hp <= 0)
    return lost, sum(1 for hp in left[len(figures):] if hp <= 0)


def gunners_at_riflemen(rng: random.Random) -> tuple[int, int]:
    """3 full Gunner squads (27 shots of 1) at a Rifleman squad in a City under Bonedrought (every body 1 hitpoint)."""
    return minimal_attack(rng, [1] * 27, [1, 1, 1], [1])


def summary(runs: int, seed: int) -> str:
    rng = random.Random(seed)
    counts: dict[str, dict[int, int]] = {"figures_lost": {}, "stacks_lost": {}}
    for _ in range(runs):
        for name, value in zip(counts, gunners_at_riflemen(rng)):
            counts[name][value] = counts[name].get(value, 0) + 1
    lines = [f"targeted_attack (estimated from {runs} samples, by hand)"]
    for name, found in counts.items():
        mean = sum(value * count for value, count in found.items()) / runs
        shares = ", ".join(f"{value}: {100 * count / runs:.1f}%" for value, count in sorted(found.items()))
        lines.append(f"{name}: {shares}; mean {mean:.3f}")
    return "\n".join(lines)


if __name__ == "__main__":
    print(summary(int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 0))
