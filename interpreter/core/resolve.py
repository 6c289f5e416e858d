"""Resolving an action with an engine: a start state in, final states out."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any

from fracas.dsl import nodes as n
from fracas.interpreter.core import collector
from fracas.interpreter.core import dist as D
from fracas.interpreter.core import rt
from fracas.interpreter.core.codegen import Routine, generator_for
from fracas.interpreter.core.engines import (WORLDS_READ, ExactEngine, Key, Run, SampleEngine, go_on_from,
                                             endless_loop, never_ending, projection_of, run_all, run_until_chance)
from fracas.interpreter.core.errors import SAMPLE_INSTEAD, RunError
from fracas.interpreter.core.kept_code import keep_if_grown
from fracas.interpreter.core.state import NO_NAMES, Frozen, OutcomeStates, State


def routine_of(program: Any, action: n.StepDecl) -> Routine:
    return generator_for(program.rules).routine(action.name)


def _start(routine: Routine, start: State) -> list[Any]:
    args = start.frames[0]
    frame: list[Any] = [None] * routine.slots
    for param, index in zip(routine.decl.params, routine.params):
        frame[index] = args[param.name]
    return frame


def _final(routine: Routine, frame: Any, world: Frozen, outcomes: Frozen, stopped: str | None) -> State:
    names = Frozen({name: frame[index] for name, index in routine.names.items()})
    return State((names,), world, outcomes, stopped)


def _unchecked(state: State) -> None:
    """No constraints to check: for callers of the core that check none."""


def resolve_one(program: Any, action: n.StepDecl, start: State, engine: Any,
                check: Callable[[State], None] = _unchecked) -> State:
    """One run with a sampling or forced engine, on one working state; `check` is shown its final state
    (every caller that gives one gives the check of the constraints after this action).

    A run starts where every run from this start stands at its first chance, worked out once (the
    blocks before it draw nothing and change only the working state and the event log, whose entries
    are copied). A sampled run without an event log goes on through the runs remembered from this
    start (_Remembered).
    """
    routine = routine_of(program, action)
    gen = generator_for(program.rules)
    R = Run(program, engine, gen)
    first = _before_chance(program, action, routine, start, R, check is not _unchecked)
    if R.trace is None and type(engine) is SampleEngine:
        state = first.run(routine, R, engine, check)[0]
    else:
        if R.trace is not None:
            # Most hold no list or dictionary: a copy of the event itself is the run's own (without a call each).
            R.trace.events.extend([_own_event(event, nested) if nested else event.copy()
                                   for event, nested in first.events])
        state = first.run_blocks(routine, R, check)[0]
    keep_if_grown(gen)
    return state


def sample_runs(program: Any, action: n.StepDecl, start: State, engine: SampleEngine, count: int,
                names: bool = True, check: Callable[[State], None] = _unchecked) -> Iterator[State]:
    """The final states of `count` sampled runs from one start, one after the other with one engine
    (without an event log): as many calls of resolve_one, less what they would each look up again.
    names=False: the states leave out the action's names (for those who count outcomes). `check` is
    shown each final state the first time it is met (with its names)."""
    routine = routine_of(program, action)
    gen = generator_for(program.rules)
    R = Run(program, engine, gen)
    if type(engine) is not SampleEngine or R.trace is not None:
        raise TypeError("sample_runs needs a sampling engine without an event log")
    first = _before_chance(program, action, routine, start, R, check is not _unchecked)
    which = 0 if names else 1
    try:
        for _ in range(count):
            yield first.run(routine, R, engine, check)[which]
    finally:
        keep_if_grown(gen)


def _final_of(routine: Routine, S: rt.Working) -> State:
    """The final state of a run on one working state. Its world and outcomes are Frozen from the start of
    the run, unhashed while the run changes them: the final state needs no copy of them."""
    return _final(routine, S.F, S.W, S.O, S.stopped)  # type: ignore[arg-type]


def _before_chance(program: Any, action: n.StepDecl, routine: Routine, start: State, R: Run,
                   checked: bool) -> _Remembered:
    """Where every run from this start stands at its first chance, worked out once (with the events it
    logged there, for runs with an event log), with the runs remembered from there (apart for runs whose
    final states are checked: a state remembered unchecked is not known to meet the constraints)."""
    memo = program.before_chance
    key = (action.name, start, R.trace is not None, checked)
    found = memo.get(key)
    if found is None:
        S = rt.Working(_start(routine, start), dict(start.world), dict(start.outcomes))
        logged = len(R.trace.events) if R.trace is not None else 0
        pc = run_until_chance(routine, S, R)
        events: tuple[tuple[dict[str, Any], tuple[str, ...]], ...] = ()
        if R.trace is not None:
            events = tuple((event, tuple(key for key, value in event.items() if isinstance(value, (list, dict))))
                           for event in R.trace.events[logged:])
            del R.trace.events[logged:]  # the caller copies them in, as every later run
        if len(memo) >= _MEMO:
            memo.clear()
        found = memo[key] = _Remembered(pc, tuple(S.F), dict(S.W), dict(S.O), S.stopped, R.work, events)
    return found  # type: ignore[no-any-return]


def _own_event(event: dict[str, Any], nested: tuple[str, ...]) -> dict[str, Any]:
    """A logged event as a run's own, so that a caller who changes its log changes no other run's;
    nested: the keys that hold lists or dictionaries (copied all the way down)."""
    own = dict(event)
    for key in nested:
        own[key] = _copied(own[key])
    return own


def _copied(value: Any) -> Any:
    kind = type(value)
    if kind is dict:
        return {key: _copied(item) for key, item in value.items()}
    if kind is list:
        return [_copied(item) for item in value]
    return value


class _Node:
    """A place in the runs from one start: the values drawn so far lead here."""

    __slots__ = ("chance", "children", "final", "bare")

    def __init__(self) -> None:
        self.chance: Any = None  # what every run that gets here draws from next; None: not known yet, or the end
        self.children: dict[Any, _Node] = {}  # by the value drawn from it
        self.final: State | None = None  # the final state of every run that gets here; and without its names:
        self.bare: State | None = None


class _Remembered:
    """The sampled runs from one start, remembered by the values they drew.

    Between two draws a run is certain: the same values drawn from the same
    start make the same final state. So a run walks the tree of the values
    drawn so far, drawing each from the chance remembered there, with the same
    random numbers as running its blocks would, and runs its blocks only where
    the tree has not been yet: from the first chance, the values it has drawn
    given back. A sampled attack that draws once costs a draw and a look-up.
    """

    __slots__ = ("pc", "frame", "world", "outcomes", "stopped", "work", "events", "root", "nodes", "runs", "misses")

    def __init__(self, pc: int, frame: tuple[Any, ...], world: dict[str, Any], outcomes: dict[str, Any],
                 stopped: str | None, work: int, events: tuple[tuple[dict[str, Any], tuple[str, ...]], ...] = ()):
        self.pc, self.frame, self.world, self.outcomes, self.stopped, self.work = pc, frame, world, outcomes, stopped, work
        self.events = events
        self.root: _Node | None = _Node()  # None: given up (see run)
        self.nodes = 1
        self.runs = 0
        self.misses = 0  # runs the tree did not hold, since the last look

    def working(self, R: Run) -> rt.Working:
        R.work = self.work
        return rt.Working(list(self.frame), Frozen(self.world), Frozen(self.outcomes), self.stopped)

    def run(self, routine: Routine, R: Run, engine: SampleEngine,
            check: Callable[[State], None]) -> tuple[State, State]:
        """One run's final state, with its names and without them."""
        root = self.root
        if root is None:  # given up: every run runs its blocks
            return self.run_blocks(routine, R, check)
        self.runs += 1
        if self.runs % _WINDOW == 0:
            if 2 * self.misses > _WINDOW:  # the tree saves little here, and holds what it saw: let it go
                self.root = None
            self.misses = 0
        rng = engine.rng
        node = root
        drawn: list[Any] = []
        while node.final is None:
            chance = node.chance
            if chance is None:
                break
            value = chance.sample(rng)
            drawn.append(value)
            try:
                child = node.children.get(value)
            except TypeError:  # a value that does not hash: not remembered
                child = None
            if child is None:
                break
            node = child
        else:
            return node.final, node.bare  # type: ignore[return-value]
        self.misses += 1
        R.chooser = replay = _Replay(rng, drawn)
        try:
            final, bare = self.run_blocks(routine, R, check)
        finally:
            R.chooser = engine
        self._remember(replay.met, final, bare)
        return final, bare

    def run_blocks(self, routine: Routine, R: Run, check: Callable[[State], None]) -> tuple[State, State]:
        """One run's final state, with its names and without them, its blocks run from the first chance
        with whatever answers the run's draws (R.chooser)."""
        S = self.working(R)
        go_on_from(routine, self.pc, S, R)
        final = _final_of(routine, S)
        check(final)
        return final, State(NO_NAMES, S.W, S.O, S.stopped)

    def _remember(self, met: list[tuple[Any, Any]], final: State, bare: State) -> None:
        node = self.root
        if node is None:
            return
        try:
            for chance, value in met:
                if node.chance is None:
                    node.chance = chance
                child = node.children.get(value)
                if child is None:
                    if self.nodes >= _NODES:
                        return
                    child = node.children[value] = _Node()
                    self.nodes += 1
                node = child
        except TypeError:
            return
        node.final, node.bare = final, bare


