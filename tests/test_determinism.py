"""The same rules, scenario and seed give byte-identical output in any process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EPI = str(ROOT / "rules" / "epicinium.rules")
BOMBARD = str(ROOT / "rules" / "scenarios" / "epicinium-bombard-town.toml")


def fracas(args: list[str], hash_seed: str) -> str:
    result = subprocess.run(
        [sys.executable, "-m", "interpreter.cli", *args],
        cwd=ROOT, capture_output=True, text=True, env={"PYTHONHASHSEED": hash_seed, "PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.parametrize("args", [
    ["run", EPI, BOMBARD, "--seed", "5", "--json"],
    ["odds", EPI, BOMBARD, "--json"],
], ids=["run", "odds"])
def test_output_is_identical_across_processes_and_hash_seeds(args):
    outputs = {fracas(args, seed) for seed in ("0", "1", "12345")}
    assert len(outputs) == 1
