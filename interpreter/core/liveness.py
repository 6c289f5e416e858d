"""What a state still needs at each block: slots, entity fields and outcomes that a later block reads.

The exact engine forgets everything else before a block runs (sets it to
none), so that states which differ only in values nobody will read again
merge. This is what turns a pipeline of steps into a chain over a few live
numbers: a step's intermediate results stop mattering once read.

Facts come from the generator, line by line: the slots a line reads and
writes (from its text, which the generator writes in a few fixed shapes),
and the entity fields and outcomes it reads and changes (recorded while its
expressions were written). An entity is known by name where a slot holds an
input of the action (directly, or passed on to an inlined step); a field
read through anything else is taken as read on every entity.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
import re
from typing import Any

from fracas.dsl.records import field, record
from fracas.interpreter.core.state import Frozen
from fracas.interpreter.core.values import Record
from fracas.interpreter.runtime.getters import tuple_getter

ANY = None  # an entity not known statically
EVERY_FIELD = "*"  # a field name not known statically (a function that calls itself)

# Patterns as text: re compiles each when first used, so that a run of kept code compiles none.
_SLOT = r"F\[(\d+)\]"
_TARGETS = r"^((?:F\[\d+\](?:, | = |,))+)\s*=?\s*(.*)$"


@record
class LineFacts:
    """What one generated line reads and changes, beyond its slots."""

    field_reads: set[tuple[Any, str]] = field(default_factory=set)  # (slot or ANY, field)
    field_kills: set[tuple[int, str]] = field(default_factory=set)  # (slot, field) set outright
    outcome_reads: set[str] = field(default_factory=set)
    outcome_kills: set[str] = field(default_factory=set)
    field_writes: set[str] = field(default_factory=set)  # names of fields changed, on whatever entity
    field_sets: set[tuple[Any, str]] = field(default_factory=set)  # (slot or ANY, field) changed
    outcome_sets: set[str] = field(default_factory=set)  # outcomes changed

    def merge(self, other: LineFacts) -> None:
        self.field_reads |= other.field_reads
        self.outcome_reads |= other.outcome_reads


def slot_facts(line: str) -> tuple[set[int], set[int], bool]:
    """The slots a line reads, the slots it surely writes, and whether it writes others only maybe."""
    conditional = line.startswith(" ")
    reads: set[int] = set()
    writes: set[int] = set()
    for part in line.strip().split("; "):
        match = re.match(_TARGETS, part)
        if match and not part.startswith("return"):
            targets, value = match.group(1), match.group(2)
            reads |= {int(s) for s in re.findall(_SLOT, value)}
            writes |= {int(s) for s in re.findall(_SLOT, targets)}
        else:
            reads |= {int(s) for s in re.findall(_SLOT, part)}
    if conditional:
        return reads, set(), True
    return reads, writes, False


@record
class Live:
    """What a later block may still read: the slots and entity fields a state must keep."""

    slots: frozenset[int]
    fields: frozenset[tuple[Any, str]]  # (entity name or ANY, field)

    def field_live(self, entity: str, name: str) -> bool:
        fields = self.fields
        return ((ANY, name) in fields or (entity, name) in fields or (ANY, EVERY_FIELD) in fields)


# The engine's memos of a projection kept with it (see Projection.__reduce__): engines._pass_through's, folds.folded's,
# tails.tail_of's and _touched_on_the_way's, lanes.split_of's, and the field changes Projection.dead_writes finds
# dead.
_DEAD_WRITES = ("dead writes",)  # memo key of Projection.dead_writes
_KEPT_MEMOS = ("through", "fold", "tail", "tail touches", "tail lanes", _DEAD_WRITES[0])
_SET_FIELD = r"^\s*rt\.set_field\(.*, (K\d+)\)$"  # a field changed, and its statement's constant
# Worlds a block remembers what it keeps of (Projection.world), from one run to the next: a run of the same
# scenario again finds them, but a process that runs many scenarios (a sweep's values) would pile up the worlds
# of every one of them; past this many the block starts afresh.
_MOST_WORLDS = 1024


class Projection:
    """Per block: what to keep of a state waiting for it.

    A frame is kept as the tuple of its live slots only (`keep`), so that
    states waiting at a block are small and hash fast; `expand` makes the
    full frame the block's code reads.
    """

    def __init__(self, live: list[Live | None], slots: int, end: Live, touched: list[set[str] | None],
                 carried: Any = False, at_calls: dict[int, frozenset[int]] | None = None):
        self.slots = slots
        self.live = live
        # The fields that can be dead here but not yet forgotten: live before some block
        # that leads here, or written by it. Only these are looked at (None: all).
        self.touched = touched
        # A call site (live None: every field is, the step may read any) keeps the slots read after it.
        self.at_calls = at_calls or {}
        self.kept = [tuple(sorted(self.at_calls[pc])) if pc in self.at_calls
                     else tuple(range(slots)) if l is None else tuple(sorted(l.slots)) for pc, l in enumerate(live)]
        self.end = tuple(sorted(end.slots))
        self.observed = end.fields  # the entity fields read at the end
        self._getters = [tuple_getter(kept) for kept in self.kept]
        self._expanders: list[Callable[[tuple[Any, ...]], list[Any]] | None] = [None] * len(live)
        self._end_getter = tuple_getter(self.end)
        self._dead_fields: dict[tuple[int, str, Any], Any] = {}
        self._worlds: list[dict[Frozen, Frozen]] = [{} for _ in live]
        self._forgets: list[bool | None] = [None] * len(live)  # see _may_forget
        self._dead_ids: frozenset[int] | None = None  # see dead_writes
        self.memo: dict[Any, Any] = {}  # what the engine works out once from these facts
        # What each block's states carry (carry.carried_at): False until worked out.
        self.carried = carried

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled by the facts it is made of (its getters are closures), so that it is kept with the generated
        # code (kept_code.py), and with what was worked out from them that is plain data: the fields each
        # block forgets, where states go past blocks, which draws fold, which field changes are dead (a first
        # call in a fresh process works them out again otherwise). `end` is needed for its slots and its fields.
        kept = {key: found for key, found in self.memo.items() if key[0] in _KEPT_MEMOS}
        return (Projection, (self.live, self.slots, Live(frozenset(self.end), self.observed), self.touched,
                             self.carried, self.at_calls), (kept, self._dead_fields))

    def __setstate__(self, state: tuple[dict[Any, Any], dict[tuple[int, str, Any], Any]]) -> None:
        self.memo, self._dead_fields = dict(state[0]), dict(state[1])

    def keep(self, pc: int, frame: list[Any]) -> tuple[Any, ...]:
        return self._getters[pc](frame) if pc >= 0 else self._end_getter(frame)

    def expand(self, pc: int, kept: tuple[Any, ...]) -> list[Any]:
        return self.expander(pc)(kept)

    def expander(self, pc: int) -> Callable[[tuple[Any, ...]], list[Any]]:
        """A function from the tuple `keep` gives at a block to the full frame (none in the slots not kept)."""
        found = self._expanders[pc]
        if found is None:
            found = self._expanders[pc] = _expander(self.kept[pc], self.slots)
        return found

    def forgets(self, pc: int) -> bool:
        """Whether `world` may take a field out of a world on its way to this block: at most blocks it gives
        every world back as it is."""
        live = self.live[pc]
        if live is None:
            return False
        forgets = self._forgets[pc]
        if forgets is None:
            forgets = self._forgets[pc] = self._may_forget(pc, live)
        return forgets

    def world(self, pc: int, world: Frozen) -> Frozen:
        forgets = self._forgets[pc]  # forgets(pc), read in place: most blocks forget nothing
        if forgets is None:
            forgets = self.forgets(pc)
        if not forgets:
            return world
        live = self.live[pc]
        assert live is not None
        seen = self._worlds[pc]
        found = seen.get(world)
        if found is not None:
            return found
        if len(seen) >= _MOST_WORLDS:
            seen.clear()
        changed: Frozen | None = None  # a new one, filled before it is first hashed
        for id, entity_record in world.items():
            key = (pc, id, entity_record.shape)
            dead = self._dead_fields.get(key)
            if dead is None:
                dead = self._dead_fields[key] = self._dead(pc, live, id, entity_record)
            if dead and dead[0](entity_record.values) != dead[1]:
                values = list(entity_record.values)
                for i in dead[2]:
                    values[i] = None
                if changed is None:
                    changed = Frozen(world)
                changed[id] = Record(entity_record.shape, tuple(values))
        found = seen[world] = world if changed is None else changed
        return found

    def dead_writes(self, routine: Any, namespace: dict[str, Any]) -> frozenset[int]:
        """The statements (by identity) that change an entity's field no later block reads, nor a later line of
        their own block: the exact engine leaves the world as it was there (the next block would forget the
        value anyway), once the statement has been evaluated and checked as it always is. Worked out from the
        lines' facts, kept by the constants that name the statements in the code (see __reduce__)."""
        found = self._dead_ids
        if found is None:
            names = self.memo.get(_DEAD_WRITES)
            if names is None:
                names = self.memo[_DEAD_WRITES] = self._dead_writes(routine)
            found = self._dead_ids = frozenset(id(namespace[name]) for name in names)
        return found

    def _dead_writes(self, routine: Any) -> frozenset[str]:
        dead: set[str] = set()
        for pc, block in enumerate(routine.blocks):
            if not getattr(block, "writes_world", False) or self.live[pc] is None:
                continue
            _, fields = _live_after(routine.successors[pc], self.live, routine.blocks,
                                    Live(frozenset(self.end), self.observed), self.slots)
            if (ANY, EVERY_FIELD) in fields:
                continue
            for (line, _), effect, facts in zip(reversed(block.lines), _line_effects(block, routine.statics),
                                                reversed(block.facts)):
                _, _, kills, reads = effect
                written = re.search(_SET_FIELD, line) if facts is not None else None
                if written is not None and len(facts.field_sets) == 1:
                    [(slot, name)] = facts.field_sets
                    entity = routine.statics.get(slot, ANY) if slot is not ANY else ANY
                    if not any((field == name or field == EVERY_FIELD) and (entity is ANY or owner in (ANY, entity))
                               for owner, field in fields):
                        dead.add(written.group(1))
                if kills is not None:  # as _through goes back over the line
                    fields = (fields - kills) | reads
        return frozenset(dead)

    def _may_forget(self, pc: int, live: Live) -> bool:
        """Whether some entity's field may be forgotten at a block: not where every field touched is live for
        every entity (most blocks), so that a world on its way there is given back as it is, not looked up."""
        fields, touched = live.fields, self.touched[pc]
        if (ANY, EVERY_FIELD) in fields:
            return False
        return touched is None or any((ANY, name) not in fields for name in touched)

    def _dead(self, pc: int, live: Live, id: str, record: Record) -> tuple[Any, Any, tuple[int, ...]] | tuple[()]:
        """The fields of an entity forgotten at a block: a getter of their values, what it gives when all are
        none, their places; () for none."""
        if (ANY, EVERY_FIELD) in live.fields:
            return ()
        fields, touched, shape = live.fields, self.touched[pc], record.shape
        if touched is None:
            # The entity's live fields as one set (as field_live reads them): a record has dozens of fields.
            alive = {name for entity, name in fields if entity is ANY or entity == id}
            dead = tuple(i for i, name in enumerate(shape.names) if name not in alive)
        else:  # the few fields touched looked up, not each of the record's dozens nor each live field
            index = shape.index
            dead = tuple(sorted(index[name] for name in touched
                                if name in index and (ANY, name) not in fields and (id, name) not in fields))
        if not dead:
            return ()
        return operator.itemgetter(*dead), (None,) * len(dead) if len(dead) > 1 else None, dead


