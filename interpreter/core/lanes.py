"""The end of an outcomes-only run in lanes: lines that share nothing, each run once for each value it reads.

A tail (tails.py) runs once for each combination of the carried values its
blocks touch. Where its lines fall apart into lanes that read and change
nothing in common (one side's loss landing on that side, the other's on the
other), a lane's results depend on the carried values it reads alone: it runs
once for each of those, and each combination's final state is put together
from its lanes' results, a lookup each, not a run of every line. The lines
that read no carried value run once for all, in a first run of the whole tail.
A lane's results are remembered through the resolution, by the carried values
it read and the values of what else it read: the states that reach the tail
with other values of what it does not read meet them again (an attack's
damage landing on the defender, whatever the counterattack did).

Lines fall into one lane where one reads or changes what another changes, so
lanes can run in any order, apart: each one's results are what they would be
in a run of every line. The constraints' check reads final worlds: the records
that lanes make are checked as they are made, once each, and where all of them
meet their constraints the final states share one world; where one may not,
each final state gets its own, and the check finds what breaks and says so as
it would have. A lane that stops the run or raises an error gives the tail
back to a run of each combination, which stops or fails as it would have.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from fracas.dsl.records import record
from fracas.interpreter.core import rt
from fracas.interpreter.core.carry import ABSENT, OUTCOME, SLOT, Carried
from fracas.interpreter.core.codegen import END, Block, Routine, block_function
from fracas.interpreter.core.dist import Scaled
from fracas.interpreter.core.errors import RunError, too_many_states
from fracas.interpreter.core.liveness import ANY, EVERY_FIELD, LineFacts, Projection, slot_facts
from fracas.interpreter.core.state import Frozen
from fracas.interpreter.runtime.getters import tuple_getter

# What a line reads or changes: a slot of the frame, an outcome, or an entity's field (entity or ANY).
Thing = tuple[Any, ...]
_SLOT, _OUTCOME, _FIELD = "slot", "outcome", "field"


# ---- which lines make a lane: worked out once for each tail block, whatever is carried -----------


@record(frozen=True)
class Split:
    """A tail's lines (its blocks' lines, in order, but the jumps) in lanes, by place, with what each lane
    reads and changes. Lines that only name input entities in slots of their own (a step's parameters, as it
    is called) are every lane's: each lane runs them too, in their place."""

    chain: tuple[int, ...]  # the blocks, from the tail block to the end
    lines: tuple[tuple[str, int], ...]
    things: tuple[tuple[frozenset[Thing], frozenset[Thing]], ...]  # what each line reads and changes
    lanes: tuple[tuple[int, ...], ...]  # each lane's lines, every lane's among them
    reads: tuple[frozenset[Thing], ...]
    writes: tuple[frozenset[Thing], ...]


def split_of(routine: Routine, projection: Projection, pc: int) -> Split | None:
    """The lanes of the tail from block pc; None where it cannot be run in lanes: its blocks branch, or a
    line's reads are not known, or it is in one lane only."""
    memo = ("tail lanes", pc)
    if memo not in projection.memo:
        projection.memo[memo] = _split(routine, pc)
    return projection.memo[memo]  # type: ignore[no-any-return]


def _split(routine: Routine, pc: int) -> Split | None:
    chain: list[int] = []
    lines: list[tuple[str, int]] = []
    things: list[tuple[frozenset[Thing], frozenset[Thing]]] = []
    at = pc
    while at != END:
        block = routine.blocks[at]
        if not isinstance(block, Block) or len(routine.successors[at]) != 1 or not block.lines:
            return None
        chain.append(at)
        *body, (jump, _) = block.lines
        if jump.strip() != f"return {routine.successors[at][0]}":
            return None
        for (line, rules_line), facts in zip(body, block.facts):
            found = _things(line, facts, routine.statics)
            if found is None:
                return None
            lines.append((line, rules_line))
            things.append(found)
        at = routine.successors[at][0]
    shared = _every_lanes(things, routine.statics)
    lanes = _lanes([(reads, writes) if i not in shared else (frozenset(), frozenset())
                    for i, (reads, writes) in enumerate(things)])
    lanes = [lane for lane in lanes if not set(lane) <= shared]
    if len(lanes) < 2:
        return None
    return Split(tuple(chain), tuple(lines), tuple(things), tuple(tuple(sorted(set(lane) | shared)) for lane in lanes),
                 tuple(frozenset().union(*(things[i][0] for i in lane)) for lane in lanes),
                 tuple(frozenset().union(*(things[i][1] for i in lane)) for lane in lanes))


