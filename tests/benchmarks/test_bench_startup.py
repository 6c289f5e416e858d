"""Loading and checking every shipped rules file in a fresh process, against importing Lark."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from bench import verdict

ROOT = Path(__file__).resolve().parents[2]
LOAD_ALL = "import dsl, pathlib; [dsl.load(p) for p in sorted(pathlib.Path('rules').glob('*.rules'))]"


def best_process_time(code: str, repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
        best = min(best, time.perf_counter() - start)
    return best


def test_loading_every_rules_file_against_importing_lark():
    subprocess.run([sys.executable, "-c", LOAD_ALL], cwd=ROOT, check=True)  # the parser tables, cached once
    ours = best_process_time(LOAD_ALL)
    lark = best_process_time("import lark")
    verdict("load-all-rules", ours / lark, 3, f"load and check all: {ours * 1e3:.0f} ms, import lark: {lark * 1e3:.0f} ms")
