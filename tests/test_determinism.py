"""The same rules, scenario and seed give byte-identical output in any process."""

from __future__ import annotations

import pickle
import random
import subprocess
import sys
from pathlib import Path

import pytest

from fracas.interpreter.runtime.keys import stable_key, stable_sorted

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


def test_whole_numbers_and_tuples_of_them_sort_as_their_stable_keys_do():
    rng = random.Random(3)
    for keys in ([rng.randint(-9, 9) for _ in range(40)],
                 [tuple(rng.randint(-3, 3) for _ in range(rng.randint(0, 3))) for _ in range(40)],
                 [rng.choice([1, True, "a", (1, "b"), None]) for _ in range(40)]):
        pairs = [(key, index) for index, key in enumerate(dict.fromkeys(keys))]
        assert stable_sorted(pairs) == sorted(pairs, key=lambda pair: stable_key(pair[0]))


def test_tuples_of_one_kind_of_value_in_each_place_sort_as_their_stable_keys_do():
    # A joint distribution's keys: a whole number, a truth value and a text in every key, say; and keys
    # whose places mix kinds (1 and True), which must sort by their stable keys, not as they are.
    rng = random.Random(5)
    columns = [lambda: rng.randint(-3, 3), lambda: rng.random() < 0.5, lambda: rng.choice(["", "a", "b"])]
    mixed = [lambda: rng.choice([0, 1, True, False]), lambda: rng.choice(["a", None])]
    for places in ([0, 1, 2], [1, 2, 0, 1], [2, 2], [0, 3], [4, 0], [1, 3]):
        make = [(columns + mixed)[place] for place in places]
        keys = [tuple(value() for value in make) for _ in range(60)]
        pairs = [(key, index) for index, key in enumerate(dict.fromkeys(keys))]
        assert stable_sorted(pairs) == sorted(pairs, key=lambda pair: stable_key(pair[0]))