def _expander(kept: tuple[int, ...], slots: int) -> Callable[[tuple[Any, ...]], list[Any]]:
    if not kept:
        return lambda values: [None] * slots
    if kept == tuple(range(slots)):
        return list
    if slots > 8 + 3 * len(kept):
        # A few of many slots (a routine that calls steps holds theirs too): a list of nones, the kept values set
        # in it, costs less than gathering every slot (measured: 5 of 74, 0.4 us against 0.9).
        def expand(values: tuple[Any, ...]) -> list[Any]:
            frame = [None] * slots
            for at, value in zip(kept, values):
                frame[at] = value
            return frame

        return expand
    # Slot i takes the kept value at place[i], or the none added after them: all in C.
    place = [len(kept)] * slots
    for at, index in enumerate(kept):
        place[index] = at
    gather = operator.itemgetter(*place)
    if slots == 1:
        return lambda values: [gather(values + (None,))]
    return lambda values: list(gather(values + (None,)))


def analyse(blocks: list[Any], successors: list[list[int]], slots: int, statics: dict[int, str],
            observed: Live) -> Projection:
    """Backward liveness over the blocks of a routine, from what is observed at its end."""
    facts = []
    for block in blocks:
        if getattr(block, "lines", None) is None:
            facts.append(None)  # a call site: nothing is forgotten around it
            continue
        facts.append(block)
    lines = [None if block is None else _line_effects(block, statics) for block in facts]
    live_in: list[Live | None] = [None] * len(blocks)
    changed = True
    while changed:
        changed = False
        for index in reversed(range(len(blocks))):
            block = facts[index]
            if block is None:
                continue
            out_slots, out_fields = _live_after(successors[index], live_in, blocks, observed, slots)
            slots_live, fields_live = _through(lines[index], out_slots, out_fields)  # type: ignore[arg-type]
            new = Live(frozenset(slots_live), frozenset(fields_live))
            if live_in[index] != new:
                live_in[index] = new
                changed = True
    at_calls = {index: _at_call(block, live_in, blocks, observed, slots) for index, block in enumerate(blocks)
                if facts[index] is None}
    return Projection(live_in, slots, observed, _touched(blocks, successors, live_in), at_calls=at_calls)


