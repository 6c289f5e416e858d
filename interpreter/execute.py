"""Statement execution over a distribution of states.

A block runs statement by statement on a dictionary State -> probability.
After each statement equal states merge, which keeps the exact engine a
Markov chain over states rather than a tree of roll sequences. Simple
statements are the compiled closures of interpreter.statements, which the
sampling and forced engines run on their single state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from dsl import nodes as n
from interpreter.compile import compiler_for
from interpreter.errors import RunError
from interpreter.state import State
from interpreter.statements import (Run, check_call_depth, declared, drop_locals, enter, env_of, loop_items, simple,
                                    step_decl)

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
                           "estimate by sampling instead (fracas odds --samples N), or raise the limit with --limit states=N")
        dist = done
    return dist


def _each(live: Dist, program: Program, step: Run, node: n.Node) -> Dist:
    """Apply a simple statement to every state, branching wherever it meets chance."""
    out: Dist = {}
    engine = program.engine
    if engine.exact and not program.chance.may_draw(node):
        for state, p in live.items():
            _add(out, step(program, state, engine), p)
        return out
    for state, p in live.items():
        for q, new in engine.branches(lambda chooser, s=state: step(program, s, chooser)):
            _add(out, new, p * q)
    return out


def _drop_locals(dist: Dist, names: frozenset[str]) -> Dist:
    if not names:
        return dist
    out: Dist = {}
    for state, p in dist.items():
        _add(out, drop_locals(state, names), p)
    return out


def _run_block_of(body: tuple[n.Stmt, ...], dist: Dist, program: Program) -> Dist:
    """A nested block: its own locals go out of scope when it ends."""
    return _drop_locals(run_block(body, dist, program), declared(body))


# ---- statements -------------------------------------------------------------------


def _simple(stmt: n.Stmt, live: Dist, program: Program) -> Dist:
    if isinstance(stmt, n.Event) and program.engine.trace is None:
        return live
    return _each(live, program, simple(stmt, compiler_for(program.rules)), stmt)


def _if(stmt: n.If, live: Dist, program: Program) -> Dist:
    then: Dist = {}
    otherwise: Dist = {}
    engine = program.engine
    test = compiler_for(program.rules).test(stmt.test)
    direct = engine.exact and not program.chance.may_draw(stmt.test)
    for state, p in live.items():
        if direct:
            _add(then if test(env_of(program, state, engine)) else otherwise, state, p)
            continue
        for q, holds in engine.branches(lambda ch, s=state: test(env_of(program, s, ch))):
            _add(then if holds else otherwise, state, p * q)
    out: Dist = {}
    for branch, body in ((then, stmt.then), (otherwise, stmt.otherwise)):
        if branch:
            for state, p in _run_block_of(body, branch, program).items():
                _add(out, state, p)
    return out


def _for(stmt: n.For, live: Dist, program: Program) -> Dist:
    # States that loop over the same items run the loop together, item by item.
    groups: dict[tuple[Any, ...], Dist] = {}
    engine = program.engine
    source = compiler_for(program.rules).expr(stmt.source)
    for state, p in live.items():
        for q, items in engine.branches(lambda ch, s=state: source(env_of(program, s, ch))):
            _add(groups.setdefault(loop_items(items, stmt, program), {}), state, p * q)
    out: Dist = {}
    names = declared(stmt.body) | {stmt.var}
    for items, dist in groups.items():
        for item in items:
            bound: Dist = {}
            for state, p in dist.items():
                _add(bound, state.bind(stmt.var, item), p)
            dist = _run_block_of(stmt.body, bound, program)
        for state, p in _drop_locals(dist, names).items():
            _add(out, state, p)
    return out


def _call(stmt: n.CallStmt, live: Dist, program: Program) -> Dist:
    call = stmt.call
    decl = step_decl(call, program)
    entered = _each(live, program, enter(call, compiler_for(program.rules)), call)
    check_call_depth(next(iter(entered)), call, program)
    out: Dist = {}
    for state, p in run_block(decl.body, entered, program).items():
        _add(out, state.pop(), p)
    return out


_EXECUTORS: dict[type, Callable[[Any, Dist, Program], Dist]] = {
    n.Let: _simple,
    n.Assign: _simple,
    n.Stop: _simple,
    n.Return: _simple,
    n.Event: _simple,
    n.If: _if,
    n.For: _for,
    n.CallStmt: _call,
}
