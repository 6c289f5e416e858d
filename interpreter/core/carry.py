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

from collections.abc import Callable, Iterable, Iterator
from fractions import Fraction
from typing import Any

from fracas.interpreter.core import loops
from fracas.interpreter.core.dist import Scaled, unlike_sum
from fracas.interpreter.core.interned import Interned
from fracas.interpreter.core.liveness import ANY, EVERY_FIELD, Projection, slot_facts
from fracas.interpreter.core.state import Frozen
from fracas.interpreter.core.values import Record
from fracas.interpreter.runtime.getters import tuple_getter

# What a state may carry: an entity's field (entity, field name), an outcome (OUTCOME, name), or a
# slot of the frame (SLOT, its index).
Field = tuple[str, Any]
OUTCOME = "#outcome"
SLOT = "#slot"
NONE: tuple[Field, ...] = ()
# Values put back, sorted by where they go: into the world, into the outcomes, into the frame (at a place).
Sorted = tuple[tuple[tuple[Field, Any], ...], tuple[tuple[Field, Any], ...], tuple[tuple[int, Any], ...]]


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
    whose parts no other refers to (`owned`) and that is not scaled takes later additions in place.
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
            self.owned = False  # the parts shared with the sum (a sum added to itself, too)
            if other.bottom == self.bottom:
                return Carried(self.names, self.parts, self.fixed, self.top + other.top, self.bottom)
            return Carried(self.names, self.parts, self.fixed,
                           *unlike_sum(self.top, self.bottom, other.top, other.bottom))  # as Scaled adds
        if self.owned and self.top == self.bottom and _within(other, self):
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
        # The parts of one draw share a denominator: multiplied out once, not once a part (numbers that are
        # thousands of digits long after a long run of draws; the product is most of a merge's cost there).
        last = scaled = None
        for values, p in self.parts.items():
            d = p.d
            if d is not last:
                last, scaled = d, d * bottom
            yield values, Scaled(p.n * top, scaled)

    def carries(self, field: Field) -> bool:
        """Whether the field is one of those carried, varying or fixed."""
        return field in self.names or any(name == field for name, _ in self.fixed)

    def total(self) -> Scaled:
        if len(self.parts) == 1:  # the common case where states leave a stretch: no carried value varies
            [part] = self.parts.values()
            return part if self.top == self.bottom else Scaled(part.n * self.top, part.d * self.bottom)
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
    names = tuple(sorted({*a.names, *b.names, *(f for f, _ in a.fixed), *(f for f, _ in b.fixed)} - kept, key=_order))
    return names, fixed


def _add_into(into: Carried, other: Carried) -> None:
    """Add other's probabilities into `into`'s own parts, each combination in `into`'s fields."""
    parts = into.parts
    if other.names == into.names:  # the same fields in the same order: each combination is a key as it is
        for values, p in other.items():
            before = parts.get(values)
            parts[values] = p if before is None else before + p
        return
    key_of = _rekeyed(other, into.names)
    for values, p in other.items():
        key = key_of(values)
        before = parts.get(key)
        parts[key] = p if before is None else before + p


def _rekeyed(other: Carried, names: tuple[Field, ...]) -> Callable[[tuple[Any, ...]], tuple[Any, ...]]:
    """other's combinations -> the same combinations over `names`: its varying values where they go, its
    fixed values in the other places (each part's values, then the fixed ones, picked in C)."""
    fixed = dict(other.fixed)
    constants = tuple(fixed[field] for field in names if field not in other.names)
    width = len(other.names)
    places, extra = [], 0
    for field in names:
        if field in other.names:
            places.append(other.names.index(field))
        else:
            places.append(width + extra)
            extra += 1
    pick = tuple_getter(tuple(places))
    return lambda values: pick(values + constants)