def _every_lanes(things: list[tuple[frozenset[Thing], frozenset[Thing]]], statics: dict[int, str]) -> set[int]:
    """The lines that every lane runs: those that read only slots holding input entities (or nothing) and
    change only slots that no other line changes."""
    shared = {i for i, (reads, writes) in enumerate(things)
              if all(thing[0] == _SLOT and thing[1] in statics for thing in reads)
              and all(thing[0] == _SLOT for thing in writes)}
    others = frozenset().union(*(things[i][1] for i in range(len(things)) if i not in shared))
    return {i for i in shared if not ((things[i][0] | things[i][1]) & others)}


def _things(line: str, facts: LineFacts | None,
            statics: dict[int, str]) -> tuple[frozenset[Thing], frozenset[Thing]] | None:
    """What a line reads and what it changes; None for a line under a condition, one that leaves the block,
    or one whose reads are not known."""
    if facts is None or line.startswith(" ") or "return" in line or line.rstrip().endswith(":"):
        return None
    slot_reads, slot_writes, maybe = slot_facts(line)
    if maybe:
        return None
    reads: set[Thing] = {(_SLOT, slot) for slot in slot_reads}
    writes: set[Thing] = {(_SLOT, slot) for slot in slot_writes}
    reads |= {(_FIELD, _entity(slot, statics), name) for slot, name in facts.field_reads}
    writes |= {(_FIELD, _entity(slot, statics), name) for slot, name in facts.field_sets}
    named = {name for _, name in facts.field_sets}
    writes |= {(_FIELD, ANY, name) for name in facts.field_writes - named}
    reads |= {(_OUTCOME, name) for name in facts.outcome_reads}
    writes |= {(_OUTCOME, name) for name in facts.outcome_sets | facts.outcome_kills}
    return frozenset(reads), frozenset(writes)


def _entity(slot: Any, statics: dict[int, str]) -> Any:
    return ANY if slot is ANY else statics.get(slot, ANY)


def _meet(a: Thing, b: Thing) -> bool:
    """Whether two things may be one: the same slot or outcome, or a field of the same name on an entity that
    may be the same."""
    if a[0] != b[0]:
        return False
    if a[0] != _FIELD:
        return a[1] == b[1]
    return ((a[2] == b[2] or EVERY_FIELD in (a[2], b[2]))
            and (a[1] == b[1] or a[1] is ANY or b[1] is ANY))


def _meets(things: Iterable[Thing], others: Iterable[Thing]) -> bool:
    others = list(others)
    return any(_meet(a, b) for a in things for b in others)


def _lanes(things: list[tuple[frozenset[Thing], frozenset[Thing]]]) -> list[tuple[int, ...]]:
    """The lines in lanes: two lines are in one where one changes what the other reads or changes."""
    lane = list(range(len(things)))

    def root(i: int) -> int:
        while lane[i] != i:
            lane[i] = lane[lane[i]]
            i = lane[i]
        return i

    for j, (reads_j, writes_j) in enumerate(things):
        for i in range(j):
            reads_i, writes_i = things[i]
            if _meets(writes_i, reads_j | writes_j) or _meets(reads_i, writes_j):
                lane[root(j)] = root(i)
    found: dict[int, list[int]] = {}
    for i in range(len(things)):
        found.setdefault(root(i), []).append(i)
    return [tuple(lines) for lines in found.values()]


# ---- what a lane reads and gives, for the values carried into a tail ------------------------------


@record(frozen=True)
class Lane:
    """A lane that reads carried values: its code, the places of the values it reads in a state's carried
    values, and what it gives (the fields, outcomes and observed slots it changes, and the carried ones it
    reads, which it leaves as they were)."""

    run: Callable[[rt.Working, Any], Any]
    reads: Callable[[tuple[Any, ...]], tuple[Any, ...]]
    fields: tuple[tuple[str, str], ...]
    outcomes: tuple[str, ...]
    slots: tuple[int, ...]
    # The values of what else it reads before changing it, in a working state at the tail (the same for every
    # combination of carried values there); None where something it reads is not known (a field of any entity).
    context: Callable[[rt.Working], tuple[Any, ...]] | None


@record(frozen=True)
class Lanes:
    lanes: tuple[Lane, ...]
    blocks: tuple[int, ...]  # the whole tail's blocks, for the first run
    one_owner: bool  # whether each entity's fields come from one lane at most: its records checked lane by lane


