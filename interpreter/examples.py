"""Running `example` blocks: rulebook statements proved against the rules.

An example runs its action exactly (or under forced rolls) and checks each
`expect` over the resulting distribution. prob, mean, always, never and
possible read the whole distribution; an expectation without them must hold
in every outcome.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from dsl import nodes as n
from dsl.builtins import SIGNATURES
from dsl.ruleset import Ruleset
from interpreter.api import Prepared, Scenario, exact, forced, prepare
from interpreter.errors import RunError, ScenarioError
from interpreter.evaluate import Env, evaluate
from interpreter.state import State
from interpreter.values import show


@dataclass(frozen=True)
class ExampleResult:
    example: n.ExampleDecl
    passed: bool
    message: str = ""

    @property
    def line(self) -> str:
        ident = self.example.example_id or "-"
        title = self.example.name[len(self.example.example_id):].strip() if self.example.example_id else self.example.name
        status = "PASS" if self.passed else "FAIL"
        return f"{status} {ident} {title}" + ("" if self.passed else f": {self.message}")


def scenario_of(example: n.ExampleDecl, rules: Ruleset) -> Scenario:
    assert example.run is not None
    action = rules.actions[example.run.func]
    inputs: dict[str, Any] = {p.name: a for p, a in zip(action.params, example.run.args)}
    inputs.update({kw.name: kw.value for kw in example.run.keywords})
    params = {name: value for name, value in example.sets if name in rules.params}
    choices = {name: value for name, value in example.sets if name in rules.choices}
    return Scenario(example.run.func, inputs, params, path=rules.path, choices=choices)


def run_example(rules: Ruleset, example: n.ExampleDecl) -> ExampleResult:
    try:
        scenario = scenario_of(example, rules)
        if example.rolls is not None:
            prepared = prepare(rules, scenario)
            rolls = [prepared.program.constant(item) for item in example.rolls.items]
            result = forced(rules, scenario, rolls)
            states: dict[State, Any] = {result.state: Fraction(1)}
        else:
            dist = exact(rules, scenario)
            prepared, states = dist.prepared, dist.states
        failures = [check_expectation(rules, prepared, states, expect) for expect in example.expects]
    except ScenarioError as error:
        return ExampleResult(example, False, "; ".join(d.message for d in error.diagnostics))
    except RunError as error:
        return ExampleResult(example, False, error.message)
    failed = [f for f in failures if f]
    return ExampleResult(example, not failed, "; ".join(failed))


def check_expectation(rules: Ruleset, prepared: Prepared, states: dict[State, Any], expect: n.Expr) -> str:
    """'' when the expectation holds, else what was expected and what was found."""
    values: list[tuple[n.Call, Any]] = []
    substituted = _substitute_aggregates(expect, prepared, states, values)
    text = rules.text_of(expect)
    if values:
        first = next(iter(states))
        if evaluate(substituted, _env(prepared, first)) is True:
            return ""
        found = ", ".join(f"{rules.text_of(call)} is {show(value)}" for call, value in values)
        return f"expected {text} (line {expect.pos.line}), but {found}"
    for state in states:
        if evaluate(expect, _env(prepared, state)) is not True:
            shown = ", ".join(f"{k} = {show(v)}" for k, v in state.outcomes.items())
            return f"expected {text} (line {expect.pos.line}) in every outcome, but not when {shown}"
    return ""


def _env(prepared: Prepared, state: State) -> Env:
    frame = {**state.frames[0], "stopped": state.stopped or ""}
    return Env(prepared.program, state, frame, _NoChance())


class _NoChance:
    trace = None

    def draw(self, primitive: Any, pos: n.Pos) -> Any:
        raise RunError(pos, "an expectation cannot roll dice")


def _aggregate(call: n.Call, prepared: Prepared, states: dict[State, Any]) -> Any:
    arg = call.args[0] if call.args else call.keywords[0].value
    total = sum(states.values(), Fraction(0))
    results = [(evaluate(arg, _env(prepared, s)), p) for s, p in states.items()]
    if call.func == "prob":
        return sum((p for v, p in results if v is True), Fraction(0)) / total
    if call.func == "mean":
        return sum((Fraction(v) * p for v, p in results), Fraction(0)) / total
    if call.func == "always":
        return all(v is True for v, _ in results)
    if call.func == "never":
        return all(v is False for v, _ in results)
    return any(v is True for v, _ in results)


def _substitute_aggregates(expr: Any, prepared: Prepared, states: dict[State, Any], found: list) -> Any:
    if isinstance(expr, n.Call) and expr.func in SIGNATURES and SIGNATURES[expr.func].aggregate:
        value = _aggregate(expr, prepared, states)
        found.append((expr, value))
        if isinstance(value, bool):
            return n.Bool(expr.pos, value=value)
        return n.Number(expr.pos, value=value)
    if isinstance(expr, tuple):
        return tuple(_substitute_aggregates(e, prepared, states, found) for e in expr)
    if not isinstance(expr, n.Node):
        return expr
    changes = {}
    for f in dataclasses.fields(expr):
        if f.name == "pos":
            continue
        value = getattr(expr, f.name)
        new = _substitute_aggregates(value, prepared, states, found)
        if new is not value:
            changes[f.name] = new
    return dataclasses.replace(expr, **changes) if changes else expr


def run_examples(rules: Ruleset) -> list[ExampleResult]:
    return [run_example(rules, example) for example in rules.examples]

