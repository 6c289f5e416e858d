"""Frozen dictionaries, and the final states of a resolution: its locals, the scenario's entities, the outcomes."""

from __future__ import annotations

from typing import Any


class Frozen(dict):
    """A dictionary used as a value: never changed in place, hashable, cheap to copy-update."""

    __slots__ = ("_hash",)

    def __hash__(self) -> int:  # type: ignore[override]
        # Most are hashed once, when interned, just made: a default read, not an AttributeError caught,
        # costs the first hash far less, and the next ones a little more.
        found = getattr(self, "_hash", None)
        if found is None:
            found = self._hash = hash(frozenset(self.items()))
        return found

    def __reduce__(self) -> tuple[Any, ...]:
        # Without the cached hash: string hashes differ from one process to the next.
        return (Frozen, (dict(self),))


class State:
    """A final state of a resolution, as the tools read it: never changed once made.

    `frames[0]` names the action's inputs and top-level locals, `world` maps
    each entity of the scenario to its record, `outcomes` the outcomes by
    name; `stopped` says why the resolution ended early, if it did. (While
    running, the engine core keeps states its own way: fracas.interpreter.core.)
    """

    __slots__ = ("frames", "world", "outcomes", "stopped", "_hash")

    def __init__(self, frames: tuple[Frozen, ...], world: Frozen, outcomes: Frozen, stopped: str | None = None):
        self.frames = frames
        self.world = world
        self.outcomes = outcomes
        self.stopped = stopped
        self._hash: int | None = None  # final states are dictionary keys: hashed once, when first asked

    def __reduce__(self) -> tuple[Any, ...]:
        # Without the cached hash, which is only good in the process that made it.
        return (State, self._key())

    def _key(self) -> tuple[Any, ...]:
        return (self.frames, self.world, self.outcomes, self.stopped)

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, State) and hash(self) == hash(other) and self._key() == other._key())

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(self._key())
        return self._hash

    def __repr__(self) -> str:
        return (f"State(frames={self.frames!r}, world={self.world!r}, outcomes={self.outcomes!r}, "
                f"stopped={self.stopped!r})")
