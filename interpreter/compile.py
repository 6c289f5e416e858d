"""Compiling checked expressions into Python closures, once per ruleset.

Each expression node becomes a closure `fn(env) -> value`. Everything that
can be decided from the text alone is decided here, when the closure is
made: which evaluator a node needs, which operator, whether a name is an
outcome, a parameter or a row, which function or modifier a call reaches
and how its arguments bind. A resolution then only calls closures.

Compilation is lazy (a node is compiled when it is first evaluated) and
cached by node, so an unused branch costs nothing and a ruleset is
compiled at most once however many times it runs.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from dsl import nodes as n
from dsl.builtins import SIGNATURES
from dsl.ruleset import Ruleset
from interpreter.builtins import IMPLEMENTATIONS, dice_problem
from interpreter.env import Env, digit_check, field, lookup, record_of
from interpreter.errors import RunError
from interpreter.runtime.chance import Dice
from interpreter.values import Record, Ref, RowRef, normalize, show

Fn = Callable[[Env], Any]


def compiler_for(rules: Ruleset) -> Compiler:
    compiler = rules.runtime_cache.get("compiler")
    if compiler is None:
        compiler = rules.runtime_cache["compiler"] = Compiler(rules)
    return compiler


class Compiler:
    def __init__(self, rules: Ruleset):
        self.rules = rules
        # (what, id(node)) -> (node, closure); holding the node keeps its id from being reused.
        self._done: dict[tuple[str, int], tuple[n.Node, Any]] = {}

    def __len__(self) -> int:
        """How many closures have been made so far."""
        return len(self._done)

    def cached(self, kind: str, node: Any, make: Callable[[], Any]) -> Any:
        """What `make` builds for this node, built once."""
        key = (kind, id(node))
        hit = self._done.get(key)
        if hit is None or hit[0] is not node:
            hit = self._done[key] = (node, make())
        return hit[1]

    def expr(self, node: n.Expr) -> Fn:
        # cached() written out: deeply nested expressions compile with two frames a level
        key = ("expr", id(node))
        hit = self._done.get(key)
        if hit is None or hit[0] is not node:
            hit = self._done[key] = (node, _COMPILERS[type(node)](node, self))
        return hit[1]

    def test(self, node: n.Expr) -> Fn:
        """A closure for a condition: it must come out true or false."""
        return self.cached("test", node, lambda: self._make_test(node))

    def _make_test(self, node: n.Expr) -> Fn:
        value = self.expr(node)
        if _always_bool(node):
            return value
        pos = node.pos

        def test(env: Env) -> bool:
            result = value(env)
            if result is True or result is False:
                return result
            raise RunError(pos, f"a condition must be true or false, not {show(result)}")

        return test

    def binder(self, call: n.Call, params: tuple[n.Param, ...]) -> Callable[[Env], dict[str, Any]]:
        """Argument values by parameter name; defaults are evaluated where the callee is declared."""
        return self.cached("binder", call, lambda: self._make_binder(call, params))

    def _make_binder(self, call: n.Call, params: tuple[n.Param, ...]) -> Callable[[Env], dict[str, Any]]:
        given = [(param.name, self.expr(arg)) for param, arg in zip(params, call.args)]
        given += [(kw.name, self.expr(kw.value)) for kw in call.keywords]
        named = {name for name, _ in given}
        missing = [(p.name, None if p.default is None else self.expr(p.default)) for p in params if p.name not in named]

        def bind(env: Env) -> dict[str, Any]:
            frame = {name: value(env) for name, value in given}
            for name, default in missing:
                if default is None:
                    raise RunError(call.pos, f"'{call.func}' needs '{name}'")
                frame[name] = default(env.outside())
            return frame

        return bind


_BOOLEAN_OPS = {"and", "or", "==", "!=", "<", "<=", ">", ">=", "in", "not in"}


def _always_bool(node: n.Expr) -> bool:
    return (isinstance(node, (n.Bool, n.InRange)) or (isinstance(node, n.Binary) and node.op in _BOOLEAN_OPS)
            or (isinstance(node, n.Unary) and node.op == "not"))


# ---- leaves -------------------------------------------------------------------------


def _constant(expr: n.Number | n.Text | n.Bool, c: Compiler) -> Fn:
    value = expr.value
    return lambda env: value


def _none(expr: n.NoneLit, c: Compiler) -> Fn:
    return lambda env: None


def _dice(expr: n.Dice, c: Compiler) -> Fn:
    dice, pos, limits = Dice(expr.count, expr.sides), expr.pos, c.rules.limits
    problem = dice_problem(expr.count, expr.sides, limits)
    if problem:
        def refused(env: Env) -> Any:
            raise RunError(pos, problem, limits.hint("count"))
        return refused
    return lambda env: env.chooser.draw(dice, pos)


def _name(expr: n.Name, c: Compiler) -> Fn:
    name, pos, rules = expr.name, expr.pos, c.rules
    # Local names shadow everything; what a name means otherwise is known from the rules.
    if name in rules.outcomes:
        def outcome(env: Env) -> Any:
            frame = env.frame
            if name in frame:
                return frame[name]
            outcomes = env.state.outcomes
            return outcomes[name] if name in outcomes else lookup(name, env, pos)
        return outcome
    if name in rules.params or name in rules.choices:
        def param(env: Env) -> Any:
            frame = env.frame
            if name in frame:
                return frame[name]
            params = env.program.params
            # Absent only while parameters are being set, when one reads a later one.
            return params[name] if name in params else lookup(name, env, pos)
        return param
    if name in rules.rows:
        def row(env: Env) -> Any:
            frame = env.frame
            return frame[name] if name in frame else env.program.row_refs[name]
        return row

    def local(env: Env) -> Any:
        frame = env.frame
        return frame[name] if name in frame else lookup(name, env, pos)
    return local


def _attr(expr: n.Attr, c: Compiler) -> Fn:
    obj, name, pos = c.expr(expr.obj), expr.name, expr.pos

    def attr(env: Env) -> Any:
        value = obj(env)
        kind = type(value)
        if kind is Ref:
            record = env.state.world[value.id]
        elif kind is RowRef:
            record = env.program.rows[value.name]
        else:
            return field(value, name, env, pos)
        index = record.shape.index.get(name)
        if index is None:
            return field(record, name, env, pos)  # says which kind lacks the field
        return record.values[index]

    return attr


def _index(expr: n.Index, c: Compiler) -> Fn:
    obj, index, pos = c.expr(expr.obj), c.expr(expr.index), expr.pos

    def item(env: Env) -> Any:
        items = obj(env)
        i = index(env)
        if not isinstance(items, tuple):
            raise RunError(pos, f"only a list can be indexed, not {show(items)}")
        if not isinstance(i, int) or not -len(items) <= i < len(items):
            raise RunError(expr.index.pos, f"index {show(i)} is outside a list of {len(items)}")
        return items[i]

    if not (isinstance(expr.obj, n.Name) and expr.obj.name in c.rules.tables):
        return item
    name = expr.obj.name
    keys = [c.expr(key) for key in (expr.index, *expr.more)]

    def cell(env: Env) -> Any:
        if name in env.frame:  # a local list that shadows the table
            return item(env)
        row, column = (key(env) for key in keys)
        if not isinstance(row, RowRef) or not isinstance(column, RowRef):
            raise RunError(pos, f"table '{name}' is looked up by two rows, not {show(row)} and {show(column)}")
        program = env.program
        found = program.tables[name].get((row.name, column.name))
        if found is not None:
            return found
        if name in program.table_defaults:
            return program.table_defaults[name]
        raise RunError(pos, f"table '{name}' has no value for {row.name} and {column.name}",
                       "add the row or column to the table, or give the table a default")

    return cell


# ---- operators --------------------------------------------------------------------------


def _unary(expr: n.Unary, c: Compiler) -> Fn:
    if expr.op == "not":
        test = c.test(expr.operand)
        return lambda env: not test(env)
    operand = c.expr(expr.operand)
    return lambda env: -operand(env)


def add_values(a: Any, b: Any, pos: n.Pos) -> Any:
    try:
        return normalize(a + b) if isinstance(a, (int, Fraction)) else a + b
    except TypeError:
        raise RunError(pos, f"cannot add {show(a)} and {show(b)}") from None


def _divide(a: Any, b: Any, pos: n.Pos) -> Any:
    if b == 0:
        raise RunError(pos, "division by zero")
    return normalize(Fraction(a) / Fraction(b))


def _ordered(op: Callable[[Any, Any], bool], symbol: str) -> Callable[[Any, Any, n.Pos], bool]:
    def compare(a: Any, b: Any, pos: n.Pos) -> bool:
        if a is None or b is None:
            raise RunError(pos, f"cannot compare none with '{symbol}'")
        return op(a, b)
    return compare


# Each takes the two values and the position to blame.
_OPERATORS: dict[str, Callable[[Any, Any, n.Pos], Any]] = {
    "+": add_values,
    "-": lambda a, b, pos: normalize(a - b),
    "*": lambda a, b, pos: normalize(a * b),
    "/": _divide,
    "==": lambda a, b, pos: a == b,
    "!=": lambda a, b, pos: a != b,
    "<": _ordered(operator.lt, "<"),
    "<=": _ordered(operator.le, "<="),
    ">": _ordered(operator.gt, ">"),
    ">=": _ordered(operator.ge, ">="),
    "in": lambda a, b, pos: a in b,
    "not in": lambda a, b, pos: a not in b,
}
# Whole numbers need no normalising: the common case skips it.
_WHOLE = {"+": operator.add, "-": operator.sub, "*": operator.mul}
_ARITHMETIC = {"+", "-", "*", "/"}


def _binary(expr: n.Binary, c: Compiler) -> Fn:
    op, pos = expr.op, expr.pos
    if op == "and":
        left_test, right_test = c.test(expr.left), c.test(expr.right)
        return lambda env: left_test(env) and right_test(env)
    if op == "or":
        left_test, right_test = c.test(expr.left), c.test(expr.right)
        return lambda env: left_test(env) or right_test(env)
    left, right = c.expr(expr.left), c.expr(expr.right)
    apply = _OPERATORS.get(op)
    if apply is None:
        def unknown(env: Env) -> Any:
            raise RunError(pos, f"unknown operator {op}")
        return unknown
    if op not in _ARITHMETIC:
        return lambda env: apply(left(env), right(env), pos)
    within = digit_check(c.rules.limits, pos)
    whole = _WHOLE.get(op)
    if whole is not None:
        # Whole numbers added or subtracted grow by a digit at most: only the rest is checked.
        unchecked = op in ("+", "-")

        def arithmetic(env: Env) -> Any:
            a = left(env)
            b = right(env)
            if type(a) is int and type(b) is int:
                return whole(a, b) if unchecked else within(whole(a, b))
            return within(apply(a, b, pos))
        return arithmetic
    return lambda env: within(apply(left(env), right(env), pos))


def _in_range(expr: n.InRange, c: Compiler) -> Fn:
    value, low, high, negated, pos = c.expr(expr.value), c.expr(expr.low), c.expr(expr.high), expr.negated, expr.pos

    def in_range(env: Env) -> bool:
        x, a, b = value(env), low(env), high(env)
        if x is None or a is None or b is None:
            raise RunError(pos, "cannot compare none with 'in low..high'")
        return (a <= x <= b) != negated

    return in_range


def _conditional(expr: n.Conditional, c: Compiler) -> Fn:
    test, then, otherwise = c.test(expr.test), c.expr(expr.then), c.expr(expr.otherwise)
    return lambda env: then(env) if test(env) else otherwise(env)


# ---- composites ---------------------------------------------------------------------------


def _list(expr: n.ListLit, c: Compiler) -> Fn:
    items = [c.expr(item) for item in expr.items]
    return lambda env: tuple([item(env) for item in items])


def _comprehension(expr: n.Comprehension, c: Compiler) -> Fn:
    source, var, item = c.expr(expr.source), expr.var, c.expr(expr.item)
    condition = None if expr.condition is None else c.test(expr.condition)

    def comprehension(env: Env) -> tuple[Any, ...]:
        out = []
        for value in source(env):
            inner = Env(env.program, env.state, {**env.frame, var: value}, env.chooser, env.depth)
            if condition is None or condition(inner):
                out.append(item(inner))
        return tuple(out)

    return comprehension


def _record(expr: n.RecordLit, c: Compiler) -> Fn:
    """A record written in a step: a constant value of its kind (defaults filled in)."""
    kind = c.rules.kinds[c.rules.record_kinds[id(expr)]]
    given = {f.name: c.expr(f.value) for f in expr.fields}
    plan = [(info.name, given.get(info.name), None if info.default is None else c.expr(info.default))
            for info in kind.fields]

    def record(env: Env) -> Record:
        values: dict[str, Any] = {}
        for name, value, default in plan:
            if value is not None:
                values[name] = value(env)
            elif default is not None:
                values[name] = default(Env(env.program, env.state, values, env.chooser, env.depth))
            else:
                values[name] = None
        return Record(env.program.shapes[kind.name], tuple(values.values()))

    return record


# ---- calls ------------------------------------------------------------------------------------


def _call(expr: n.Call, c: Compiler) -> Fn:
    rules = c.rules
    if expr.func in rules.fns:
        return _function(expr, rules.fns[expr.func], c)
    if expr.func in rules.modifiers:
        return _modifier(expr, rules.modifiers[expr.func], c)
    return _builtin(expr, c)


def _function(call: n.Call, decl: n.FnDecl, c: Compiler) -> Fn:
    bind, pos = c.binder(call, decl.params), call.pos
    body: list[Fn] = []  # compiled on first call, so recursive functions compile

    def function(env: Env) -> Any:
        frame = bind(env)
        if not body:
            body.append(c.expr(decl.body))
        return body[0](env.inner(frame, pos))

    return function


_TERMS: dict[str, Callable[[Any, Any], Any]] = {
    "add": lambda v, a: normalize(v + a),
    "multiply": lambda v, a: normalize(v * a),
    "replace": lambda v, a: a,
    "at least": lambda v, a: max(v, a),
    "at most": lambda v, a: min(v, a),
}


def _modifier(call: n.Call, decl: n.ModifierDecl, c: Compiler) -> Fn:
    """Start from the first argument and apply each term whose condition holds, in order."""
    bind, pos, first = c.binder(call, decl.params), call.pos, decl.params[0].name
    terms: list[tuple[n.Node, Fn | None, Fn, Callable[[Any, Any], Any]]] = []

    within = digit_check(c.rules.limits, pos)

    def modifier(env: Env) -> Any:
        if not terms:
            terms.extend((t, None if t.when is None else c.test(t.when), c.expr(t.amount), _TERMS[t.op])
                         for t in decl.terms)
        frame = bind(env)
        inner = env.inner(frame, pos)
        value = start = frame[first]
        trace = getattr(env.chooser, "trace", None)
        applied = []
        for term, when, amount, apply in terms:
            if when is not None and not when(inner):
                continue
            before = value
            value = within(apply(value, amount(inner)))
            if trace is not None and value != before:
                applied.append(term)
        if applied:
            _log_modifier(trace, c.rules, decl, call, start, value, applied)
        return value

    return modifier


def _log_modifier(trace: Any, rules: Ruleset, decl: n.ModifierDecl, call: n.Call, start: Any, value: Any,
                  applied: list[n.Node]) -> None:
    source = rules.source(decl.pos)
    steps = "; ".join(f"line {t.pos.line}: {source.line(t.pos.line).strip()}" for t in applied)
    trace.add("modifier", call.pos, f"{decl.name}: {show(start)} -> {show(value)} ({steps})",
              modifier=decl.name, start=show(start), result=show(value), terms=[t.pos.line for t in applied])


def _builtin(call: n.Call, c: Compiler) -> Fn:
    pos, sig, implementation = call.pos, SIGNATURES.get(call.func), IMPLEMENTATIONS.get(call.func)
    if sig is None or implementation is None:
        def unknown(env: Env) -> Any:
            raise RunError(pos, f"unknown function '{call.func}'")
        return unknown
    if sig.variadic:
        items = [c.expr(a) for a in call.args]

        def variadic(env: Env) -> Any:
            values = [item(env) for item in items]
            if len(values) == 1 and isinstance(values[0], tuple):
                values = list(values[0])
            if not values:
                raise RunError(pos, f"'{call.func}' of an empty list")
            return implementation({"items": values}, env, pos)
        return variadic
    given = [(name, c.expr(arg)) for (name, _), arg in zip(sig.params, call.args)]
    given += [(kw.name, c.expr(kw.value)) for kw in call.keywords]
    return lambda env: implementation({name: value(env) for name, value in given}, env, pos)


_COMPILERS: dict[type, Callable[[Any, Compiler], Fn]] = {
    n.Number: _constant,
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
    n.InRange: _in_range,
    n.ListLit: _list,
    n.Comprehension: _comprehension,
    n.RecordLit: _record,
    n.Call: _call,
}
