"""fracas's exact odds against the same rules calculated by hand in plain Python.

Each side runs in a fresh process and is timed on its first call, so neither
gains from a memo, the fastest of three runs each, the two sides taking turns
(a slow stretch of the machine's minutes falls on both); fracas's odds are
checked equal to the baseline's. A case that runs past LIMIT seconds (or the
memory limit) is MISSED with the reason, and the larger cases of its family
are not run.
"""

from __future__ import annotations

import pytest

from baselines.cases import FAMILIES
from bench import fastest_fresh, fastest_in_turn, missed, seconds, verdict

TARGET = 2  # fracas at most twice the time of the hand-written calculation
LIMIT = 60  # seconds for one side of one case

CASES = ([("exalted", dice) for dice in (10, 15, 20, 30)]
         + [("weewar", health) for health in (10, 40, 160)]
         + [("epicinium", squads) for squads in range(1, 9)]
         + [("four-10d6", 4)]
         + [("duel", health) for health in (10, 20, 30)])

_beyond_reach: dict[str, str] = {}  # family -> why its larger cases are not run


@pytest.mark.parametrize("family, size", CASES, ids=[f"{family}-{size}" for family, size in CASES])
def test_exact_odds_against_the_hand_written_baseline(family, size):
    case = FAMILIES[family](size)
    if family in _beyond_reach:
        by_hand = fastest_fresh(["baseline", family, str(size)], LIMIT)
        assert "error" not in by_hand, by_hand["error"]
        missed(case.name, TARGET, f"not run: {_beyond_reach[family]}",
               detail=f"{case.title}: by hand {seconds(by_hand['seconds'])} (peak RSS {by_hand['rss_mib']:.0f} MiB)")
        return
    by_hand, mine = fastest_in_turn([["baseline", family, str(size)], ["fracas", family, str(size)]], LIMIT)
    assert "error" not in by_hand, by_hand["error"]
    baseline = f"by hand {seconds(by_hand['seconds'])} (peak RSS {by_hand['rss_mib']:.0f} MiB)"
    if "error" in mine:
        _beyond_reach[family] = f"{case.name} already failed ({mine['error']})"
        at_least = LIMIT / by_hand["seconds"] if mine.get("timed_out") else None
        missed(case.name, TARGET, mine["error"], at_least, detail=f"{case.title}: {baseline}")
        return
    detail = (f"{case.title}: fracas {seconds(mine['seconds'])} ({mine['states']} final states, "
              f"peak RSS {mine['rss_mib']:.0f} MiB), {baseline}")
    if not mine["agrees"]:
        missed(case.name, TARGET, "fracas's odds differ from the baseline's", detail=detail)
        pytest.fail(f"{case.name}: " + "; ".join(mine["difference"]))
    verdict(case.name, mine["seconds"] / by_hand["seconds"], TARGET, detail)
