"""Compiled statements: what one statement does to one state.

Every statement becomes a closure `run(program, state, chooser) -> state`.
The sampling and forced engines run a whole action through these closures,
one state at a time, with no distribution to keep. The exact engine
(interpreter.execute) uses the same closures for the simple statements and
does its own branching and merging around if, for and step calls.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from dsl import nodes as n
from interpreter.compile import Compiler
from interpreter.env import Env, digit_check, field, lookup
from interpreter.errors import RunError
from interpreter.state import Frozen, State
from interpreter.values import Record, Ref, RowRef, normalize, show

if TYPE_CHECKING:
    from interpreter.program import Program

Run = Callable[["Program", State, Any], State]


def env_of(program: Program, state: State, chooser: Any) -> Env:
    return Env(program, state, state.frames[-1], chooser)


def declared(stmts: tuple[n.Stmt, ...]) -> frozenset[str]:
    """The local names a block declares, which go out of scope when it ends."""
    return frozenset(s.name for s in stmts if isinstance(s, n.Let))


def drop_locals(state: State, names: frozenset[str]) -> State:
    return state.with_locals(state.locals.without(names)) if names else state


def loop_items(items: Any, stmt: n.For, program: Program) -> tuple[Any, ...]:
    if not isinstance(items, tuple):
        raise RunError(stmt.source.pos, f"a for loop runs over a list, not {show(items)}")
    limits = program.rules.limits
    if len(items) > limits.loop_items:
        raise RunError(stmt.source.pos, f"a loop over {len(items)} items is over the limit of {limits.loop_items}",
                       limits.hint("loop_items"))
    return items


def check_call_depth(state: State, call: n.Call, program: Program) -> None:
    limits = program.rules.limits
    if len(state.frames) > limits.call_depth:
        raise RunError(call.pos, f"steps call each other more than {limits.call_depth} deep",
                       "a step may be calling itself forever; " + limits.hint("call_depth"))


def step_decl(call: n.Call, program: Program) -> n.StepDecl:
    decl = program.rules.steps.get(call.func) or program.rules.actions.get(call.func)
    if decl is None:
        raise RunError(call.pos, f"unknown step '{call.func}'")
    return decl


def trace_of(chooser: Any) -> Any:
    return getattr(chooser, "trace", None)


# ---- simple statements: no control flow, shared by every engine ------------------------


def simple(stmt: n.Stmt, c: Compiler) -> Run:
    return c.cached("stmt", stmt, lambda: _SIMPLE[type(stmt)](stmt, c))


def _let(stmt: n.Let, c: Compiler) -> Run:
    name, value = stmt.name, c.expr(stmt.value)
    return lambda program, state, chooser: state.bind(name, value(env_of(program, state, chooser)))


def _assign(stmt: n.Assign, c: Compiler) -> Run:
    value, combine = c.expr(stmt.value), _COMBINE[stmt.op]
    if stmt.op != "=":
        within, operation = digit_check(c.rules.limits, stmt.pos), combine
        combine = lambda old, new: within(operation(old, new))  # noqa: E731
    head, *path = stmt.target
    pos = stmt.pos

    if not path:
        def assign_name(program: Program, state: State, chooser: Any) -> State:
            env = env_of(program, state, chooser)
            new = value(env)
            old = lookup(head, env, pos)
            new = combine(old, new)
            if head in state.locals:
                return state.bind(head, new)
            _log_change(chooser, stmt, head, old, new)
            return state.with_outcome(head, new)
        return assign_name

    owner_path, last = path[:-1], path[-1]

    def assign_field(program: Program, state: State, chooser: Any) -> State:
        env = env_of(program, state, chooser)
        new = value(env)
        owner = lookup(head, env, pos)
        for name in owner_path:
            owner = field(owner, name, env, pos)
        if type(owner) is not Ref:
            if isinstance(owner, RowRef):
                raise RunError(pos, f"'{owner.name}' is a row: rows are constants",
                               "store changing values in the scenario's things, not in rows")
            raise RunError(pos, f"cannot change a field of {show(owner)}")
        record: Record = state.world[owner.id]
        old = record.get(last)
        new = combine(old, new)
        _log_change(chooser, stmt, f"{owner.id}.{last}", old, new)
        return state.with_entity(owner.id, record.replace(last, new))

    return assign_field


def _add_assign(old: Any, value: Any) -> Any:
    if type(old) is int and type(value) is int:
        return old + value
    # numbers are normalised; pools and volleys concatenate
    return normalize(old + value) if isinstance(old, (int, float)) or hasattr(old, "denominator") else old + value


_COMBINE: dict[str, Callable[[Any, Any], Any]] = {
    "=": lambda old, value: value,
    "+=": _add_assign,
    "-=": lambda old, value: normalize(old - value),
    "*=": lambda old, value: normalize(old * value),
}


def _log_change(chooser: Any, stmt: n.Assign, what: str, old: Any, new: Any) -> None:
    trace = trace_of(chooser)
    if trace is not None and old != new:
        trace.add("change", stmt.pos, f"{what}: {show(old)} -> {show(new)}", target=what, before=show(old), after=show(new))


def _event(stmt: n.Event, c: Compiler) -> Run:
    args = [c.expr(a) for a in stmt.args]
    keywords = [(kw.name, c.expr(kw.value)) for kw in stmt.keywords]

    def event(program: Program, state: State, chooser: Any) -> State:
        # The arguments are evaluated even with no log to write: a die among them must
        # draw, so that a seed gives the same resolution with or without the log.
        env = env_of(program, state, chooser)
        values = [a(env) for a in args]
        named = [(name, k(env)) for name, k in keywords]
        trace = trace_of(chooser)
        if trace is None:
            return state
        shown_args = [show(value) for value in values]
        shown_keywords = {name: show(value) for name, value in named}
        shown = ", ".join(shown_args + [f"{k}: {v}" for k, v in shown_keywords.items()])
        trace.add("event", stmt.pos, f"{stmt.name}({shown})", name=stmt.name, args=shown_args, keywords=shown_keywords)
        return state

    return event


def _stop(stmt: n.Stop, c: Compiler) -> Run:
    reason = stmt.reason or f"stopped at line {stmt.pos.line}"

    def stop(program: Program, state: State, chooser: Any) -> State:
        trace = trace_of(chooser)
        if trace is not None:
            trace.add("stop", stmt.pos, f"stop: {reason}", reason=reason)
        return state.stop(reason)

    return stop


def _return(stmt: n.Return, c: Compiler) -> Run:
    def leave(program: Program, state: State, chooser: Any) -> State:
        trace = trace_of(chooser)
        if trace is not None:
            trace.add("return", stmt.pos, "end of step" + (f": {stmt.reason}" if stmt.reason else ""),
                      reason=stmt.reason)
        return state.leave_step()

    return leave


def enter(call: n.Call, c: Compiler) -> Run:
    """The first half of a step call: log it and push the step's frame of arguments."""
    def make() -> Run:
        bind: list[Callable[[Env], dict[str, Any]]] = []

        def push(program: Program, state: State, chooser: Any) -> State:
            decl = step_decl(call, program)
            if not bind:
                bind.append(c.binder(call, decl.params))
            trace = trace_of(chooser)
            if trace is not None:
                trace.add("step", decl.pos, f"step {call.func}", step=call.func, called_at=call.pos.line)
            return state.push(Frozen(bind[0](env_of(program, state, chooser))))

        return push

    return c.cached("enter", call, make)


