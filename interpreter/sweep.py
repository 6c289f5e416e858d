"""The balance matrix: one metric over every combination of varied scenario values.

`--vary attacker.type=archer,knight --vary ground=open,rough` makes four cases; each is resolved exactly when it can be and estimated by sampling (with
a 95% interval) when the exact engine reaches its state limit. Cases run in
parallel on every core.
"""

from __future__ import annotations

import copy
import functools
import itertools
import math
import os
import re
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import dsl
from dsl import nodes as n
from dsl.diagnostics import RulesError
from dsl.limits import Limits
from dsl.parse import parse_expression
from interpreter.aggregates import evaluate_over, has_aggregate, outcome_env
from interpreter.api import Distribution, Scenario, estimate, exact
from interpreter.errors import RunError, ScenarioError
from interpreter.evaluate import evaluate

_STEP = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\[(\d+|\*)\])?")


class SweepError(ValueError):
    """A --vary or --metric that cannot be used, said plainly."""


@dataclass(frozen=True)
class Vary:
    path: str  # "target.type", "attackers[*].figures", "params.name", "choices.name"
    values: tuple[Any, ...]


@dataclass(frozen=True)
class Case:
    settings: tuple[Any, ...]  # one value per Vary
    value: Fraction | float | None = None
    margin: float | None = None  # half a 95% interval, when estimated
    error: str = ""

    @property
    def estimated(self) -> bool:
        return self.margin is not None


def parse_vary(text: str, parse_value: Callable[[str], Any]) -> Vary:
    path, sep, values = text.partition("=")
    if not sep or not path.strip() or not values.strip():
        raise SweepError(f"--vary takes PATH=V1,V2,..., not {text!r}")
    for step in path.strip().split("."):
        if not _STEP.fullmatch(step):
            raise SweepError(f"--vary: '{step}' is not a name, name[index] or name[*]")
    return Vary(path.strip(), tuple(parse_value(v.strip()) for v in values.split(",")))


def set_path(scenario: Scenario, path: str, value: Any) -> Scenario:
    """The scenario with one value set at a dotted path of its inputs, params or choices."""
    head, _, rest = path.partition(".")
    if head in ("params", "choices") and rest:
        return replace(scenario, **{head: {**getattr(scenario, head), rest: value}})
    inputs = copy.deepcopy(scenario.inputs)
    _assign(inputs, path.split("."), value, path)
    return replace(scenario, inputs=inputs)


def _assign(container: Any, steps: list[str], value: Any, path: str) -> None:
    match = _STEP.fullmatch(steps[0])
    assert match is not None
    name, _, index = match.groups()
    last = len(steps) == 1
    if index is None:
        if last:
            container[name] = value
            return
        container.setdefault(name, {})
        if not isinstance(container[name], dict):
            raise SweepError(f"--vary {path}: '{name}' is not a table in the scenario")
        _assign(container[name], steps[1:], value, path)
        return
    items = container.get(name)
    if not isinstance(items, list):
        raise SweepError(f"--vary {path}: '{name}' is not a list in the scenario")
    chosen = range(len(items)) if index == "*" else [int(index)]
    for i in chosen:
        if i >= len(items):
            raise SweepError(f"--vary {path}: '{name}' has {len(items)} items, no item {i}")
        if last:
            items[i] = value
        else:
            _assign(items[i], steps[1:], value, path)


def metric_expression(text: str | None, rules: dsl.Ruleset) -> n.Expr:
    """The metric, read as an expression of the rules language; bare outcomes mean their mean."""
    if not text:
        first = next(iter(rules.outcomes), None)
        if first is None:
            raise SweepError("these rules declare no outcomes: give --metric")
        text = f"mean({first})"
    expr = parse_expression(text, "--metric")
    if not has_aggregate(expr):
        expr = n.Call(expr.pos, func="mean", args=(expr,))
    return expr


def cases(varies: list[Vary]) -> Iterator[tuple[Any, ...]]:
    return itertools.product(*(v.values for v in varies))


@functools.cache
def _rules(path: str, limits: Limits) -> dsl.Ruleset:
    return dsl.load(path, limits)


def run_case(job: tuple[str, Limits, Scenario, list[Vary], tuple[Any, ...], str | None, int]) -> Case:
    """One cell of the matrix; runs in a worker process, so everything it needs comes in `job`."""
    rules_path, limits, scenario, varies, settings, metric, samples = job
    try:
        rules = _rules(rules_path, limits)
        expr = metric_expression(metric, rules)
        for vary, value in zip(varies, settings):
            scenario = set_path(scenario, vary.path, value)
        try:
            dist: Distribution = exact(rules, scenario)
        except ScenarioError as error:
            if "exact engine" not in error.diagnostics[0].message:
                raise
            dist = estimate(rules, scenario, samples)
        value = evaluate_over(expr, dist.prepared, dist.states)
        if isinstance(value, bool):
            value = Fraction(int(value))
        margin = None
        if dist.mode == "estimate":
            margin = _margin(dist, expr)
        return Case(settings, value, margin)
    except (RulesError, ScenarioError) as error:
        return Case(settings, error=error.diagnostics[0].message)
    except (RunError, SweepError, TypeError, ValueError) as error:
        return Case(settings, error=str(error))


def _margin(dist: Distribution, expr: n.Expr) -> float:
    """Half a 95% normal interval of a sampled mean, from the sample's own spread."""
    if not (isinstance(expr, n.Call) and expr.args):
        return float("nan")
    inner = expr.args[0]
    values = [(float(evaluate(inner, outcome_env(dist.prepared, s))), p) for s, p in dist.states.items()]
    mean = sum(v * float(p) for v, p in values)
    variance = sum((v - mean) ** 2 * float(p) for v, p in values)
    return 1.96 * math.sqrt(variance / max(1, dist.samples))


def sweep(rules_path: str, limits: Limits, scenario: Scenario, varies: list[Vary], metric: str | None,
          samples: int = 2000, jobs: int | None = None,
          progress: Callable[[int, int], None] | None = None) -> list[Case]:
    jobs_list = [(rules_path, limits, scenario, varies, settings, metric, samples) for settings in cases(varies)]
    workers = max(1, min(jobs or os.cpu_count() or 1, len(jobs_list)))
    results: list[Case] = []
    if workers == 1:
        mapped: Iterator[Case] = map(run_case, jobs_list)
    else:
        pool = ProcessPoolExecutor(max_workers=workers)
        mapped = pool.map(run_case, jobs_list)
    try:
        for case in mapped:
            results.append(case)
            if progress is not None:
                progress(len(results), len(jobs_list))
    finally:
        if workers > 1:
            pool.shutdown(cancel_futures=True)
    return results