_NODES = 2048  # places remembered, per start: enough for an attack's few results, bounded for long chains of draws
# Runs between two looks at how many the tree held. Where most runs draw a sequence not met before, the
# tree costs a look-up each and keeps alive what it saw (the pools fired at, with what they were left as):
# it is let go, and every later run from that start runs its blocks.
_WINDOW = 1024


class _Replay:
    """A sampling engine that gives back the values a run has drawn already, then draws; it notes every
    chance met, with the value it gave."""

    exact = False
    trace = None
    __slots__ = ("rng", "given", "met")

    def __init__(self, rng: Any, given: list[Any]):
        self.rng, self.given = rng, given
        self.met: list[tuple[Any, Any]] = []

    def draw(self, primitive: Any, pos: n.Pos) -> Any:
        met = self.met
        value = self.given[len(met)] if len(met) < len(self.given) else primitive.sample(self.rng)
        met.append((primitive, value))
        return value


_MEMO = 64  # start states remembered, per program


def resolve(program: Any, action: n.StepDecl, start: State, engine: ExactEngine, observe_all: bool = True,
            check: Callable[[Any], None] | None = None,
            checked_fields: frozenset[str] = frozenset(), world_check: Any = WORLDS_READ) -> dict[State, Any]:
    """Every final state with its exact probability.

    observe_all: the final states keep the action's names and the world; else
    only the outcomes (and why it stopped), so that far fewer states remain.
    check: shown every final state before that, as its world (with `checked_fields` at least, the fields
    that constraints read), outcomes, why it stopped and probability. world_check: what the check reads of
    a world, as Run.world_check tells it (the constraints' quick test; None: the rules have none). Python's
    cyclic garbage collector is paused meanwhile (see collector.py).
    """
    with collector.paused():
        return _resolved(program, action, start, engine, observe_all, check, checked_fields, world_check)