class Touch:
    """What a block reads or writes (or, for `changed`, writes): entity fields ((entity or ANY, name);
    None: any field), outcomes and slots."""

    __slots__ = ("fields", "outcomes", "slots")

    def __init__(self, fields: set[tuple[Any, str]] | None, outcomes: set[str] | None, slots: set[int]):
        self.fields = fields
        self.outcomes = outcomes
        self.slots = slots

    def has(self, value: Field) -> bool:
        kind, name = value
        if kind == SLOT:
            return name in self.slots
        if kind == OUTCOME:
            return self.outcomes is None or name in self.outcomes
        fields = self.fields
        return fields is None or (kind, name) in fields or (ANY, name) in fields or (ANY, EVERY_FIELD) in fields

    def union(self, other: Touch) -> Touch:
        return Touch(None if self.fields is None or other.fields is None else self.fields | other.fields,
                     None if self.outcomes is None or other.outcomes is None else self.outcomes | other.outcomes,
                     self.slots | other.slots)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Touch) and (self.fields, self.outcomes, self.slots) == (
            other.fields, other.outcomes, other.slots)


def summed_into(p: Carried, field: Field, sums: Callable[[list[tuple[Any, int]]], list[tuple[Any, int]]],
                total: int) -> Carried:
    """p with a value drawn (over `total`) taken into the carried field: for each combination of the other
    values, the field's old values (each with a numerator, over one denominator) are given to `sums`, which
    gives the field's new values with their numerators."""
    fixed = dict(p.fixed)
    if field in fixed:  # one value throughout: it varies from now on
        names = tuple(sorted((*p.names, field), key=_order))
        at = names.index(field)
        kept = tuple(pair for pair in p.fixed if pair[0] != field)
        old = fixed[field]
        parts: Iterator[tuple[tuple[Any, ...], Scaled]] = (
            (values[:at] + (old,) + values[at:], weight) for values, weight in p.items())
    else:
        names, kept, at = p.names, p.fixed, p.names.index(field)
        parts = p.items()
    groups: dict[tuple[Any, ...], list[tuple[Any, int]]] = {}
    for values, weight in parts:
        groups.setdefault((values[:at] + values[at + 1:], weight.d), []).append((values[at], weight.n))
    summed: dict[tuple[Any, ...], Scaled] = {}
    for (others, bottom), olds in groups.items():
        head, tail, d = others[:at], others[at:], bottom * total
        if len(groups) == 1:  # no two groups make the same values: nothing to merge
            summed = {head + (new,) + tail: Scaled(top, d) for new, top in sums(olds)}
            break
        for new, top in sums(olds):
            values = head + (new,) + tail
            part = Scaled(top, d)
            before = summed.get(values)
            summed[values] = part if before is None else before + part
    return Carried(names, summed, kept, owned=True)


def carried_at(routine: Any, projection: Projection,
               folds: dict[int, tuple[int, str]] | None = None) -> list[tuple[Field, ...]] | None:
    """For each block, the values its states carry (None: none anywhere). Every block with the same
    values has the same tuple, so that a test of identity compares them.

    A block carries the entity fields, outcomes and slots live there that it neither reads nor writes,
    that an earlier block may have changed (one that none has changed is the same in every state, as is
    a slot that holds an input entity), in a stretch of such blocks where chance is drawn and more blocks
    follow. The first block, call sites and the blocks of while loops carry none: their states come from,
    or go to, code that works on plain probabilities.

    `folds`: blocks that only take the value a draw just made into an outcome (fold block -> (its draw,
    the outcome)). The engine runs such a block with its draw, summing the draw into the outcome's
    carried values where both blocks carry it (summed_into): the block leaves the outcome alone as far
    as carrying goes, so that a loop of `total += roll(10, 6)` carries the total all along. Only where
    its draw carries nothing else: beside another carried value that varies, the sums would be kept
    for each combination of the two (a part for each), where states of one sum each share the other's
    parts. A fold block carries the outcome only where its draw does.
    """
    found = projection.carried
    if found is not False:
        return found  # type: ignore[no-any-return]
    blocks = routine.blocks
    folds = dict(folds or {})
    while True:
        chosen = _chosen(routine, projection, folds)
        alone = {pc: (draw, name) for pc, (draw, name) in folds.items() if chosen[draw] <= {(OUTCOME, name)}}
        if alone == folds:
            break
        folds = alone  # told again, of the folds whose draws carry nothing else
    for pc, (draw, name) in folds.items():
        if (OUTCOME, name) not in chosen[draw]:
            chosen[pc].discard((OUTCOME, name))  # run as written, it reads and sets the outcome
    same: dict[tuple[Field, ...], tuple[Field, ...]] = {NONE: NONE}
    carried = []
    for pc in range(len(blocks)):
        kept = tuple(sorted(chosen[pc], key=repr))
        carried.append(same.setdefault(kept, kept))
    result = carried if any(carried) else None
    projection.carried = result
    return result


