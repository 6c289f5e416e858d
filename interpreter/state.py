"""The state of a resolution: local frames, the scenario's entities, the outcomes."""

from __future__ import annotations

from dataclasses import dataclass, field
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

    def set(self, key: str, value: Any) -> Frozen:
        new = Frozen(self)
        dict.__setitem__(new, key, value)
        return new

    def without(self, keys: set[str] | tuple[str, ...]) -> Frozen:
        return Frozen({k: v for k, v in self.items() if k not in keys})


@dataclass(frozen=True, slots=True)
class State:
    frames: tuple[Frozen, ...]  # the innermost step's locals last
    world: Frozen  # entity id -> Record
    outcomes: Frozen  # outcome name -> value
    stopped: str | None = None  # why the resolution ended early, if it did
    returning: bool = False  # the current step has ended early
    # States are dictionary keys of the exact engine, merged after every statement:
    # the hash is computed once per state (init=False: a new state never inherits it).
    _hash: int | None = field(default=None, init=False, compare=False, repr=False)

    def __hash__(self) -> int:
        if self._hash is None:
            object.__setattr__(self, "_hash",
                               hash((self.frames, self.world, self.outcomes, self.stopped, self.returning)))
        return self._hash  # type: ignore[return-value]

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