def _resolved(program: Any, action: n.StepDecl, start: State, engine: ExactEngine, observe_all: bool,
              check: Callable[[Any], None] | None, checked_fields: frozenset[str],
              world_check: Any) -> dict[State, Any]:
    routine = routine_of(program, action)
    key: Key = (tuple(_start(routine, start)), start.world, start.outcomes, None, (), 0)
    gen = generator_for(program.rules)
    R = Run(program, engine, gen)
    R.world_check = None if check is None else world_check
    R.counts_only = not observe_all
    try:
        finals = run_all(routine, {key: Fraction(1)}, engine, R, observe_all, checked_fields, numbered=not observe_all)
    except RunError as error:
        # Stopped after finding a loop that may never end (at a limit its states ran into, often): that loop is
        # said, as the first problem met, not how likely it is, which the rest of the run would have told.
        if R.endless is not None:
            raise endless_loop(R.endless) from None
        _told_widest(error, R)
        raise
    finally:
        # The exact engine's chooser and budget count their work toward the run they belong to: a reference
        # cycle through all the run holds, which only the cyclic collector would free (milliseconds, later).
        R.chooser = R.budget = None
    keep_if_grown(gen)  # what this call made (its inputs' constants too) is there for the next process
    if R.endless is not None:  # some states never end: they are among the final states, marked
        never_ending(finals)
    if not observe_all:
        assert R.interned is not None
        return _outcomes_only(finals, R.interned.values, check)
    end = projection_of(routine, observe_all, checked_fields).end
    finals = D.reduced(finals)
    full: dict[State, Any] = {}
    for (kept, world, outcomes, stopped, _, _), p in finals.items():
        state = _final(routine, _frame(routine, end, kept), world, outcomes, stopped)
        before = full.get(state)
        full[state] = p if before is None else before + p
    if check is not None:
        check([(state.world, state.outcomes, state.stopped, p) for state, p in full.items()])
    return full


