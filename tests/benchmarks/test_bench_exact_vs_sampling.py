"""Exact odds against sampling them to +-0.5 percentage points at 95%, on every shipped scenario whose outcome is random.

Exact: the first call in a fresh process, its disk caches warm from an
untimed run (as .pyc files are); the fastest of three such processes, as the
exact cases against their baselines are timed (one process's few milliseconds
are at the mercy of the machine's noise). Sampling: the runs that the outcome
value hardest to pin down (p(1 - p) largest) needs for a 95% interval of +-0.5
points, 1.96^2 p(1 - p) / 0.005^2 of them, at the time one run takes when
sampled as `fracas odds --samples N --jobs 1` samples (outcomes counted, runs
remembered by the values they drew), measured over up to 20,000 runs in the
same process as the fastest exact call. A scenario whose every outcome is
certain says so and is skipped: sampling it needs no runs.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from bench import ROOT, fastest_fresh, in_fresh_process, missed, seconds, verdict

TARGET = 0.01  # exact at least 100 times faster than sampling
LIMIT = 120  # seconds for one scenario
HALF_WIDTH = 0.005
Z_95 = 1.96

SCENARIOS = sorted((ROOT / "rules" / "scenarios").glob("*.toml"))


def rules_of(scenario: Path) -> Path:
    """A shipped scenario belongs to the rules file named by its first word: weewar.rules, else exalted-war.rules."""
    system = scenario.stem.split("-")[0]
    exactly = ROOT / "rules" / f"{system}.rules"
    if exactly.exists():
        return exactly
    [only] = (ROOT / "rules").glob(f"{system}-*.rules")
    return only


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.stem for s in SCENARIOS])
def test_exact_against_sampling_to_half_a_point(scenario):
    name = f"exact-vs-sampling-{scenario.stem}"
    files = [str(rules_of(scenario).relative_to(ROOT)), str(scenario.relative_to(ROOT))]
    in_fresh_process(["warm", *files], LIMIT)  # as .pyc files are: a clone's first run fills the caches
    found = fastest_fresh(["sampling", *files], LIMIT)
    if "error" in found:
        missed(name, TARGET, found["error"])
        return
    if found["worst_variance"] == 0:
        pytest.skip(f"{scenario.stem}: every outcome is certain; sampling needs no runs")
    runs = math.ceil(Z_95**2 * found["worst_variance"] / HALF_WIDTH**2)
    sampling = runs * found["seconds_per_run"]
    verdict(name, found["seconds"] / sampling, TARGET,
            f"{scenario.stem}: exact {seconds(found['seconds'])} (peak RSS {found['rss_mib']:.0f} MiB); sampling "
            f"{runs} runs for {found['worst']} ~{seconds(sampling)} ({seconds(found['seconds_per_run'])} a run)")
