"""Loading and checking every shipped rules file in a fresh process, against importing Lark and against bare Python."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from bench import verdict

ROOT = Path(__file__).resolve().parents[2]
LOAD_ALL = "from fracas import dsl; import pathlib; [dsl.load(p) for p in sorted(pathlib.Path('rules').glob('*.rules'))]"


def best_process_time(code: str, repeat: int = 5, cache: Path | None = None) -> float:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)} if cache else None
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, env=env)
        best = min(best, time.perf_counter() - start)
    return best


def test_loading_every_rules_file_against_importing_lark(tmp_path):
    # As with Python's .pyc files, the first run fills the cache (parser tables,
    # syntax trees, checked rulesets) and every later one reads it: the later runs are measured.
    warm = tmp_path / "warm"
    subprocess.run([sys.executable, "-c", LOAD_ALL], cwd=ROOT, check=True, env={**os.environ, "XDG_CACHE_HOME": str(warm)})
    ours = best_process_time(LOAD_ALL, cache=warm)
    lark = best_process_time("import lark")
    python = best_process_time("pass")
    # Only the parser tables cached, every file parsed and checked: what a file just edited costs.
    edited = tmp_path / "edited"
    subprocess.run([sys.executable, "-c", "import fracas.dsl.syntax as s; s.parser()"], cwd=ROOT, check=True,
                   env={**os.environ, "XDG_CACHE_HOME": str(edited)})
    fresh = min(_without_trees(edited) for _ in range(3))
    verdict("load-all-rules", ours / lark, 3, f"load and check all: {ours * 1e3:.0f} ms "
            f"({fresh * 1e3:.0f} ms when every file must be parsed), import lark: {lark * 1e3:.0f} ms, "
            f"python -c pass: {python * 1e3:.0f} ms")
    # Against the floor every Python program pays. The issue names no target; 5 is ours.
    verdict("load-all-rules-vs-python", ours / python, 5,
            f"fracas adds {(ours - python) * 1e3:.0f} ms to a bare interpreter, Lark's import {(lark - python) * 1e3:.0f} ms")


def _without_trees(cache: Path) -> float:
    for kept in (*(cache / "fracas").glob("tree-*.pickle"), *(cache / "fracas").glob("checked-*.pickle")):
        kept.unlink()
    return best_process_time(LOAD_ALL, repeat=1, cache=cache)
