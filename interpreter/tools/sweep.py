"""The balance matrix: one metric over every combination of varied scenario values.

`--vary attacker.type=archer,knight --vary ground=open,rough` makes four cases; each is resolved exactly when it can be and estimated by sampling (with
a 95% interval) when the exact engine reaches its state or work limit. Cases run in
parallel on every core.
"""

from __future__ import annotations

import copy
import functools
import itertools
import math
import os
import re
import signal
from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any

from fracas import dsl
from fracas.dsl import nodes as n
from fracas.dsl.builtins import SIGNATURES
from fracas.dsl.check import EXAMPLE_NAMES, check_expectation
from fracas.dsl.reads import free_names
from fracas.dsl.diagnostics import Diagnostic, RulesError, SourceFile
from fracas.dsl.limits import Limits
from fracas.dsl.parse import parse_expression
from fracas.dsl.records import record, replace
from fracas.dsl.types import ANY, NUMERIC, Type
from fracas.interpreter.tools.aggregates import (
    aggregate_calls,
    evaluate_over,
    has_aggregate,
    sample_term,
    with_values,
)
from fracas.interpreter.api import (Distribution, RunError, Scenario, ScenarioError, as_float, beyond_exact, estimate,
                                    exact, final_value, kept_once, reads_only_outcomes)

METRIC = "--metric"  # where a problem in the metric is said to be
Z95 = 1.96  # a 95% normal interval is the estimate plus or minus this many standard errors

_STEP = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\[(\d+|\*)\])?")


class SweepError(ValueError):
    """A --vary or --metric that cannot be used, said plainly."""


@record(frozen=True)
class Vary:
    """One thing a sweep changes, and the values it takes."""

    path: str  # "target.type", "attackers[*].figures", "params.name", "choices.name"
    values: tuple[Any, ...]


@record(frozen=True)
class Case:
    """One row of a sweep: the values it set, and the result (or the error) it got."""

    settings: tuple[Any, ...]  # one value per Vary
    value: Fraction | float | None = None
    margin: float | None = None  # half a 95% interval, when estimated and one can be given
    error: str = ""
    estimated: bool = False  # by sampling, because the exact engine reached its state or work limit
    diagnostics: tuple[Diagnostic, ...] = ()  # the error located (in the rules, the scenario or the metric)


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
    flags = {**scenario.flags, path: f"--vary {path}"}  # a problem with the value is said at the flag
    if head in ("params", "choices") and rest:
        return replace(scenario, **{head: {**getattr(scenario, head), rest: value}}, flags=flags)
    inputs = copy.deepcopy(scenario.inputs)
    _assign(inputs, path.split("."), value, path)
    return replace(scenario, inputs=inputs, flags=flags)


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
        elif not isinstance(items[i], dict):
            raise SweepError(f"--vary {path}: '{name}[{i}]' is not a table in the scenario")
        else:
            _assign(items[i], steps[1:], value, path)


def default_metric(rules: dsl.Ruleset) -> str:
    """The metric when none is given: the first outcome that is a number (its mean) or a condition (its probability)."""
    for name, typed in rules.outcomes.items():
        if typed.type.name in NUMERIC:
            return f"mean({name})"
        if typed.type.name == "bool":
            return f"prob({name})"
    raise SweepError("these rules declare no number or true/false outcome: give --metric")


def metric_expression(text: str | None, rules: dsl.Ruleset, action: str | None = None) -> n.Expr:
    """The metric, read and checked as an example's `expect` line is; RulesError, located in its text, if it is wrong.

    A metric without prob, mean, always, never or possible reads every final
    state: a condition then means its probability, a number its mean. `action`
    is the one the scenario resolves; without it, the inputs and locals of
    every action may be read, and the sweep checks the metric again with it.
    """
    text = text or default_metric(rules)
    source = SourceFile(METRIC, text)
    expr = parse_expression(text, METRIC, rules.limits)
    scope = _expect_scope(rules, action)
    found, expr = check_expectation(rules, expr, source, scope)
    if not (found.is_numeric or found.name == "bool"):
        shown = "none" if found.name == "none" else f"a {found}"
        raise RulesError([source.at(expr.pos, f"a metric is a number or a condition, not {shown}",
                                    "read the outcomes through prob(condition) or mean(number)")])
    if has_aggregate(expr):
        _refuse_names_outside_aggregates(expr, source, set(scope) | set(rules.outcomes))
        return expr
    return n.Call(expr.pos, func="prob" if found.name == "bool" else "mean", args=(expr,))


def metric_title(text: str | None, rules: dsl.Ruleset, action: str | None = None) -> str:
    """The metric as a table or a plot names it: what is worked out, `mean(boxes)` for `boxes`."""
    text = (text or default_metric(rules)).strip()
    expr = metric_expression(text, rules, action)
    if has_aggregate(parse_expression(text, METRIC, rules.limits)):
        return text
    return f"{expr.func}({text})"  # type: ignore[attr-defined]


def _expect_scope(rules: dsl.Ruleset, action: str | None) -> dict[str, Type]:
    """The names an `expect` line of `action` reads besides outcomes: its inputs and top-level locals."""
    decl = rules.actions.get(action) if action else None
    if decl is not None:
        return {**rules.param_types(decl), **rules.action_locals.get(decl.name, {})}
    # Not known yet which action: any action's names may be read, of a type decided when it is.
    return {name: ANY for decl in rules.actions.values()
            for name in [*rules.param_types(decl), *rules.action_locals.get(decl.name, {})]}


def _is_aggregate(expr: n.Expr) -> bool:
    return isinstance(expr, n.Call) and expr.func in SIGNATURES and SIGNATURES[expr.func].aggregate