def lanes_for(routine: Routine, projection: Projection, gen: Any, pc: int, names: tuple[Any, ...],
              first: tuple[int, ...]) -> Lanes | None:
    """The lanes of the tail from pc that read carried values, for states carrying `names` (`first`: the places of
    those its blocks touch); None where the tail does not fall into lanes."""
    memo = ("tail lanes for", pc, names)  # not kept: it holds the lanes' code
    if memo not in projection.memo:
        projection.memo[memo] = _lanes_for(routine, projection, gen, pc, names, first)
    return projection.memo[memo]  # type: ignore[no-any-return]


def _lanes_for(routine: Routine, projection: Projection, gen: Any, pc: int, names: tuple[Any, ...],
               first: tuple[int, ...]) -> Lanes | None:
    split = split_of(routine, projection, pc)
    if split is None:
        return None
    observed = set(projection.end)
    carried = [(at, _thing(names[at])) for at in first]
    lanes = []
    owners: dict[str, int] = {}
    one_owner = True
    for index, (lines, reads, writes) in enumerate(zip(split.lanes, split.reads, split.writes)):
        inputs = [(at, thing) for at, thing in carried if _meets([thing], reads)]
        if not inputs:
            continue  # it reads no carried value: the first run's results are every state's
        gives = set(writes) | {thing for _, thing in inputs}
        if any(thing[0] == _FIELD and (thing[1] is ANY or thing[2] == EVERY_FIELD) for thing in gives):
            return None  # a change to an entity not known here: its result cannot be put in its place
        fields = tuple(sorted((thing[1], thing[2]) for thing in gives if thing[0] == _FIELD))
        for entity in {entity for entity, _ in fields}:
            one_owner = one_owner and owners.setdefault(entity, index) == index
        lanes.append(Lane(_compiled(routine, gen, pc, index, [split.lines[i] for i in lines]),
                          tuple_getter(tuple(at for at, _ in inputs)), fields,
                          tuple(sorted(thing[1] for thing in gives if thing[0] == _OUTCOME)),
                          tuple(sorted(thing[1] for thing in gives if thing[0] == _SLOT and thing[1] in observed)),
                          _context([split.things[i] for i in lines], {thing for _, thing in inputs})))
    return Lanes(tuple(lanes), split.chain, one_owner)


def _context(lines: list[tuple[frozenset[Thing], frozenset[Thing]]],
             inputs: set[Thing]) -> Callable[[rt.Working], tuple[Any, ...]] | None:
    """A getter of the values of what a lane's lines read before they change it, but the carried values it reads
    (one combination's own); None where one of them is a field of an entity not known here."""
    exposed: list[Thing] = []
    written: set[Thing] = set()
    for reads, writes in lines:
        exposed += sorted((thing for thing in reads - written - inputs if thing not in exposed), key=repr)
        written |= writes
    if any(thing[0] == _FIELD and (thing[1] is ANY or thing[2] == EVERY_FIELD) for thing in exposed):
        return None
    getters = [_value_of(thing) for thing in exposed]
    return lambda S: tuple(get(S) for get in getters)


def _value_of(thing: Thing) -> Callable[[rt.Working], Any]:
    if thing[0] == _SLOT:
        return lambda S: S.F[thing[1]]
    if thing[0] == _OUTCOME:
        return lambda S: S.O.get(thing[1], ABSENT)
    return lambda S: S.W[thing[1]].get(thing[2])  # a KeyError where there is no such entity or field


def _thing(value: tuple[Any, Any]) -> Thing:
    kind, name = value
    if kind == SLOT:
        return (_SLOT, name)
    if kind == OUTCOME:
        return (_OUTCOME, name)
    return (_FIELD, kind, name)


def _compiled(routine: Routine, gen: Any, pc: int, index: int, lines: list[tuple[str, int]]) -> Callable[..., Any]:
    """A lane's lines as a function of a working state, as a block's are written (kept with the rules' code, so
    that a later process reads it back)."""
    name = f"{routine.name}_t{pc}_lane{index}"
    found = gen.namespace.get(name)
    if found is None:
        gen.source.extend(block_function(name, lines))
        gen.compile(gen.rules.path, keep=True)
        found = gen.namespace[name]
    return found  # type: ignore[no-any-return]


# ---- a tail run in lanes ---------------------------------------------------------------------------


Row = tuple[tuple[Any, ...], Any]  # a combination of carried values (and those fixed), with its probability
Start = Callable[[tuple[Any, ...]], rt.Working]  # a working state at the tail with the carried values it touches
PutBack = Callable[[Frozen, Frozen, tuple[Any, ...]], tuple[Frozen, Frozen]]  # the values a tail leaves alone