def _chosen(routine: Any, projection: Projection, folds: dict[int, tuple[int, str]]) -> list[set[Field]]:
    """The values each block would carry, told of these folds (see carried_at)."""
    blocks = routine.blocks
    in_loops = {pc for region in routine.loops.values() for pc in region}
    predecessors = predecessors_of(routine.successors)
    touches = [touched_by(block, routine.statics) for block in blocks]
    for pc, (_, name) in folds.items():
        touched = touches[pc]
        if touched is not None and touched.outcomes is not None:
            touches[pc] = Touch(touched.fields, touched.outcomes - {name}, touched.slots)
    changed_before = _changed_before(blocks, predecessors, routine.statics, routine.order)
    outcomes = {name for block in blocks for facts in getattr(block, "facts", ()) if facts is not None
                for name in facts.outcome_sets}
    candidates: list[set[Field]] = []
    for pc, block in enumerate(blocks):
        live, touched = projection.live[pc], touches[pc]
        if pc == 0 or pc in in_loops or live is None or touched is None:
            candidates.append(set())
            continue
        values = {(entity, name) for entity, name in live.fields if entity is not ANY and name != EVERY_FIELD}
        values |= {(OUTCOME, name) for name in outcomes}
        values |= {(SLOT, slot) for slot in projection.kept[pc] if slot not in routine.statics}
        changed = changed_before[pc]
        candidates.append({value for value in values if not touched.has(value) and changed.has(value)})
    seeds = [(pc, f) for pc, block in enumerate(blocks) if getattr(block, "draw_slot", None) is not None
             for f in candidates[pc] if _followed(candidates, routine.successors, pc, f, BLOCKS_AFTER_A_DRAW)]
    ahead = _spread(candidates, predecessors, seeds)  # blocks from which a seed lies ahead
    behind = _spread(candidates, routine.successors, seeds)  # blocks that a seed lies behind
    return _alike_in_cycles([ahead[pc] | behind[pc] for pc in range(len(blocks))], routine.successors)


# A value is carried through a stretch of blocks that leave it alone only if a draw there is followed by at
# least this many blocks of the stretch. Only a draw makes more states of one; taking a value out of the
# states and putting it back costs a pass over every state's carried values, which the blocks run once
# instead of once for each value must repay.
BLOCKS_AFTER_A_DRAW = 2


def predecessors_of(successors: list[list[int]]) -> list[list[int]]:
    """For each block, the blocks that lead to it."""
    found: list[list[int]] = [[] for _ in successors]
    for pc, following in enumerate(successors):
        for nxt in following:
            if nxt >= 0:
                found[nxt].append(pc)
    return found


def _alike_in_cycles(chosen: list[set[Field]], successors: list[list[int]]) -> list[set[Field]]:
    """The values each block carries, where the blocks of a cycle (a for loop's passes) carry only those
    that all of them do. A value carried by some blocks of a cycle and not by others would be put back
    and taken out again on every pass, each time splitting the states that carrying it had merged (a third
    of the time of a loop that fires one shot a pass). A loop with a block that can carry nothing (a call
    site, say) carries nothing in any of its blocks."""
    flow = {pc: [nxt for nxt in following if nxt >= 0] for pc, following in enumerate(successors)}
    for group in loops.groups_in_flow_order(list(flow), flow):
        if len(group) > 1:
            common = set.intersection(*(chosen[pc] for pc in group))
            for pc in group:
                chosen[pc] = common
    return chosen


