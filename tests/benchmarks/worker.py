"""One measurement in a fresh process, printed as a line of JSON: the benchmarks run this with a timeout.

    python worker.py baseline FAMILY SIZE    the hand-written calculation, first call
    python worker.py fracas FAMILY SIZE      fracas's exact odds of the same case, first call, checked equal
    python worker.py sampling RULES SCENARIO exact odds of a shipped scenario, and the time of one sampled run

Times are of the first call in the process: neither side gains from a memo of
an earlier call. Peak memory is the process's peak resident set size.
"""

from __future__ import annotations

import json
import resource
import sys
import time

from baselines.cases import FAMILIES, ROOT, Case, project

MEMORY_LIMIT = 4 * 2**30  # bytes of address space: a runaway case fails instead of swapping
SAMPLING_SECONDS = 1.0  # measured runs of sampling take about this long
SAMPLING_MOST_RUNS = 20_000


def peak_rss_mib() -> float:
    # Linux's ru_maxrss carries the parent's size over fork and exec (pytest's,
    # here); VmHWM is this program's own peak.
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def baseline(case: Case) -> dict:
    start = time.perf_counter()
    case.baseline()
    return {"seconds": time.perf_counter() - start, "rss_mib": peak_rss_mib()}


def fracas(case: Case) -> dict:
    from fracas import dsl
    from fracas.interpreter import Scenario, exact

    rules = dsl.loads(case.rules_text) if case.rules_text is not None else dsl.load(ROOT / case.rules_file)
    scenario = Scenario(case.action, case.inputs, params=case.params, choices=case.choices)
    start = time.perf_counter()
    odds = exact(rules, scenario, outcomes_only=True)
    joint = odds.joint()
    seconds = time.perf_counter() - start
    found = {"seconds": seconds, "rss_mib": peak_rss_mib(), "states": len(odds.states)}
    mine, theirs = project(joint, case.outcomes), case.baseline()
    found["agrees"] = mine == theirs
    if mine != theirs:
        differ = sorted((key for key in set(mine) | set(theirs) if mine.get(key) != theirs.get(key)), key=repr)
        found["difference"] = [f"{key}: fracas {mine.get(key)}, baseline {theirs.get(key)}" for key in differ[:3]]
    return found


def warm(rules_file: str, scenario_file: str) -> dict:
    """One untimed exact run, so that the disk caches (trees, checked rules, compiled code) hold these files."""
    from fracas import dsl
    from fracas.interpreter import exact, load_scenario

    exact(dsl.load(ROOT / rules_file), load_scenario(ROOT / scenario_file), outcomes_only=True).joint()
    return {}


def sampling(rules_file: str, scenario_file: str) -> dict:
    from fracas import dsl
    from fracas.interpreter import estimate, exact, load_scenario

    rules = dsl.load(ROOT / rules_file)
    scenario = load_scenario(ROOT / scenario_file)
    start = time.perf_counter()
    odds = exact(rules, scenario, outcomes_only=True)
    odds.joint()
    exact_seconds = time.perf_counter() - start
    # The outcome value whose frequency needs the most runs to pin down: p(1 - p) largest.
    worst = max(((p * (1 - p), name, value) for name in odds.outcome_names
                 for value, p in odds.marginal(name).items()), key=lambda found: found[0])
    found = {"seconds": exact_seconds, "rss_mib": peak_rss_mib(), "worst_variance": float(worst[0]),
             "worst": f"{worst[1]} = {worst[2]!r}"}
    if worst[0] == 0:
        return found
    # Sampled as `fracas odds --samples N --jobs 1` samples, counting outcomes only; a first, short estimate
    # finds how many runs fit in about SAMPLING_SECONDS.
    start = time.perf_counter()
    estimate(rules, scenario, 100, seed=2, outcomes_only=True)
    runs = max(100, min(SAMPLING_MOST_RUNS, int(100 * SAMPLING_SECONDS / (time.perf_counter() - start))))
    start = time.perf_counter()
    estimate(rules, scenario, runs, seed=1, outcomes_only=True)
    found["seconds_per_run"] = (time.perf_counter() - start) / runs
    return found


def main(argv: list[str]) -> dict:
    mode = argv[0]
    if mode == "warm":
        return warm(argv[1], argv[2])
    if mode == "sampling":
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
        return sampling(argv[1], argv[2])
    case = FAMILIES[argv[1]](int(argv[2]))
    if mode == "baseline":
        return baseline(case)
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    return fracas(case)


if __name__ == "__main__":
    try:
        result = main(sys.argv[1:])
    except MemoryError:
        result = {"error": f"over the {MEMORY_LIMIT // 2**30} GiB memory limit"}
    except Exception as error:  # a state limit or a bug: the benchmark reports it, it does not hang
        result = {"error": f"{type(error).__name__}: {error}"}
    print(json.dumps(result))
