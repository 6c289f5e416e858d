"""Worlds and outcomes as numbers while the exact engine runs, and the records it changes made once."""

from __future__ import annotations

from typing import Any

from fracas.interpreter.core.state import Frozen
from fracas.interpreter.core.values import Record


class Interned:
    """Worlds and outcomes as numbers while the exact engine runs.

    A state's key then hashes in C (a world is a dictionary of records, whose
    hash is Python code), a block that leaves the world alone keeps its number
    without hashing it, and what a block forgets of a world is remembered by number.
    """

    __slots__ = ("values", "ids", "forgotten", "records", "checked", "lanes", "lane_hits", "fields_clear",
                 "lane_groups")

    def __init__(self) -> None:
        self.values: list[Frozen] = []
        self.ids: dict[Frozen, int] = {}
        # (projection, region, entry, block) -> what a world (by number) keeps on its way to the block
        self.forgotten: dict[tuple[Any, ...], dict[int, int]] = {}
        self.records: dict[tuple[Any, ...], tuple[Record, Record]] = {}  # see changed
        # What the constraints' quick test found of records (and values in them) by identity, where final
        # states are checked as they are made (lanes.py): each record is kept alive here or in a world.
        self.checked: dict[int, bool] = {}
        # What a lane of a tail gave, by the lane, the other values it read and the carried ones (lanes.py).
        self.lanes: dict[tuple[Any, ...], Any] = {}
        self.lane_hits: dict[int, int] = {}  # how often a lane's remembered results served, by the lane's id
        # How a tail's rows, of parts that many states carry, fall into the final states they make (lanes.py).
        self.lane_groups: dict[tuple[Any, ...], Any] = {}
        # Whether what a lane gave keeps its records within their constraints, by the result's id (lanes.py).
        self.fields_clear: dict[int, tuple[Any, bool]] = {}

    def id(self, frozen: Frozen) -> int:
        # One lookup, met or not: each costs a call of Frozen's hash, even where it is known.
        count = len(self.values)
        found = self.ids.setdefault(frozen, count)
        if found == count:
            self.values.append(frozen)
        return found

    def made(self, frozen: Frozen) -> int:
        """id() of a dictionary that its caller has just made (a copy of another, changed), never hashed yet."""
        return self.id(frozen.hashed())

    def apart(self, frozen: Frozen) -> int:
        """A number for a world that nothing will look up or merge by its number: a final state of an
        outcomes-only run, which merges by its outcomes (its world is only read by the constraints' check).
        Not hashed; an equal world may have another number."""
        self.values.append(frozen)
        return len(self.values) - 1

    def changed(self, record: Record, name: str, value: Any) -> Record:
        """The record with one field changed, made once a run: the states of a block make the same changes
        to the same records again and again, and the same record met again is the same object, whose hash
        is known and whose worlds compare by identity. Equal keys are the same change: numbers are kept
        normalized. The record is known by identity (kept alive beside its change, so that no other takes its
        number), not by its hash, a call of Python code (twice where the change is new): the records a run
        changes are its interned worlds' own, and an equal one is met as the same object."""
        key = (id(record), name, value)
        found = self.records.get(key)
        if found is None:
            found = self.records[key] = (record, record.replace(name, value))
        return found[1]
