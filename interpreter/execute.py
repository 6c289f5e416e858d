"""Statement execution over a distribution of states.

A block runs statement by statement on a dictionary State -> probability.
After each statement equal states merge, which keeps the exact engine a
Markov chain over states rather than a tree of roll sequences. The sampling
and forced engines run the very same code on a single state of weight 1.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from dsl import nodes as n
from interpreter.errors import RunError
from interpreter.evaluate import Env, bind_arguments, evaluate, field, lookup, truth
from interpreter.state import Frozen, State
from interpreter.values import Record, Ref, RowRef, normalize, show

if TYPE_CHECKING:
    from interpreter.program import Program

Dist = dict[State, Any]  # probability: Fraction (exact) or int 1 (sampled)

def _add(dist: Dist, state: State, p: Any) -> None:
    before = dist.get(state)
    dist[state] = p if before is None else before + p


def run_block(stmts: tuple[n.Stmt, ...], dist: Dist, program: Program) -> Dist:
    for stmt in stmts:
        live: Dist = {}
        done: Dist = {}
        for state, p in dist.items():
            (done if state.stopped is not None or state.returning else live)[state] = p
        if not live:
            return dist
        result = _EXECUTORS[type(stmt)](stmt, live, program)
        for state, p in result.items():
            _add(done, state, p)
        if len(done) > program.engine_limit:
            raise RunError(stmt.pos, f"the exact engine holds more than {program.engine_limit} states here",
                           "estimate by sampling instead (--samples N), or raise the limit with --limit states=N")
        dist = done
    return dist


def _each(live: Dist, program: Program, step: Callable[[State, Any], State], node: n.Node) -> Dist:
    """Apply a simple statement to every state, branching wherever it meets chance."""
    out: Dist = {}
    engine = program.engine
    if engine.exact and not program.chance.may_draw(node):
        for state, p in live.items():
            _add(out, step(state, engine), p)
        return out
    for state, p in live.items():
        for q, new in engine.branches(lambda chooser, s=state: step(s, chooser)):
            _add(out, new, p * q)
    return out


def _env(state: State, program: Program, chooser: Any) -> Env:
    return Env(program, state, state.frames[-1], chooser)


def _drop_locals(dist: Dist, names: set[str]) -> Dist:
    if not names:
        return dist
    out: Dist = {}
    for state, p in dist.items():
        _add(out, state.with_locals(state.locals.without(names)), p)
    return out


def _declared(stmts: tuple[n.Stmt, ...]) -> set[str]:
    return {s.name for s in stmts if isinstance(s, n.Let)}


# ---- statements -------------------------------------------------------------------


def _let(stmt: n.Let, live: Dist, program: Program) -> Dist:
    return _each(live, program, lambda s, ch: s.bind(stmt.name, evaluate(stmt.value, _env(s, program, ch))), stmt)


def _assign(stmt: n.Assign, live: Dist, program: Program) -> Dist:
    def step(state: State, chooser: Any) -> State:
        env = _env(state, program, chooser)
        value = evaluate(stmt.value, env)
        head, *path = stmt.target
        if not path:
            old = lookup(head, env, stmt.pos)
            new = _combine(stmt, old, value)
            if head in state.locals:
                return state.bind(head, new)
            _log_change(chooser, stmt, head, old, new)
            return state.with_outcome(head, new)
        owner = lookup(head, env, stmt.pos)
        for name in path[:-1]:
            owner = field(owner, name, env, stmt.pos)
        last = path[-1]
        if isinstance(owner, RowRef):
            raise RunError(stmt.pos, f"'{owner.name}' is a row: rows are constants",
                           "store changing values in the scenario's things, not in rows")
        if not isinstance(owner, Ref):
            raise RunError(stmt.pos, f"cannot change a field of {show(owner)}")
        record: Record = state.world[owner.id]
        old = record.get(last)
        new = _combine(stmt, old, value)
        _log_change(chooser, stmt, f"{owner.id}.{last}", old, new)
        return state.with_entity(owner.id, record.replace(last, new))

    return _each(live, program, step, stmt)


def _combine(stmt: n.Assign, old: Any, value: Any) -> Any:
    if stmt.op == "=":
        return value
    if stmt.op == "+=":
        return normalize(old + value) if isinstance(old, (int, float)) or hasattr(old, "denominator") else old + value
    if stmt.op == "-=":
        return normalize(old - value)
    return normalize(old * value)


def _log_change(chooser: Any, stmt: n.Assign, what: str, old: Any, new: Any) -> None:
    trace = getattr(chooser, "trace", None)
    if trace is not None and old != new:
        trace.add("change", stmt.pos, f"{what}: {show(old)} -> {show(new)}", target=what, before=show(old), after=show(new))


def _if(stmt: n.If, live: Dist, program: Program) -> Dist:
    then: Dist = {}
    otherwise: Dist = {}
    engine = program.engine
    direct = engine.exact and not program.chance.may_draw(stmt.test)
    for state, p in live.items():
        if direct:
            _add(then if truth(stmt.test, _env(state, program, engine)) else otherwise, state, p)
            continue
        for q, holds in engine.branches(lambda ch, s=state: truth(stmt.test, _env(s, program, ch))):
            _add(then if holds else otherwise, state, p * q)
    out: Dist = {}
    for branch, body in ((then, stmt.then), (otherwise, stmt.otherwise)):
        if branch:
            for state, p in _drop_locals(run_block(body, branch, program), _declared(body)).items():
                _add(out, state, p)
    return out


def _for(stmt: n.For, live: Dist, program: Program) -> Dist:
    # States that loop over the same items run the loop together, item by item.
    groups: dict[tuple[Any, ...], Dist] = {}
    engine = program.engine
    for state, p in live.items():
        for q, items in engine.branches(lambda ch, s=state: evaluate(stmt.source, _env(s, program, ch))):
            if not isinstance(items, tuple):
                raise RunError(stmt.source.pos, f"a for loop runs over a list, not {show(items)}")
            limits = program.rules.limits
            if len(items) > limits.loop_items:
                raise RunError(stmt.source.pos, f"a loop over {len(items)} items is over the limit of {limits.loop_items}",
                               limits.hint("loop_items"))
            _add(groups.setdefault(items, {}), state, p * q)
    out: Dist = {}
    names = _declared(stmt.body) | {stmt.var}
    for items, dist in groups.items():
        for item in items:
            bound: Dist = {}
            for state, p in dist.items():
                _add(bound, state.bind(stmt.var, item), p)
            dist = _drop_locals(run_block(stmt.body, bound, program), _declared(stmt.body))
        for state, p in _drop_locals(dist, names).items():
            _add(out, state, p)
    return out


def _stop(stmt: n.Stop, live: Dist, program: Program) -> Dist:
    reason = stmt.reason or f"stopped at line {stmt.pos.line}"
    trace = getattr(program.engine, "trace", None)
    if trace is not None:
        trace.add("stop", stmt.pos, f"stop: {reason}", reason=reason)
    out: Dist = {}
    for state, p in live.items():
        _add(out, state.stop(reason), p)
    return out


def _return(stmt: n.Return, live: Dist, program: Program) -> Dist:
    trace = getattr(program.engine, "trace", None)
    if trace is not None:
        trace.add("return", stmt.pos, "end of step" + (f": {stmt.reason}" if stmt.reason else ""), reason=stmt.reason)
    out: Dist = {}
    for state, p in live.items():
        _add(out, state.leave_step(), p)
    return out


def _event(stmt: n.Event, live: Dist, program: Program) -> Dist:
    trace = getattr(program.engine, "trace", None)
    if trace is None:
        return live
    for state in live:
        env = _env(state, program, program.engine)
        args = [show(evaluate(a, env)) for a in stmt.args]
        keywords = {kw.name: show(evaluate(kw.value, env)) for kw in stmt.keywords}
        shown = ", ".join(args + [f"{k}: {v}" for k, v in keywords.items()])
        trace.add("event", stmt.pos, f"{stmt.name}({shown})", name=stmt.name, args=args, keywords=keywords)
    return live


def _call(stmt: n.CallStmt, live: Dist, program: Program) -> Dist:
    call = stmt.call
    decl = program.rules.steps.get(call.func) or program.rules.actions.get(call.func)
    if decl is None:
        raise RunError(call.pos, f"unknown step '{call.func}'")
    trace = getattr(program.engine, "trace", None)
    if trace is not None:
        trace.add("step", decl.pos, f"step {call.func}", step=call.func, called_at=call.pos.line)
    entered = _each(live, program, lambda s, ch: s.push(Frozen(bind_arguments(call, decl.params, _env(s, program, ch)))),
                    call)
    limits = program.rules.limits
    if len(next(iter(entered)).frames) > limits.call_depth:
        raise RunError(call.pos, f"steps call each other more than {limits.call_depth} deep",
                       "a step may be calling itself forever; " + limits.hint("call_depth"))
    out: Dist = {}
    for state, p in run_block(decl.body, entered, program).items():
        _add(out, state.pop(), p)
    return out


_EXECUTORS: dict[type, Callable[[Any, Dist, Program], Dist]] = {
    n.Let: _let,
    n.Assign: _assign,
    n.If: _if,
    n.For: _for,
    n.Stop: _stop,
    n.Return: _return,
    n.Event: _event,
    n.CallStmt: _call,
}
