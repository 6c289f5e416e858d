"""Dice operations against icepool: the first exact distribution in a fresh process, end to end.

Each side runs in its own new interpreter, imports its library, and computes
one distribution as exact fractions; the verdict compares the computations
(the first call: no memo of either side helps), and the line before it gives
the import times too.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bench import verdict

pytest.importorskip("icepool")

CASES = {
    # name: (fracas primitive, icepool expression)
    "10d6 keep 3": ("Keep(10, 6, 3)", "d(6).pool(10).highest(3).sum()"),
    "4d6 drop lowest": ("Keep(4, 6, 3)", "d(6).pool(4).highest(3).sum()"),
    "2d20 keep highest": ("Keep(2, 20, 1)", "d(20).pool(2).highest(1).sum()"),
    "100d10 keep 10": ("Keep(100, 10, 10)", "d(10).pool(100).highest(10).sum()"),
    "10d6 exploding 3 times": ("DiceSum(10, Exploding(6, 3))", "10 @ d(6).explode(depth=3)"),
    "10d6 reroll 1 once": ("DiceSum(10, Rerolled(6, (1,), True))", "10 @ d(6).reroll([1], depth=1)"),
    "4 Fudge dice": ("DiceSum(4, Faces((-1, 0, 1)))", "4 @ Die([-1, 0, 1])"),
}

CHILD = """
import json, sys, time
start = time.perf_counter()
{imports}
imported = time.perf_counter()
result = {compute}
done = time.perf_counter()
print(json.dumps({{"import": imported - start, "first": done - imported, "outcomes": len(result)}}))
"""

OURS = ("from fracas.interpreter.runtime.dice import DiceSum, Exploding, Faces, Keep, Rerolled", "({}).distribution()")
THEIRS = ("from icepool import d, Die", "dict(zip(({0}).outcomes(), ({0}).probabilities()))")


def fresh(imports: str, compute: str) -> dict:
    code = CHILD.format(imports=imports, compute=compute)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def best_of(runs: int, imports: str, compute: str) -> dict:
    results = [fresh(imports, compute) for _ in range(runs)]
    return {key: min(r[key] for r in results) for key in ("import", "first")} | {"outcomes": results[0]["outcomes"]}


@pytest.mark.parametrize("name", list(CASES))
def test_dice_operation_first_call_against_icepool(name):
    ours_expr, theirs_expr = CASES[name]
    mine = best_of(3, OURS[0], OURS[1].format(ours_expr))
    other = best_of(3, THEIRS[0], THEIRS[1].format(theirs_expr))
    assert mine["outcomes"] == other["outcomes"]
    verdict(f"dice-ops {name}", mine["first"] / other["first"], 1.0,
            f"first call: fracas {mine['first'] * 1e3:.1f} ms, icepool {other['first'] * 1e3:.1f} ms; "
            f"import: fracas {mine['import'] * 1e3:.0f} ms, icepool {other['import'] * 1e3:.0f} ms")