WIDE = 100  # values a draw gives a state, past which a limit's hint names it


def _told_widest(error: RunError, R: Run) -> None:
    """A limit of the exact engine met: its hint names the draw that gave a state the most values, if that is
    many. States pile up where later blocks merge them, which is where the limit is met; a designer shrinks the
    draw (or what it gives) that made them."""
    count, pos, step = R.widest
    if SAMPLE_INSTEAD not in error.hint or count < WIDE or pos is None:
        return
    where = f"line {pos.line}" if pos.path in ("", R.program.rules.path) else f"{pos.path}:{pos.line}"
    error.hint += (f"; the {'step called' if step else 'draw'} at {where} gives {count} values to each state: where "
                   "later rules read less of it (a total, a yes or no), "
                   + ("give only that from the step" if step else "draw only that, as a step that gives it"))


def _frame(routine: Routine, end: tuple[int, ...], kept: tuple[Any, ...]) -> list[Any]:
    frame = [None] * routine.slots
    for index, value in zip(end, kept):
        frame[index] = value
    return frame


def _outcomes_only(finals: dict[Key, Any], values: list[Any], check: Callable[[Any], None] | None) -> OutcomeStates:
    """The final states as outcomes (and why they stopped) alone, each with its probability.

    The engine's final states hold their worlds and outcomes by number (`values`). The states checked
    are shown as a list of their worlds and outcomes (all a check reads), not merged: the check needs
    no state hashed. The rest merge by the outcomes' numbers, and the probabilities are made
    Fractions once merged: states that differ only in fields a constraint reads are many, their
    outcomes few.
    """
    if check is not None:
        check([(values[world], values[outcomes], stopped, p)
               for (_, world, outcomes, stopped, _, _), p in finals.items()])
    merged: dict[tuple[Any, Any], Any] = {}
    for (_, _, outcomes, stopped, _, _), p in finals.items():
        key = (outcomes, stopped)
        before = merged.get(key)
        merged[key] = p if before is None else before + p
    return OutcomeStates([(values[outcomes], stopped, p) for (outcomes, stopped), p in D.reduced(merged).items()])


_LITERALS = (n.Number, n.Text, n.Bool)


class _NoChance:
    trace = None

    def __init__(self, message: str):
        self.message = message

    def draw(self, primitive: Any, pos: n.Pos) -> Any:

        raise RunError(pos, self.message)


def evaluate(program: Any, expr: n.Expr, names: dict[str, Any], world: Any = None, outcomes: Any = None,
             once: bool = False, chance: str = "a constant cannot depend on chance") -> Any:
    """The value of an expression that needs no chance: a constant, an expectation over one final state.

    `names` are the local names it reads (an action's names, a record's
    fields so far); once: the expression is made for one evaluation only.
    """
    kind = type(expr)
    if kind in _LITERALS:  # most defaults and row fields: nothing to compile
        return expr.value  # type: ignore[attr-defined]
    if kind is n.NoneLit:
        return None
    gen = generator_for(program.rules)
    local = tuple(names)
    function = gen.once(expr, local) if once else gen.lone(expr, local)
    R = Run(program, _NoChance(chance), gen)
    try:
        return function(R, world if world is not None else {}, outcomes if outcomes is not None else {}, names)
    except KeyError as error:  # a name read before it is set (a record's later field)
        raise RunError(expr.pos, f"unknown name {error.args[0]!r}") from None
