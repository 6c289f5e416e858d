"""How chance is resolved, and how the generated blocks of a routine are run.

An engine is passed into resolution; it is never stored on the program. The
sampling and forced engines answer `draw` with one value, and the blocks run
on one working state, following their jumps. The exact engine keeps the
states waiting at each block, merged, and runs the block with the lowest
program order next, so that every state that can reach a block has reached
it before it runs: equal states merge there, and a Markov chain over states
results, not a tree of roll sequences. A block that may meet chance is run
once per outcome of each draw it makes (its earlier draws replayed).
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Iterator
from fractions import Fraction
from typing import Any, Protocol

from dsl.nodes import Pos
from interpreter.core import rt
from interpreter.core.codegen import END, CallSite, Generator, Routine
from interpreter.errors import RunError
from interpreter.runtime.chance import Fire, ForcedRollError, StateLimitError, Tally
from interpreter.state import Frozen
from interpreter.values import show

# A state as the exact engine keeps it: (frame, world, outcomes, stopped, callers' frames, depth).
Key = tuple[tuple[Any, ...], Frozen, Frozen, "str | None", tuple[Any, ...], int]


class Trace:
    """The event log of a sampled run: what happened, in order, and which rule did it."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def add(self, kind: str, pos: Pos | None, text: str, **data: Any) -> None:
        self.events.append({"kind": kind, "file": pos.path if pos else "", "line": pos.line if pos else 0,
                            "text": text, **data})


class Engine(Protocol):
    """What resolution asks of an engine."""

    exact: bool
    trace: Trace | None

    def draw(self, primitive: Any, pos: Pos) -> Any:
        """One outcome of a chance primitive (the exact engine branches instead)."""


class SampleEngine:
    exact = False

    def __init__(self, seed: int = 0, trace: Trace | None = None):
        self.rng = random.Random(seed)
        self.trace = trace

    def draw(self, primitive: Any, pos: Pos) -> Any:
        if self.trace is not None and isinstance(primitive, Fire):
            result, hits = primitive.sample_trace(self.rng)
            log_hits(self.trace, hits, pos)
            return result
        return primitive.sample(self.rng)


class ForcedEngine:
    """Rolls come from a script, as in a rulebook example that fixes the dice."""

    exact = False

    def __init__(self, script: list[int], trace: Trace | None = None):
        self.script: Iterator[int] = iter(script)
        self.trace = trace

    def draw(self, primitive: Any, pos: Pos) -> Any:
        try:
            if isinstance(primitive, Fire):
                result, hits = primitive.forced_trace(self.script)
                if self.trace is not None:
                    log_hits(self.trace, hits, pos)
                return result
            return primitive.forced(self.script)
        except ForcedRollError as error:
            raise RunError(pos, f"forced rolls: {error}", "give more numbers after 'rolls'") from None


class ExactEngine:
    exact = True
    trace = None

    def __init__(self, max_states: int):
        self.max_states = max_states

    def draw(self, primitive: Any, pos: Pos) -> Any:
        # Reached only if the static analysis missed a chance primitive: a bug of ours.
        raise RunError(pos, "internal error: a statement judged free of chance met chance")

    def distribution(self, primitive: Any, pos: Pos) -> dict[Any, Fraction]:
        try:
            if isinstance(primitive, (Fire, Tally)):  # the two whose outcomes can outgrow any limit
                return primitive.distribution(max_states=self.max_states)
            return primitive.distribution()
        except StateLimitError as error:
            raise RunError(pos, f"the exact engine stopped: {error}", _ESTIMATE_HINT) from None


_ESTIMATE_HINT = "estimate by sampling instead (fracas odds --samples N), or raise the limit with --limit states=N"


class Run:
    """What generated code reads besides its state: the program's tables, the engine, the log."""

    __slots__ = ("program", "chooser", "trace", "most_bits", "gen")

    def __init__(self, program: Any, chooser: Any, gen: Generator):
        self.program = program
        self.chooser = chooser
        self.trace = getattr(chooser, "trace", None)
        self.most_bits = rt.bits_limit(program.rules.limits.digits)
        self.gen = gen

    def param(self, name: str, pos: Pos) -> Any:
        params = self.program.params
        if name in params:
            return params[name]
        raise RunError(pos, f"unknown name '{name}'")


# ---- one state at a time ------------------------------------------------------------------------


def run_one(routine: Routine, S: rt.Working, R: Run) -> None:
    functions = routine.functions
    pc = 0
    while pc >= 0:
        block = functions[pc]
        pc = block(S, R) if block is not None else _call_one(routine.blocks[pc], S, R)  # type: ignore[arg-type]


def _call_one(site: CallSite, S: rt.Working, R: Run) -> int:
    callee = R.gen.routines[site.routine]
    args = S.F[site.args_slot]
    S.F[site.args_slot] = None
    _check_depth(S.depth + 1, site, R)
    saved = S.F
    S.F = _frame(callee, args)
    S.depth += 1
    run_one(callee, S, R)
    S.depth -= 1
    S.F = saved
    return END if S.stopped is not None else site.back


def _frame(routine: Routine, args: tuple[Any, ...]) -> list[Any]:
    frame: list[Any] = [None] * routine.slots
    for index, value in zip(routine.params, args):
        frame[index] = value
    return frame