def _followed(candidates: list[set[Field]], successors: list[list[int]], pc: int, f: Field, blocks: int) -> bool:
    """Whether `blocks` more blocks that may carry f follow pc on some way on."""
    return blocks == 0 or any(nxt >= 0 and f in candidates[nxt]
                              and _followed(candidates, successors, nxt, f, blocks - 1) for nxt in successors[pc])


def _spread(candidates: list[set[Field]], back: list[list[int]], seeds: list[tuple[int, Field]]) -> list[set[Field]]:
    """For each block, the values of the seeds that reach it going along `back` from them, through blocks
    that may carry the value all along."""
    found: list[set[Field]] = [set() for _ in candidates]
    waiting = list(seeds)
    for pc, f in seeds:
        found[pc].add(f)
    while waiting:
        pc, f = waiting.pop()
        for other in back[pc]:
            if other >= 0 and f in candidates[other] and f not in found[other]:
                found[other].add(f)
                waiting.append((other, f))
    return found


def _changed_before(blocks: list[Any], predecessors: list[list[int]], statics: dict[int, str],
                    order: list[int]) -> list[Touch]:
    """For each block, what some block before it may have changed."""
    anything = Touch(None, None, set())
    changes = [touched_by(block, statics, reads=False) or anything for block in blocks]
    before = [Touch(set(), set(), set()) for _ in blocks]
    changed = True
    ordered = sorted(range(len(blocks)), key=order.__getitem__)  # program order: most facts flow forward
    while changed:
        changed = False
        for pc in ordered:
            found = Touch(set(), set(), set())
            for earlier in predecessors[pc]:
                found = found.union(before[earlier]).union(changes[earlier])
            if found != before[pc]:
                before[pc] = found
                changed = True
    return before


def touched_by(block: Any, statics: dict[int, str], reads: bool = True) -> Touch | None:
    """What a block reads or writes (or only writes); None for a call site."""
    if getattr(block, "lines", None) is None:
        return None
    fields: set[tuple[Any, str]] | None = set()
    outcomes: set[str] | None = set()
    slots: set[int] = set()
    for (line, _), facts in zip(block.lines, block.facts):
        line_reads, writes, _ = slot_facts(line.strip())  # a write under a condition is a write too
        slots |= (line_reads | writes) if reads else writes
        if facts is None:
            fields = outcomes = None
            continue
        if fields is not None:
            for slot, name in (facts.field_reads | facts.field_sets) if reads else facts.field_sets:
                fields.add((statics.get(slot, ANY) if slot is not ANY else ANY, name))
        if outcomes is not None:
            outcomes |= (facts.outcome_reads | facts.outcome_kills | facts.outcome_sets) if reads else (
                facts.outcome_sets)
    if reads:
        for line, _ in block.dist_lines:
            slots |= slot_facts(line)[0]
    return Touch(fields, outcomes, slots)


