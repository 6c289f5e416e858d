"""make fuzz: a long fuzzing run over rules mutations and random scenarios.

    python tests/fuzz_long.py [COUNT] [SEED]

Prints how many inputs it tried (every thousand, with the time left) and exits
1 on the first uncaught exception (a failed check among them). Every tenth input
is retuned rules whose examples must get the same exact odds with the engine's
shortcuts as without them, and whose sampled runs must end where those odds
say they may. An input takes about 80 ms of one core, so the default 100,000
take about 2 hours.
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fracas import dsl  # noqa: E402
from fuzzing import (RULES_FILES, mutate, random_scenario, retune, retuned_examples_agree,  # noqa: E402
                     rules_loads_or_diagnoses, scenario_runs_or_diagnoses)


def main() -> int:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    texts = [path.read_text() for path in RULES_FILES]
    loaded = [dsl.load(path) for path in RULES_FILES]
    started = time.monotonic()
    for tried in range(1, count + 1):
        try:
            if tried % 10 == 0:
                # Rules retuned (a few numbers changed): a few examples must agree as fuzzing.examples_agree asks.
                at = rng.randrange(len(texts))
                retuned_examples_agree(retune(texts[at], rng, rng.randint(1, 3)), RULES_FILES[at], rng)
            elif tried % 2:
                # Every tenth mutation that still loads also runs its examples.
                rules_loads_or_diagnoses(mutate(rng.choice(texts), rng, rng.randint(1, 4)), run=tried % 20 == 1)
            else:
                rules = rng.choice(loaded)
                scenario_runs_or_diagnoses(rules, random_scenario(rng, rules))
        except Exception:
            traceback.print_exc()
            print(f"fuzz: uncaught exception on input {tried}", file=sys.stderr)
            return 1
        if tried % 1000 == 0:
            spent = time.monotonic() - started
            left = spent / tried * (count - tried)
            print(f"fuzz: {tried} of {count} inputs, {_duration(spent)}, about {_duration(left)} left",
                  file=sys.stderr)
    print(f"fuzz: {count} inputs tried, no uncaught exception ({_duration(time.monotonic() - started)})")
    return 0


def in_own_cache_folder() -> int:
    """main(), with a cache folder of its own: the mutants that load would push the user's kept rules out."""
    with tempfile.TemporaryDirectory(prefix="fracas-fuzz-") as folder:
        os.environ["XDG_CACHE_HOME"] = folder
        return main()


def _duration(seconds: float) -> str:
    minutes = round(seconds / 60)
    if minutes < 2:
        return f"{seconds:.0f} s"
    return f"{minutes // 60} h {minutes % 60} min" if minutes >= 60 else f"{minutes} min"


if __name__ == "__main__":
    sys.exit(in_own_cache_folder())
