"""Dice operations end to end, against icepool: each from nothing to a distribution, in a fresh process.

fracas from rules text (parse, check, exact odds); icepool from its import to
the die's probabilities. Fresh processes for both, as icepool keeps what it
computed in memory; each side's disk caches (.pyc files, fracas's parse
cache) are warm from an untimed run that also checks its answer against the
hand-written baseline.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from fractions import Fraction

import pytest

from baselines import dice
from baselines.cases import dice_rules
from bench import ROOT, missed, seconds, verdict
from fracas.dsl.builtins import SIGNATURES

icepool = pytest.importorskip("icepool")

TARGET = 1  # fracas no slower than icepool
REPEAT = 5

FRACAS = """from fracas import dsl
from fracas.interpreter import Scenario, exact
odds = exact(dsl.loads({text!r}), Scenario("throw", {{}})).marginal("total")
"""
ICEPOOL = """import icepool
die = {expression}
odds = dict(zip(die.outcomes(), die.probabilities()))
"""
SHOW = "\nimport json; print(json.dumps({str(value): str(p) for value, p in odds.items()}))\n"

DICE = [
    ("dice-10d6-keep-3", "keep_highest(10, 6, 3)", "icepool.d6.highest(10, 3)", lambda: dice.keep_highest(10, 6, 3)),
    ("dice-4d6-drop-lowest", "keep_highest(4, 6, 3)", "icepool.d6.highest(4, 3)", lambda: dice.keep_highest(4, 6, 3)),
    ("dice-2d20-keep-highest", "keep_highest(2, 20, 1)", "icepool.d20.highest(2)", lambda: dice.keep_highest(2, 20, 1)),
    ("dice-exploding-d6", "explode(1, 6, 9)", "icepool.d6.explode(depth=9)", lambda: dice.explode(6, 9)),
    ("dice-20d10-doubles", "successes(20, 10, at_least: 7, double_at: 10)",
     "20 @ icepool.d10.map(lambda face: 2 if face >= 10 else 1 if face >= 7 else 0)",
     lambda: dice.successes(20, 10, 7, 10)),
    ("dice-20d10-damage-roll", "successes(20, 10, at_least: 7)",
     "20 @ icepool.d10.map(lambda face: 1 if face >= 7 else 0)", lambda: dice.successes(20, 10, 7, None)),
]


def run(code: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True,
                          timeout=120)


def fastest(code: str, env: dict[str, str]) -> float:
    best = float("inf")
    for _ in range(REPEAT):
        start = time.perf_counter()
        run(code, env)
        best = min(best, time.perf_counter() - start)
    return best


def answer(code: str, env: dict[str, str]) -> dict[tuple, Fraction]:
    shown = json.loads(run(code + SHOW, env).stdout.strip().splitlines()[-1])
    return {(int(value),): Fraction(p) for value, p in shown.items()}


@pytest.mark.parametrize("name, expression, theirs, by_hand", DICE, ids=[d[0] for d in DICE])
def test_dice_end_to_end_against_icepool(name, expression, theirs, by_hand, tmp_path):
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    other_code = ICEPOOL.format(expression=theirs)
    assert answer(other_code, env) == by_hand()
    other = fastest(other_code, env)
    builtin = expression.split("(")[0]
    if builtin not in SIGNATURES:
        reason = f"fracas has no {builtin}() builtin yet"
        missed(name, TARGET, f"not run: {reason}", detail=f"{expression}: icepool {seconds(other)}")
        pytest.skip(reason)
    code = FRACAS.format(text=dice_rules(expression))
    assert answer(code, env) == by_hand(), f"fracas's {expression} differs from the baseline"
    mine = fastest(code, env)
    python = fastest("pass", env)
    verdict(name, mine / other, TARGET, f"{expression}: fracas {seconds(mine)}, icepool {seconds(other)}, "
                                        f"each a fresh process (python -c pass: {seconds(python)})")
