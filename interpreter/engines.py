"""How chance is resolved: one interpreter, three engines.

The statement executor asks its engine for the `branches` of one statement:
the possible (probability, result) pairs. The sampling engine draws once with
a seeded generator; the forced engine follows a script of rolls; the exact
engine enumerates every outcome of every chance primitive the statement
touches, by replaying the statement with each outcome in turn.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any, TypeVar

from dsl.limits import DEFAULT
from dsl.nodes import Pos
from interpreter.errors import RunError
from interpreter.runtime.chance import Fire, ForcedRollError, StateLimitError, Tally

T = TypeVar("T")

DEFAULT_MAX_STATES = DEFAULT.states


class Trace:
    """The event log of a sampled run: what happened, in order, and which rule did it."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def add(self, kind: str, pos: Pos | None, text: str, **data: Any) -> None:
        self.events.append({"kind": kind, "file": pos.path if pos else "", "line": pos.line if pos else 0,
                            "text": text, **data})


class SampleEngine:
    exact = False

    def __init__(self, seed: int = 0, trace: Trace | None = None):
        self.rng = random.Random(seed)
        self.trace = trace

    def branches(self, fn: Callable[[Any], T]) -> list[tuple[int, T]]:
        return [(1, fn(self))]

    def draw(self, primitive: Any, pos: Pos) -> Any:
        if self.trace is not None and isinstance(primitive, Fire):
            result, hits = primitive.sample_trace(self.rng)
            _log_hits(self.trace, hits, pos)
            return result
        return primitive.sample(self.rng)


class ForcedEngine:
    """Rolls come from a script, as in a rulebook example that fixes the dice."""

    exact = False

    def __init__(self, script: list[int], trace: Trace | None = None):
        self.script: Iterator[int] = iter(script)
        self.trace = trace

    def unused(self) -> list[int]:
        """The rolls of the script left once the run is over: an example that gives them means other dice."""
        return list(self.script)

    def branches(self, fn: Callable[[Any], T]) -> list[tuple[int, T]]:
        return [(1, fn(self))]

    def draw(self, primitive: Any, pos: Pos) -> Any:
        try:
            if isinstance(primitive, Fire):
                result, hits = primitive.forced_trace(self.script)
                if self.trace is not None:
                    _log_hits(self.trace, hits, pos)
                return result
            return primitive.forced(self.script)
        except ForcedRollError as error:
            raise RunError(pos, f"forced rolls: {error}", "give more numbers after 'rolls'") from None


class _Branch(Exception):
    def __init__(self, distribution: dict[Any, Fraction]):
        self.distribution = distribution


class _Replay:
    """Replays a statement with the outcomes already chosen, and stops at the next choice."""

    def __init__(self, script: tuple[Any, ...], engine: ExactEngine):
        self.script = script
        self.at = 0
        self.engine = engine
        self.trace = None

    def draw(self, primitive: Any, pos: Pos) -> Any:
        if self.at < len(self.script):
            value = self.script[self.at]
            self.at += 1
            return value
        raise _Branch(self.engine.distribution(primitive, pos))


class ExactEngine:
    exact = True
    trace = None

    def draw(self, primitive: Any, pos: Pos) -> Any:
        # Reached only if the static analysis missed a chance primitive: a bug of ours.
        raise RunError(pos, "internal error: a statement judged free of chance met chance")

    def __init__(self, max_states: int = DEFAULT_MAX_STATES):
        self.max_states = max_states

    def distribution(self, primitive: Any, pos: Pos) -> dict[Any, Fraction]:
        try:
            if isinstance(primitive, (Fire, Tally)):  # the two whose outcomes can outgrow any limit
                return primitive.distribution(max_states=self.max_states)
            return primitive.distribution()
        except StateLimitError as error:
            raise RunError(pos, f"the exact engine stopped: {error}",
                           "estimate by sampling instead (fracas odds --samples N), or raise the limit with --limit states=N") from None

    def branches(self, fn: Callable[[Any], T]) -> list[tuple[Fraction, T]]:
        results: list[tuple[Fraction, T]] = []
        pending: list[tuple[tuple[Any, ...], Fraction]] = [((), Fraction(1))]
        while pending:
            script, p = pending.pop()
            try:
                results.append((p, fn(_Replay(script, self))))
            except _Branch as branch:
                for value, q in reversed(branch.distribution.items()):
                    pending.append((script + (value,), p * q))
        return results


def _log_hits(trace: Trace, hits: Any, pos: Pos) -> None:
    from interpreter.values import show

    for hit in hits:
        after = hit.after
        status = "lethal" if after.lethal else f"{after.damage}/{after.hitpoints} damage"
        if after.hitpoints is None:
            status = "cannot die"
        where = "overflow: " if hit.overflow else ""
        owner = show(after.owner) + (f" ({after.tag})" if after.tag else "")
        trace.add("shot", pos, f"{where}shot {hit.index + 1} ({hit.shot.damage} damage from {show(hit.shot.source)}) hits {owner}: {status}",
                  shot=hit.index + 1, damage=hit.shot.damage, owner=show(after.owner), tag=after.tag,
                  lethal=after.lethal, overflow=hit.overflow)
