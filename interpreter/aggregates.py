"""Expressions over a whole distribution: prob, mean, always, never and possible.

Examples check their `expect` lines with them, and `fracas sweep` computes its
metric with them. Each aggregate call is computed over every final state and
replaced by its value; the rest of the expression is then evaluated once.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Any

from dsl import nodes as n
from dsl.builtins import SIGNATURES
from interpreter.api import Prepared
from interpreter.errors import RunError
from interpreter.evaluate import Env, evaluate, evaluate_once
from interpreter.state import State


def evaluate_over(expr: n.Expr, prepared: Prepared, states: dict[State, Any]) -> Any:
    """The value of an expression that reads a distribution through its aggregates."""
    substituted = substitute_aggregates(expr, prepared, states, [])
    return evaluate_once(substituted, outcome_env(prepared, next(iter(states))))


def has_aggregate(expr: Any) -> bool:
    found: list = []
    substitute_aggregates(expr, None, None, found, dry=True)  # type: ignore[arg-type]
    return bool(found)


def outcome_env(prepared: Prepared, state: State) -> Env:
    frame = {**state.frames[0], "stopped": state.stopped or ""}
    return Env(prepared.program, state, frame, _NoChance())


class _NoChance:
    trace = None

    def draw(self, primitive: Any, pos: n.Pos) -> Any:
        raise RunError(pos, "an expectation cannot roll dice")


def _aggregate(call: n.Call, prepared: Prepared, states: dict[State, Any]) -> Any:
    arg = call.args[0] if call.args else call.keywords[0].value
    total = sum(states.values(), Fraction(0))
    results = [(evaluate(arg, outcome_env(prepared, s)), p) for s, p in states.items()]
    if call.func == "prob":
        return sum((p for v, p in results if v is True), Fraction(0)) / total
    if call.func == "mean":
        return sum((Fraction(v) * p for v, p in results), Fraction(0)) / total
    if call.func == "always":
        return all(v is True for v, _ in results)
    if call.func == "never":
        return all(v is False for v, _ in results)
    return any(v is True for v, _ in results)


def substitute_aggregates(expr: Any, prepared: Prepared, states: dict[State, Any], found: list,
                          dry: bool = False) -> Any:
    """expr with each aggregate call replaced by its value (recorded in `found`); dry: only find them."""
    if isinstance(expr, n.Call) and expr.func in SIGNATURES and SIGNATURES[expr.func].aggregate:
        if dry:
            found.append((expr, None))
            return expr
        value = _aggregate(expr, prepared, states)
        found.append((expr, value))
        if isinstance(value, bool):
            return n.Bool(expr.pos, value=value)
        return n.Number(expr.pos, value=value)
    if isinstance(expr, tuple):
        return tuple(substitute_aggregates(e, prepared, states, found, dry) for e in expr)
    if not isinstance(expr, n.Node):
        return expr
    changes = {}
    for f in dataclasses.fields(expr):
        if f.name == "pos":
            continue
        value = getattr(expr, f.name)
        new = substitute_aggregates(value, prepared, states, found, dry)
        if new is not value:
            changes[f.name] = new
    return dataclasses.replace(expr, **changes) if changes else expr
