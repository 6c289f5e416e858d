"""Frozen dictionaries, and the final states of a resolution: its locals, the scenario's entities, the outcomes."""

from __future__ import annotations

from collections.abc import ItemsView, Iterator, Mapping, ValuesView
from typing import Any


class Frozen(dict):
    """A dictionary used as a value: never changed in place, hashable, cheap to copy-update."""

    __slots__ = ("_hash",)

    def __hash__(self) -> int:  # type: ignore[override]
        # A default read, not an AttributeError caught, costs a first hash less, and the next ones a little more.
        found = getattr(self, "_hash", None)
        return self.hashed()._hash if found is None else found  # type: ignore[no-any-return]

    def hashed(self) -> Frozen:
        """Itself with its hash worked out and kept (the one place it is worked out; __hash__ reads it back): for
        a dictionary just made, filled and about to be interned. Its first hash then finds one kept: reading
        the slot unset, as __hash__ does first, raises and catches an AttributeError within, which costs more
        than hashing a small dictionary."""
        self._hash = hash(frozenset(self.items()))
        return self

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


EMPTY = Frozen()
NO_NAMES = (EMPTY,)  # the frames of an outcomes-only final state: no names


class OutcomeStates(Mapping[State, Any]):
    """Final states that hold outcomes alone (and why they stopped), with their probabilities.

    Each row is one state's outcomes, its reason to stop and its probability, all rows apart; a
    row's State is made when asked for, not hashed into a dictionary: odds read the outcomes, and
    making and hashing the tens of thousands of States of a long resolution cost a tenth of it.
    """

    __slots__ = ("rows", "_index")

    def __init__(self, rows: list[tuple[Frozen, str | None, Any]]):
        self.rows = rows
        self._index: dict[tuple[Frozen, str | None], Any] | None = None

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[State]:
        for outcomes, stopped, _ in self.rows:
            yield State(NO_NAMES, EMPTY, outcomes, stopped)

    def __getitem__(self, state: State) -> Any:
        if self._index is None:
            self._index = {(outcomes, stopped): p for outcomes, stopped, p in self.rows}
        if not isinstance(state, State) or state.frames != NO_NAMES or state.world != EMPTY:
            raise KeyError(state)
        return self._index[(state.outcomes, state.stopped)]

    def items(self) -> ItemsView[State, Any]:
        return _Rows(self)

    def values(self) -> ValuesView[Any]:
        return _Probabilities(self)

    def __repr__(self) -> str:
        return f"OutcomeStates({dict(self.items())!r})"


class _Rows(ItemsView[State, Any]):
    _mapping: OutcomeStates

    def __iter__(self) -> Iterator[tuple[State, Any]]:
        for outcomes, stopped, p in self._mapping.rows:
            yield State(NO_NAMES, EMPTY, outcomes, stopped), p


class _Probabilities(ValuesView[Any]):
    _mapping: OutcomeStates

    def __iter__(self) -> Iterator[Any]:
        for _, _, p in self._mapping.rows:
            yield p
