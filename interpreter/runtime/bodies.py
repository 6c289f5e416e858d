"""Bodies, pools of bodies, shots and volleys: the game-free matter of a damage step.

Each is a value, never changed once made (states holding them are hashed and
merged), but not a frozen dataclass: a frozen one costs a microsecond to make,
five times a plain one, and a sampled run makes dozens.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any

from fracas.dsl.records import field, record
from fracas.interpreter.runtime.keys import loosely_equal, same, stable_key


class _Any:
    """Matches every owner or tag in a pool query."""

    def __repr__(self) -> str:
        return "ANY"

    def __reduce__(self) -> str:
        return "ANY"  # pickled as the one ANY, which queries compare by identity


ANY: object = _Any()


@record(slots=True)  # hashed by its own __hash__ below: never changed once made
class Body:
    """One thing that takes damage and may die: the member a pool counts."""

    hitpoints: int | None  # None: the body cannot die and takes no damage
    damage: int = 0  # accumulated, never above hitpoints: a shot's excess is wasted
    owner: object = None
    tag: str = ""
    # Which `bodies(...)` of its pool the body came from, counted in the order they were
    # added: pool order, which focused allocation follows. Alike bodies share it.
    group: int = 0
    # A pool of an exact volley holds dozens of a few bodies, and hashing the pool hashes each: the
    # same few, once each is enough. (Left unset by __init__: a sampled shot makes a body each time.)
    _hash: int = field(init=False, repr=False, compare=False)

    def __eq__(self, other: object) -> bool:
        # An owner may be of any type: Python's == would take an owner `true` for `1` (see keys.same).
        if other.__class__ is not Body:
            return NotImplemented
        return (self.hitpoints == other.hitpoints and self.damage == other.damage  # type: ignore[attr-defined]
                and self.tag == other.tag and self.group == other.group  # type: ignore[attr-defined]
                and same(self.owner, other.owner))  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        try:  # a body is hashed again and again once made (unlike a pool): the read of its hash comes first
            return self._hash
        except AttributeError:
            found = hash((self.hitpoints, self.damage, self.owner, self.tag, self.group))
            self._hash = found
            return found

    def __reduce__(self) -> tuple:
        return (Body, (self.hitpoints, self.damage, self.owner, self.tag, self.group))  # without the hash

    @property
    def lethal(self) -> bool:
        return self.hitpoints is not None and self.damage >= self.hitpoints

    def hit(self, damage: int) -> Body:
        if self.hitpoints is None:
            return self
        return Body(self.hitpoints, min(self.hitpoints, self.damage + damage), self.owner, self.tag, self.group)

    def sort_key(self) -> tuple:
        life = (0, self.hitpoints) if self.hitpoints is not None else (1, 0)
        return (stable_key(self.owner), self.tag, life, self.damage, self.group)


def _lethal_by(census: tuple[tuple[Body, int], ...]) -> tuple[tuple[object, str, int], ...]:
    """The owner, tag and number of each lethal body of a census: what a count of the lethal reads."""
    return tuple((b.owner, b.tag, number) for b, number in census
                 if b.hitpoints is not None and b.damage >= b.hitpoints)


# Pools are sorted at every change, and the same few bodies come back again and again.
body_key = functools.lru_cache(maxsize=4096)(Body.sort_key)


@record(slots=True)  # hashed by its own __hash__ below: never changed once made
class Pool:
    """Bodies in canonical order, so pools that differ only in order are equal.

    Interchangeable bodies in a canonical order are what let the exact engine
    merge symmetric states.
    """

    bodies: tuple[Body, ...] = ()
    # A pool is hashed again and again as part of states and distributions, and each time every one of
    # its bodies would be hashed: once is enough.
    # (Left unset by __init__, so that making a pool, which sampling does often, costs nothing more.)
    _hash: int = field(init=False, repr=False, compare=False)
    # What a sampled volley reads of the pool, and the pools it has left, made when first fired at
    # (runtime.chance.Fire.sample): a sampled run fires at the same pool, made before its first chance,
    # again and again.
    fired: tuple = field(init=False, repr=False, compare=False)
    # Each distinct body with how many of the pool it is, in pool order, where the maker knows them
    # (an exact volley's pools, which hold dozens of a few bodies): a query counts a few, not every body.
    census: tuple[tuple[Body, int], ...] = field(init=False, repr=False, compare=False)
    # Where there is a census: its lethal bodies by owner and tag, when first asked (an exact volley's
    # pools are each asked several counts, of a few owners and tags: the bodies alive are skipped at once).
    lethal_by: tuple[tuple[object, str, int], ...] = field(init=False, repr=False, compare=False)
    # The pool as last shown, with the function that showed its owners (see shown): a logged run shows the pool
    # each sampled volley leaves, and most runs leave one of a few (runtime.chance._left_as remembers them).
    shown_as: tuple[Callable[[Any], str], str] = field(init=False, repr=False, compare=False)

    def __hash__(self) -> int:
        # Most pools are hashed when just made: a default read, not an AttributeError caught (see Frozen).
        found = getattr(self, "_hash", None)
        if found is None:
            found = self._hash = hash((self.bodies,))
        return found

    def __reduce__(self) -> tuple:
        return (Pool, (self.bodies,))  # without the cached hash, good only in this process

    @classmethod
    def of(cls, bodies: Iterable[Body]) -> Pool:
        return cls(tuple(sorted(bodies, key=body_key)))

    @classmethod
    def empty(cls) -> Pool:
        return cls(())

    @classmethod
    def make(cls, count: int, hitpoints: int | None, owner: object = None, tag: str = "") -> Pool:
        return cls((Body(hitpoints, 0, owner, tag),) * count)  # alike bodies: already in order

    def __add__(self, other: Pool) -> Pool:
        # The bodies added come after these in pool order: their groups follow ours.
        after = self.groups()
        added = other.bodies if not after else tuple(
            Body(b.hitpoints, b.damage, b.owner, b.tag, b.group + after) for b in other.bodies)
        return Pool.of(self.bodies + added)

    def groups(self) -> int:
        """How many groups of bodies pool order has: one past the last."""
        return max((b.group for b in self.bodies), default=-1) + 1

    def __len__(self) -> int:
        return len(self.bodies)

    def select(self, owner: object = ANY, tag: object = ANY) -> tuple[Body, ...]:
        if owner is ANY and tag is ANY:
            return self.bodies
        # An owner that Python's == may take for one the rules tell apart (keys.loosely_equal) is checked by
        # keys.same once == finds it; any other compares by == alone. No call a body: as lethal_count.
        strict = loosely_equal(owner)
        return tuple(b for b in self.bodies
                     if (owner is ANY or b.owner is owner or b.owner == owner and (not strict or same(b.owner, owner)))
                     and (tag is ANY or b.tag == tag))

    def count(self, owner: object = ANY, tag: object = ANY) -> int:
        return len(self.select(owner, tag))

    def lethal_count(self, owner: object = ANY, tag: object = ANY) -> int:
        # One pass, without a call per body: the queries of a damage step are most of a sampled run's reads.
        found = 0
        strict = loosely_equal(owner)
        census = getattr(self, "census", None)  # a sampled run's pools have none: no AttributeError caught each query
        if census is None:
            for b in self.bodies:
                if ((owner is ANY or b.owner is owner or b.owner == owner and (not strict or same(b.owner, owner)))
                        and (tag is ANY or b.tag == tag)
                        and b.hitpoints is not None and b.damage >= b.hitpoints):
                    found += 1
            return found
        counted = getattr(self, "lethal_by", None)
        if counted is None:
            counted = self.lethal_by = _lethal_by(census)
        for body_owner, body_tag, number in counted:
            if ((owner is ANY or body_owner is owner
                 or body_owner == owner and (not strict or same(body_owner, owner)))
                    and (tag is ANY or body_tag == tag)):
                found += number
        return found

    def living_count(self, owner: object = ANY, tag: object = ANY) -> int:
        return self.count(owner, tag) - self.lethal_count(owner, tag)

    def damage_taken(self, owner: object = ANY, tag: object = ANY) -> int:
        return sum(b.damage for b in self.select(owner, tag))

    def living(self) -> tuple[Body, ...]:
        return tuple(b for b in self.bodies if not b.lethal)

    def stable_key(self) -> tuple:
        return tuple(map(body_key, self.bodies))

    def replace(self, index: int, body: Body) -> Pool:
        return Pool.of(self.bodies[:index] + (body,) + self.bodies[index + 1 :])

    def shown(self, show: Callable[[Any], str]) -> str:
        """As a report shows it: its bodies in order, alike ones counted, each as damage/hitpoints, with its
        owner and tag where it has them: pool(2 × 0/1, 1/1 owner "red")."""
        kept = getattr(self, "shown_as", None)
        if kept is not None and kept[0] is show:
            return kept[1]

        def body(b: Body) -> str:
            life = "deathless" if b.hitpoints is None else f"{b.damage}/{b.hitpoints}"
            return (life + ("" if b.owner is None else f" owner {show(b.owner)}")
                    + (f" tag {show(b.tag)}" if b.tag else ""))

        text = f"pool({_counted([body(b) for b in self.bodies])})"
        self.shown_as = (show, text)
        return text


@record(slots=True, unsafe_hash=True)
class Shot:
    """One hit of a volley: its damage and where it came from, for allocation to read."""

    damage: int
    source: object = None

    def __eq__(self, other: object) -> bool:
        # A source may be of any type, as an owner may (see Body.__eq__).
        if other.__class__ is not Shot:
            return NotImplemented
        return self.damage == other.damage and same(self.source, other.source)  # type: ignore[attr-defined]


@record(slots=True, unsafe_hash=True)
class Volley:
    """Shots in the order they fire."""

    shots: tuple[Shot, ...] = ()
    # The index of the last shot of negative damage (-1: none), found when first asked (chance._last_negative):
    # a sampled run fires the same volley, made before its first chance, again and again.
    last_negative: int | None = field(default=None, init=False, compare=False, hash=False, repr=False)

    @classmethod
    def make(cls, count: int, damage: int, source: object = None) -> Volley:
        return cls((Shot(damage, source),) * count)

    def __add__(self, other: Volley) -> Volley:
        return Volley(self.shots + other.shots)

    def __len__(self) -> int:
        return len(self.shots)

    def stable_key(self) -> tuple:
        return tuple((s.damage, stable_key(s.source)) for s in self.shots)

    def shown(self, show: Callable[[Any], str]) -> str:
        """As a report shows it: its shots in order, alike ones counted: volley(3 × 1 damage from "gun")."""
        return "volley(" + _counted([f"{s.damage} damage" + ("" if s.source is None else f" from {show(s.source)}")
                                     for s in self.shots]) + ")"


def _counted(items: list[str]) -> str:
    """Items in order, a run of equal ones written once with its count: "2 × a, b"."""
    runs: list[list[Any]] = []
    for item in items:
        if runs and runs[-1][0] == item:
            runs[-1][1] += 1
        else:
            runs.append([item, 1])
    return ", ".join(item if count == 1 else f"{count} × {item}" for item, count in runs)


@record(slots=True, unsafe_hash=True)
class Hit:
    """One shot of a volley reaching a body, for the event log."""

    shot: Shot
    index: int
    before: Body | None  # None: no body was living, and the shot hit none (a sampled volley stops there)
    after: Body | None
    overflow: bool  # no body was living: the shot hit any body, or none, changing nothing
    carried: bool = False  # what was left of the shot once the body before it died
    # The hit's event, as the log writes it at a rule's line (core.engines.log_hits): a sampled volley's hits are
    # made once for the pool it is fired at (runtime.chance._Trail), and logged again by every run that meets them.
    logged: dict[str, Any] | None = field(default=None, init=False, compare=False, hash=False, repr=False)
