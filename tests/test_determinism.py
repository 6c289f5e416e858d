"""The same rules, scenario and seed give byte-identical output in any process."""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EPI = str(ROOT / "rules" / "epicinium.rules")
BOMBARD = str(ROOT / "rules" / "scenarios" / "epicinium-bombard-town.toml")


def fracas(args: list[str], hash_seed: str) -> str:
    result = subprocess.run(
        [sys.executable, "-m", "fracas.interpreter.tools.cli", *args],
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


def test_a_state_sent_to_another_process_equals_the_same_state_made_there(tmp_path):
    from fracas.interpreter.core.state import Frozen, State

    sent = State((Frozen(target="rifleman"),), Frozen(a=Frozen(figures=3)), Frozen(lost=1))
    hash(sent), hash(sent.world)  # cached here, with this process's string hashes
    (tmp_path / "state.pickle").write_bytes(pickle.dumps(sent))
    check = (
        "import pickle, sys\n"
        "from fracas.interpreter.core.state import Frozen, State\n"
        "received = pickle.load(open(sys.argv[1], 'rb'))\n"
        "made = State((Frozen(target='rifleman'),), Frozen(a=Frozen(figures=3)), Frozen(lost=1))\n"
        "assert received == made and hash(received) == hash(made), 'unequal'\n"
        "assert {made: 1}[received] == 1 and {made.world: 1}[received.world] == 1\n"
    )
    for hash_seed in ("1", "2"):
        result = subprocess.run([sys.executable, "-c", check, str(tmp_path / "state.pickle")], cwd=ROOT,
                                capture_output=True, text=True, env={"PYTHONHASHSEED": hash_seed, "PATH": "/usr/bin:/bin"})
        assert result.returncode == 0, result.stderr


def test_sampled_odds_are_the_same_for_any_number_of_worker_processes():
    runs = ["odds", EPI, BOMBARD, "--samples", "2500", "--seed", "3", "--json"]
    one, two = fracas([*runs, "--jobs", "1"], "0"), fracas([*runs, "--jobs", "2"], "1")
    assert one == two and '"samples": 2500' in one
