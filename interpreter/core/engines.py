"""How chance is resolved, and how the generated blocks of a routine are run.

An engine is passed into resolution; it is never stored on the program. The
sampling and forced engines answer `draw` with one value, and the blocks run
on one working state, following their jumps. The exact engine keeps the
states waiting at each block, merged, and runs the block with the lowest
program order next, so that every state that can reach a block has reached
it before it runs: equal states merge there, and a Markov chain over states
results, not a tree of roll sequences. A block that may meet chance is run
once per outcome of each draw it makes (its earlier draws replayed).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterable, Iterator
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Protocol

from fracas.dsl.nodes import Pos
from fracas.interpreter.core import dist as D
from fracas.interpreter.core.dist import Scaled
from fracas.interpreter.core import carry, folds, liveness, loops, rt, tails, valued
from fracas.interpreter.core.carry import Carried
from fracas.interpreter.core.codegen import END, TRACED, Block, CallSite, Generator, Routine
from fracas.interpreter.core.errors import ESTIMATE_HINT, SAMPLE_INSTEAD, RunError, too_many_states
from fracas.interpreter.core.interned import Interned
from fracas.interpreter.runtime.chance import Chance, Dice, DiceValue, Fire, ForcedRollError
from fracas.interpreter.runtime.getters import tuple_getter
from fracas.interpreter.runtime.keys import stable_sorted
from fracas.interpreter.runtime.weights import PRIMITIVE_STEPS, Allowance, LimitError, WorkLimitError, long_products
from fracas.interpreter.core.state import Frozen
from fracas.interpreter.core.values import BRIEF_ITEMS, show, show_brief

if TYPE_CHECKING:
    import random

# A state as the exact engine keeps it: (frame, world, outcomes, stopped, callers' frames, depth). Between
# run_all's entry and its end, the world and the outcomes are held as their numbers in `Interned`.
Key = tuple[tuple[Any, ...], Any, Any, "str | None", tuple[Any, ...], int]


class Trace:
    """The event log of a sampled run: what happened, in order, and which rule did it."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def add(self, kind: str, pos: Pos | None, text: str, **data: Any) -> None:
        self.events.append({"kind": kind, "file": pos.path if pos else "", "line": pos.line if pos else 0,
                            "text": text, **data})


class Engine(Protocol):
    """What resolution asks of an engine."""

    exact: bool
    trace: Trace | None

    def draw(self, primitive: Any, pos: Pos) -> Any:
        """One outcome of a chance primitive (the exact engine branches instead)."""


class SampleEngine:
    exact = False

    def __init__(self, seed: int = 0, trace: Trace | None = None, rng: random.Random | None = None):
        if rng is None:
            import random  # here: an exact run never samples, and need not import it

            rng = random.Random(seed)
        self.rng = rng
        self.trace = trace

    def draw(self, primitive: Any, pos: Pos) -> Any:
        trace = self.trace
        if trace is None:
            return primitive.sample(self.rng)
        if isinstance(primitive, Fire):
            result, hits = primitive.sample_trace(self.rng)
            log_hits(trace, hits, pos)
            return result
        if type(primitive) is Dice:
            return log_roll(trace, primitive, pos, primitive.sample_faces(self.rng))
        if getattr(primitive, "rolls_dice", False):
            rolls = _Rolled(self.rng)
            value = primitive.sample(rolls)
            return log_roll(trace, primitive, pos, value=value, dice=primitive.shown_dice(rolls.faces, False))
        return log_roll(trace, primitive, pos, value=primitive.sample(self.rng))


class _Rolled:
    """A random generator that remembers each die it rolls, for the log: the faces a pool of dice showed, from
    the very numbers the generator gives (a logged run rolls as an unlogged one)."""

    __slots__ = ("rng", "faces")

    def __init__(self, rng: Any):
        self.rng = rng
        self.faces: list[int] = []

    def randrange(self, sides: int) -> int:
        number = self.rng.randrange(sides)
        self.faces.append(number + 1)  # a die's face; the place in the list of a die of faces listed, from 1
        return number


class _Taken:
    """A forced script that remembers the numbers taken from it, for the log: each die's face, as given."""

    __slots__ = ("script", "numbers")

    def __init__(self, script: Iterator[int]):
        self.script = script
        self.numbers: list[Any] = []

    def __iter__(self) -> _Taken:
        return self

    def __next__(self) -> Any:
        number = next(self.script)
        self.numbers.append(number)
        return number


class ForcedEngine:
    """Rolls come from a script, as in a rulebook example that fixes the dice."""

    exact = False

    def __init__(self, script: list[int], trace: Trace | None = None):
        self.script: Iterator[int] = iter(script)
        self.trace = trace

    def unused(self) -> list[int]:
        """The rolls of the script left once the run is over: an example that gives them means other dice."""
        return list(self.script)

    def draw(self, primitive: Any, pos: Pos) -> Any:
        trace = self.trace
        try:
            if isinstance(primitive, Fire):
                result, hits = primitive.forced_trace(self.script)
                if trace is not None:
                    log_hits(trace, hits, pos)
                return result
            if trace is None:
                return primitive.forced(self.script)
            if type(primitive) is Dice:
                return log_roll(trace, primitive, pos, primitive.forced_faces(self.script))
            if getattr(primitive, "rolls_dice", False):
                taken = _Taken(self.script)
                value = primitive.forced(taken)
                return log_roll(trace, primitive, pos, value=value, dice=primitive.shown_dice(taken.numbers, True))
            return log_roll(trace, primitive, pos, value=primitive.forced(self.script))
        except ForcedRollError as error:
            raise RunError(pos, f"forced rolls: {error}", error.hint) from None


