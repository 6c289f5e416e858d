"""Expressions over a whole distribution: prob, mean, always, never and possible.

Examples check their `expect` lines with them, and `fracas sweep` computes its
metric with them. Each aggregate call is computed over every final state and
replaced by its value; an example then checks the rest in every final state,
a sweep's metric once.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from fracas.dsl import nodes as n
from fracas.dsl.builtins import SIGNATURES
from fracas.dsl.walk import map_children
from fracas.interpreter.api import Prepared, RunError, State, final_value


def evaluate_over(expr: n.Expr, prepared: Prepared, states: dict[State, Any]) -> Any:
    """The value of an expression that reads a distribution through its aggregates."""
    substituted = substitute_aggregates(expr, prepared, states, [])
    return final_value(substituted, prepared, next(iter(states)), once=True)


def has_aggregate(expr: Any) -> bool:
    return bool(aggregate_calls(expr))


def _argument(call: n.Call) -> n.Expr:
    return call.args[0] if call.args else call.keywords[0].value


def _aggregate(call: n.Call, prepared: Prepared, states: dict[State, Any]) -> Any:
    arg = _argument(call)
    total = sum(states.values(), Fraction(0))
    results = [(final_value(arg, prepared, s), p) for s, p in states.items()]
    if call.func == "prob":
        return sum((p for v, p in results if v is True), Fraction(0)) / total
    if call.func == "mean":
        return sum((_number(v, call) * p for v, p in results), Fraction(0)) / total
    if call.func == "always":
        return all(v is True for v, _ in results)
    if call.func == "never":
        return all(v is False for v, _ in results)
    return any(v is True for v, _ in results)


def substitute_aggregates(expr: Any, prepared: Prepared, states: dict[State, Any], found: list,
                          dry: bool = False) -> Any:
    """expr with each aggregate call replaced by its value (recorded in `found`); dry: only find them."""
    def replace(call: n.Call) -> n.Expr:
        if dry:
            found.append((call, None))
            return call
        value = _aggregate(call, prepared, states)
        found.append((call, value))
        return _literal(call.pos, value)

    return _map_aggregates(expr, replace)


def aggregate_calls(expr: n.Expr) -> list[n.Call]:
    """The aggregate calls of an expression, in the order `with_values` fills them."""
    found: list[n.Call] = []

    def record(call: n.Call) -> n.Expr:
        found.append(call)
        return call

    _map_aggregates(expr, record)
    return found


def with_values(expr: n.Expr, values: list[Any]) -> n.Expr:
    """expr with its aggregate calls replaced by `values`, in order: the same metric at other estimates."""
    remaining = iter(values)
    return _map_aggregates(expr, lambda call: _literal(call.pos, next(remaining)))


def sample_term(call: n.Call, prepared: Prepared, state: State) -> Fraction:
    """What one final state adds to a prob or a mean: 1 or 0 for a condition, its value for a number."""
    value = final_value(_argument(call), prepared, state)
    if call.func == "prob":
        return Fraction(1 if value is True else 0)
    return _number(value, call)


def _number(value: Any, call: n.Call) -> Fraction:
    """A value a mean adds up: a number, never none (a local that a run which stopped before it never set)."""
    if value is None:
        raise RunError(call.pos, f"'{call.func}' of a value that is none in some outcomes",
                       "a local is none where the run stopped before setting it: read an outcome instead, "
                       "or set the local before anything may stop")
    return Fraction(value)


def _literal(pos: n.Pos, value: Any) -> n.Expr:
    if isinstance(value, bool):
        return n.Bool(pos, value=value)
    return n.Number(pos, value=value)


def _map_aggregates(expr: n.Expr, replace: Callable[[n.Call], n.Expr]) -> Any:
    """expr with each aggregate call (outermost ones only) replaced by what `replace` makes of it."""
    if isinstance(expr, n.Call) and expr.func in SIGNATURES and SIGNATURES[expr.func].aggregate:
        return replace(expr)
    return map_children(expr, lambda child: _map_aggregates(child, replace))