def run_in_lanes(routine: Routine, lanes: Lanes, all_rows: Callable[[], list[Row]], first_row: tuple[Any, ...],
                 first: Callable[[tuple[Any, ...]], tuple[Any, ...]], start: Start,
                 last: Callable[[tuple[Any, ...]], tuple[Any, ...]], put_back: PutBack | None, last_fields: bool,
                 projection: Projection, R: Any, finals: dict[tuple[Any, ...], Any], limit: int, pos: Any,
                 carried: Carried | None = None) -> bool:
    """Each combination of carried values (`all_rows()`, each with its probability; `first_row` the values of the
    first) run to the end in lanes, its final state added into `finals`; False, with nothing added and the work
    counted as it was, where lanes would save no runs, or where a lane stops the run or fails, or the work would
    pass its limit (the caller runs each combination instead, which meets them where it would have). `first` picks the values the tail
    touches, `start` makes a working state of them; `last` picks the values it leaves alone (`last_fields`: some
    of them fields), which `put_back` puts into a final world and outcomes (None: it leaves none).

    `carried`: the carried values the rows are made of, where their parts may be other states' too (the states
    of other values of what the tail reads beside them): how the rows fall into final states is worked out once
    for those parts, where a second state carries them, and each state after it puts its final states together
    from there (see _grouped_again)."""
    S0 = start(first(first_row))
    stopped, stack, depth = S0.stopped, S0.stack, S0.depth
    # Parts that a state owns may yet take additions in place (Carried.owned), and no other state shares them:
    # only shared parts, which nothing changes, are known by identity.
    memo = None if carried is None or carried.owned else _parts_key(lanes, carried, S0)
    grouping = None
    if memo is not None:
        assert carried is not None
        # The parts themselves, where one state carried them so far; what a second one's rows found, after it.
        known = R.interned.lane_groups.get(memo)
        if known is carried.parts:  # a second state: its rows grouped as they are put together
            grouping = (carried, [])
        elif type(known) is not _Known or known.parts is not carried.parts:  # a first: none grouped
            R.interned.lane_groups[memo] = carried.parts
        elif known.groups:
            return _grouped_again(routine, known, S0, all_rows, last, put_back, last_fields, projection, R, finals,
                                  limit, pos, carried)
    rows = all_rows()
    first_row = rows[0][0]  # the very row, told apart from the others by identity below
    # Each lane's results for the values its rows read: remembered through the resolution (with the other values
    # it reads, the same for every row here), and those of the first row taken from the first run. A lane that
    # reads one value in every row gives every row the first run's results.
    remembered, hits = R.interned.lanes, R.interned.lane_hits
    wanted: list[tuple[Lane, Any, dict[tuple[Any, ...], Given], list[tuple[tuple[Any, ...], tuple[Any, ...]]]]] = []
    runs, most, shared = 0, 1, True
    for lane in lanes.lanes:
        rows_of: dict[tuple[Any, ...], tuple[Any, ...]] = {}
        for row, _ in rows:
            rows_of.setdefault(lane.reads(row), row)
        if len(rows_of) == 1:
            continue
        most = max(most, len(rows_of))
        context = _context_in(lane, S0)
        found: dict[tuple[Any, ...], Given] = {}
        todo = []
        for key, row in rows_of.items():
            known = None if context is None else remembered.get((id(lane), context, key))
            if known is not None:
                found[key] = known
            elif row is not first_row:
                todo.append((key, row))
        runs += len(todo)
        # Results remembered pay where they serve states to come: tried once for a lane, and again where they
        # have served (not where what else it reads differs from state to state).
        served = hits.get(id(lane))
        shared = shared and context is not None and (served is None or served > 0 or bool(found))
        wanted.append((lane, context, found, todo))
    lanes = Lanes(tuple(lane for lane, _, _, _ in wanted), lanes.blocks, lanes.one_owner)
    work = len(lanes.blocks) + runs  # as a run of each combination counts it: a block run, a step
    # Lanes that run at most half as often as the whole tail would save runs; lanes whose results are remembered
    # for the states to come may run about as often, once. Each run of a lane does at most the work of a run of
    # the whole tail: they run at most as often as it would (once for each combination of the values it
    # touches, at least as many as one lane reads values) and do no more work than it would.
    if 2 * runs > len(rows) and not shared or work > R.work_limit - R.work:
        return False
    if 1 + runs > most and 1 + runs > len({first(row) for row, _ in rows}):
        return False
    for lane, context, found, _ in wanted:
        if context is not None:
            hits[id(lane)] = hits.get(id(lane), 0) + len(found)
    spent = R.work  # the work the lines count as they run (a comprehension's items), given back if lanes give up
    functions = routine.functions
    for at in lanes.blocks:  # every line once: what the lanes that read no carried value give every state
        functions[at](S0, R)  # type: ignore[misc]
    results: list[dict[tuple[Any, ...], Given]] = []
    try:
        if S0.stopped != stopped or S0.stack is not stack or S0.depth != depth:
            raise _GiveUp
        for lane, context, found, todo in wanted:
            key = lane.reads(first_row)
            if key not in found:
                found[key] = _given(lane, S0)
                if context is not None:
                    remembered[(id(lane), context, key)] = found[key]
            for key, row in todo:
                S = start(first(row))
                lane.run(S, R)
                if S.stopped != stopped or S.stack is not stack or S.depth != depth:
                    raise _GiveUp
                found[key] = _given(lane, S)
                if context is not None:
                    remembered[(id(lane), context, key)] = found[key]
            results.append(found)
    except Exception:  # the run of each combination meets it again, where it would have
        R.work = spent
        return False
    R.work += work
    _put_together(lanes, results, all_rows, S0, last, put_back, last_fields, projection, R, finals, limit, pos,
                  grouping)
    if grouping is not None:  # grouped, or not (the rows put together one by one): not tried again either way
        R.interned.lane_groups[memo] = _Known(grouping[0].parts, lanes, results, tuple(grouping[1]))
    return True