_SIMPLE: dict[type, Callable[[Any, Compiler], Run]] = {
    n.Let: _let,
    n.Assign: _assign,
    n.Event: _event,
    n.Stop: _stop,
    n.Return: _return,
}


# ---- one state at a time: the sampling and forced engines ---------------------------------


def block(stmts: tuple[n.Stmt, ...], c: Compiler) -> Run:
    """A block run on one state; a stopped state or an ended step skips what is left."""
    def make() -> Run:
        runs = [_one(stmt, c) for stmt in stmts]

        def run(program: Program, state: State, chooser: Any) -> State:
            for statement in runs:
                if state.stopped is not None or state.returning:
                    break
                state = statement(program, state, chooser)
            return state

        return run

    return c.cached("block", stmts, make)


def _one(stmt: n.Stmt, c: Compiler) -> Run:
    if type(stmt) in _SIMPLE:
        return simple(stmt, c)
    return _FLOW[type(stmt)](stmt, c)


def _if(stmt: n.If, c: Compiler) -> Run:
    test = c.test(stmt.test)
    then, then_names = block(stmt.then, c), declared(stmt.then)
    otherwise, otherwise_names = block(stmt.otherwise, c), declared(stmt.otherwise)

    def branch(program: Program, state: State, chooser: Any) -> State:
        if test(env_of(program, state, chooser)):
            return drop_locals(then(program, state, chooser), then_names)
        return drop_locals(otherwise(program, state, chooser), otherwise_names)

    return branch


def _for(stmt: n.For, c: Compiler) -> Run:
    source, var = c.expr(stmt.source), stmt.var
    body, body_names = block(stmt.body, c), declared(stmt.body)
    names = body_names | {var}

    def loop(program: Program, state: State, chooser: Any) -> State:
        for item in loop_items(source(env_of(program, state, chooser)), stmt, program):
            if state.stopped is not None or state.returning:
                break
            state = drop_locals(body(program, state.bind(var, item), chooser), body_names)
        return drop_locals(state, names)

    return loop


def _call(stmt: n.CallStmt, c: Compiler) -> Run:
    call, push = stmt.call, enter(stmt.call, c)
    body: list[Run] = []  # compiled on first call, so steps may call themselves

    def call_step(program: Program, state: State, chooser: Any) -> State:
        state = push(program, state, chooser)
        check_call_depth(state, call, program)
        if not body:
            body.append(block(step_decl(call, program).body, c))
        return body[0](program, state, chooser).pop()

    return call_step


_FLOW: dict[type, Callable[[Any, Compiler], Run]] = {
    n.If: _if,
    n.For: _for,
    n.CallStmt: _call,
}
