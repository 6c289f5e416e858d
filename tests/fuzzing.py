"""Inputs for fuzzing, shared by the bounded tests and `make fuzz`'s long run."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import tomli_w

from fracas import dsl
from fracas.dsl import nodes as n
from fracas.dsl.diagnostics import RulesError
from fracas.interpreter import Scenario, ScenarioError, exact, parse_scenario, prepare, sample
from fracas.interpreter.api import Prepared
from fracas.interpreter.core import engines, resolve
from fracas.interpreter.core.errors import RunError
from fracas.interpreter.core.state import Frozen, State
from fracas.interpreter.tools.examples import run_examples, scenario_of
from shortcuts import without_any

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


def retune(text: str, rng: random.Random, edits: int) -> str:
    """The rules with a few of their whole numbers changed: mutants that mostly still load, whose examples
    take other ways through the exact engine than the shipped numbers do."""
    tokens = TOKEN.findall(text)
    numbers = [at for at, token in enumerate(tokens) if token.isdigit()]
    for _ in range(edits):
        at = rng.choice(numbers)
        value = int(tokens[at])
        tokens[at] = str(max(0, value + rng.choice([-2, -1, 1, 2, 3, value])))
    return "".join(tokens)


# Refusals that depend on how many states the engine holds, which its shortcuts change.
_SIZE_LIMITS = ("the exact engine holds more than", "the exact engine meets more than", "steps of work")


def examples_agree(rules: dsl.Ruleset, reload: Callable[[], dsl.Ruleset], examples: list[n.ExampleDecl],
                   max_states: int | None = None, seeds: int = 4) -> None:
    """Each example's exact odds are the same (or refused alike) with the exact engine's shortcuts as without
    them, for outcomes alone and for whole states; its outcomes alone are its whole states' outcomes; and each
    of a few sampled runs ends in a state the exact engine gives a chance.

    `reload` loads the rules again: a run without the shortcuts must not find what a run with them kept."""
    for example in examples:
        scenario = scenario_of(example, rules)
        found = {}
        for outcomes_only in (True, False):
            found[outcomes_only, True] = _odds_or_refusal(rules, scenario, outcomes_only, max_states)
            with pytest.MonkeyPatch.context() as patched:
                without_any(patched)
                found[outcomes_only, False] = _odds_or_refusal(reload(), scenario, outcomes_only, max_states)
        if any(isinstance(odds, str) and any(limit in odds for limit in _SIZE_LIMITS) for odds in found.values()):
            continue
        where = f"{rules.path}: example {example.name!r}"
        assert found[True, True] == found[True, False], f"{where}: outcomes differ without the shortcuts"
        assert found[False, True] == found[False, False], f"{where}: whole states differ without the shortcuts"
        assert found[True, True] == _outcomes_of(found[False, True]), f"{where}: outcomes alone differ from the whole"
        whole = found[False, True]
        if isinstance(whole, dict):
            for seed in range(seeds):
                ended = sample(rules, scenario, seed=seed, events=False).state
                assert whole.get(ended, 0) > 0, f"{where}: sampled with seed {seed}, it ends where exact odds never do"


def _odds_or_refusal(rules: dsl.Ruleset, scenario: Scenario, outcomes_only: bool,
                     max_states: int | None) -> dict[State, Any] | str:
    try:
        return exact(rules, scenario, outcomes_only=outcomes_only, max_states=max_states).states
    except ScenarioError as error:
        return "\n".join(diagnostic.format() for diagnostic in error.diagnostics)


def _outcomes_of(states: dict[State, Any] | str) -> dict[State, Any] | str:
    """Whole final states summed over all but their outcomes, as the engine gives outcomes alone."""
    if isinstance(states, str):
        return states
    summed: dict[State, Any] = {}
    for state, p in states.items():
        alone = State((Frozen(),), Frozen(), state.outcomes, state.stopped)
        summed[alone] = summed.get(alone, 0) + p
    return summed


def examples_of(rules: dsl.Ruleset) -> list[n.ExampleDecl]:
    """The examples that run an action with chance (not under forced rolls)."""
    return [example for example in rules.examples if example.run is not None and example.rolls is None]


def retuned_examples_agree(text: str, path: Path, rng: random.Random, count: int = 3) -> None:
    """A few examples of retuned rules agree as examples_agree asks."""
    try:
        rules = dsl.loads(text, str(path))
    except RulesError:
        return
    examples = examples_of(rules)
    examples_agree(rules, lambda: dsl.loads(text, str(path)), rng.sample(examples, min(count, len(examples))),
                   max_states=3000)