class Regroup:
    """States going from a block that carries some values to one that carries others.

    The values carried no more are put back into each state (those still live where the states go;
    the rest are dropped, as forgetting would), the values carried from now on are taken out, and
    each state's probability is split or gathered accordingly. A value that is the same throughout a
    state's probability goes back at no cost; one that varies splits the state.
    """

    def __init__(self, before: tuple[Field, ...], after: tuple[Field, ...], projection: Projection, pc: int,
                 interned: Interned):
        live = projection.live[pc] if pc >= 0 else None
        layout = projection.kept[pc] if pc >= 0 else projection.end
        self.place = {slot: at for at, slot in enumerate(layout)}  # where each slot is in a kept frame

        def still_read(value: Field) -> bool:
            kind, name = value
            if kind == SLOT:
                return name in self.place
            return kind == OUTCOME or live is None or live.field_live(kind, name)

        self.before, self.after = before, after
        self.restore = frozenset(value for value in before if value not in after and still_read(value))
        self.taken = tuple(value for value in after if value not in before)
        kinds = {kind for kind, _ in self.taken}
        # Whether some of them are entity fields, and some outcomes: a state's world or outcomes is looked at only then.
        self._takes_fields, self._takes_outcomes = bool(kinds - {SLOT, OUTCOME}), OUTCOME in kinds
        self.interned = interned
        self._put_worlds: dict[tuple[Any, ...], int] = {}  # (world, values put back) -> the world with them
        self._put_outcomes: dict[tuple[Any, ...], int] = {}  # the same, for outcomes
        self._worlds_without: dict[int, tuple[int, tuple[Any, ...]]] = {}  # world -> it without the values
        self._outcomes_without: dict[int, tuple[int, tuple[Any, ...]]] = {}  # taken, and those; for outcomes
        self._plans: dict[tuple[Field, ...], tuple[Any, Any, tuple[Field, ...], tuple[Field, ...]]] = {}
        # The states' fixed values met, set apart (_set_apart); their varying ones, whether all stay carried.
        self._apart: dict[tuple[tuple[Field, Any], ...], tuple[Sorted | None, tuple[tuple[Field, Any], ...]]] = {}
        self._stay: dict[tuple[Field, ...], bool] = {}
        # (shared parts, by identity; their names) -> the parts, kept alive, and their split (see _split)
        self._splits: dict[tuple[int, tuple[Field, ...]], tuple[dict[Any, Any], dict[Any, Any]]] = {}
        self.work = 0  # steps of work the states split so far cost, for the engine to count

    def states(self, key: tuple[Any, ...], p: Any) -> Iterator[tuple[tuple[Any, ...], Any]]:
        if not self.before:
            stripped, taken = self._take(key)
            yield stripped, Carried((), {(): _scaled(p)}, tuple(zip(self.taken, taken)), owned=True)
            return
        after = self.after
        apart = self._apart.get(p.fixed)
        if apart is None:
            apart = self._apart[p.fixed] = self._set_apart(p.fixed)
        back, fixed = apart
        if back is not None:
            key = self._put(key, back)
        names = p.names
        stay = self._stay.get(names)
        if stay is None:
            stay = self._stay[names] = all(value in after for value in names)
        if stay:  # the varying values stay carried: their parts are shared
            if not after:
                yield key, p.total()
                return
            stripped, taken = self._take(key)
            p.owned = False
            yield stripped, Carried(names, p.parts, _fixed(fixed, self.taken, taken), p.top, p.bottom)
            return
        # Some varying values leave: one state for each combination of those put back. The parts are split
        # as they are, unscaled: each new state keeps the scale.
        plan = self._plans.get(names)
        if plan is None:
            plan = self._plans[names] = self._plan(names)
        kept_names, back_names = plan[2], plan[3]
        if p.owned:  # parts of its own, which may take additions later: split afresh, and given on
            split = _split(p.parts, plan, after)
            self.work += len(p.parts)
        else:  # parts shared by the states a draw made of one (a counterattack's results, say): split once
            found = self._splits.get((id(p.parts), names))
            if found is None or found[0] is not p.parts:
                found = self._splits[(id(p.parts), names)] = (p.parts, _split(p.parts, plan, after))
                self.work += len(p.parts)
            split = found[1]
        self.work += len(split)  # a state for each combination of the values put back
        top, bottom = p.top, p.bottom
        for put, parts in split.items():
            restored = self._restore(key, tuple(zip(back_names, put)))
            if not after:  # each put's parts summed already
                yield restored, parts if top == bottom else Scaled(parts.n * top, parts.d * bottom)
                continue
            stripped, taken = self._take(restored)
            yield stripped, Carried(kept_names, parts, _fixed(fixed, self.taken, taken), top, bottom, owned=p.owned)

    def _plan(self, names: tuple[Field, ...]) -> tuple[Any, Any, tuple[Field, ...], tuple[Field, ...]]:
        """For parts over `names`: getters of the values still carried and of those put back, and their names."""
        kept = tuple(at for at, value in enumerate(names) if value in self.after)
        back = tuple(at for at, value in enumerate(names) if value in self.restore)
        return tuple_getter(kept), tuple_getter(back), tuple(names[at] for at in kept), tuple(names[at] for at in back)

    def _set_apart(self, fixed: tuple[tuple[Field, Any], ...]) -> tuple[Sorted | None, tuple[tuple[Field, Any], ...]]:
        """A state's fixed values set apart: those put back (sorted as _put takes them; None if none), and
        those still carried."""
        back = tuple((value, was) for value, was in fixed if value in self.restore)
        return (self._sorted(back) if back else None), tuple((value, was) for value, was in fixed if value in self.after)

    def _restore(self, key: tuple[Any, ...], put: tuple[tuple[Field, Any], ...]) -> tuple[Any, ...]:
        """The state with the values put back (each (value, what it is))."""
        return self._put(key, self._sorted(put))

    def _put(self, key: tuple[Any, ...], put: Sorted) -> tuple[Any, ...]:
        """The state with the values put back, sorted by _sorted."""
        frame, world, outcomes = key[0], key[1], key[2]
        into_world, into_outcomes, slots = put
        if into_world:
            world = self._world_with(world, into_world)
        if into_outcomes:
            outcomes = self._outcomes_with(outcomes, into_outcomes)
        if slots:
            values = list(frame)
            for at, value in slots:
                values[at] = value
            frame = tuple(values)
        return (frame, world, outcomes, *key[3:])

    def _sorted(self, put: tuple[tuple[Field, Any], ...]) -> Sorted:
        """The values put back into the world, into the outcomes, and into the frame (by place); an absent
        value goes nowhere."""
        world, outcomes, slots = [], [], []
        for value in put:
            (kind, name), was = value
            if was is ABSENT:
                continue
            if kind == SLOT:
                slots.append((self.place[name], was))
            elif kind == OUTCOME:
                outcomes.append(value)
            else:
                world.append(value)
        return tuple(world), tuple(outcomes), tuple(slots)

    # The world and the outcomes are remembered apart: states that differ in one often share the other
    # (the outcomes that an attack's states put a value back into are a few dozen, their worlds thousands).

    def _world_with(self, world: int, put: tuple[tuple[Field, Any], ...]) -> int:
        found = self._put_worlds.get((world, put))
        if found is None:
            changed = Frozen(self.interned.values[world])  # a new one, filled before it is first hashed
            for (entity, name), value in put:
                changed[entity] = self.interned.changed(changed[entity], name, value)
            found = self._put_worlds[(world, put)] = self.interned.made(changed)
        return found

    def _outcomes_with(self, outcomes: int, put: tuple[tuple[Field, Any], ...]) -> int:
        found = self._put_outcomes.get((outcomes, put))
        if found is None:
            changed = Frozen(self.interned.values[outcomes])
            for (_, name), value in put:
                changed[name] = value
            found = self._put_outcomes[(outcomes, put)] = self.interned.made(changed)
        return found

    def _take(self, key: tuple[Any, ...]) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        """The state with the values carried from now on taken out (none in their place), and those values."""
        taken_here = self.taken
        if not taken_here:
            return key, ()
        frame, world, outcomes = key[0], key[1], key[2]
        world_values: tuple[Any, ...] = ()
        outcome_values: tuple[Any, ...] = ()
        if self._takes_fields:
            from_world = self._worlds_without.get(world)
            if from_world is None:
                from_world = self._worlds_without[world] = self._taken_from_world(world)
            world, world_values = from_world
        if self._takes_outcomes:
            from_outcomes = self._outcomes_without.get(outcomes)
            if from_outcomes is None:
                from_outcomes = self._outcomes_without[outcomes] = self._taken_from_outcomes(outcomes)
            outcomes, outcome_values = from_outcomes
        taken: list[Any] = []
        frame_values: list[Any] | None = None
        in_world, in_outcomes = iter(world_values), iter(outcome_values)
        for kind, name in taken_here:
            if kind == SLOT:
                if frame_values is None:
                    frame_values = list(frame)
                place = self.place[name]
                taken.append(frame_values[place])
                frame_values[place] = None
            elif kind == OUTCOME:
                taken.append(next(in_outcomes))
            else:
                taken.append(next(in_world))
        if frame_values is not None:
            frame = tuple(frame_values)
        return (frame, world, outcomes, *key[3:]), tuple(taken)

    def _taken_from_world(self, world: int) -> tuple[int, tuple[Any, ...]]:
        """The world (by number) without the entity fields carried from now on, and their values, in order."""
        changed: dict[Any, Any] | None = None
        taken: list[Any] = []
        for kind, name in self.taken:
            if kind == SLOT or kind == OUTCOME:
                continue
            if changed is None:
                changed = dict(self.interned.values[world])
            record: Record | None = changed.get(kind)
            if record is None or not record.has(name):
                taken.append(ABSENT)
                continue
            taken.append(record.get(name))
            changed[kind] = self.interned.changed(record, name, None)
        return (world if changed is None else self.interned.made(Frozen(changed))), tuple(taken)

    def _taken_from_outcomes(self, outcomes: int) -> tuple[int, tuple[Any, ...]]:
        """The outcomes (by number) without those carried from now on, and their values, in order."""
        changed: dict[Any, Any] | None = None
        taken: list[Any] = []
        for kind, name in self.taken:
            if kind != OUTCOME:
                continue
            if changed is None:
                changed = dict(self.interned.values[outcomes])
            taken.append(changed.get(name, ABSENT))
            if name in changed:
                changed[name] = None
        return (outcomes if changed is None else self.interned.made(Frozen(changed))), tuple(taken)


