"""Entity fields carried past the blocks that leave them alone.

A stretch of blocks that neither reads nor writes a field that is still
live (a result made early and read at the end, waiting while an unrelated
stretch of chance is resolved) does the same for every value of that field;
kept in the states, the field would have the stretch run once for each of
its values. The exact engine takes
such fields out of the worlds instead (they are none there) and keeps their
values in the states' probabilities: a `Carried` probability is one for each
combination of the carried values. States that differ only in those fields
then merge, and the stretch runs once. Where a block reads or writes a
carried field, the states are split by its values again.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

from fracas.interpreter.core.dist import Scaled
from fracas.interpreter.core.liveness import ANY, EVERY_FIELD, Projection
from fracas.interpreter.core.state import Frozen
from fracas.interpreter.core.values import Record

Field = tuple[str, str]  # (entity, field name)
NONE: tuple[Field, ...] = ()


class _Absent:
    """The value of a carried field that the world does not have (no such entity, or no such field)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "absent"


ABSENT = _Absent()


class Carried:
    """A probability for each combination of the carried fields' values.

    The fields whose values differ from one combination to another are `names`, and `parts` holds the
    combinations of their values with their probabilities (each times top/bottom); the fields with
    one value throughout are `fixed`, (field, value) pairs in the order of the fields. A draw scales
    top and bottom and shares the parts; states that met the same parts add their scales. A Carried
    whose parts no other refers to (`owned`) takes later additions in place.
    """

    __slots__ = ("names", "parts", "fixed", "top", "bottom", "owned")

    def __init__(self, names: tuple[Field, ...], parts: dict[tuple[Any, ...], Scaled],
                 fixed: tuple[tuple[Field, Any], ...] = (), top: int = 1, bottom: int = 1, owned: bool = False):
        self.names = names
        self.parts = parts
        self.fixed = fixed
        self.top = top
        self.bottom = bottom
        self.owned = owned

    def times(self, weight: int, total: int) -> Carried:
        self.owned = False  # the parts are shared from now on
        return Carried(self.names, self.parts, self.fixed, self.top * weight, self.bottom * total)

    def __mul__(self, k: Any) -> Carried:
        k = Fraction(k)
        return self.times(k.numerator, k.denominator)

    __rmul__ = __mul__

    def __add__(self, other: Any) -> Carried:
        if type(other) is not Carried:
            return NotImplemented
        if other.parts is self.parts and other.fixed == self.fixed:
            if other.bottom == self.bottom:
                return Carried(self.names, self.parts, self.fixed, self.top + other.top, self.bottom)
            common = math.gcd(self.bottom, other.bottom)  # as Scaled adds: the least common denominator
            return Carried(self.names, self.parts, self.fixed,
                           self.top * (other.bottom // common) + other.top * (self.bottom // common),
                           self.bottom // common * other.bottom)
        if self.owned and _within(other, self):
            _add_into(self, other)
            return self
        names, fixed = _common(self, other)
        sum_ = Carried(names, {}, fixed, owned=True)
        _add_into(sum_, self)
        _add_into(sum_, other)
        return sum_

    def items(self) -> Iterator[tuple[tuple[Any, ...], Scaled]]:
        """Each combination of the varying fields' values with its probability."""
        top, bottom = self.top, self.bottom
        if top == bottom:
            yield from self.parts.items()
            return
        for values, p in self.parts.items():
            yield values, Scaled(p.n * top, p.d * bottom)

    def total(self) -> Scaled:
        total: Any = 0
        for _, p in self.items():
            total = p if total == 0 else total + p
        return total

    def __repr__(self) -> str:
        return f"Carried({self.names!r}, {dict(self.items())!r}, fixed={self.fixed!r})"


def _within(other: Carried, into: Carried) -> bool:
    """Whether `other` can be written in the fields of `into`: each field fixed there has that value in other."""
    fixed = dict(other.fixed)
    return all(field in fixed and fixed[field] == value for field, value in into.fixed)


def _common(a: Carried, b: Carried) -> tuple[tuple[Field, ...], tuple[tuple[Field, Any], ...]]:
    """The fields of a sum of a and b: fixed where both fix them to one value, varying otherwise."""
    fixed_b = dict(b.fixed)
    fixed = tuple((field, value) for field, value in a.fixed if field in fixed_b and fixed_b[field] == value)
    kept = {field for field, _ in fixed}
    names = tuple(sorted({*a.names, *b.names, *(f for f, _ in a.fixed), *(f for f, _ in b.fixed)} - kept))
    return names, fixed


def _add_into(into: Carried, other: Carried) -> None:
    """Add other's probabilities into `into`'s own parts, each combination in `into`'s fields."""
    fixed = dict(other.fixed)
    where = [(True, other.names.index(field)) if field in other.names else (False, fixed[field])
             for field in into.names]
    parts = into.parts
    for values, p in other.items():
        key = tuple(values[at] if varying else at for varying, at in where)
        before = parts.get(key)
        parts[key] = p if before is None else before + p


# A field is carried only through a stretch of at least this many blocks that leave it alone: taking it
# out of the worlds and putting it back costs a pass over every state's carried values, which a short
# stretch does not repay.
LEAST_STRETCH = 8


def carried_at(routine: Any, projection: Projection) -> list[tuple[Field, ...]] | None:
    """For each block, the fields its states carry (None: none anywhere). Every block with the same
    fields has the same tuple, so that a test of identity compares them.

    A block carries the fields live there that it neither reads nor writes, in a stretch of such blocks
    of at least LEAST_STRETCH. The first block, call sites and the blocks of while loops carry none:
    their states come from, or go to, code that works on plain probabilities.
    """
    found = projection.memo.get("carried", False)
    if found is not False:
        return found  # type: ignore[no-any-return]
    blocks = routine.blocks
    in_loops = {pc for region in routine.loops.values() for pc in region}
    predecessors: list[list[int]] = [[] for _ in blocks]
    for pc, following in enumerate(routine.successors):
        for nxt in following:
            if nxt >= 0:
                predecessors[nxt].append(pc)
    changed_before = _changed_before(routine, predecessors)
    candidates: list[set[Field]] = []
    for pc, block in enumerate(blocks):
        live = projection.live[pc]
        if pc == 0 or pc in in_loops or live is None or getattr(block, "lines", None) is None:
            candidates.append(set())
            continue
        touched = _touched_by(block, routine.statics)
        changed = changed_before[pc]
        candidates.append({(entity, name) for entity, name in live.fields
                           if entity is not ANY and name != EVERY_FIELD and not _touches(touched, entity, name)
                           and _touches(changed, entity, name)})
    ahead = _stretch(candidates, routine.successors)
    behind = _stretch(candidates, predecessors)
    same: dict[tuple[Field, ...], tuple[Field, ...]] = {NONE: NONE}
    carried = []
    for pc, fields in enumerate(candidates):
        kept = tuple(sorted(f for f in fields if ahead[pc][f] + behind[pc][f] > LEAST_STRETCH))
        carried.append(same.setdefault(kept, kept))
    result = carried if any(carried) else None
    projection.memo["carried"] = result
    return result


def _stretch(candidates: list[set[Field]], edges: list[list[int]]) -> list[dict[Field, int]]:
    """For each block and each field it may carry: how many blocks, this one first, may carry it along
    the shortest way through `edges` (to the end of the routine, or its start, stops a stretch)."""
    length: list[dict[Field, int]] = [{f: 1 for f in fields} for fields in candidates]
    changed = True
    while changed:
        changed = False
        for pc, fields in enumerate(candidates):
            for f in fields:
                best = min((1 + length[nxt].get(f, 0) if nxt >= 0 else 1 for nxt in edges[pc]), default=1)
                if best != length[pc][f]:
                    length[pc][f] = best
                    changed = True
    return length


def _changed_before(routine: Any, predecessors: list[list[int]]) -> list[set[tuple[Any, str]] | None]:
    """For each block, the fields some block before it may have changed (None: any field).

    A field no block has changed yet has the value it started with in every state: carrying it would
    merge nothing.
    """
    blocks = routine.blocks
    changes = [_touched_by(block, routine.statics, reads=False) if getattr(block, "lines", None) is not None
               else None for block in blocks]
    before: list[set[tuple[Any, str]] | None] = [set() for _ in blocks]
    changed = True
    while changed:
        changed = False
        for pc in range(len(blocks)):
            found: set[tuple[Any, str]] | None = set()
            for earlier in predecessors[pc]:
                if before[earlier] is None or changes[earlier] is None:
                    found = None
                    break
                found |= before[earlier] | changes[earlier]  # type: ignore[operator]
            if found != before[pc]:
                before[pc] = found
                changed = True
    return before


def _touched_by(block: Any, statics: dict[int, str], reads: bool = True) -> set[tuple[Any, str]] | None:
    """The fields a block reads or writes (or only writes), (ANY, name) for a name on whatever entity;
    None: it may touch any."""
    touched: set[tuple[Any, str]] = set()
    for facts in block.facts:
        if facts is None:
            return None
        for slot, name in (facts.field_reads | facts.field_sets) if reads else facts.field_sets:
            touched.add((statics.get(slot, ANY) if slot is not ANY else ANY, name))
    return touched


def _touches(touched: set[tuple[Any, str]] | None, entity: str, name: str) -> bool:
    return touched is None or (entity, name) in touched or (ANY, name) in touched or (ANY, EVERY_FIELD) in touched


class Regroup:
    """States going from a block that carries some fields to one that carries others.

    The fields carried no more are put back into each world (those still live where the states go;
    the rest are dropped, as forgetting would), the fields carried from now on are taken out, and each
    state's probability is split or gathered accordingly. A field with one value in a state's
    probability goes back into its world at no cost; one that varies splits the state.
    """

    def __init__(self, before: tuple[Field, ...], after: tuple[Field, ...], projection: Projection, pc: int,
                 interned: Any):
        live = projection.live[pc] if pc >= 0 else None
        self.before, self.after = before, after
        self.restore = frozenset(field for field in before if field not in after and (
            live is None or live.field_live(*field)))
        self.taken = tuple(field for field in after if field not in before)
        self.interned = interned
        self._restored: dict[tuple[int, tuple[tuple[Field, Any], ...]], int] = {}
        self._taken: dict[int, tuple[int, tuple[Any, ...]]] = {}

    def states(self, key: tuple[Any, ...], p: Any) -> Iterator[tuple[tuple[Any, ...], Any]]:
        world = key[1]
        if not self.before:
            stripped, taken = self._take(world)
            yield (key[0], stripped, *key[2:]), Carried((), {(): _scaled(p)}, tuple(zip(self.taken, taken)),
                                                          owned=True)
            return
        after, restore = self.after, self.restore
        back = tuple((field, value) for field, value in p.fixed if field in restore)
        fixed = tuple((field, value) for field, value in p.fixed if field in after)
        if back:
            world = self._restore(world, back)
        names = p.names
        if all(field in after for field in names):  # the varying fields stay carried: their parts are shared
            if not after:
                yield (key[0], world, *key[2:]), p.total()
                return
            stripped, taken = self._take(world)
            p.owned = False
            yield (key[0], stripped, *key[2:]), Carried(names, p.parts, _fixed(fixed, self.taken, taken), p.top,
                                                         p.bottom)
            return
        # Some varying fields leave: one state for each combination of the values put back.
        kept = tuple(at for at, field in enumerate(names) if field in after)
        back_at = tuple((at, field) for at, field in enumerate(names) if field in restore)
        kept_names = tuple(names[at] for at in kept)
        split: dict[tuple[Any, ...], dict[tuple[Any, ...], Any]] = {}
        for values, weight in p.items():
            put = tuple(values[at] for at, _ in back_at)
            rest = tuple(values[at] for at in kept)
            into = split.get(put)
            if into is None:
                into = split[put] = {}
            before = into.get(rest)
            into[rest] = weight if before is None else before + weight
        for put, parts in split.items():
            restored = self._restore(world, tuple((field, value) for (_, field), value in zip(back_at, put)))
            if not after:
                total: Any = 0
                for weight in parts.values():
                    total = weight if total == 0 else total + weight
                yield (key[0], restored, *key[2:]), total
                continue
            stripped, taken = self._take(restored)
            yield (key[0], stripped, *key[2:]), Carried(kept_names, parts, _fixed(fixed, self.taken, taken),
                                                         owned=True)

    def _restore(self, world: int, put: tuple[tuple[Field, Any], ...]) -> int:
        found = self._restored.get((world, put))
        if found is None:
            frozen = self.interned.values[world]
            changed = dict(frozen)
            for (entity, name), value in put:
                if value is not ABSENT:
                    changed[entity] = changed[entity].replace(name, value)
            found = self._restored[(world, put)] = self.interned.id(Frozen(changed))
        return found

    def _take(self, world: int) -> tuple[int, tuple[Any, ...]]:
        found = self._taken.get(world)
        if found is None:
            if not self.taken:
                return world, ()
            frozen = self.interned.values[world]
            changed = dict(frozen)
            taken = []
            for entity, name in self.taken:
                record: Record | None = changed.get(entity)
                if record is None or not record.has(name):
                    taken.append(ABSENT)
                    continue
                taken.append(record.get(name))
                changed[entity] = record.replace(name, None)
            found = self._taken[world] = (self.interned.id(Frozen(changed)), tuple(taken))
        return found


def _fixed(kept: tuple[tuple[Field, Any], ...], taken_fields: tuple[Field, ...],
           taken: tuple[Any, ...]) -> tuple[tuple[Field, Any], ...]:
    return tuple(sorted((*kept, *zip(taken_fields, taken)), key=lambda pair: pair[0])) if taken_fields else kept


def _scaled(p: Any) -> Scaled:
    if type(p) is Scaled:
        return p
    p = Fraction(p)
    return Scaled(p.numerator, p.denominator)