def _at_call(site: Any, live_in: list[Live | None], blocks: list[Any], observed: Live, slots: int) -> frozenset[int]:
    """The slots live at a call site (a step that calls itself): its arguments', and those read after it comes
    back, or at the end (where the step stops the resolution). The step reads no other slot of its caller's."""
    back = site.back
    found = live_in[back] if back >= 0 else None
    if back < 0:
        after = observed.slots
    elif found is not None:
        after = found.slots
    elif getattr(blocks[back], "lines", None) is None:  # another call site straight after: every slot, to be safe
        return frozenset(range(slots))
    else:  # not worked out yet: the analysis comes round again once it is
        after = frozenset()
    return frozenset({site.args_slot} | observed.slots | after)


def _live_after(following: list[int], live_in: list[Live | None], blocks: list[Any], observed: Live,
                slots: int) -> tuple[set[int], set[tuple[Any, str]]]:
    """The slots and entity fields live after a block: live before the blocks it goes to, or observed at the end."""
    out_slots: set[int] = set()
    out_fields: set[tuple[Any, str]] = set()
    for nxt in following:
        if nxt < 0:
            out_slots |= observed.slots
            out_fields |= observed.fields
        else:
            live = live_in[nxt]
            if live is None and not isinstance(getattr(blocks[nxt], "lines", None), list):
                out_slots |= _at_call(blocks[nxt], live_in, blocks, observed, slots)  # into a call site
                out_fields.add((ANY, EVERY_FIELD))  # the step may read any field
            elif live is not None:
                out_slots |= live.slots
                out_fields |= live.fields
    return out_slots, out_fields