def _refuse_names_outside_aggregates(expr: n.Expr, source: SourceFile, per_outcome: set[str]) -> None:
    """An outcome read outside prob, mean, ... would give the value of one final state picked at random."""
    for name in free_names(expr, skip=_is_aggregate):
        if name.name in per_outcome or name.name in EXAMPLE_NAMES:
            raise RulesError([source.at(name.pos, f"'{name.name}' outside prob, mean, always, never or possible "
                                                  "reads one final state, not the distribution",
                                        f"read it through one: mean({name.name}) of a number, "
                                        f"prob({name.name} == ...) of any value")])


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
        expr = metric_expression(metric, rules, scenario.action_in(rules))
        for vary, value in zip(varies, settings):
            scenario = set_path(scenario, vary.path, value)
        outcomes_only = reads_only_outcomes(rules, [expr])
        try:
            dist: Distribution = exact(rules, scenario, outcomes_only=outcomes_only)
        except ScenarioError as error:
            if not beyond_exact(error):
                raise
            dist = estimate(rules, scenario, samples, outcomes_only=outcomes_only)
        value = evaluate_over(expr, dist.prepared, dist.states)
        if isinstance(value, bool):
            value = Fraction(int(value))
        if dist.mode != "estimate":
            return Case(settings, value)
        return Case(settings, value, _margin(expr, dist), estimated=True)
    except (RulesError, ScenarioError) as error:
        return Case(settings, error=error.diagnostics[0].message, diagnostics=tuple(error.diagnostics))
    except RunError as error:  # the metric's, evaluated over the distribution (the rules' come as ScenarioError)
        located = () if error.pos is None else (SourceFile(METRIC, metric or default_metric(rules)).at(
            error.pos, error.message, error.hint),)
        return Case(settings, error=error.message, diagnostics=located)
    except (SweepError, TypeError, ValueError) as error:
        return Case(settings, error=str(error))


def _margin(expr: n.Expr, dist: Distribution) -> float | None:
    """Half a 95% interval of a metric estimated from samples; None where no honest one can be given.

    Each prob or mean is an average over the samples, and the metric a function
    of those averages; by the delta method its variance is about
    grad . cov . grad / samples. One sample has no spread to measure, and a
    true-or-false metric (always, never, possible, a comparison) no interval.
    """
    calls = aggregate_calls(expr)
    if dist.samples < 2 or any(call.func not in ("prob", "mean") for call in calls):
        return None
    terms = [([sample_term(call, dist.prepared, state) for call in calls], p) for state, p in dist.states.items()]
    centre = [sum((t[i] * p for t, p in terms), Fraction(0)) for i in range(len(calls))]
    gradient = _gradient(expr, centre, dist)
    if gradient is None:
        return None
    deviations = [(sum(g * as_float(t - c) for g, t, c in zip(gradient, ts, centre)), float(p))
                  for ts, p in terms]
    # The spread of the metric's linear part over the samples, with n - 1 for a sample's own variance.
    variance = sum(d * d * p for d, p in deviations) * dist.samples / (dist.samples - 1)
    if variance == 0:  # every run agreed: a margin of 0 would claim what the runs cannot show (p = 1/1000, say)
        return None
    margin = Z95 * math.sqrt(variance / dist.samples)
    return margin if math.isfinite(margin) else None


def _gradient(expr: n.Expr, centre: list[Fraction], dist: Distribution) -> list[float] | None:
    """How fast the metric moves with each of its averages, by central differences; None if it is no number."""
    step = Fraction(1, 10**6)
    gradient = []
    for i in range(len(centre)):
        up = _metric_at(expr, [c + step if j == i else c for j, c in enumerate(centre)], dist)
        down = _metric_at(expr, [c - step if j == i else c for j, c in enumerate(centre)], dist)
        if up is None or down is None:
            return None
        gradient.append(as_float((up - down) / (2 * step)))
    return gradient


def _metric_at(expr: n.Expr, averages: list[Fraction], dist: Distribution) -> Fraction | None:
    """The metric were its averages these: a number, or None when it is a truth or cannot be computed there."""
    try:
        value = final_value(with_values(expr, averages), dist.prepared, next(iter(dist.states)), once=True)
    except (RunError, ArithmeticError, TypeError, ValueError):
        return None
    if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
        return None
    return Fraction(value)


def sweep(rules_path: str, limits: Limits, scenario: Scenario, varies: list[Vary], metric: str | None,
          samples: int = 2000, jobs: int | None = None,
          progress: Callable[[int, int], None] | None = None) -> list[Case]:
    # A wrong metric stops here, located in its text, before any case runs.
    rules = _rules(rules_path, limits)
    metric_expression(metric, rules, scenario.action_in(rules))
    jobs_list = [(rules_path, limits, scenario, varies, settings, metric, samples) for settings in cases(varies)]
    workers = max(1, min(jobs or os.cpu_count() or 1, len(jobs_list)))
    if workers == 1:
        with kept_once(rules):  # what the cases make, kept once when they are done
            return _collect(map(run_case, jobs_list), len(jobs_list), progress)
    import multiprocessing  # slow to import: only for a sweep that runs workers

    # Leaving the block stops the workers at once, on Ctrl-C too; they ignore it, so that only
    # this process hears it and says so, without a traceback from each worker.
    with multiprocessing.Pool(workers, initializer=signal.signal, initargs=(signal.SIGINT, signal.SIG_IGN)) as pool:
        return _collect(pool.imap(run_case, jobs_list), len(jobs_list), progress)


def _collect(mapped: Iterator[Case], total: int, progress: Callable[[int, int], None] | None) -> list[Case]:
    results: list[Case] = []
    for case in mapped:
        results.append(case)
        if progress is not None:
            progress(len(results), total)
    return results
