"""Expression evaluation: one small evaluator per node type.

Expressions never change the state; chance primitives are handed to the
engine through `env.chooser`, which samples, follows forced rolls, or
branches over every outcome.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from dsl import nodes as n
from interpreter.errors import RunError
from interpreter.runtime.chance import Dice
from interpreter.state import Frozen, State
from interpreter.values import Record, Ref, RowRef, normalize, show

if TYPE_CHECKING:
    from interpreter.program import Program

class Env:
    """Where an expression is evaluated: the program, the state, the local names, the engine."""

    __slots__ = ("program", "state", "frame", "chooser", "depth")

    def __init__(self, program: Program, state: State, frame: Frozen | dict[str, Any], chooser: Any, depth: int = 0):
        self.program = program
        self.state = state
        self.frame = frame
        self.chooser = chooser
        self.depth = depth

    def inner(self, frame: dict[str, Any], pos: n.Pos) -> Env:
        limits = self.program.rules.limits
        if self.depth >= limits.call_depth:
            raise RunError(pos, f"calls nest deeper than {limits.call_depth}",
                           "a function may be calling itself forever; " + limits.hint("call_depth"))
        return Env(self.program, self.state, frame, self.chooser, self.depth + 1)


def evaluate(expr: n.Expr, env: Env) -> Any:
    return _EVALUATORS[type(expr)](expr, env)


def truth(expr: n.Expr, env: Env) -> bool:
    value = evaluate(expr, env)
    if value is not True and value is not False:
        raise RunError(expr.pos, f"a condition must be true or false, not {show(value)}")
    return value


def lookup(name: str, env: Env, pos: n.Pos) -> Any:
    frame = env.frame
    if name in frame:
        return frame[name]
    program = env.program
    if name in env.state.outcomes:
        return env.state.outcomes[name]
    if name in program.params:
        return program.params[name]
    if name in program.row_refs:
        return program.row_refs[name]
    raise RunError(pos, f"unknown name '{name}'")


def record_of(value: Any, env: Env, pos: n.Pos, name: str) -> Record:
    if isinstance(value, Ref):
        return env.state.world[value.id]
    if isinstance(value, RowRef):
        return env.program.rows[value.name]
    if isinstance(value, Record):
        return value
    if value is None:
        raise RunError(pos, f"there is nothing here (none), so it has no field '{name}'",
                       "check it first, for example: if x != none { ... }")
    raise RunError(pos, f"{show(value)} has no field '{name}'")


def field(value: Any, name: str, env: Env, pos: n.Pos) -> Any:
    record = record_of(value, env, pos, name)
    if not record.has(name):
        raise RunError(pos, f"a {record.shape.kind} has no field '{name}'")
    return record.get(name)


# ---- evaluators -----------------------------------------------------------------


def _number(expr: n.Number, env: Env) -> Any:
    return expr.value


def _constant(expr: n.Text | n.Bool, env: Env) -> Any:
    return expr.value


def _none(expr: n.NoneLit, env: Env) -> Any:
    return None


def _dice(expr: n.Dice, env: Env) -> Any:
    return env.chooser.draw(Dice(expr.count, expr.sides), expr.pos)


def _name(expr: n.Name, env: Env) -> Any:
    return lookup(expr.name, env, expr.pos)


def _attr(expr: n.Attr, env: Env) -> Any:
    return field(evaluate(expr.obj, env), expr.name, env, expr.pos)


def _index(expr: n.Index, env: Env) -> Any:
    if isinstance(expr.obj, n.Name) and expr.obj.name in env.program.tables and expr.obj.name not in env.frame:
        return _lookup_table(expr, env)
    items = evaluate(expr.obj, env)
    i = evaluate(expr.index, env)
    if not isinstance(items, tuple):
        raise RunError(expr.pos, f"only a list can be indexed, not {show(items)}")
    if not isinstance(i, int) or not -len(items) <= i < len(items):
        raise RunError(expr.index.pos, f"index {show(i)} is outside a list of {len(items)}")
    return items[i]


def _lookup_table(expr: n.Index, env: Env) -> Any:
    name = expr.obj.name  # type: ignore[attr-defined]
    row, column = (evaluate(key, env) for key in (expr.index, *expr.more))
    if not isinstance(row, RowRef) or not isinstance(column, RowRef):
        raise RunError(expr.pos, f"table '{name}' is looked up by two rows, not {show(row)} and {show(column)}")
    cell = env.program.tables[name].get((row.name, column.name))
    if cell is not None:
        return cell
    if name in env.program.table_defaults:
        return env.program.table_defaults[name]
    raise RunError(expr.pos, f"table '{name}' has no value for {row.name} and {column.name}",
                   "add the row or column to the table, or give the table a default")


def _unary(expr: n.Unary, env: Env) -> Any:
    if expr.op == "not":
        return not truth(expr.operand, env)
    return -evaluate(expr.operand, env)


def _add(a: Any, b: Any, pos: n.Pos) -> Any:
    try:
        return normalize(a + b) if isinstance(a, (int, Fraction)) else a + b
    except TypeError:
        raise RunError(pos, f"cannot add {show(a)} and {show(b)}") from None


def _divide(a: Any, b: Any, pos: n.Pos) -> Any:
    if b == 0:
        raise RunError(pos, "division by zero")
    return normalize(Fraction(a) / Fraction(b))


def _arith(op: str, a: Any, b: Any, pos: n.Pos) -> Any:
    if op == "+":
        return _add(a, b, pos)
    if op == "/":
        return _divide(a, b, pos)
    if op == "-":
        return normalize(a - b)
    if op == "*":
        return normalize(a * b)
    raise RunError(pos, f"unknown operator {op}")


def _compare(op: str, a: Any, b: Any, pos: n.Pos) -> bool:
    if op == "==":
        return a == b
    if op == "!=":
        return a != b
    if a is None or b is None:
        raise RunError(pos, f"cannot compare none with '{op}'")
    if op == "<":
        return a < b
    if op == "<=":
        return a <= b
    if op == ">":
        return a > b
    return a >= b


def _binary(expr: n.Binary, env: Env) -> Any:
    op = expr.op
    if op == "and":
        return truth(expr.left, env) and truth(expr.right, env)
    if op == "or":
        return truth(expr.left, env) or truth(expr.right, env)
    left = evaluate(expr.left, env)
    right = evaluate(expr.right, env)
    if op in ("+", "-", "*", "/"):
        return _arith(op, left, right, expr.pos)
    if op == "in":
        return left in right
    if op == "not in":
        return left not in right
    return _compare(op, left, right, expr.pos)


def _conditional(expr: n.Conditional, env: Env) -> Any:
    return evaluate(expr.then if truth(expr.test, env) else expr.otherwise, env)


def _list(expr: n.ListLit, env: Env) -> Any:
    return tuple(evaluate(item, env) for item in expr.items)


def _comprehension(expr: n.Comprehension, env: Env) -> Any:
    out = []
    for item in evaluate(expr.source, env):
        inner = Env(env.program, env.state, {**env.frame, expr.var: item}, env.chooser, env.depth)
        if expr.condition is None or truth(expr.condition, inner):
            out.append(evaluate(expr.item, inner))
    return tuple(out)


def _record(expr: n.RecordLit, env: Env) -> Any:
    """A record written in a step: a constant value of its kind (defaults filled in)."""
    program = env.program
    kind = program.rules.kinds[program.rules.record_kinds[id(expr)]]
    given = {f.name: f.value for f in expr.fields}
    values: dict[str, Any] = {}
    for info in kind.fields:
        if info.name in given:
            values[info.name] = evaluate(given[info.name], env)
        elif info.default is not None:
            values[info.name] = evaluate(info.default, Env(program, env.state, values, env.chooser, env.depth))
        else:
            values[info.name] = None
    return Record(program.shapes[kind.name], tuple(values[f.name] for f in kind.fields))


def _call(expr: n.Call, env: Env) -> Any:
    program = env.program
    if expr.func in program.rules.fns:
        decl = program.rules.fns[expr.func]
        frame = bind_arguments(expr, decl.params, env)
        return evaluate(decl.body, env.inner(frame, expr.pos))
    if expr.func in program.rules.modifiers:
        return apply_modifier(expr, env)
    from interpreter.builtins import call_builtin

    return call_builtin(expr, env)


def bind_arguments(call: n.Call, params: tuple[n.Param, ...], env: Env) -> dict[str, Any]:
    """Argument values by parameter name; defaults are evaluated where the callee is declared."""
    frame: dict[str, Any] = {}
    for param, arg in zip(params, call.args):
        frame[param.name] = evaluate(arg, env)
    for kw in call.keywords:
        frame[kw.name] = evaluate(kw.value, env)
    for param in params:
        if param.name not in frame:
            if param.default is None:
                raise RunError(call.pos, f"'{call.func}' needs '{param.name}'")
            frame[param.name] = evaluate(param.default, Env(env.program, env.state, {}, env.chooser, env.depth))
    return frame


def apply_modifier(call: n.Call, env: Env) -> Any:
    """Start from the first argument and apply each term whose condition holds, in order."""
    decl = env.program.rules.modifiers[call.func]
    frame = bind_arguments(call, decl.params, env)
    inner = env.inner(frame, call.pos)
    value = frame[decl.params[0].name]
    start = value
    applied = []
    for term in decl.terms:
        if term.when is not None and not truth(term.when, inner):
            continue
        amount = evaluate(term.amount, inner)
        before = value
        value = _TERMS[term.op](value, amount)
        if value != before:
            applied.append((term, before, value))
    trace = getattr(env.chooser, "trace", None)
    if trace is not None and applied:
        source = env.program.rules.source(decl.pos)
        steps = "; ".join(f"line {t.pos.line}: {source.line(t.pos.line).strip()}" for t, _, _ in applied)
        trace.add("modifier", call.pos, f"{decl.name}: {show(start)} -> {show(value)} ({steps})",
                  modifier=decl.name, start=show(start), result=show(value),
                  terms=[t.pos.line for t, _, _ in applied])
    return value


_TERMS: dict[str, Callable[[Any, Any], Any]] = {
    "add": lambda v, a: normalize(v + a),
    "multiply": lambda v, a: normalize(v * a),
    "replace": lambda v, a: a,
    "at least": lambda v, a: max(v, a),
    "at most": lambda v, a: min(v, a),
}


def round_half_away(x: Fraction | int) -> int:
    return math.floor(x + Fraction(1, 2)) if x >= 0 else -math.floor(-x + Fraction(1, 2))


_EVALUATORS: dict[type, Callable[[Any, Env], Any]] = {
    n.Number: _number,
    n.Text: _constant,
    n.Bool: _constant,
    n.NoneLit: _none,
    n.Dice: _dice,
    n.Name: _name,
    n.Attr: _attr,
    n.Index: _index,
    n.Unary: _unary,
    n.Binary: _binary,
    n.Conditional: _conditional,
    n.ListLit: _list,
    n.Comprehension: _comprehension,
    n.RecordLit: _record,
    n.Call: _call,
}