class ExactEngine:
    exact = True
    trace = None

    def __init__(self, max_states: int, progress: Callable[[Pos | None, int], None] | None = None):
        self.max_states = max_states
        # Told now and then, on a long run, which rule is being worked on and how many states wait.
        self.progress = progress

    def draw(self, primitive: Any, pos: Pos) -> Any:
        # Reached only if the static analysis missed a chance primitive: a bug of ours.
        raise RunError(pos, "internal error: a statement judged free of chance met chance")

    def weights(self, primitive: Any, pos: Pos, R: Run) -> D.Dist:
        """Every outcome of a primitive with its whole-number weight, within the limits.

        Its work counts toward the resolution's (a primitive met once for each of thousands of states is a
        runaway too), and so do the digits of its weights, which the resolution keeps for the states
        that draw it again: a limit on work is a limit on the memory they hold.
        """
        try:
            if isinstance(primitive, (Chance, DiceValue)):
                allowance = Allowance(states=self.max_states, work=PRIMITIVE_STEPS * max(0, R.work_limit - R.work))
                found = primitive.weights(allowance)
                R.work += (allowance.spent // PRIMITIVE_STEPS
                           + len(found.weights) * found.total.bit_length() // BITS_IN_A_STEP)
                if R.work > R.work_limit:
                    raise WorkLimitError(primitive.describe(), R.work_limit)
                return D.Dist(dict(zip(found.outcomes, found.weights)), found.total)
            return D.Dist.of_fractions(primitive.distribution())
        except WorkLimitError as error:
            limits = R.program.rules.limits
            raise RunError(pos, f"the exact engine stopped: {error.what} takes this resolution past {limits.work} "
                           "steps of work", f"{SAMPLE_INSTEAD}; {limits.hint('work')}") from None
        except LimitError as error:
            raise RunError(pos, f"the exact engine stopped: {error}", ESTIMATE_HINT) from None


# A resolution's step of work may keep so many bits of a draw's weights.
BITS_IN_A_STEP = 8000


def _branching_work(p: Any, drawn: D.Dist) -> int:
    """Steps of the resolution's work to branch a state of probability p on a draw: a state for each of its
    values, each probability a product of p and a weight (long numbers after a long run of draws)."""
    kind = type(p)
    # Carried values and a loop's starts are parts a draw shares, scaled once a value: they are added where the
    # states of other draws meet (loops.added_work).
    bottom = (p.d if kind is Scaled else p.bottom if kind is Carried or kind is loops.ByStart
              else p.denominator if kind is Fraction else 1)
    return len(drawn.weights) + long_products(len(drawn.weights), bottom.bit_length(), drawn.total.bit_length())


WORLDS_READ = "read"  # Run.world_check where what reads the final worlds is not known


class Run:
    """What generated code reads besides its state: the program's tables, the engine, the log."""

    __slots__ = ("program", "chooser", "trace", "most_bits", "gen", "budget", "work", "work_limit", "draws",
                 "widest", "passes", "solved", "interned", "dead", "world_check", "exact", "counts_only", "endless")

    def __init__(self, program: Any, chooser: Any, gen: Generator):
        self.program = program
        self.chooser = chooser
        self.trace = getattr(chooser, "trace", None)
        self.most_bits = rt.bits_limit(program.rules.limits.digits)
        self.gen = gen
        self.budget: D.Budget | None = None
        self.work = 0
        self.work_limit = program.rules.limits.work
        self.draws: dict[tuple[int, int], dict[Any, Any]] = {}  # the exact engine's draws, by what they read
        # The exact engine's draw of the most values: how many, where, and whether a step gave them (valued.py).
        self.widest: tuple[int, Pos | None, bool] = (0, None, False)
        # Passes of each while loop being run, by its first block and the call depth (sampling only:
        # the exact engine solves a loop instead of counting passes).
        self.passes: dict[tuple[int, int], int] | None = {}
        self.solved: dict[Any, Any] = {}  # the exact engine's passes of a loop from each state met at its start
        self.interned: Interned | None = None  # the exact engine's worlds and outcomes, by number
        self.dead: frozenset[int] = frozenset()  # statements whose field changes the exact engine skips, by id
        # What reads an outcomes-only run's final worlds: nothing (None), the constraints' quick test of a world
        # (world, outcomes, known) -> bool, or not known (WORLDS_READ): see lanes.py.
        self.world_check: Any = WORLDS_READ
        self.exact = getattr(chooser, "exact", False)  # an exact run that stops on its work may be sampled instead
        # An exact run whose final states show no names: a drawn pool that the rest of its step only counts is
        # drawn as its counts (see counted.py).
        self.counts_only = False
        self.endless: Pos | None = None  # the first loop the exact engine found may never end, if any

    # A step of valued.py is no level of the call depth, as the same step inlined is none (and it calls no step
    # that calls itself); its state is one level deeper all the same, so that its loops count their passes apart.

    def call_value(self, name: str, args: tuple[Any, ...], S: rt.Working) -> Any:
        """The value a step of valued.py gives, run on one state (sampled, or forced): its draws are the run's."""
        callee = self.gen.routine(name)
        inner = rt.Working(_frame(callee, args), S.W, S.O, None, S.stack, S.depth + 1)
        run_one(callee, inner, self)
        return inner.F[callee.result]  # type: ignore[index]

    def value_dist(self, name: str, args: tuple[Any, ...], S: rt.Working) -> Any:
        """The distribution of the value a step of valued.py gives, from one state: the exact engine runs the step
        from it alone (its caller's states branch on the distribution, as on a draw's). A loop in it that may never
        end is told as a loop of the caller's would be, how likely left unsaid (it is the caller's to weigh)."""
        callee = self.gen.routine(name)
        engine = self.chooser.engine
        start = (tuple(_frame(callee, args)), S.W, S.O, None, S.stack, S.depth + 1)
        budget, dead, chooser = self.budget, self.dead, self.chooser  # the caller's draw block's, for its other states
        try:
            ends = run_all(callee, {start: 1}, engine, self)
        finally:
            self.budget, self.dead, self.chooser = budget, dead, chooser
        endless = next((why for (_, _, _, why, _, _) in ends if type(why) is loops.NeverEnds), None)
        if endless is not None:
            raise endless_loop(endless.pos)
        return valued.as_dist([(frame[0], p) for (frame, *_), p in ends.items()])  # the frame ends as the value

    def param(self, name: str, pos: Pos) -> Any:
        params = self.program.params
        if name in params:
            return params[name]
        raise RunError(pos, f"unknown name '{name}'")


# ---- one state at a time ------------------------------------------------------------------------


def run_one(routine: Routine, S: rt.Working, R: Run, pc: int = 0) -> None:
    """Run a routine's blocks on one working state, from block `pc` (a block that runs as a function of
    its own, or a call site)."""
    functions = routine.sampled if routine.sampled is not None else R.gen.sampled(routine)
    steps = 0
    room = R.work_limit - R.work
    while pc >= 0:
        steps += 1
        if steps > room:
            rt.spend(R, steps, _block_pos(routine, pc))
        block = functions[pc]
        pc = block(S, R) if block is not None else _call_one(routine.blocks[pc], S, R)  # type: ignore[arg-type]
    R.work += steps


def run_until_chance(routine: Routine, S: rt.Working, R: Run) -> int:
    """Run the blocks before the first that may meet chance (or a call site, or a while loop) on one
    working state, one by one; the block it stopped at, where run_one goes on (END: the run is over).

    Those blocks draw nothing, so every sampled run from the same start passes the same way to the same
    state there.
    """
    blocks, functions, loops = routine.blocks, routine.functions, routine.loops
    pc = 0
    steps = 0
    while pc >= 0:
        block = blocks[pc]
        if (not isinstance(block, Block) or block.draw_slot is not None or pc in loops
                or any("rt.loop_enter(" in line for line, _ in block.lines)):  # a count kept in the run
            break
        steps += 1
        if steps > R.work_limit - R.work:
            rt.spend(R, steps, _block_pos(routine, pc))
        pc = functions[pc](S, R)  # type: ignore[misc]
    R.work += steps
    return pc


def go_on_from(routine: Routine, pc: int, S: rt.Working, R: Run) -> None:
    """Finish a run stopped at block pc by run_until_chance: one by one up to a block that runs as a function
    of its own (the blocks the sampler writes into the one before them), then as run_one does."""
    blocks, functions = routine.blocks, routine.functions
    sampled = routine.sampled if routine.sampled is not None else R.gen.sampled(routine)
    while pc >= 0 and sampled[pc] is None and isinstance(blocks[pc], Block):
        R.work += 1
        pc = functions[pc](S, R)  # type: ignore[misc]
    if pc >= 0:
        run_one(routine, S, R, pc)


def _call_one(site: CallSite, S: rt.Working, R: Run) -> int:
    callee = R.gen.routine(site.routine)
    args = S.F[site.args_slot]
    S.F[site.args_slot] = None
    _check_depth(S.depth + 1, site, R)
    saved = S.F
    S.F = _frame(callee, args)
    S.depth += 1
    run_one(callee, S, R)
    S.depth -= 1
    if site.result is not None and callee.result is not None:
        saved[site.result] = S.F[callee.result]
    S.F = saved
    return END if S.stopped is not None else site.back


def _frame(routine: Routine, args: tuple[Any, ...]) -> list[Any]:
    frame: list[Any] = [None] * routine.slots
    for index, value in zip(routine.params, args):
        frame[index] = value
    return frame


def _check_depth(depth: int, site: CallSite, R: Run) -> None:
    limits = R.program.rules.limits
    if depth + 1 > limits.call_depth:
        raise RunError(site.call.pos, f"steps call each other more than {limits.call_depth} deep",
                       "a step may be calling itself forever; " + limits.hint("call_depth"))


# ---- every state at once --------------------------------------------------------------------------


def run_all(routine: Routine, start: dict[Key, Any], engine: ExactEngine, R: Run,
            observe_all: bool = True, fields: frozenset[str] = frozenset(), numbered: bool = False,
            carrying: bool = True) -> dict[Key, Any]:
    """Every final state with its probability, from states at the routine's first block (full frames).

    Each state waiting for a block keeps only what a later block reads
    (observe_all: the routine's own names and every entity's fields are read
    at its end; otherwise only the outcomes and the named `fields`): its frame is the tuple of
    the block's live slots, and dead entity fields are none. Final states
    keep the frame's slots that are observed (`Projection.end`). numbered: their worlds and outcomes
    are left as their numbers in R.interned, for a caller that merges them first. carrying: whether the
    states may carry values in their probabilities (carry.py); not where those are a loop's, by the start of
    each pass (a step called in a loop's pass), which carry nothing, as the loop's own blocks do.
    """
    R.chooser = D.Chooser(engine, R)  # an expression's draw gives the whole distribution
    R.passes = None
    if R.interned is None:
        R.interned = Interned()
    intern, values = R.interned.id, R.interned.values
    fresh = (observe_all, fields) not in routine.projections
    projection = projection_of(routine, observe_all, fields)
    analysed = projection.carried is not False
    pending: dict[int, dict[Key, Any]] = {0: {}}
    for (frame, world, outcomes, *rest), p in start.items():
        key = (projection.keep(0, list(frame)), intern(projection.world(0, world)), intern(outcomes), *rest)
        pending[0][key] = pending[0].get(key, 0) + p  # type: ignore[index]
    # Only the outcomes observed: the states that reach the routine's tail run through it straight (tails.py).
    straight = tails.tail_of(routine, projection) if not observe_all else frozenset()
    finals = _flow(routine, pending, engine, R, projection, straight=straight, carrying=carrying).get(END, {})
    if fresh or (not analysed and projection.carried is not False):
        # Facts about the flow worked out after the code was kept (by a run that read other things of its
        # end): kept with it too, so that the next process reads them back rather than working them out.
        R.gen.grown = True
    if numbered:
        return finals
    return {(frame, values[world], values[outcomes], *rest): p  # type: ignore[misc]
            for (frame, world, outcomes, *rest), p in finals.items()}


def _flow(routine: Routine, pending: dict[int, dict[Key, Any]], engine: ExactEngine, R: Run,
          projection: liveness.Projection, region: frozenset[int] | None = None,
          entry: int | None = None, straight: frozenset[int] = frozenset(),
          carrying: bool = True) -> dict[int, dict[Key, Any]]:
    """Run states through the blocks, merging them where they meet, until they leave: the states leaving, by
    the block they go to (END for the routine's end).

    Within a `region` (a loop's blocks, from its first block `entry`), states leave for a block outside
    it, and for `entry` again: one pass of the loop. A state sent to a block of `straight` runs from there
    to the end on its own (tails.run_to_end).
    """
    rank = routine.order
    waiting = [(rank[pc], pc) for pc in pending]
    heapq.heapify(waiting)
    out: dict[int, dict[Key, Any]] = {}
    limit = engine.max_states
    progress = engine.progress
    heads = routine.loops
    through = _pass_through(routine, projection, region, entry)
    interned = R.interned
    assert interned is not None
    routes: dict[int, tuple[int, dict[int, int]]] = {}  # a block -> where its states go, and what they forget
    carried = folds.carried_at(routine, projection, R.gen) if carrying else None
    regroups: dict[tuple[int, int], carry.Regroup] = {}
    gathered: dict[int, int | None] = {}  # a draw block -> the block its states are gathered for (_gathered_at)

    def destination_of(pc: int, sent: int) -> tuple[Any, ...]:
        """Where the states that block pc sends to block `sent` go: the memo of what their worlds forget on
        the way (None for the routine's end), the block they go to, whether they run the tail from there (then
        the final states they join), the states they join, and the Regroup of their carried values (None: they
        carry what they carried)."""
        following, forgotten = sent, None
        if sent >= 0:
            route = routes.get(sent)
            if route is None:
                route = routes[sent] = _route(sent, through, projection, interned, region, entry)
            following, forgotten = route
            if following in straight:
                return forgotten, following, True, out.setdefault(END, {}), None
        leaving = following < 0 or following == entry or (region is not None and following not in region)
        if leaving:
            target = out.setdefault(following, {})
        else:
            target = pending.get(following)  # type: ignore[assignment]
            if target is None:
                target = pending[following] = {}
                heapq.heappush(waiting, (rank[following], following))
        regroup = None
        if carried is not None and carried[pc] is not (carry.NONE if leaving else carried[following]):
            regroup = regroups.get((pc, following))
            if regroup is None:
                regroup = regroups[(pc, following)] = carry.Regroup(
                    carried[pc], carry.NONE if leaving else carried[following], projection,
                    -1 if leaving else following, interned)
        return forgotten, following, False, target, regroup

    while waiting:
        _, pc = heapq.heappop(waiting)
        group = pending.pop(pc)
        R.work += len(group)
        if R.work > R.work_limit:  # the block's place worked out only for the error
            rt.spend(R, 0, _block_pos(routine, pc))
        if progress is not None:
            progress(_block_pos(routine, pc), sum(len(states) for states in pending.values()) + len(group))
        block = routine.blocks[pc]
        if isinstance(block, CallSite):
            results = _call_all(block, pc, group, engine, R, projection)
        elif pc in heads and pc != entry:
            results = _loop_all(routine, pc, group, engine, R, projection)
        else:
            gathering = gathered.get(pc, False)
            if gathering is False:
                gathering = gathered[pc] = _gathered_at(routine, pc, through, straight, region, entry, carried)
            results = _block_all(routine, pc, group, engine, R, projection,
                                 None if gathering is None else (gathering, pending))
        destinations: dict[int, tuple[Any, ...]] = {}  # this round's, by the block states are sent to
        for key, p, sent in results:
            destination = destinations.get(sent)
            if destination is None:
                destination = destinations[sent] = destination_of(pc, sent)
            forgotten, following, tail, target, regroup = destination
            if forgotten is not None:
                world = key[1]
                kept = forgotten.get(world)
                if kept is None:
                    kept = forgotten[world] = _forget(sent, world, through, projection, interned)
                if kept != world:
                    key = (key[0], kept, *key[2:])  # type: ignore[assignment]
                if tail:
                    tails.run_to_end(routine, following, key, p, projection, R, target, limit, progress)
                    continue
            states = ((key, p),) if regroup is None else regroup.states(key, p)
            for key, p in states:
                before = target.setdefault(key, p)  # hashing a key is most of the cost of a merge: once, mostly
                if before is not p:
                    if type(p) is loops.ByStart:
                        R.work += loops.added_work(before, p)
                    merged = target[key] = before + p
                    # A state that carries values holds a state for each of their combinations: counted too.
                    if type(merged) is Carried and len(merged.parts) > limit:
                        raise too_many_states(_block_pos(routine, pc), limit)
                elif len(target) > limit:
                    raise too_many_states(_block_pos(routine, pc), limit)
            if regroup is not None and regroup.work:  # a state split by the values it carried: each part counted
                rt.spend(R, regroup.work, _block_pos(routine, pc))
                regroup.work = 0
    return out


def _gathered_at(routine: Routine, pc: int, through: dict[int, tuple[int, tuple[int, ...]]], straight: frozenset[int],
                 region: frozenset[int] | None, entry: int | None,
                 carried: list[tuple[carry.Field, ...]] | None) -> int | None:
    """The block a draw block's states are gathered for (see _draws_all), if they wait there as they are: the
    one block it leads to, where they go past no block, run no tail straight, stay in the region and carry
    what they carried; None for any other block."""
    block = routine.blocks[pc]
    if not isinstance(block, Block) or block.draw_slot is None or len(block.successors) != 1:
        return None
    following = block.successors[0]
    if (following < 0 or following in through or following in straight or following == entry
            or (region is not None and following not in region)
            or (carried is not None and carried[pc] is not carried[following])):
        return None
    return following


def _route(pc: int, through: dict[int, tuple[int, tuple[int, ...]]], projection: liveness.Projection,
           interned: Interned, region: frozenset[int] | None, entry: int | None) -> tuple[int, dict[int, int]]:
    """Where a state sent to a block goes (past the blocks it can go past), and the memo of what it forgets."""
    hop = through.get(pc)
    return (pc if hop is None else hop[0],
            interned.forgotten.setdefault((id(projection), region, entry, pc), {}))


def _forget(pc: int, world: int, through: dict[int, tuple[int, tuple[int, ...]]], projection: liveness.Projection,
            interned: Interned) -> int:
    """What a world (by number) keeps on its way to a block: forgotten there, and at the blocks gone past."""
    world_of = projection.world
    came = interned.values[world]
    kept = world_of(pc, came)
    hop = through.get(pc)
    if hop is not None:  # blocks that would only forget what their state forgets anyway
        following, forgetting = hop
        for pc_through in forgetting:
            kept = world_of(pc_through, kept)
        if following >= 0:  # the end forgets nothing of the world: what its last block kept stays
            kept = world_of(following, kept)
    return world if kept is came else interned.id(kept)  # a world given back as it came keeps its number


def _pass_through(routine: Routine, projection: liveness.Projection, region: frozenset[int] | None,
                  entry: int | None) -> dict[int, tuple[int, tuple[int, ...]]]:
    """Blocks a state can go past: to the block they lead to, and the blocks gone past after the first.

    Such a block changes nothing that is still read: it has no lines but its jump, or only lines that
    forget slots dead where it goes, and it goes to one block only (or to the routine's end), which keeps
    the same slots. A state sent straight on merges with the same states, at the block after, as it would
    have at the block itself (the entity fields each forgets are forgotten on the way), and spares a
    round of running, projecting, hashing and merging. Loops' first blocks, and the ends of a loop's
    passes, stay.
    """
    key = ("through", region, entry)
    found = projection.memo.get(key)
    if found is not None:
        return found
    single: dict[int, int] = {}
    for pc, block in enumerate(routine.blocks):
        if (not isinstance(block, Block) or block.draw_slot is not None or len(block.successors) != 1
                or pc == 0 or pc in routine.loops or pc == entry or (region is not None and pc not in region)
                or block.writes_world or block.writes_outcomes):
            continue
        following = block.successors[0]
        if following < 0 and (following != END or region is not None):
            continue
        live = projection.kept[following] if following >= 0 else projection.end  # at the end: the slots observed
        if projection.kept[pc] != live:
            continue
        if all(line.startswith(("return ", TRACED)) or folds.forgets_only(line, live) for line, _ in block.lines):
            single[pc] = following
    found = {}
    for pc in single:
        following, gone_past = single[pc], []
        while following in single and following not in gone_past and len(gone_past) < len(single):
            gone_past.append(following)
            following = single[following]
        found[pc] = (following, tuple(gone_past))
    projection.memo[key] = found
    return found


def _loop_all(routine: Routine, head: int, group: dict[Key, Any], engine: ExactEngine, R: Run,
              projection: liveness.Projection) -> Iterator[tuple[Key, Any, int]]:
    """Every state leaving a while loop, with its probability, from the states at its start.

    Most loops only go forward: no pass comes round to a state it began in (a count of passes, health that
    only goes down). Their states run pass after pass with their own probabilities, as the blocks before the
    loop ran them, merging where they meet, and those that leave go on; a state reached again by a longer way
    runs again with what that way brings. Where passes may come round (more rounds after the first than states
    come round to, which only a way round can make; a state that ran a round alone and came round to itself), or
    the states come round to more than once cost more than those met once, the states waiting are solved as a
    Markov chain instead (_loop_solved), which also finds a loop that may run for ever: a pass from each state
    met, its probability kept apart by where it began.
    """
    met = _Met(group)
    again: set[Key] = set()  # the states passes came round to
    rounds = runs = 0
    alone = next(iter(group)) if len(group) == 1 else None  # a state that ran a round alone
    while group:
        if rounds:
            met.round(group)
            again.update(group)
            runs += len(group)
            if rounds > len(again) or runs > 2 * len(again) or alone in group:
                # A state that ran alone and came round to itself goes round for ever with some probability
                # left (a round of two strikes that both fail): the chain, at once, rather than rounds that
                # run every state again until the states come round more than they are met.
                yield from _loop_solved(routine, head, group, engine, R, projection, rounds, met)
                return
            alone = next(iter(group)) if len(group) == 1 else None
        rounds += 1
        _check_loop_limits(routine, head, engine, R, rounds, len(met.order), met, projection)
        waiting, group = group, {}
        for following, states in _passes(routine, head, waiting, engine, R, projection, met).items():
            if following == head:
                group = states
                continue
            for key, p in states.items():
                yield key, p, following


class _Met:
    """The states a loop met at its start, in the order first met, and where those first met in its last two rounds
    begin (`since`): what a limit's message reads to say what wanders. Two rounds: a value may climb every other.
    The states it started from are never among those: a value below them all (health going down) climbs nowhere."""

    __slots__ = ("order", "since", "_latest")

    def __init__(self, keys: Iterable[Key]) -> None:
        self.order = dict.fromkeys(keys)
        self.since = self._latest = len(self.order)

    def round(self, keys: Iterable[Key]) -> None:
        self.since, self._latest = self._latest, len(self.order)
        self.order.update(dict.fromkeys(keys))


def _check_loop_limits(routine: Routine, head: int, engine: ExactEngine, R: Run, rounds: int, count: int | None,
                       met: _Met, projection: liveness.Projection) -> None:
    """The limits on a loop's passes run (rounds of them) and on the `count` of states met at its start (None:
    not counted), `met` read to say what wanders."""
    limits = R.program.rules.limits
    error = None
    if rounds - 1 > limits.loop_items:  # the passes of the rounds before this one's: its own may all leave
        error = RunError(_block_pos(routine, head),
                         f"this loop keeps meeting new states for more than {limits.loop_items} passes",
                         "a value it changes may wander without bound (a count of passes, a random walk): "
                         "bound it, or estimate by sampling (fracas odds --samples N); " + limits.hint("loop_items"))
    elif count is not None and count > engine.max_states:
        error = RunError(_block_pos(routine, head),
                         f"the exact engine meets more than {engine.max_states} states at the start of this loop",
                         ESTIMATE_HINT)
    if error is not None:
        error.message += _wandering(routine, head, met, projection, R)[0]
        error.wandering_told = True  # a loop around this one says no more of it
        raise error


def _passes(routine: Routine, head: int, waiting: dict[Key, Any], engine: ExactEngine, R: Run,
            projection: liveness.Projection, met: _Met) -> dict[int, dict[Key, Any]]:
    """One pass of a loop from each state waiting at its start: the states leaving, by the block they go to (the
    loop's start for those that go round again). A limit met on the way says what wanders among the `met` states."""
    try:
        return _flow(routine, {head: waiting}, engine, R, projection, routine.loops[head], head)
    except RunError as error:
        _told_wandering(error, routine, head, met, projection, R)
        raise


def _told_wandering(error: RunError, routine: Routine, head: int, met: _Met, projection: liveness.Projection,
                    R: Run) -> None:
    """A limit of the exact engine met while a loop's passes ran: its hint says what wanders among the states the
    loop met, if something does. A count of passes that is an outcome keeps the states of a loop that ends for sure
    from ever meeting, and the work or the states run out before the loop's own limit is reached."""
    if SAMPLE_INSTEAD not in error.hint or error.wandering_told:  # not a limit of the exact engine, or told within
        return
    wandering, climbing = _wandering(routine, head, met, projection, R)
    if wandering:
        error.hint += (f"; in the loop at line {_block_pos(routine, head).line}{wandering}"
                       + (": bound it with a cap, as min(n + 1, 20) caps a count" if climbing else ""))
        error.wandering_told = True


def _wandering(routine: Routine, head: int, met: _Met, projection: liveness.Projection,
               R: Run) -> tuple[str, bool]:
    """What wanders among the states a loop met at its start, as the rules name it, and whether it climbs: of the
    values that the states first met in its last two rounds take past those met before (a number above or below
    all of theirs, or a value of another kind not met), the one that has taken the most values, where that is more
    than a few.

    That is what a designer bounds to bring the loop within the limits. A count already at its cap, or health
    already down to 0, takes no such value: the states are many because the counts are, and nothing is named.
    """
    before: dict[str, set[Any]] = {}
    now: dict[str, set[Any]] = {}
    for number, key in enumerate(met.order):
        taken = now if number >= met.since else before
        for what, value in _named_values(routine, head, key, projection, R):
            taken.setdefault(what, set()).add(value)
    growing = {what: values | before.get(what, set()) for what, values in now.items()
               if _beyond(values, before.get(what, set()))}
    if not growing:
        return "", False
    most = max(growing, key=lambda what: len(growing[what]))  # of as many, the first named: the same every run
    count = len(growing[most])
    if count < 10:
        return "", False
    # The same values shown every run, whatever order the states met in.
    shown = [value for value, _ in stable_sorted((value, None) for value in growing[most])]
    sample = ", ".join(show_brief(v) for v in shown[:3])
    # A field the rules bound already (`filled: int in 0..size`) is capped: told to cap it, a designer is misled.
    climbing = _beyond(now[most], before.get(most, set()), up=True) and most not in _bounded_fields(met, R)
    return f": {most} has taken {count} values ({sample}, ...)", climbing


def _bounded_fields(met: _Met, R: Run) -> set[str]:
    """The entity fields of the first state a loop met, as _named_values names them, that their kind bounds."""
    assert R.interned is not None
    kinds = R.program.rules.kinds
    _, world, *_ = next(iter(met.order))
    found = set()
    for entity, record in R.interned.values[world].items():
        kind = kinds.get(getattr(getattr(record, "shape", None), "kind", ""))
        for info in kind.fields if kind is not None else ():
            if info.decl.bounds is not None:
                found.add(f"'{entity}.{info.name}'")
    return found


def _named_values(routine: Routine, head: int, key: Key, projection: liveness.Projection,
                  R: Run) -> Iterator[tuple[str, Any]]:
    """The values a state at a loop's start holds, each with its name as a message says it."""
    assert R.interned is not None
    values = R.interned.values
    named = {slot: name for name, slot in routine.names.items()}
    frame, world, outcomes, *_ = key
    for slot, value in zip(projection.kept[head], frame):
        if slot in named:
            yield f"'{named[slot]}'", value
    for name, value in values[outcomes].items():
        yield f"the outcome '{name}'", value
    for entity, record in values[world].items():
        for field, value in record.items():
            yield f"'{entity}.{field}'", value


def _beyond(values: set[Any], before: set[Any], up: bool = False) -> bool:
    """Whether `values` take one past `before`: a number above every number of theirs (or, unless `up`, below
    every one), or another value not met."""
    numbers = [v for v in before if type(v) in (int, Fraction)]
    highest, lowest = max(numbers, default=None), min(numbers, default=None)
    for value in values - before:
        if type(value) not in (int, Fraction) or highest is None or value > highest or (not up and value < lowest):
            return True
    return False


def _loop_solved(routine: Routine, head: int, group: dict[Key, Any], engine: ExactEngine, R: Run,
                 projection: liveness.Projection, rounds: int, named: _Met) -> Iterator[tuple[Key, Any, int]]:
    """Every state leaving a while loop from the states at its start, as a Markov chain (after `rounds` rounds of
    passes run forward, for its limit, which met the states of `named`).

    A pass of the loop from each state met at its start is run once (and kept for the resolution),
    which gives a Markov chain over those states; where they come round again, the chain is solved
    exactly (loops.solve), so a loop that may run for ever but ends with probability 1 has exact odds.
    """
    # The chain is solved in whole numbers over denominators (Scaled), as the flow's draws are: no gcd a pass.
    group = {key: Scaled(p.numerator, p.denominator) if type(p) is Fraction or type(p) is int else p
             for key, p in group.items()}
    passes = R.solved.setdefault((id(routine), head, id(projection)), {})
    pos = _block_pos(routine, head)
    met = list(group)
    seen = set(met)
    frontier = list(met)
    while frontier:
        fresh = [key for key in frontier if key not in passes]
        if fresh:  # their passes, all at once
            rounds += 1
            _check_loop_limits(routine, head, engine, R, rounds, None, named, projection)
            found: dict[Key, dict[int, dict[Key, tuple[int, int]]]] = {key: {} for key in fresh}
            starts = {key: loops.ByStart({key: 1}) for key in fresh}
            for following, states in _passes(routine, head, starts, engine, R, projection, named).items():
                for key, weight in states.items():
                    for origin, n, d in weight.counts():
                        found[origin].setdefault(following, {})[key] = (n, d)
            for key, ways in found.items():  # each state's passes over one bottom: the chain in whole numbers
                passes[key] = loops.over_one_bottom(ways)
        following_frontier = []
        for key in frontier:
            for again in passes[key][1].get(head, ()):
                if again not in seen:
                    seen.add(again)
                    met.append(again)
                    following_frontier.append(again)
        frontier = following_frontier
        named.round(frontier)
        _check_loop_limits(routine, head, engine, R, rounds, len(met), named, projection)
    shares, endless = loops.solve(met, {key: (passes[key][0], passes[key][1].get(head, {})) for key in met}, group,
                                  {key: any(f != head for f in passes[key][1]) for key in met},
                                  lambda steps: rt.spend(R, steps, pos))
    if endless:  # the states that never leave go to the end, marked, to be weighed with the rest (never_ending)
        R.endless = R.endless or pos
        expand, never = projection.expander(head), loops.NeverEnds(pos)
        for states, p in endless:
            frame, world, outcomes, _, stack, depth = states[0]
            yield (projection.keep(END, expand(frame)), world, outcomes, never, stack, depth), p, END
    for key, share in shares.items():
        for following, states in passes[key][1].items():
            if following != head:
                for leaving, n in states.items():
                    yield leaving, share * n, following


def never_ending(finals: dict[Key, Any]) -> None:
    """A RunError at the loop whose states never end most likely, if some final states are such (_loop_all),
    with the probability of all of them: every way into it, through the loops and steps around it."""
    found: dict[loops.NeverEnds, Fraction] = {}
    for (_, _, _, why, _, _), p in finals.items():
        if type(why) is loops.NeverEnds:
            found[why] = found.get(why, Fraction(0)) + (D.as_fraction(p.total() if type(p) is Carried else p))
    if found:
        why, p = min(found.items(), key=lambda loop: (-loop[1], loop[0].pos.line, loop[0].pos.column))
        raise endless_loop(why.pos, p)


def endless_loop(pos: Pos, p: Fraction | None = None) -> RunError:
    """The error of a loop that may never end, with the probability that it does not where it is known (a run that
    stopped at another error after finding the loop does not know it)."""
    how_likely = f"with probability {show(p)} it never ends" if p is not None else "some ways into it never leave it"
    return RunError(pos, f"this loop can run for ever: {how_likely}",
                    "every way round the loop must lead out of it at last; bound it with a count of passes "
                    "(while ... and passes < N) or a break")


def projection_of(routine: Routine, observe_all: bool, fields: frozenset[str] = frozenset()) -> liveness.Projection:
    found = routine.projections.get((observe_all, fields))
    if found is None:
        if routine.decl.is_action:
            observed = liveness.Live(frozenset(routine.names.values()) if observe_all else frozenset(),
                                     frozenset({(liveness.ANY, liveness.EVERY_FIELD)}) if observe_all
                                     else frozenset((liveness.ANY, name) for name in fields))
        else:  # a step that calls itself: its frame ends with it but for the value it gives; the world goes on
            gives = frozenset() if routine.result is None else frozenset({routine.result})
            observed = liveness.Live(gives, frozenset({(liveness.ANY, liveness.EVERY_FIELD)}))
        found = routine.projections[(observe_all, fields)] = liveness.analyse(
            routine.blocks, routine.successors, routine.slots, routine.statics, observed)
    return found


def _block_pos(routine: Routine, pc: int) -> Pos:
    block = routine.blocks[pc]
    pos = block.call.pos if isinstance(block, CallSite) else block.pos
    return pos or routine.decl.pos


def _block_all(routine: Routine, pc: int, group: dict[Key, Any], engine: ExactEngine, R: Run,
               projection: liveness.Projection, gather: tuple[int, dict[int, dict[Key, Any]]] | None = None
               ) -> Iterator[tuple[Key, Any, int]]:
    """Run one block on every state waiting for it; frames come out kept for the block that follows. `gather`:
    the block a draw's states wait for, and the states waiting (see _draws_all)."""
    block = routine.blocks[pc]
    assert not isinstance(block, CallSite) and R.interned is not None
    R.dead = projection.dead_writes(routine, R.gen.namespace)
    if block.draw_slot is None:
        return _lines_all(routine.functions[pc], block, group, R, projection.keep, projection.expander(pc))
    return _draws_all(routine, pc, group, engine, R, projection, gather)


def _lines_all(function: Callable[[rt.Working, Run], int], block: Block, group: dict[Key, Any], R: Run,
               keep: Callable[[int, list[Any]], tuple[Any, ...]],
               expand: Callable[[tuple[Any, ...]], list[Any]]) -> Iterator[tuple[Key, Any, int]]:
    """_block_all for a block that draws nothing: each state runs it once and goes on whole."""
    copy_world, copy_outcomes = block.writes_world, block.writes_outcomes
    # What is interned here is a copy just made (see Interned.made).
    values, intern = R.interned.values, R.interned.made  # type: ignore[union-attr]
    S = rt.Working([], {}, {})  # one working state, filled anew for each state in turn
    for (kept, world, outcomes, stopped, stack, depth), p in group.items():
        S.F = F = expand(kept)
        S.W = W = Frozen(values[world]) if copy_world else values[world]
        S.O = O = Frozen(values[outcomes]) if copy_outcomes else values[outcomes]
        S.stopped, S.stack, S.depth, S.wrote = stopped, stack, depth, False
        following = function(S, R)
        # A copy the block left as it was (its changes dead, or not made) keeps its number: no hash of it.
        yield (keep(following, F), intern(W) if S.wrote else world,
               intern(O) if copy_outcomes and O != values[outcomes] else outcomes, S.stopped, S.stack,
               S.depth), p, following


def _draws_all(routine: Routine, pc: int, group: dict[Key, Any], engine: ExactEngine, R: Run,
               projection: liveness.Projection, gather: tuple[int, dict[int, dict[Key, Any]]] | None = None
               ) -> Iterator[tuple[Key, Any, int]]:
    """_block_all for a block that ends in a draw: a state for each value drawn (or the draws folded).

    With `gather` (the block the states go to, and the states waiting by block), the states for that block
    are gathered here first, each world as that block keeps it: the states of many states' draws that meet
    there (a damage roll of each size, landing as the damage dealt) merge as they are made, and go on in the
    order they were first made, as they would have been merged there.
    """
    block = routine.blocks[pc]
    slot = block.draw_slot
    function = routine.dist_functions[pc]
    copy_world, copy_outcomes = block.writes_world, block.writes_outcomes
    keep, expand = projection.keep, projection.expander(pc)
    values, intern = R.interned.values, R.interned.made  # type: ignore[union-attr]  # copies made here, as _lines_all's
    R.budget = D.Budget(engine.max_states, block.pos, R)
    drawn_before = R.draws.setdefault((id(routine), pc), {})
    S = rt.Working([], {}, {})  # one working state, filled anew for each state in turn
    sums: folds.Sums | None = None  # folded draws of whole-number probabilities, summed over the group
    gathering = None if gather is None else _Gathered(gather[0], gather[1].get(gather[0]), projection, R,
                                                      engine.max_states, routine, pc)
    # A draw reads few things: states that agree on them draw the same distribution.
    slots_read, reads_world, reads_outcomes = tuple_getter(block.draw_slots), block.draw_world, block.draw_outcomes
    folded: dict[int, folds.Fold | None] = {}  # by the block a state goes to: the fold of the draw into it
    for (kept, world, outcomes, stopped, stack, depth), p in group.items():
        S.F = F = expand(kept)
        W = values[world]
        O = values[outcomes]
        S.W = Frozen(W) if copy_world else W
        S.O = Frozen(O) if copy_outcomes else O
        S.stopped, S.stack, S.depth, S.wrote = stopped, stack, depth, False
        reads = (slots_read(F), world if reads_world else None, outcomes if reads_outcomes else None)
        found = drawn_before.get(reads)
        if found is None:
            following = function(S, R)  # type: ignore[misc]
            drawn_before[reads] = (F[slot], following)
            if type(F[slot]) is D.Dist and len(F[slot].weights) > R.widest[0]:
                R.widest = (len(F[slot].weights), block.pos, "R.value_dist(" in block.dist_lines[0][0])
        else:
            F[slot], following = found
        rest = (intern(S.W) if S.wrote else world, intern(S.O) if copy_outcomes and S.O != O else outcomes,
                S.stopped, S.stack, S.depth)  # as _lines_all: a copy left as it was keeps its number
        drawn = F[slot]
        kind = type(p)
        fold = folded.get(following, False)
        if fold is False:
            fold = folded[following] = (folds.folded(routine, pc, following, slot, projection, R.gen)
                                        if following >= 0 else None)
        if gathering is not None and fold is None and following == gathering.block:
            if type(drawn) is not D.Dist:
                gathering.add(F, rest, p)
            else:
                R.work += _branching_work(p, drawn)
                if R.work > R.work_limit:
                    rt.spend(R, 0, _block_pos(routine, pc))
                gathering.draw(F, slot, rest, p, drawn)
            continue
        carried_fold = fold is not None and kind is Carried and p.carries((carry.OUTCOME, fold.name))
        if type(drawn) is not D.Dist:
            if not carried_fold:
                yield (keep(following, F), *rest), p, following  # type: ignore[misc]
                continue
            # A draw that turned out certain, into an outcome carried: its fold block, which reads and sets
            # the outcome, cannot run with the outcome carried; the value is summed in as a draw's would be.
            drawn = D.Dist({drawn: 1}, 1)
        # A draw: one state for each value of the expression's distribution.
        if carried_fold:
            assert fold is not None
            # The outcome is carried: its values are summed with the draw's, the state stays one.
            F[slot] = None
            summed = carry.summed_into(p, (carry.OUTCOME, fold.name),
                                       folds.sums_of(fold, drawn, R, _block_pos(routine, pc)), drawn.total)
            if len(summed.parts) > engine.max_states:
                raise too_many_states(_block_pos(routine, pc), engine.max_states)
            yield (keep(fold.following, F), *rest), summed, fold.following  # type: ignore[misc]
            continue
        if fold is not None and (kind is Scaled or kind is Fraction or kind is int):
            if sums is None:
                sums = folds.Sums(fold, projection, R, engine.max_states, _block_pos(routine, pc))
            sums.add(F, rest, drawn, p)
            continue
        R.work += _branching_work(p, drawn)
        if R.work > R.work_limit:
            rt.spend(R, 0, _block_pos(routine, pc))
        if fold is None:
            keys = []
            for value in drawn.weights:
                F[slot] = value
                keys.append((keep(following, F), *rest))
            goes = following
        else:  # the next block only takes the value into an outcome: done here, a state for each result
            keys = fold.keys(drawn.weights, F, rest, projection, R)
            goes = fold.following
        total = drawn.total
        if kind is Scaled or kind is Fraction or kind is int:  # whole numbers multiplied: nothing reduced
            top, bottom = (p.n, p.d * total) if kind is Scaled else (p.numerator, p.denominator * total)
            for key, weight in zip(keys, drawn.weights.values()):
                yield key, Scaled(top * weight, bottom), goes  # type: ignore[misc]
            continue
        if kind is Carried or kind is loops.ByStart:  # every part alike: scaled, the parts shared
            for key, weight in zip(keys, drawn.weights.values()):
                yield key, p.times(weight, total), goes  # type: ignore[misc]
            continue
        for key, weight in zip(keys, drawn.weights.values()):
            yield key, p * Fraction(weight, total), goes  # type: ignore[misc]
    if gathering is not None:
        yield from gathering.states()
    if sums is not None:
        yield from sums.states()


class _Gathered:
    """A draw block's states for the block they go to, merged as they are made (see _draws_all).

    A state met once is made as the draw makes it. Where states meet, their probabilities are summed as a
    fraction where they are whole numbers over another (Scaled, or a Fraction or a whole number, as a draw
    makes it one), carried ones of one part (their values fixed: as the part's fraction), or carried ones
    whose parts they share (a draw's states of one state: as the scale of the parts); any others are added
    as the engine adds states that meet. The states limit is checked as the states are made, counting those
    already waiting there, as merging them there would have checked it.
    """

    __slots__ = ("block", "waiting", "projection", "R", "limit", "where", "cells", "new", "worlds", "by_value")

    def __init__(self, block: int, waiting: dict[Key, Any] | None, projection: liveness.Projection, R: Run,
                 limit: int, routine: Routine, pc: int):
        self.block, self.waiting, self.projection, self.R = block, waiting, projection, R
        self.limit, self.where = limit, (routine, pc)
        # Each state, in the order first made: [its probability], or, once another met it, [numerator,
        # denominator, shared parts or None, fixed values or None, carried names] while the sum is a fraction.
        self.cells: dict[Key, list[Any]] = {}
        self.new = 0  # the states not already waiting there, where some are (see _met)
        # A world (by number) -> as the block keeps it; None where the block forgets nothing of any world.
        self.worlds: dict[int, int] | None = {} if projection.forgets(block) else None
        # A state's key with the value drawn left out -> the cell of each value drawn into it (see draw).
        self.by_value: dict[Key, dict[Any, list[Any]]] = {}

    def _world(self, world: int) -> int:
        if self.worlds is None:
            return world
        found = self.worlds.get(world)
        if found is None:
            interned = self.R.interned
            assert interned is not None
            found = self.worlds[world] = interned.id(self.projection.world(self.block, interned.values[world]))
        return found

    def draw(self, F: list[Any], slot: int, rest: tuple[Any, ...], p: Any, drawn: D.Dist) -> None:
        world, tail = self._world(rest[0]), rest[1:]
        keep, block, total = self.projection.keep, self.block, drawn.total
        kind = type(p)
        parts = fixed = None
        if kind is Scaled or kind is Fraction or kind is int:
            top, bottom = (p.n, p.d * total) if kind is Scaled else (p.numerator, p.denominator * total)
        elif kind is Carried and not p.names and len(p.parts) == 1:  # as Carried.times makes each, but its weight
            [part] = p.parts.values()
            top, bottom, fixed = part.n * p.top, part.d * p.bottom * total, p.fixed
        elif kind is Carried:
            p.owned = False  # its parts are shared from now on, as by Carried.times
            top, bottom, parts, fixed = p.top, p.bottom * total, p.parts, p.fixed
        else:
            for value, weight in drawn.weights.items():
                F[slot] = value
                self._add((keep(block, F), world, *tail),
                          p.times(weight, total) if kind is loops.ByStart else p * Fraction(weight, total))
            return
        meet = self.cells.setdefault
        # States that differ only in what they draw from (the size of a pool) meet again at each value they
        # draw: the cell of a value is found by the value alone, the state's key without it made once a state
        # (for a draw of a few values, that key would cost more than it saves).
        weights = drawn.weights
        of_value: dict[Any, list[Any]] = {}
        if len(weights) > _BY_VALUE:
            F[slot] = _DRAWN
            found_of = self.by_value.get(outer := (keep(block, F), world, *tail))
            if found_of is None:
                found_of = self.by_value[outer] = of_value
            of_value = found_of
        # The sums' denominators are few (each draw's, and their least common multiples): how each is brought
        # over to this state's, worked out once for each (a gcd of long numbers costs more than the rest).
        over: dict[int, tuple[int, int, int]] = {}
        for value, weight in weights.items():
            found = of_value.get(value)
            if found is None:
                F[slot] = value
                cell = [None]
                found = of_value[value] = meet((keep(block, F), world, *tail), cell)
                if found is cell:
                    cell[0] = Scaled(top * weight, bottom) if kind is not Carried else p.times(weight, total)
                    self._met()
                    continue
            if len(found) == 1:
                found[:] = _fraction_form(found[0])
            if len(found) == 5 and found[2] is parts and found[3] == fixed:
                n, d = found[0], found[1]
                if d == bottom:
                    found[0] = n + top * weight
                else:  # as Scaled adds: over their least common denominator
                    ways = over.get(d)
                    if ways is None:
                        common = math.gcd(d, bottom)
                        ways = over[d] = (bottom // common, d // common, d // common * bottom)
                    mine, theirs, found[1] = ways
                    found[0] = n * mine + top * weight * theirs
            else:
                self._add_to(found, Scaled(top * weight, bottom) if kind is not Carried else p.times(weight, total))

    def add(self, F: list[Any], rest: tuple[Any, ...], p: Any) -> None:
        """A state whose draw turned out certain."""
        self._add((self.projection.keep(self.block, F), self._world(rest[0]), *rest[1:]), p)

    def _add(self, key: Key, p: Any) -> None:
        cell = [p]
        found = self.cells.setdefault(key, cell)
        if found is cell:
            self._met()
            return
        if len(found) == 1:
            found[:] = _fraction_form(found[0])
        self._add_to(found, p)

    def _add_to(self, found: list[Any], p: Any) -> None:
        whole = _whole(found)
        if type(p) is loops.ByStart:
            self.R.work += loops.added_work(whole, p)
        merged = whole + p
        found[:] = [merged]
        # A state that carries values holds a state for each of their combinations: counted too, as a merge
        # where they wait counts them.
        if type(merged) is Carried and len(merged.parts) > self.limit:
            raise too_many_states(_block_pos(*self.where), self.limit)

    def _met(self) -> None:
        """The states limit checked, a new state just made (the last one)."""
        waiting = self.waiting
        if not waiting:
            if len(self.cells) > self.limit:
                raise too_many_states(_block_pos(*self.where), self.limit)
            return
        if next(reversed(self.cells)) not in waiting:
            self.new += 1
        if self.new + len(waiting) > self.limit:
            raise too_many_states(_block_pos(*self.where), self.limit)

    def states(self) -> Iterator[tuple[Key, Any, int]]:
        block = self.block
        for key, found in self.cells.items():
            yield key, found[0] if len(found) == 1 else _whole(found), block


_DRAWN = object()  # in a draw's key, the place of the value drawn (see _Gathered.draw)
_BY_VALUE = 6  # a draw of more values than this finds its cells by value (_Gathered.draw)


def _fraction_form(p: Any) -> list[Any]:
    """A probability as _Gathered sums it: [numerator, denominator, shared parts, fixed values, carried names]
    for a Scaled (parts and values none), a carried one of one part (parts none: the part's fraction) or
    another carried one (the scale of its parts); [p] for any other, and for a carried sum that owns its
    parts, which takes later additions in place (summed by its scale, it would be copied at each)."""
    kind = type(p)
    if kind is Carried and p.owned:
        return [p]
    if kind is Scaled:
        return [p.n, p.d, None, None, None]
    if kind is Carried and not p.names and len(p.parts) == 1:
        [part] = p.parts.values()
        return [part.n * p.top, part.d * p.bottom, None, p.fixed, None]
    if kind is Carried:
        p.owned = False  # its parts are shared from now on, as by Carried.times
        return [p.top, p.bottom, p.parts, p.fixed, p.names]
    return [p]


def _whole(found: list[Any]) -> Any:
    """A sum of _Gathered as the engine holds a probability."""
    if len(found) == 1:
        return found[0]
    n, d, parts, fixed, names = found
    if parts is not None:
        return Carried(names, parts, fixed, n, d)
    return Scaled(n, d) if fixed is None else Carried((), {(): Scaled(n, d)}, fixed, owned=True)


def _call_all(site: CallSite, pc: int, group: dict[Key, Any], engine: ExactEngine, R: Run,
              projection: liveness.Projection) -> Iterator[tuple[Key, Any, int]]:
    """Every state enters the step together; each comes back to its own frame.

    A state waiting at the call keeps only the slots read after the call or at the end (liveness._at_call),
    so the states in the step, which carry the frame they came from, merge where they differ in values of
    their caller's that no later rule reads (the dice of the level that called, in a step that calls itself).
    """
    callee = R.gen.routine(site.routine)
    interned = R.interned
    assert interned is not None
    values = interned.values
    expand = projection.expander(pc)
    entered: dict[Key, Any] = {}
    for key, p in group.items():
        kept, world, outcomes, stopped, stack, depth = key
        world, outcomes = values[world], values[outcomes]
        _check_depth(depth + 1, site, R)
        frame = expand(kept)
        args = frame[site.args_slot]
        frame[site.args_slot] = None
        caller = tuple(frame)
        inner: Key = (tuple(_frame(callee, args)), world, outcomes, stopped, stack + (caller,), depth + 1)
        before = entered.get(inner, 0)
        if type(p) is loops.ByStart:
            R.work += loops.added_work(before, p)
        entered[inner] = before + p
    by_start = any(type(p) is loops.ByStart for p in entered.values())
    for key, p in run_all(callee, entered, engine, R, carrying=not by_start).items():
        frame, world, outcomes, stopped, stack, depth = key
        following = END if stopped is not None else site.back
        caller = list(stack[-1])
        if site.result is not None and callee.result is not None:
            caller[site.result] = frame[0]  # the callee's frame ends as the value it gives, alone
        back: Key = (projection.keep(following, caller), interned.id(world), interned.id(outcomes), stopped,
                     stack[:-1], depth - 1)
        yield back, p, following


def log_roll(trace: Trace, primitive: Any, pos: Pos, faces: list[int] | None = None, value: Any = None,
             dice: list[int] | None = None) -> Any:
    """A roll's entry in the log, what was rolled and what it gave: the value. `faces`: each face of a sum of
    dice, which is their sum; `dice`: each roll of a pool whose value is made otherwise (the dice kept, the
    successes counted, a die rolled again), in the order rolled."""
    if faces is not None:
        value = sum(faces)
    rolled, shown = primitive.describe(), show_brief(value)
    text = f"{rolled}: {shown}"
    if faces is not None and len(faces) > 1:
        # A long sum's first faces, its rest counted, as a long list is logged (the event holds them all).
        rest = len(faces) - BRIEF_ITEMS
        text += f" ({' + '.join(map(str, faces[:BRIEF_ITEMS]))}" + (f" + ... {rest} more)" if rest > 0 else ")")
    elif dice:
        text += f" (rolled {show_brief(tuple(dice))[1:-1]})"
    shown_faces = faces if faces is not None else dice
    trace.add("roll", pos, text, rolled=rolled, value=shown,
              **({"faces": shown_faces} if shown_faces is not None else {}))
    return value


def log_hits(trace: Trace, hits: Any, pos: Pos) -> None:
    # A volley's events are most of a logged run's. Each is kept with its hit, and copied into the log: a sampled
    # volley's hits are made once for the pool it is fired at, and met again by run after run (see chance._Trail).
    file, line = (pos.path, pos.line) if pos else ("", 0)
    add = trace.events.append
    shots: _ShotEvents | None = None
    for hit in hits:
        event = hit.logged
        if event is None or event["line"] != line or event["file"] != file:
            if shots is None:
                shots = _ShotEvents(file, line)
            event = hit.logged = shots.event(hit)
        add(event.copy())


class _ShotEvents:
    """The events of a volley's hits at one rule, a source or a body's owner shown again only when it differs
    from the last shot's (a volley's shots come in runs of one source)."""

    __slots__ = ("file", "line", "source", "source_text", "owner", "owner_text", "owner_value")

    def __init__(self, file: str, line: int):
        self.file, self.line = file, line
        self.source = self.owner = _UNSHOWN
        self.source_text = self.owner_text = self.owner_value = ""

    def event(self, hit: Any) -> dict[str, Any]:
        after, shot = hit.after, hit.shot
        if shot.source is not self.source:
            self.source = source = shot.source
            self.source_text = "" if source is None else f" from {show_brief(source)}"  # no source: no "from none"
        source_text = self.source_text
        number = hit.index + 1
        if after is None:
            return {"kind": "shot", "file": self.file, "line": self.line,
                    "text": f"shot {number} ({shot.damage} damage{source_text}) finds every body lethal: it "
                            "changes nothing",
                    "shot": number, "damage": shot.damage, "owner": None, "tag": None, "lethal": True,
                    "overflow": True, "carried": False}
        lethal = after.lethal
        status = "lethal" if lethal else f"{after.damage}/{after.hitpoints} damage"
        if after.hitpoints is None:
            status = "cannot die"
        if after.owner is not self.owner:
            self.owner = owner = after.owner
            self.owner_value = show_brief(owner)
            self.owner_text = "a body" if owner is None else self.owner_value  # "hits none" read as a miss
        text = f"the rest of shot {number}" if hit.carried else f"shot {number} ({shot.damage} damage{source_text})"
        return {"kind": "shot", "file": self.file, "line": self.line,
                "text": f"{'overflow: ' if hit.overflow else ''}{text} hits {self.owner_text}"
                        f"{f' ({after.tag})' if after.tag else ''}: {status}",
                "shot": number, "damage": shot.damage, "owner": self.owner_value, "tag": after.tag, "lethal": lethal,
                "overflow": hit.overflow, "carried": hit.carried}


_UNSHOWN = object()  # no source or owner shown yet
