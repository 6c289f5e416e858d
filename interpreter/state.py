"""The state of a resolution: local frames, the scenario's entities, the outcomes."""

from __future__ import annotations

from typing import Any


class Frozen(dict):
    """A dictionary used as a value: never changed in place, hashable, cheap to copy-update."""

    __slots__ = ("_hash",)

    def __hash__(self) -> int:  # type: ignore[override]
        try:
            return self._hash
        except AttributeError:
            self._hash = hash(frozenset(self.items()))
            return self._hash

    def __reduce__(self) -> tuple[Any, ...]:
        # Without the cached hash: string hashes differ from one process to the next.
        return (Frozen, (dict(self),))

    def set(self, key: str, value: Any) -> Frozen:
        new = Frozen(self)
        dict.__setitem__(new, key, value)
        return new

    def without(self, keys: set[str] | tuple[str, ...]) -> Frozen:
        return Frozen({k: v for k, v in self.items() if k not in keys})


class State:
    """Never changed once made: every change makes a new state.

    A plain class rather than a frozen dataclass: states are made at every
    statement, and a frozen dataclass costs four times as much to make.
    """

    __slots__ = ("frames", "world", "outcomes", "stopped", "returning", "_hash")

    def __init__(self, frames: tuple[Frozen, ...], world: Frozen, outcomes: Frozen, stopped: str | None = None,
                 returning: bool = False):
        self.frames = frames  # the innermost step's locals last
        self.world = world  # entity id -> Record
        self.outcomes = outcomes  # outcome name -> value
        self.stopped = stopped  # why the resolution ended early, if it did
        self.returning = returning  # the current step has ended early
        # States are dictionary keys of the exact engine, merged after every statement:
        # the hash is computed once per state, when first asked for.
        self._hash: int | None = None

    def __reduce__(self) -> tuple[Any, ...]:
        # Without the cached hash, which is only good in the process that made it.
        return (State, self._key())

    def _key(self) -> tuple[Any, ...]:
        return (self.frames, self.world, self.outcomes, self.stopped, self.returning)

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, State) and hash(self) == hash(other) and self._key() == other._key())

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(self._key())
        return self._hash

    def __repr__(self) -> str:
        return (f"State(frames={self.frames!r}, world={self.world!r}, outcomes={self.outcomes!r}, "
                f"stopped={self.stopped!r}, returning={self.returning!r})")

    def ended(self) -> State:
        """The state with its step's early end forgotten: what an action that returned leaves."""
        return State(self.frames, self.world, self.outcomes, self.stopped, False)

    @property
    def locals(self) -> Frozen:
        return self.frames[-1]

    def with_locals(self, frame: Frozen) -> State:
        return State(self.frames[:-1] + (frame,), self.world, self.outcomes, self.stopped, self.returning)

    def bind(self, name: str, value: Any) -> State:
        return self.with_locals(self.frames[-1].set(name, value))

    def push(self, frame: Frozen) -> State:
        return State(self.frames + (frame,), self.world, self.outcomes, self.stopped, self.returning)

    def with_entity(self, id: str, record: Any) -> State:
        return State(self.frames, self.world.set(id, record), self.outcomes, self.stopped, self.returning)

    def with_outcome(self, name: str, value: Any) -> State:
        return State(self.frames, self.world, self.outcomes.set(name, value), self.stopped, self.returning)

    def stop(self, reason: str) -> State:
        return State(self.frames, self.world, self.outcomes, reason, self.returning)

    def leave_step(self) -> State:
        return State(self.frames, self.world, self.outcomes, self.stopped, True)

    def pop(self) -> State:
        return State(self.frames[:-1], self.world, self.outcomes, self.stopped, False)
