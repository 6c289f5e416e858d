"""Inputs for fuzzing, shared by the bounded tests and `make fuzz`'s long run."""

from __future__ import annotations

import random
import re
from pathlib import Path

import tomli_w

from fracas import dsl
from fracas.dsl.diagnostics import RulesError
from fracas.interpreter import ScenarioError, exact, parse_scenario, prepare
from fracas.interpreter.api import Prepared
from fracas.interpreter.core import engines, resolve
from fracas.interpreter.core.errors import RunError
from fracas.interpreter.tools.examples import run_examples

ROOT = Path(__file__).resolve().parent.parent
RULES_FILES = sorted((ROOT / "rules").glob("*.rules"))
TOKEN = re.compile(r"\s+|\w+|[^\w\s]")
VALUES = [0, 1, -1, 3, 10**6, 0.5, True, False, "", "gunner", "city", "plains", "x" * 50, [], [1, 2], {}, {"type": "tank"}]


def mutate(text: str, rng: random.Random, edits: int) -> str:
    tokens = TOKEN.findall(text)
    for _ in range(edits):
        at = rng.randrange(len(tokens))
        kind = rng.randrange(4)
        if kind == 0:
            del tokens[at]
        elif kind == 1:
            tokens.insert(at, tokens[at])
        elif kind == 2 and at + 1 < len(tokens):
            tokens[at], tokens[at + 1] = tokens[at + 1], tokens[at]
        elif tokens[at].isdigit():
            tokens[at] = str(rng.randint(-5, 10**4))
    return "".join(tokens)


def rules_loads_or_diagnoses(text: str, run: bool) -> None:
    """Load mutated rules: a ruleset or diagnostics, and examples that PASS or FAIL; nothing else."""
    try:
        rules = dsl.loads(text, str(ROOT / "rules" / "fuzz.rules"))
    except RulesError as error:
        assert error.diagnostics and all(d.message for d in error.diagnostics)
        for diagnostic in error.diagnostics:
            diagnostic.format()
        return
    if run:
        for result in run_examples(rules):
            assert result.passed or result.message


def random_scenario(rng: random.Random, rules: dsl.Ruleset) -> str:
    """TOML for a scenario: the rules' own names mixed with wrong keys, types and values."""
    names = list(rules.actions)
    action = rng.choice(names + ["nowhere"])
    data: dict = {"action": action} if rng.random() < 0.9 else {}
    decl = rules.actions.get(action)
    keys = [p.name for p in decl.params] if decl else ["x"]
    fields = [f for kind in rules.kinds.values() for f in kind.field_names]
    rows = list(rules.rows)
    for key in rng.sample(keys, k=rng.randint(0, len(keys))) + (["typo"] if rng.random() < 0.1 else []):
        table = {rng.choice(fields): rng.choice(VALUES + rows) for _ in range(rng.randint(0, 4))}
        data[key] = rng.choice([table, [table, table], rng.choice(VALUES + rows)])
    if rng.random() < 0.2:
        data["params"] = {rng.choice(list(rules.params) + ["nope"]): rng.choice(VALUES)} if rules.params else {}
    return tomli_w.dumps(data)


def scenario_runs_or_diagnoses(rules: dsl.Ruleset, text: str) -> None:
    try:
        scenario = parse_scenario(text, "fuzz.toml")
        remembered_runs_agree(prepare(rules, scenario))
        exact(rules, scenario, max_states=2000)
    except ScenarioError as error:
        assert error.diagnostics and all(d.message for d in error.diagnostics)
        for diagnostic in error.diagnostics:
            diagnostic.format()


class _EveryBlock(engines.SampleEngine):
    """Draws as the sampling engine does, but is not it: its runs run every block, none remembered."""


def remembered_runs_agree(prepared: Prepared, runs: int = 12) -> None:
    """Sampled runs remembered by the values they drew end, or fail, as runs of every block do, from the
    same random numbers."""
    program, action, start = prepared.program, prepared.action, prepared.start
    remembering, running = engines.SampleEngine(rng=random.Random(7)), _EveryBlock(rng=random.Random(7))
    for _ in range(runs):
        ends = []
        for engine in (remembering, running):
            try:
                ends.append(resolve.resolve_one(program, action, start, engine))
            except RunError as error:
                ends.append(f"{error.pos}: {error.message}")
        assert ends[0] == ends[1], ends
        assert remembering.rng.getstate() == running.rng.getstate()