def _parts_key(lanes: Lanes, carried: Carried, S0: rt.Working) -> tuple[Any, ...] | None:
    """What the states that carry these parts into this tail found of it is known by: the parts (by identity), the
    values fixed, and what else each lane reads; None where that cannot be a key (not known, or not hashable)."""
    contexts = tuple(_context_in(lane, S0) for lane in lanes.lanes)
    if None in contexts:
        return None
    key = (id(lanes), id(carried.parts), carried.fixed, contexts)
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _grouped_again(routine: Routine, known: _Known, S0: rt.Working, all_rows: Callable[[], list[Row]],
                   last: Callable[[tuple[Any, ...]], tuple[Any, ...]], put_back: PutBack | None, last_fields: bool,
                   projection: Projection, R: Any, finals: dict[tuple[Any, ...], Any], limit: int, pos: Any,
                   carried: Carried) -> bool:
    """run_in_lanes for a state whose parts another state's rows grouped: every lane's results for them are
    remembered, so the lanes run for no row, and the rows' final states are the groups found there, each made
    once, its probability the sum of its parts at this state's scale (its rows not made, where they share a
    world)."""
    lanes, results = known.lanes, known.results
    work = len(lanes.blocks)  # as a run that finds every lane's results remembered counts it
    if work > R.work_limit - R.work:
        return False
    hits = R.interned.lane_hits
    for lane, found in zip(lanes.lanes, results):
        hits[id(lane)] = hits.get(id(lane), 0) + len(found)
    stopped, stack, depth = S0.stopped, S0.stack, S0.depth
    spent = R.work
    functions = routine.functions
    for at in lanes.blocks:
        functions[at](S0, R)  # type: ignore[misc]
    if S0.stopped != stopped or S0.stack is not stack or S0.depth != depth:
        R.work = spent  # as the lanes give up where their first run stops
        return False
    R.work += work
    _put_together(lanes, results, all_rows, S0, last, put_back, last_fields, projection, R, finals, limit, pos,
                  (carried, known.groups))
    return True


# A group of a tail's rows that make one final state (see _outcomes_put_together): a row of it, the lanes' results
# for it, the values it leaves alone, and the parts of its rows summed, (denominator, numerator) for each.
Group = tuple[tuple[Any, ...], list[Any], tuple[Any, ...], tuple[tuple[int, int], ...]]


@record(frozen=True)
class _Known:
    """What the second state that carried an object of parts into a tail found of it (see run_in_lanes): its
    lanes and their results, and how its rows were grouped (no group: they were put together one by one)."""

    parts: dict[tuple[Any, ...], Any]  # kept alive: the memo knows them by identity
    lanes: Lanes
    results: list[dict[tuple[Any, ...], Any]]
    groups: tuple[Group, ...]


