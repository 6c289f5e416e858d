"""The end of an exact run that meets no more chance, run straight through where only outcomes are observed.

Past the last draw on every way to the end, a state only runs on to its
final values, and when the run observes its outcomes alone (and the fields
that constraints read), the final states merge by those anyway. The exact
engine's work at each block there (keeping, projecting, interning, routing
and merging every state, and splitting the values a state carries back into
states of their own first) then buys nothing: each state, and each
combination of the values it carries, runs to the end as the sampler runs
one, block after block, and only its final state is kept.

Merging at every block is what keeps a stretch short where values die (an
attack's intermediate results, once its damage is known: see engines.py), so
states run straight only from a block past which nothing that tells them
apart dies; the engine would merge none of them on the way either. Where the
lines on the way fall apart into lanes that share nothing, each lane runs once
for each value it reads, not once for each combination (lanes.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fracas.dsl.records import record
from fracas.interpreter.core import rt
from fracas.interpreter.core.carry import (ABSENT, OUTCOME, SLOT, Carried, Touch, grouped, predecessors_of,
                                           touched_by)
from fracas.interpreter.core.codegen import END, Block, Routine
from fracas.interpreter.core.errors import too_many_states
from fracas.interpreter.core.lanes import Row, lanes_for, run_in_lanes
from fracas.interpreter.core.liveness import Projection
from fracas.interpreter.core.state import Frozen
from fracas.interpreter.runtime.getters import tuple_getter


def tail_of(routine: Routine, projection: Projection) -> frozenset[int]:
    """The blocks from which a state runs to the end straight: every way on from one draws nothing, enters no
    while loop and calls no step that calls itself, and merges no states either (see _merges_none). Worked
    out once, kept with the projection."""
    found = projection.memo.get(_TAIL)
    if found is None:
        set_before = _outcomes_set_before(routine)
        found = projection.memo[_TAIL] = frozenset(pc for pc in _tail(routine)
                                                   if _merges_none(routine, projection, set_before, pc))
    return found  # type: ignore[no-any-return]


_TAIL = ("tail",)  # the projection's memo key (kept with it: see liveness._KEPT_MEMOS)


def _tail(routine: Routine) -> frozenset[int]:
    """The blocks from which every way to the end draws nothing, enters no while loop and calls no step (a for
    loop's passes may be among them)."""
    in_loops = {pc for region in routine.loops.values() for pc in region}
    tail = {pc for pc, block in enumerate(routine.blocks)
            if isinstance(block, Block) and block.draw_slot is None and pc not in in_loops}
    changed = True
    while changed:  # the largest set closed under "every block it leads to is in it": cycles of it stay
        changed = False
        for pc in list(tail):
            if any(following >= 0 and following not in tail for following in routine.successors[pc]):
                tail.discard(pc)
                changed = True
    return frozenset(tail)


def _outcomes_set_before(routine: Routine) -> list[set[str]]:
    """For each block, the outcomes that a block run before it may have set."""
    sets = [{name for facts in getattr(block, "facts", None) or () if facts is not None for name in facts.outcome_sets}
            for block in routine.blocks]
    predecessors = predecessors_of(routine.successors)
    return [set().union(*(sets[at] for at in _reached(predecessors, predecessors[pc])))
            for pc in range(len(routine.blocks))]


def _reached(edges: list[list[int]], starts: list[int]) -> set[int]:
    """The blocks reached from `starts` (themselves among them) along `edges` (the routine's end left out)."""
    reached = {pc for pc in starts if pc >= 0}
    waiting = list(reached)
    while waiting:
        for nxt in edges[waiting.pop()]:
            if nxt >= 0 and nxt not in reached:
                reached.add(nxt)
                waiting.append(nxt)
    return reached


def _merges_none(routine: Routine, projection: Projection, set_before: list[set[str]], pc: int) -> bool:
    """Whether nothing that tells states at block pc apart dies on the way to the end: none of the slots
    (but those holding an input entity) and entity fields kept at pc is forgotten or set anew, and no outcome
    that a block before may have set is set anew. Where something does (the intermediate values of an attack,
    once its damage is known), the engine merges the states it told apart, and running each on its own
    would run the blocks after once for each of them. (A value changed in place may merge states too, as
    `x = min(x, 5)` does; that is not looked for: the odds are exact either way.)"""
    live = projection.live[pc]
    if live is None:
        return False
    slots = set(projection.kept[pc]) - set(routine.statics)  # an input entity is the same in every state
    for at in _reached(routine.successors, [pc]):
        later = projection.live[at]
        if (later is None or not slots <= set(projection.kept[at])
                or not all(later.field_live(entity, name) for entity, name in live.fields)):
            return False
        for facts in routine.blocks[at].facts:  # type: ignore[union-attr]
            # An outcome set to a value made of its own (a text added to) is changed in place.
            if facts is None:
                return False
            if (facts.outcome_kills - facts.outcome_reads) & set_before[at]:
                return False
    return True


def run_to_end(routine: Routine, pc: int, key: tuple[Any, ...], p: Any, projection: Projection, R: Any,
               finals: dict[tuple[Any, ...], Any], limit: int,
               progress: Callable[[Any, int], None] | None = None) -> None:
    """A state waiting for tail block pc run to the end, its final states added into `finals` (keyed as the
    exact engine keys them, worlds and outcomes by number; a world the run changed by a number of its own,
    not hashed, which only the constraints' check reads: outcomes-only final states merge by their outcomes).

    It runs once for each combination of the values it carries that the blocks on the way read or change;
    the values they leave alone are put back into its final states, as the engine would put them back at
    the end, and those that nothing reads any more are left out (their probabilities summed). A long
    stretch of runs (of this state or of many) is told to `progress` now and then, with the final states so
    far: the engine tells it of each block it runs, and a tail's blocks are not run by it. Where the blocks'
    lines fall apart into lanes, each lane runs once for each value it reads instead (lanes.py).
    """
    kept, world, outcomes, stopped, stack, depth = key
    R.dead = projection.dead_writes(routine, R.gen.namespace)  # a step called before may have left its own
    interned = R.interned
    # The outcomes interned here are copies just made (working's, _with_outcomes's).
    values, intern, apart, changed = interned.values, interned.made, interned.apart, interned.changed
    functions = routine.functions
    frame = projection.expander(pc)(kept)
    plan = _plan(routine, projection, pc, p.names + tuple(name for name, _ in p.fixed)) if type(p) is Carried \
        else _NO_PLAN
    slots, fields, outcome_names = plan.first_places
    _, fields_last, outcomes_last = plan.last_places
    pos = routine.blocks[pc].pos or routine.decl.pos  # type: ignore[union-attr]

    def working(first: tuple[Any, ...]) -> rt.Working:
        F = list(frame)
        for at, slot in slots:
            F[slot] = first[at]
        return rt.Working(F, _with_fields(values[world], fields, first, changed),
                          _with_outcomes(values[outcomes], outcome_names, first), stopped, stack, depth)

    if type(p) is Carried:
        fixed = tuple(value for _, value in p.fixed)
        made: list[list[Row]] = []

        def rows() -> list[Row]:
            """Each combination of the carried values with its probability, made where first wanted: lanes that
            find the rows of these parts grouped need the first alone."""
            if not made:
                made.append([(carried + fixed, weight) for carried, weight in p.items()])
            return made[0]

        if len(p.parts) > 1 and _in_lanes(routine, projection, pc, p, plan, rows, next(iter(p.parts)) + fixed,
                                          working, R, finals, limit, pos):
            if progress is not None:
                progress(pos, len(finals))
            return
        runs = grouped(rows(), plan.first, plan.last)
    else:
        runs = {(): {(): p}}
    steps = 0
    room = R.work_limit - R.work
    told = R.work >> _TELL_EVERY
    for first, ends in runs.items():
        S = working(first)
        at = pc
        while at >= 0:  # as engines.run_one runs them
            steps += 1
            if steps > room:
                rt.spend(R, steps, pos)
            at = functions[at](S, R)  # type: ignore[misc]
        if progress is not None and (R.work + steps) >> _TELL_EVERY != told:
            told = (R.work + steps) >> _TELL_EVERY
            progress(pos, len(finals))
        end_frame = projection.keep(END, S.F)
        # A world or outcomes left as they came keep their number: no hash of them (as engines._lines_all). A
        # world changed is not hashed either: the final states merge by their outcomes (Interned.apart).
        run_world = None if fields_last else apart(S.W) if S.wrote or fields else world
        run_outcomes = None if outcomes_last else intern(S.O) if outcome_names or S.O != values[outcomes] else outcomes
        for last, weight in ends.items():
            final = (end_frame,
                     apart(_with_fields(S.W, fields_last, last, changed)) if run_world is None else run_world,
                     intern(_with_outcomes(S.O, outcomes_last, last)) if run_outcomes is None else run_outcomes,
                     S.stopped, S.stack, S.depth)
            before = finals.setdefault(final, weight)
            if before is not weight:
                finals[final] = before + weight
            elif len(finals) > limit:
                raise too_many_states(pos, limit)
    R.work += steps


def _in_lanes(routine: Routine, projection: Projection, pc: int, p: Carried, plan: _Plan,
              rows: Callable[[], list[Row]], first_row: tuple[Any, ...],
              working: Callable[[tuple[Any, ...]], rt.Working], R: Any, finals: dict[tuple[Any, ...], Any], limit: int,
              pos: Any) -> bool:
    """The rows run to the end in lanes (lanes.py), if the tail falls into them and they save runs."""
    found = lanes_for(routine, projection, R.gen, pc, p.names + tuple(name for name, _ in p.fixed), plan.first_at)
    if found is None:
        return False
    _, fields_last, outcomes_last = plan.last_places
    changed = R.interned.changed
    first = plan.first

    def put_back(W: Frozen, O: Frozen, last: tuple[Any, ...]) -> tuple[Frozen, Frozen]:
        """The world with the fields left alone put back (a copy); the outcomes, a copy not yet hashed, with
        the outcomes left alone put back in place."""
        for at, name in outcomes_last:
            if last[at] is not ABSENT:
                O[name] = last[at]
        return (_with_fields(W, fields_last, last, changed) if fields_last else W), O

    return run_in_lanes(routine, found, rows, first_row, first, working, plan.last,
                        put_back if fields_last or outcomes_last else None, bool(fields_last), projection, R, finals,
                        limit, pos, p)


_TELL_EVERY = 14  # progress is told each time the blocks run reach another 2**14: a few dozen milliseconds' work

Places = tuple[tuple[tuple[int, int], ...], tuple[tuple[int, Any], ...], tuple[tuple[int, str], ...]]


@record(frozen=True)
class _Plan:
    """Where a tail block's carried values go, by their place among the carried names: a getter of those
    put back before the run (read or changed on the way: slots, entity fields, outcomes) and one of those
    put back into its final state (left alone on the way), each with the places it puts them."""

    first: Callable[[tuple[Any, ...]], tuple[Any, ...]]
    first_places: Places
    last: Callable[[tuple[Any, ...]], tuple[Any, ...]]
    last_places: Places
    first_at: tuple[int, ...] = ()  # the places of those put back before the run


_NO_PLAN = _Plan(tuple_getter(()), ((), (), ()), tuple_getter(()), ((), (), ()))


def _plan(routine: Routine, projection: Projection, pc: int, names: tuple[Any, ...]) -> _Plan:
    memo = ("tail plan", pc, names)  # not kept with the projection (its getters are closures): made once a process
    found = projection.memo.get(memo)
    if found is None:
        touched = _touched_on_the_way(routine, projection, pc)
        live = projection.live[pc]
        kept = set(projection.kept[pc])
        first: tuple[list[int], list[Any], list[Any], list[Any]] = ([], [], [], [])
        last: tuple[list[int], list[Any], list[Any], list[Any]] = ([], [], [], [])
        for at, value in enumerate(names):
            kind, name = value
            if kind == SLOT:
                if name in kept:  # a slot is put back before: at the end, none is observed but those read
                    first[1].append((len(first[0]), name))
                    first[0].append(at)
                continue
            if kind != OUTCOME and live is not None and not live.field_live(kind, name):
                continue  # read no more: forgotten
            into = first if touched.has(value) else last
            (into[3] if kind == OUTCOME else into[2]).append((len(into[0]), name if kind == OUTCOME else value))
            into[0].append(at)
        found = projection.memo[memo] = _Plan(tuple_getter(tuple(first[0])), _places(first),
                                              tuple_getter(tuple(last[0])), _places(last), tuple(first[0]))
    return found  # type: ignore[no-any-return]


def _places(found: tuple[list[int], list[Any], list[Any], list[Any]]) -> Places:
    return tuple(found[1]), tuple(found[2]), tuple(found[3])


def _touched_on_the_way(routine: Routine, projection: Projection, pc: int) -> Touch:
    """What the blocks from pc to the end read or change. Worked out once, kept with the projection: the
    facts of the lines, read from their text, would be read again by each fresh process."""
    memo = ("tail touches", pc)
    found = projection.memo.get(memo)
    if found is None:
        found = projection.memo[memo] = _touched_from(routine, pc)
    return found  # type: ignore[no-any-return]


def _touched_from(routine: Routine, pc: int) -> Touch:
    touched = Touch(set(), set(), set())
    for at in _reached(routine.successors, [pc]):
        found = touched_by(routine.blocks[at], routine.statics)
        assert found is not None  # a tail has no call site
        touched = touched.union(found)
    return touched


def _with_fields(world: Frozen, places: tuple[tuple[int, Any], ...], given: tuple[Any, ...], changed: Any) -> Frozen:
    """A copy of the world with carried fields put back (those absent left out)."""
    W = Frozen(world)
    for at, (entity, name) in places:
        if given[at] is not ABSENT:
            W[entity] = changed(W[entity], name, given[at])
    return W


def _with_outcomes(outcomes: Frozen, places: tuple[tuple[int, str], ...], given: tuple[Any, ...]) -> Frozen:
    """A copy of the outcomes with carried ones put back (those absent left out)."""
    O = Frozen(outcomes)
    for at, name in places:
        if given[at] is not ABSENT:
            O[name] = given[at]
    return O