def _split(parts: dict[tuple[Any, ...], Scaled], plan: tuple[Any, Any, Any, Any],
           after: tuple[Field, ...]) -> dict[tuple[Any, ...], Any]:
    """Parts split by the values of the varying fields put back: for each combination of those, the parts
    of the fields still carried (with `after` empty, their sum)."""
    rest_of, put_of = plan[0], plan[1]
    if not after:
        totals: dict[tuple[Any, ...], Any] = {}
        for values, weight in parts.items():
            put = put_of(values)
            before = totals.get(put)
            totals[put] = weight if before is None else before + weight
        return totals
    return grouped(parts.items(), put_of, rest_of)


def grouped(pairs: Iterable[tuple[tuple[Any, ...], Any]], outer: Callable[[tuple[Any, ...]], tuple[Any, ...]],
            inner: Callable[[tuple[Any, ...]], tuple[Any, ...]]) -> dict[tuple[Any, ...], dict[tuple[Any, ...], Any]]:
    """Combinations of values with their probabilities, by what `outer` picks of them, then by what `inner`
    picks, the probabilities of those picked alike summed."""
    found: dict[tuple[Any, ...], dict[tuple[Any, ...], Any]] = {}
    for values, weight in pairs:
        key = outer(values)
        into = found.get(key)
        if into is None:
            into = found[key] = {}
        rest = inner(values)
        before = into.get(rest)
        into[rest] = weight if before is None else before + weight
    return found


def _fixed(kept: tuple[tuple[Field, Any], ...], taken_fields: tuple[Field, ...],
           taken: tuple[Any, ...]) -> tuple[tuple[Field, Any], ...]:
    return tuple(sorted((*kept, *zip(taken_fields, taken)), key=_pair_order)) if taken_fields else kept


_ORDERS: dict[Field, str] = {}  # carried values are kept in the order of their fields' reprs, made once each


def _order(field: Field) -> str:
    found = _ORDERS.get(field)
    if found is None:
        found = _ORDERS[field] = repr(field)
    return found


def _pair_order(pair: tuple[Field, Any]) -> str:
    return _order(pair[0])


def _scaled(p: Any) -> Scaled:
    if type(p) is Scaled:
        return p
    p = Fraction(p)
    return Scaled(p.numerator, p.denominator)