def _context_in(lane: Lane, S: rt.Working) -> tuple[Any, ...] | None:
    """The values of what else a lane reads, in a working state, as a key of its remembered results; None where
    they cannot be one (not known, or not hashable)."""
    if lane.context is None:
        return None
    try:
        found = lane.context(S)
        hash(found)
    except (KeyError, TypeError):
        return None
    return found


class _GiveUp(Exception):
    """A lane stopped the run: the tail is run for each combination instead."""


# What a lane's run gives: its fields' values, (entity, name, value); its outcomes', (name, value), and those
# it left out; its observed slots', (slot, value).
Given = tuple[tuple[tuple[str, str, Any], ...], tuple[tuple[str, Any], ...], tuple[str, ...],
              tuple[tuple[int, Any], ...]]


def _given(lane: Lane, S: rt.Working) -> Given:
    """What a lane's run gives. A field it names that the world does not hold fails (a KeyError): the tail is
    run for each combination instead, and nothing it made is put in a record it does not belong to."""
    W, O, F = S.W, S.O, S.F
    fields = tuple((entity, name, W[entity].get(name)) for entity, name in lane.fields)
    outcomes = tuple((name, O[name]) for name in lane.outcomes if name in O)
    return (fields, outcomes, tuple(name for name in lane.outcomes if name not in O),
            tuple((slot, F[slot]) for slot in lane.slots))


def _put_together(lanes: Lanes, results: list[dict[tuple[Any, ...], Given]], all_rows: Callable[[], list[Row]],
                  S0: rt.Working,
                  last: Callable[[tuple[Any, ...]], tuple[Any, ...]], put_back: PutBack | None, last_fields: bool,
                  projection: Projection, R: Any, finals: dict[tuple[Any, ...], Any], limit: int, pos: Any,
                  grouping: tuple[Carried, Sequence[Group]] | None = None) -> None:
    """The final state of each row: the first run's, with each lane's results for the values it read in their
    places, and the values the tail left alone put back (by `put_back`; None: it left none). `grouping`: the
    parts the rows are made of, with the groups the rows fall into where they share a world (see
    _outcomes_put_together): found by another state (then taken as they are), or an empty list to fill."""
    interned = R.interned
    intern, apart, changed = interned.made, interned.apart, interned.changed  # outcomes just made are interned
    W0, O0 = S0.W, S0.O
    end0 = projection.keep(END, S0.F)
    any_slots = any(lane.slots for lane in lanes.lanes)
    shared = None if last_fields else _shared_world(lanes, results, W0, O0, R)
    one_world = None if shared is None else apart(shared)
    stopped, stack, depth = S0.stopped, S0.stack, S0.depth
    if one_world is not None and not any_slots:
        same = (end0, one_world, stopped, stack, depth)
        if grouping is not None and grouping[1]:
            _groups_put_together(grouping[1], grouping[0], O0, put_back, W0, same, R, finals, limit, pos)
            return
        _outcomes_put_together(lanes, results, all_rows(), O0, last, put_back, W0, same, R, finals, limit, pos,
                               grouping)
        return
    rows = all_rows()
    # A row's world and outcomes by what made them: the lanes' results (each one object for all the rows that
    # read the same values, known by identity) and the values left alone. Remembered only where some rows share
    # their lanes' results: where each row has its own, a memo would only be missed.
    made: dict[tuple[Any, ...], tuple[int, int]] = {}
    remember = math.prod(map(len, results)) < len(rows)
    pickers = [(lane.reads, found) for lane, found in zip(lanes.lanes, results)]
    for row, weight in rows:
        given = [found[reads(row)] for reads, found in pickers]
        left = last(row)
        ids = made.get((*map(id, given), left)) if remember else None
        if ids is None:
            world, O = (W0, _with_outcomes(O0, given)) if put_back is None else put_back(W0, _with_outcomes(O0, given),
                                                                                         left)
            ids = (one_world if one_world is not None else apart(_with_fields(world, given, changed)), intern(O))
            if remember:
                made[(*map(id, given), left)] = ids
        end = end0 if not any_slots else projection.keep(END, _with_slots(S0.F, given))
        final = (end, *ids, stopped, stack, depth)
        before = finals.setdefault(final, weight)
        if before is not weight:
            finals[final] = before + weight
        elif len(finals) > limit:
            raise too_many_states(pos, limit)


