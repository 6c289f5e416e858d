"""make fuzz: a long fuzzing run over rules mutations and random scenarios.

    python tests/fuzz_long.py [COUNT] [SEED]

Prints how many inputs it tried and exits 1 on the first uncaught exception.
"""

from __future__ import annotations

import random
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import dsl  # noqa: E402
from fuzzing import RULES_FILES, mutate, random_scenario, rules_loads_or_diagnoses, scenario_runs_or_diagnoses  # noqa: E402


def main() -> int:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    texts = [path.read_text() for path in RULES_FILES]
    loaded = [dsl.load(path) for path in RULES_FILES]
    started = time.monotonic()
    for tried in range(1, count + 1):
        try:
            if tried % 2:
                # Every tenth mutation that still loads also runs its examples.
                rules_loads_or_diagnoses(mutate(rng.choice(texts), rng, rng.randint(1, 4)), run=tried % 20 == 1)
            else:
                rules = rng.choice(loaded)
                scenario_runs_or_diagnoses(rules, random_scenario(rng, rules))
        except Exception:
            traceback.print_exc()
            print(f"fuzz: uncaught exception on input {tried}", file=sys.stderr)
            return 1
        if tried % 5000 == 0:
            print(f"fuzz: {tried} inputs, {time.monotonic() - started:.0f} s", file=sys.stderr)
    print(f"fuzz: {count} inputs tried, no uncaught exception ({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