def _touched(blocks: list[Any], successors: list[list[int]], live_in: list[Live | None]) -> list[set[str] | None]:
    """For each block: the field names live before, or written by, a block that leads to it."""
    touched: list[set[str] | None] = [set() for _ in blocks]
    touched[0] = None  # the start: anything may be there
    for index, block in enumerate(blocks):
        live = live_in[index]
        written = {name for facts in getattr(block, "facts", ()) if facts is not None for name in facts.field_writes}
        names = None if live is None or getattr(block, "lines", None) is None else (
            {name for _, name in live.fields} | written)
        for nxt in successors[index]:
            if nxt < 0:
                continue
            if names is None or EVERY_FIELD in names:
                touched[nxt] = None
            elif touched[nxt] is not None:
                touched[nxt] |= names  # type: ignore[operator]
    return touched


LineEffect = tuple[set[int], set[int], "set[tuple[Any, str]] | None", "set[tuple[Any, str]]"]


def _line_effects(block: Any, statics: dict[int, str]) -> list[LineEffect]:
    """Each line's slot reads and writes, and field kills and reads, last line first: worked out once, not
    on every round of the analysis."""
    effects: list[LineEffect] = []
    for (line, _), facts in reversed(list(zip(block.lines, block.facts))):
        reads, writes, _ = slot_facts(line)
        if facts is None:
            effects.append((reads, writes, None, set()))
            continue
        kills = {(statics[s], name) for s, name in facts.field_kills if s in statics}
        effects.append((reads, writes, kills, {
            (statics.get(s, ANY) if s is not ANY else ANY, name) for s, name in facts.field_reads}))
    return effects


def _through(effects: list[LineEffect], slots_live: set[int],
             fields_live: set[tuple[Any, str]]) -> tuple[set[int], set[tuple[Any, str]]]:
    """Liveness before a block, from liveness after it: its lines, last to first."""
    for reads, writes, kills, field_reads in effects:
        slots_live = (slots_live - writes) | reads
        if kills is not None:
            fields_live = (fields_live - kills) | field_reads
    return slots_live, fields_live