def _outcomes_put_together(lanes: Lanes, results: list[dict[tuple[Any, ...], Given]],
                           rows: list[tuple[tuple[Any, ...], Any]], O0: Frozen,
                           last: Callable[[tuple[Any, ...]], tuple[Any, ...]], put_back: PutBack | None, W0: Frozen,
                           same: tuple[Any, ...], R: Any, finals: dict[tuple[Any, ...], Any], limit: int,
                           pos: Any, grouping: tuple[Carried, list[Group]] | None = None) -> None:
    """_put_together where every row's final state shares the first run's world and frame (`same`: the frame,
    the world's number, why and where it stopped): the rows' final states differ in their outcomes alone.

    Those are made of the outcomes each lane gave and the values put back: rows that agree on them (a loss
    that stops at the health a side has left, whatever the damage past it) make one final state, whose
    outcomes are made and looked up once, not once a row. `grouping`: where the rows are made of parts that
    other states carry too, the groups they fall into are added to its list, the parts' probabilities summed
    (_parts_summed; the states to come put them together from there: _groups_put_together).
    """
    intern = R.interned.made  # each row's outcomes, just made
    end, world, stopped, stack, depth = same
    # Each lane's results by the outcomes they give, as small numbers: results that give the same outcomes are
    # one here (what else they give, their fields, is in no final state: the world is shared).
    kinds: dict[tuple[Any, ...], int] = {}
    codes = [(lane.reads, {key: kinds.setdefault(given[1:3], len(kinds)) for key, given in found.items()})
             for lane, found in zip(lanes.lanes, results)]
    pickers = [(lane.reads, found) for lane, found in zip(lanes.lanes, results)]
    if (put_back is None and not any(given[2] for found in results for given in found.values())
            and math.prod(len(set(of.values())) for _, of in codes) >= len(rows)):
        # Each row has outcomes of its own (each side's loss landing on its side, nothing put back): made from
        # each lane's, with no memo that would only be missed.
        # Each lane's outcomes as a dictionary, and a row's made in one display where two lanes give them (an
        # attack and its counterattack): a third of the cost of a copy updated from each lane's pairs.
        outcome_pickers = [(reads, {key: dict(given[1]) for key, given in found.items()}) for reads, found in pickers]
        (first, first_of), (second, second_of) = outcome_pickers if len(outcome_pickers) == 2 else ((None, None),) * 2
        for row, weight in rows:
            if first is not None:
                O = Frozen({**O0, **first_of[first(row)], **second_of[second(row)]})  # type: ignore[misc]
            else:
                O = Frozen(O0)
                for reads, outcomes in outcome_pickers:
                    O.update(outcomes[reads(row)])
            final = (end, world, intern(O), stopped, stack, depth)
            before = finals.setdefault(final, weight)
            if before is not weight:
                finals[final] = before + weight
            elif len(finals) > limit:
                raise too_many_states(pos, limit)
        return
    # The rows' weights summed by the outcomes they make first, and each sum added into its final state once:
    # rows of one draw share a denominator, and their numerators add as whole numbers (a row of another
    # denominator, or not scaled, is added as it is).
    sums: dict[tuple[Any, ...], list[Any]] = {}  # key -> [a row of it, numerators, their denominator, the rest]
    keys: list[tuple[Any, ...]] | None = None if grouping is None else []  # each row's, where they are grouped
    for row, weight in rows:
        key = (*[of[reads(row)] for reads, of in codes], last(row))
        if keys is not None:
            keys.append(key)
        found = sums.get(key)
        if found is None:
            found = sums[key] = [row, 0, None, None]
        if type(weight) is Scaled and (found[2] is None or weight.d == found[2]):
            found[1] += weight.n
            found[2] = weight.d
        else:
            found[3] = weight if found[3] is None else found[3] + weight
    summed = None if grouping is None or keys is None else _parts_summed(grouping[0], keys, sums)
    for key, (row, numerators, denominator, rest) in sums.items():
        left = last(row)
        given = [found[reads(row)] for reads, found in pickers]
        if summed is not None:
            grouping[1].append((row, given, left, summed[key]))  # type: ignore[index]
        O = _with_outcomes(O0, given)
        final = (end, world, intern(O if put_back is None else put_back(W0, O, left)[1]), stopped, stack, depth)
        weight = rest if denominator is None else Scaled(numerators, denominator) if rest is None \
            else Scaled(numerators, denominator) + rest
        before = finals.setdefault(final, weight)
        if before is not weight:
            finals[final] = before + weight
        elif len(finals) > limit:
            raise too_many_states(pos, limit)