def _check_depth(depth: int, site: CallSite, R: Run) -> None:
    limits = R.program.rules.limits
    if depth + 1 > limits.call_depth:
        raise RunError(site.call.pos, f"steps call each other more than {limits.call_depth} deep",
                       "a step may be calling itself forever; " + limits.hint("call_depth"))


# ---- every state at once --------------------------------------------------------------------------


class _Branch(Exception):
    def __init__(self, distribution: dict[Any, Fraction]):
        self.distribution = distribution


class _Replay:
    """Replays a block with the outcomes already chosen, and stops at the next draw."""

    __slots__ = ("script", "at", "engine")
    trace = None

    def __init__(self, script: tuple[Any, ...], engine: ExactEngine):
        self.script = script
        self.at = 0
        self.engine = engine

    def draw(self, primitive: Any, pos: Pos) -> Any:
        if self.at < len(self.script):
            value = self.script[self.at]
            self.at += 1
            return value
        raise _Branch(self.engine.distribution(primitive, pos))


def run_all(routine: Routine, start: dict[Key, Any], engine: ExactEngine, R: Run) -> dict[Key, Any]:
    """Every final state with its probability, from states at the routine's first block."""
    rank = routine.order
    pending: dict[int, dict[Key, Any]] = {0: dict(start)}
    waiting = [(rank[0], 0)]
    final: dict[Key, Any] = {}
    limit = engine.max_states
    while waiting:
        _, pc = heapq.heappop(waiting)
        group = pending.pop(pc)
        block = routine.blocks[pc]
        if isinstance(block, CallSite):
            results = _call_all(block, group, engine, R)
        else:
            results = _block_all(routine, pc, group, engine, R)
        for key, p, following in results:
            target = final if following < 0 else pending.get(following)
            if target is None:
                target = pending[following] = {}
                heapq.heappush(waiting, (rank[following], following))
            before = target.get(key)
            target[key] = p if before is None else before + p
            if len(target) > limit:
                raise RunError(_block_pos(routine, pc), f"the exact engine holds more than {limit} states here",
                               _ESTIMATE_HINT)
    return final


def _block_pos(routine: Routine, pc: int) -> Pos:
    block = routine.blocks[pc]
    pos = block.call.pos if isinstance(block, CallSite) else block.pos
    return pos or routine.decl.pos


def _working(key: Key) -> rt.Working:
    frame, world, outcomes, stopped, stack, depth = key
    return rt.Working(list(frame), Frozen(world), Frozen(outcomes), stopped, stack, depth)


def _key(S: rt.Working) -> Key:
    return (tuple(S.F), S.W, S.O, S.stopped, S.stack, S.depth)  # type: ignore[return-value]


def _block_all(routine: Routine, pc: int, group: dict[Key, Any], engine: ExactEngine,
               R: Run) -> Iterator[tuple[Key, Any, int]]:
    function = routine.functions[pc]
    assert function is not None
    block = routine.blocks[pc]
    if not block.chance:  # type: ignore[union-attr]
        R.chooser = engine
        for key, p in group.items():
            S = _working(key)
            following = function(S, R)
            yield _key(S), p, following
        return
    limit = engine.max_states
    for key, p in group.items():
        scripts: list[tuple[tuple[Any, ...], Any]] = [((), p)]
        made = 0
        while scripts:
            script, q = scripts.pop()
            S = _working(key)
            R.chooser = _Replay(script, engine)
            try:
                following = function(S, R)
            except _Branch as branch:
                for value, share in reversed(branch.distribution.items()):
                    scripts.append((script + (value,), q * share))
                if len(scripts) > limit:
                    raise RunError(block.pos, f"one statement has more than {limit} ways to turn out",  # type: ignore[union-attr]
                                   _ESTIMATE_HINT) from None
                continue
            made += 1
            yield _key(S), q, following


def _call_all(site: CallSite, group: dict[Key, Any], engine: ExactEngine, R: Run) -> Iterator[tuple[Key, Any, int]]:
    """Every state enters the step together; each comes back to its own frame."""
    callee = R.gen.routines[site.routine]
    entered: dict[Key, Any] = {}
    for key, p in group.items():
        frame, world, outcomes, stopped, stack, depth = key
        _check_depth(depth + 1, site, R)
        args = frame[site.args_slot]
        caller = frame[:site.args_slot] + (None,) + frame[site.args_slot + 1:]
        inner: Key = (tuple(_frame(callee, args)), world, outcomes, stopped, stack + (caller,), depth + 1)
        entered[inner] = entered.get(inner, 0) + p
    for key, p in run_all(callee, entered, engine, R).items():
        frame, world, outcomes, stopped, stack, depth = key
        back: Key = (stack[-1], world, outcomes, stopped, stack[:-1], depth - 1)
        yield back, p, END if stopped is not None else site.back


def log_hits(trace: Trace, hits: Any, pos: Pos) -> None:
    for hit in hits:
        after = hit.after
        status = "lethal" if after.lethal else f"{after.damage}/{after.hitpoints} damage"
        if after.hitpoints is None:
            status = "cannot die"
        where = "overflow: " if hit.overflow else ""
        owner = show(after.owner) + (f" ({after.tag})" if after.tag else "")
        trace.add("shot", pos, f"{where}shot {hit.index + 1} ({hit.shot.damage} damage from {show(hit.shot.source)}) "
                  f"hits {owner}: {status}", shot=hit.index + 1, damage=hit.shot.damage, owner=show(after.owner),
                  tag=after.tag, lethal=after.lethal, overflow=hit.overflow)