def _parts_summed(carried: Carried, keys: list[tuple[Any, ...]], sums: dict[tuple[Any, ...], list[Any]]
                  ) -> dict[tuple[Any, ...], tuple[tuple[int, int], ...]]:
    """For each group of `sums`, the parts of its rows summed by denominator: the rows are the parts', in their order
    (`keys` each row's group), each at the state's scale."""
    summed: dict[tuple[Any, ...], dict[int, int]] = {key: {} for key in sums}
    for key, part in zip(keys, carried.parts.values()):
        by_denominator = summed[key]
        by_denominator[part.d] = by_denominator.get(part.d, 0) + part.n
    return {key: tuple(by_denominator.items()) for key, by_denominator in summed.items()}


def _groups_put_together(groups: Sequence[Group], carried: Carried, O0: Frozen, put_back: PutBack | None, W0: Frozen,
                         same: tuple[Any, ...], R: Any, finals: dict[tuple[Any, ...], Any], limit: int,
                         pos: Any) -> None:
    """_outcomes_put_together for a state whose rows another state's run grouped: each group's final state
    made once, its probability its parts' at this state's scale, as the sum of its rows' is."""
    intern = R.interned.made
    end, world, stopped, stack, depth = same
    top, bottom = carried.top, carried.bottom
    for _, given, left, summed in groups:
        O = _with_outcomes(O0, given)
        final = (end, world, intern(O if put_back is None else put_back(W0, O, left)[1]), stopped, stack, depth)
        weight: Any = None
        for d, n in summed:  # as Carried.items scales each part
            term = Scaled(n, d) if top == bottom else Scaled(n * top, d * bottom)
            weight = term if weight is None else weight + term
        before = finals.setdefault(final, weight)
        if before is not weight:
            finals[final] = before + weight
        elif len(finals) > limit:
            raise too_many_states(pos, limit)


def _shared_world(lanes: Lanes, results: list[dict[tuple[Any, ...], Given]], W0: Frozen, O0: Frozen,
                  R: Any) -> Frozen | None:
    """One world for every final state, where nothing reads their worlds, or where the records the lanes make
    all meet their constraints (checked once each, in the first run's world); None where each final state
    needs its own."""
    check = R.world_check
    if check is None:
        return W0
    if not callable(check):
        return None  # not known what reads them: each state's own
    known = R.interned.checked
    try:
        if not check(W0, O0, known):
            return None
        for lane, found in zip(lanes.lanes, results):
            if lane.fields:
                for given in found.values():
                    holds = _fields_clear(given, W0, O0, R)
                    if holds is None:
                        # Records made by two lanes would have to be checked for each combination: each state's own.
                        if not lanes.one_owner or not check(_with_fields(W0, (given,), R.interned.changed), O0,
                                                            known):
                            return None
                    elif not holds:
                        return None
    except RunError:
        # A constraint that cannot be evaluated on what a lane made: the final states' check meets it where it
        # would without lanes, in their order (a breach before it in a record's order is reported instead).
        return None
    return W0


def _fields_clear(given: Given, W0: Frozen, O0: Frozen, R: Any) -> bool | None:
    """Whether the fields a lane's run gave keep their records within their constraints, each told by its own
    value (see constraints.clear_test); None where a field cannot be. Remembered for the result, which the
    states to come are given again: what its fields' values say holds whatever world they are put in."""
    remembered = R.interned.fields_clear
    found = remembered.get(id(given))
    if found is not None and found[0] is given:
        return found[1]  # type: ignore[no-any-return]
    field_clear = R.program.clear_test[2]
    holds: bool | None = True
    for entity, name, value in given[0]:
        holds = field_clear(W0[entity], name, value, W0, O0)
        if not holds:
            break
    if holds is not None:  # kept alive with its verdict: a result's identity names it only while it lives
        remembered[id(given)] = (given, holds)
    return holds


def _with_fields(W0: Frozen, given: Iterable[Given], changed: Any) -> Frozen:
    W = Frozen(W0)
    for fields, _, _, _ in given:
        for entity, name, value in fields:
            W[entity] = changed(W[entity], name, value)
    return W


def _with_outcomes(O0: Frozen, given: Iterable[Given]) -> Frozen:
    O = Frozen(O0)
    for _, outcomes, gone, _ in given:
        O.update(outcomes)
        for name in gone:
            O.pop(name, None)
    return O


def _with_slots(F0: list[Any], given: Iterable[Given]) -> list[Any]:
    F = list(F0)
    for _, _, _, slots in given:
        for slot, value in slots:
            F[slot] = value
    return F
