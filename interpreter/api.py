"""The Python API: load rules once, then resolve scenarios sampled or exactly.

    rules = dsl.load("rules/my-game.rules")
    scenario = Scenario("attack", {"attacker": {"type": "archer"}, ...})
    result = exact(rules, scenario)        # every outcome as an exact Fraction
    one = sample(rules, scenario, seed=7)  # one run: outcomes, events, new state
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Iterable, Iterator, Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any, TypeVar

from fracas.dsl import nodes as n
from fracas.dsl.reads import free_names
from fracas.dsl.diagnostics import Diagnostic, did_you_mean, lines_of, listed
from fracas.dsl.records import field, record
from fracas.dsl.ruleset import Ruleset
from fracas.dsl.types import type_from
from fracas.dsl.writes import outcomes_set_by
from fracas.interpreter.core import collector, resolve
from fracas.interpreter.core.constraints import check_after, clear_test, constrained_fields
from fracas.interpreter.core.engines import Engine, ExactEngine, ForcedEngine, SampleEngine, Trace
from fracas.interpreter.core.errors import SAMPLE_INSTEAD, RunError, ScenarioError
from fracas.interpreter.core.kept_code import kept_once
from fracas.interpreter.core.program import Program
from fracas.interpreter.core.state import Frozen, OutcomeStates, State
from fracas.interpreter.core.values import RowRef, approx, as_float, exact_text, show
from fracas.interpreter.inputs import (InputProblem, action_inputs, build_program, each_problem,
                                      input_shape_problems, number_written, told_together)
from fracas.interpreter.plain import Unwritable, plain
from fracas.interpreter.runtime.bodies import Pool, Volley
from fracas.interpreter.runtime.getters import tuple_getter
from fracas.interpreter.runtime.keys import stable_key, stable_sorted

if TYPE_CHECKING:
    import random

# The tools (fracas.interpreter.tools) reach the engine through this module alone; besides its own
# functions, these are what they read of it: final states, errors, values that a state file cannot hold,
# and the runtime values a report shows (a pool of bodies, a volley), in their stable order.
__all__ = [
    "Distribution", "Pool", "Prepared", "Run", "RunError", "Scenario", "ScenarioError", "State", "Unwritable",
    "Volley", "approx", "as_float", "beyond_exact", "estimate", "exact", "exact_text", "final_value", "forced",
    "kept_once", "number_written", "prepare", "program_problems", "reads_only_outcomes", "run_diagnostic", "sample",
    "scenario_diagnostic", "show", "show_plain", "stable_key",
]

T = TypeVar("T")


@record(frozen=True)
class Scenario:
    """What to resolve: an action, its inputs, and parameter overrides (plain data or expressions)."""

    action: str | None
    inputs: dict[str, Any]
    params: dict[str, Any] = field(default_factory=dict)
    path: str = "<scenario>"
    text: str = ""  # the file's text, to point at the line of a bad key
    choices: dict[str, Any] = field(default_factory=dict)
    # Inputs that came from other files (an action beside a ship sheet): key -> (path, text).
    elsewhere: dict[str, tuple[str, str]] = field(default_factory=dict)
    # Values given on the command line: their path (params.NAME, choices.NAME) -> the flag that gave them.
    flags: dict[str, str] = field(default_factory=dict)

    def action_in(self, rules: Ruleset) -> str | None:
        """The action it names, or the rules' first where it names none (an empty name is a name: unknown)."""
        return rules.default_action if self.action is None else self.action


@record
class Prepared:
    """A scenario built against its rules once: the program, the action and the state it starts from."""

    program: Program
    action: n.StepDecl
    start: State
    scenario: Scenario

    @property
    def rules(self) -> Ruleset:
        return self.program.rules

    def constant(self, expr: n.Expr) -> Any:
        """The value of an expression that needs no chance (a forced roll, say), with the scenario's parameters."""
        return self.program.constant(expr)


def prepare(rules: Ruleset, scenario: Scenario, overrides: dict[str, Any] | None = None) -> Prepared:
    """Check a scenario against the rules and build the starting state."""
    params = {**scenario.params, **(overrides or {})}
    try:
        problems = ([InputProblem(f"params.{name}", f"unknown parameter '{name}'",
                                  _not_a_parameter(rules, scenario, name))
                     for name in params if name not in rules.params]
                    + [InputProblem(f"choices.{name}", f"unknown choice '{name}'",
                                    (f"'{name}' is a parameter: give it under [params] (on the command line, --set "
                                     f"{name}=...)" if name in rules.params else "") or did_you_mean(name, rules.choices)
                                    or ("the choices are: " + ", ".join(rules.choices) if rules.choices
                                        else "these rules declare no choices"))
                       for name in scenario.choices if name not in rules.choices])
        action_name = scenario.action_in(rules)
        if action_name is None:
            raise InputProblem("action", "these rules declare no action to resolve")
        if scenario.action is None and len(rules.actions) > 1 and scenario.inputs:
            _action_meant(rules, scenario, action_name)
        action = rules.actions.get(action_name)
        if action is None:
            raise _unknown_action(rules, action_name)
        try:
            program = build_program(rules, {k: v for k, v in params.items() if k in rules.params},
                                    {k: v for k, v in scenario.choices.items() if k in rules.choices})
        except InputProblem as problem:
            problems += each_problem(problem)
        if problems:  # told with what does not fit in the inputs, whatever the parameters
            told_together(problems + _input_shape_problems(rules, action, scenario.inputs))
        start = action_inputs(program, action, scenario.inputs)
    except InputProblem as problem:
        raise ScenarioError(_in_order([scenario_diagnostic(rules, scenario, each)
                                       for each in each_problem(problem)])) from None
    except RunError as error:
        raise ScenarioError([run_diagnostic(rules, error)]) from None
    return Prepared(program, action, start, scenario)


def check_action(rules: Ruleset, scenario: Scenario) -> None:
    """Refuse a scenario that names an action the rules lack, as prepare would, before any program is made."""
    name = scenario.action_in(rules)
    if name is not None and name not in rules.actions:
        raise ScenarioError([scenario_diagnostic(rules, scenario, _unknown_action(rules, name))])


def _unknown_action(rules: Ruleset, name: str) -> InputProblem:
    return InputProblem("action", f"unknown action '{name}'", did_you_mean(name, rules.actions)
                        or listed("the actions", rules.actions, "these rules declare no action"))


def _not_a_parameter(rules: Ruleset, scenario: Scenario, name: str) -> str:
    """The hint for a parameter the rules do not declare: what the name is, if it is a choice or an action's input,
    else the parameter meant or those there are."""
    if name in rules.choices:
        return f"'{name}' is a choice: give it under [choices] (on the command line, --choose {name}=...)"
    meant = scenario.action_in(rules)
    takers = [action for action in ([meant] if meant in rules.actions else rules.actions)  # type: ignore[list-item]
              if any(param.name == name for param in rules.actions[action].params)]
    if takers:
        return (f"'{name}' is an input of {takers[0]}, not a parameter: give it in a scenario file ({name} = ...), "
                f"or vary it with fracas sweep --vary {name}=V1,V2,...")
    return did_you_mean(name, rules.params) or ("the parameters are: " + ", ".join(rules.params) if rules.params
                                               else "these rules have no parameters")


def _action_meant(rules: Ruleset, scenario: Scenario, first: str) -> None:
    """Refuse a scenario that names no action where its inputs fit another action than the rules' first, or
    several: which one it is for is not the first's to guess."""
    given = set(scenario.inputs)
    fitting = [name for name, decl in rules.actions.items() if given <= {param.name for param in decl.params}
               and all(param.name in given or param.default is not None or param.type.optional
                       for param in decl.params)]  # takes every input given, and is given every one it needs
    if not fitting or fitting == [first]:
        return
    if len(fitting) == 1:
        told = f"the scenario names no action, and its inputs are those of '{fitting[0]}', not of the rules' first"
    else:
        told = f"the scenario names no action, and its inputs fit {len(fitting)} actions: {', '.join(fitting)}"
    raise InputProblem("action", told, f'name the one it is for at its top, as in action = "{fitting[0]}"')


def _input_shape_problems(rules: Ruleset, action: n.StepDecl, given: dict[str, Any]) -> list[InputProblem]:
    """input_shape_problems, read with the rules' own parameters; none where those do not build."""
    try:
        return input_shape_problems(build_program(rules), action, given)
    except (InputProblem, RunError):
        return []


def _in_order(told: list[Diagnostic]) -> list[Diagnostic]:
    """Problems in the order of each file's lines (a record's unknown keys are found before its fields are read),
    then those of the file as a whole (an input it lacks, which no line shows), the files and flags in the order
    first met: a typo on a line is told before what it leaves missing."""
    first_met: dict[str, int] = {}
    for diagnostic in told:
        first_met.setdefault(diagnostic.path, len(first_met))
    return sorted(told, key=lambda d: (first_met[d.path], not d.line, d.line, d.column))


def program_problems(rules: Ruleset) -> list[Diagnostic]:
    """What stops any run before it starts: parameters, choices or rows, as written, breaking a constraint."""
    try:
        build_program(rules)
    except InputProblem as problem:
        return [scenario_diagnostic(rules, Scenario(None, {}, path=rules.path), each) for each in each_problem(problem)]
    except RunError as error:
        return [run_diagnostic(rules, error)]
    return []


def final_value(expr: n.Expr, prepared: Prepared, state: State, once: bool = False) -> Any:
    """An expression over one final state: its outcomes, the action's names, `stopped` (no chance).

    once: the expression is evaluated this one time, so it is not worth compiling for the next.
    """
    names = {**state.frames[0], "stopped": state.stopped or ""}
    return resolve.evaluate(prepared.program, expr, names, state.world, state.outcomes, once,
                            chance="an expectation cannot roll dice")


# ---- results --------------------------------------------------------------------


@record(eq=False)  # compared by identity, so its cached marginals belong to it alone
class Distribution:
    """Final states with their probabilities (exact), or frequencies (estimated)."""

    prepared: Prepared
    states: Mapping[State, Any]  # OutcomeStates for exact odds of outcomes alone
    mode: str = "exact"  # or "estimate"
    samples: int = 0

    @functools.cached_property
    def outcome_names(self) -> list[str]:
        names = list(self.prepared.program.rules.outcomes)
        if any(stopped for _, stopped, _ in self._rows()):
            names.append("stopped")
        return names

    @functools.cached_property
    def outcomes_not_set(self) -> tuple[str, ...]:
        return not_set(self.prepared)

    def _rows(self) -> Iterator[tuple[Frozen, str | None, Any]]:
        """Each final state's outcomes, why it stopped and its probability: what odds read of it."""
        states = self.states
        if type(states) is OutcomeStates:  # held as rows already: no State made
            return iter(states.rows)
        return ((state.outcomes, state.stopped, p) for state, p in states.items())

    def values(self, state: State) -> dict[str, Any]:
        found = dict(state.outcomes)
        if "stopped" in self.outcome_names:
            found["stopped"] = state.stopped or ""
        return found

    def marginal(self, name: str) -> dict[Any, Fraction]:
        return dict(self._marginals()[name])

    @functools.cache
    def _marginals(self) -> dict[str, dict[Any, Fraction]]:
        found: dict[str, dict[Any, Fraction]] = {name: {} for name in self.outcome_names}
        with_stopped = "stopped" in found
        for outcomes, stopped, p in self._rows():
            for name, value in outcomes.items():
                if name in found:
                    found[name][value] = found[name].get(value, 0) + p
            if with_stopped:
                value = stopped or ""
                found["stopped"][value] = found["stopped"].get(value, 0) + p
        return {name: dict(self._in_order(d.items(), False)) for name, d in found.items()}

    def _in_order(self, pairs: Iterable[tuple[Any, Any]], combined: bool) -> list[tuple[Any, Any]]:
        """(value, p) pairs in the order reports show values (combined: each value a tuple of outcomes' values)."""
        pairs = list(pairs)
        rows = any(type(v) is RowRef for value, _ in pairs for v in (value if combined else (value,)))
        if not rows:  # most outcomes: numbers, truths and texts, sorted as they are
            return stable_sorted(pairs)
        key = self.value_key
        return sorted(pairs, key=(lambda pair: tuple(map(key, pair[0]))) if combined else (lambda pair: key(pair[0])))

    @functools.cached_property
    def value_key(self) -> Callable[[Any], tuple]:
        """The order of an outcome's values in reports: stable_key's, but rows (an enum's values) in the order
        the rules declare them, as a designer lists results (unhurt, stunned, ko), not alphabetically."""
        return declared_order(self.prepared.program.rules)

    def _numeric(self, name: str) -> list[tuple[Fraction | int, Fraction]] | None:
        """The marginal as (number, probability) pairs, true counting 1; None if a value is no number."""
        pairs = []
        for value, p in self.marginal(name).items():
            if isinstance(value, bool):
                value = int(value)
            if not isinstance(value, (int, Fraction)):
                return None
            pairs.append((value, p))
        return pairs

    def mean(self, name: str) -> Fraction | None:
        pairs = self._numeric(name)
        return None if pairs is None else sum((value * p for value, p in pairs), Fraction(0))

    def variance(self, name: str) -> Fraction | None:
        pairs = self._numeric(name)
        mean = self.mean(name)
        if pairs is None or mean is None:
            return None
        return sum(((value - mean) ** 2 * p for value, p in pairs), Fraction(0))

    def at_least(self, name: str) -> dict[Any, Fraction]:
        """The probability of each value or a greater one; none for an outcome that is not a number (a truth, a
        text, a row, one that may be none), whose values are in an order but not of size."""
        marginal = self.marginal(name)
        if not all(type(value) in (int, Fraction) for value in marginal):
            return {}
        out: dict[Any, Fraction] = {}
        remaining = sum(marginal.values(), Fraction(0))
        for value, p in marginal.items():
            out[value] = remaining
            remaining -= p
        return out

    def joint(self) -> list[tuple[dict[str, Any], Fraction]]:
        with collector.paused():  # a container or two for each state, none in a cycle
            return self._joint()

    def _joint(self) -> list[tuple[dict[str, Any], Fraction]]:
        names = self.outcome_names
        # The key as values() gives it ("stopped" comes last, when it is there), without a dictionary a state.
        outcomes = names[:len(self.prepared.program.rules.outcomes)]
        rows = list(self._rows())
        keys = list(map(tuple_getter(outcomes), map(_FIRST, rows)))
        if len(outcomes) < len(names):
            keys = [key + (why or "",) for key, (_, why, _) in zip(keys, rows)]
        # Each final state of outcomes alone has a combination of values of its own: taken in C, summed where not.
        merged = dict(zip(keys, map(_LAST, rows)))
        if len(merged) < len(rows):
            merged = {}
            for key, (_, _, p) in zip(keys, rows):
                before = merged.get(key)
                merged[key] = p if before is None else before + p
        ordered = self._in_order(merged.items(), True)
        return list(zip(map(dict, map(functools.partial(zip, names), map(_FIRST, ordered))), map(_LAST, ordered)))

    def as_json(self) -> dict[str, Any]:
        outcomes = {}
        for name in self.outcome_names:
            entry: dict[str, Any] = {"distribution": {show_plain(v): exact_text(p)
                                                      for v, p in self.marginal(name).items()}}
            mean = self.mean(name)
            if mean is not None:
                entry["mean"] = exact_text(mean)
            outcomes[name] = entry
        result: dict[str, Any] = {"mode": self.mode, "outcomes": outcomes, "not_set": list(self.outcomes_not_set),
                                  "joint": [{"values": {k: show_plain(v) for k, v in values.items()}, "p": exact_text(p)}
                                            for values, p in self.joint()]}
        if self.mode == "estimate":
            result["samples"] = self.samples
            for name, entry in outcomes.items():  # each share's 95% interval, as the table shows it
                entry["interval95"] = {show_plain(v): [round(bound, 6) for bound in wilson_interval(p, self.samples)]
                                       for v, p in self.marginal(name).items()}
        return result


def declared_order(rules: Ruleset) -> Callable[[Any], tuple]:
    """stable_key, with each row ranked where the rules declare it (every kind's rows, an enum's values)."""
    rank = {name: place for place, name in enumerate(rules.rows)}

    def key(value: Any) -> tuple:
        if type(value) is RowRef:
            return (5, ("row", rank.get(value.name, len(rank)), value.name))
        return stable_key(value)

    return key


def wilson_interval(p: Fraction, samples: int) -> tuple[float, float]:
    """A 95% Wilson interval for a share p of `samples` runs: honest near 0 and 1, where it is lopsided (2 runs
    in 200 give 0.78% to 5.02%, not 2% give or take 2.12), and never below 0 or above 1."""
    if samples == 0:
        return 0.0, 1.0
    z = 1.96
    q = float(p)
    denom = 1 + z * z / samples
    centre = (q + z * z / (2 * samples)) / denom
    spread = z * ((q * (1 - q) / samples + z * z / (4 * samples * samples)) ** 0.5) / denom
    return max(0.0, centre - spread), min(1.0, centre + spread)


def beyond_exact(error: ScenarioError) -> bool:
    """Whether an exact resolution stopped at a limit that sampling need not reach: its states, or its work, which
    a sampled run counts run by run (the errors that say to estimate by sampling instead)."""
    first = error.diagnostics[0]
    return "exact engine" in first.message or first.hint.startswith(SAMPLE_INSTEAD)


def reads_only_outcomes(rules: Ruleset, exprs: list[n.Expr]) -> bool:
    """Whether expressions over final states read nothing but outcomes (and `stopped`): then exact() may merge more."""
    known = set(rules.outcomes) | {"stopped"} | set(rules.params) | set(rules.choices) | set(rules.rows)
    known |= set(rules.fns) | set(rules.tables)
    return all(name.name in known for expr in exprs for name in free_names(expr))


def show_plain(value: Any) -> str:
    """Outcome values as JSON keys and table cells: 3, 1/2, true, the name of a row, a text as it is; but in its
    quotes, as the rules write it, a text that would not read as itself bare: empty, "none" (which a `text?`
    outcome may hold beside none itself), one with a new line, a tab, a quote or a backslash, or with spaces at
    either end."""
    text = show(value)
    if isinstance(value, str) and value not in ("", "none") and value == value.strip() and len(text) == len(value) + 2:
        return value  # nothing escaped, no space at an end ("a " bare would read as "a")
    return text


def not_set(prepared: Prepared) -> tuple[str, ...]:
    """The declared outcomes that the action never assigns, nor anything it calls: each stays at its starting value,
    which is no result of the resolution."""
    rules = prepared.program.rules
    written = outcomes_set_by(rules, prepared.action.name)
    return tuple(name for name in rules.outcomes if name not in written)


@record
class Run:
    """One sampled (or forced) resolution."""

    prepared: Prepared
    state: State
    events: list[dict[str, Any]]
    seed: int | None

    @property
    def outcomes(self) -> dict[str, Any]:
        return dict(self.state.outcomes)

    @property
    def stopped(self) -> str | None:
        return self.state.stopped

    @property
    def outcomes_not_set(self) -> tuple[str, ...]:
        return not_set(self.prepared)

    def new_state(self) -> dict[str, Any]:
        """The scenario's inputs after the resolution, as plain data (writable as TOML).

        Inputs that came from other files than the scenario's own (the action
        beside a ship sheet) are left out: the sheet alone carries over.
        """
        rules = self.prepared.rules
        frame = self.state.frames[0]
        scenario = self.prepared.scenario
        data: dict[str, Any] = {}
        if not scenario.elsewhere:
            data["action"] = self.prepared.action.name
        elif scenario.action is not None and "action" not in scenario.elsewhere:
            data["action"] = scenario.action
        for name in ("params", "choices"):
            given = getattr(scenario, name)
            if given and name not in scenario.elsewhere:
                data[name] = dict(given)
        for param in self.prepared.action.params:
            value = frame[param.name]
            carried = param.name in scenario.inputs and param.name not in scenario.elsewhere
            if value is not None and (carried or not scenario.elsewhere):
                data[param.name] = plain(rules, value, self.state.world, type_from(param.type, rules.kinds), param.pos,
                                         self.prepared.program)
        return data

    def as_json(self) -> dict[str, Any]:
        return {
            "mode": "sample",
            "seed": self.seed,
            "outcomes": {k: show_plain(v) for k, v in self.outcomes.items()},
            "not_set": list(self.outcomes_not_set),  # as odds --json names them
            "stopped": self.stopped or "",  # as the rules read it, and as odds --json gives it
            "events": self.events,
            "state": self.new_state(),
        }


_FIRST, _LAST = operator.itemgetter(0), operator.itemgetter(-1)


# ---- resolving ---------------------------------------------------------------------


def _resolve(prepared: Prepared, engine: ExactEngine, observe_all: bool = True) -> dict[State, Any]:
    program, action = prepared.program, prepared.action

    def run() -> dict[State, Any]:
        return resolve.resolve(program, action, prepared.start, engine, observe_all,
                               lambda finals: check_after(program, action, finals, exact=True),
                               constrained_fields(program.rules), clear_test(program))

    return _diagnosed(prepared, run)


def _resolve_one(prepared: Prepared, engine: Engine) -> State:
    program, action = prepared.program, prepared.action

    def run() -> State:
        return resolve.resolve_one(program, action, prepared.start, engine, _checker(prepared))

    return _diagnosed(prepared, run)


def _checker(prepared: Prepared) -> Callable[[State], None]:
    """What a sampled run's final state is shown to: the constraints that must hold after the action."""
    program, action, start = prepared.program, prepared.action, prepared.start
    return lambda state: check_after(program, action, [(state.world, state.outcomes, state.stopped, 1)], exact=False,
                                     start=start)


def _diagnosed(prepared: Prepared, run: Callable[[], T]) -> T:
    try:
        return run()
    except RunError as error:
        raise ScenarioError([run_diagnostic(prepared.program.rules, error)]) from None


def sample(rules: Ruleset, scenario: Scenario, seed: int = 0, overrides: dict[str, Any] | None = None,
           prepared: Prepared | None = None, events: bool = True, rng: random.Random | None = None) -> Run:
    """One seeded run. events=False skips the event log, for callers that want only outcomes and state, fast.

    rng: draw from this generator instead of one seeded by `seed` (a game's own, kept from run to run:
    seeding a new one costs more than a short run without its log); the run's seed is then None.
    """
    prepared = prepared or prepare(rules, scenario, overrides)
    trace = Trace() if events else None
    state = _resolve_one(prepared, SampleEngine(seed, trace, rng))
    return Run(prepared, state, trace.events if trace is not None else [], seed if rng is None else None)


def forced(rules: Ruleset, scenario: Scenario, rolls: list[int], overrides: dict[str, Any] | None = None,
           rolls_at: tuple[n.Pos, ...] = ()) -> Run:
    """One run whose chance follows `rolls`, each used once and all of them used; rolls_at: where each is written."""
    prepared = prepare(rules, scenario, overrides)
    trace = Trace()
    engine = ForcedEngine(rolls, trace)
    state = _resolve_one(prepared, engine)
    left = engine.unused()
    if left:
        count = f"{len(left)} forced rolls were" if len(left) > 1 else "1 forced roll was"
        first_unused = rolls_at[len(rolls) - len(left)] if len(rolls_at) == len(rolls) else None
        error = RunError(first_unused, f"{count} not used: {', '.join(show(roll) for roll in left)}",
                         "the run asked for fewer rolls than these; remove the extra ones, "
                         "or check that it runs what the rolls are meant for")
        raise ScenarioError([run_diagnostic(rules, error)])
    return Run(prepared, state, trace.events, None)


def exact(rules: Ruleset, scenario: Scenario, overrides: dict[str, Any] | None = None,
          max_states: int | None = None, outcomes_only: bool = False,
          progress: Callable[[n.Pos | None, int], None] | None = None) -> Distribution:
    """Every outcome with its exact probability; max_states defaults to the rules' limit 'states'.

    outcomes_only: the final states hold the outcomes alone (not the action's
    names nor the world), which lets far more of them merge: for odds.
    progress: told now and then which rule the engine is at and how many states wait.
    """
    prepared = prepare(rules, scenario, overrides)
    engine = ExactEngine(max_states or rules.limits.states, progress)
    return Distribution(prepared, _resolve(prepared, engine, not outcomes_only))


# Runs are drawn in chunks of this many, each from a generator seeded by the user's seed and the
# chunk's number: which process runs a chunk does not matter, so any --jobs gives the same result.
CHUNK = 1000


def estimate(rules: Ruleset, scenario: Scenario, samples: int, seed: int = 0,
             overrides: dict[str, Any] | None = None, progress: Any = None, jobs: int = 1,
             outcomes_only: bool = False) -> Distribution:
    """Frequencies of `samples` seeded runs, for problems too large for the exact engine.

    jobs: worker processes to share the runs (the frequencies are the same for any number).
    outcomes_only: as for exact(), the final states hold the outcomes alone: for odds, and far cheaper
    to count than states with every name and entity.
    """
    prepared = prepare(rules, scenario, overrides)
    chunks = [(seed, index, min(CHUNK, samples - start), outcomes_only)
              for index, start in enumerate(range(0, samples, CHUNK))]
    counts: dict[State, int] = {}
    done = 0
    for found in _chunk_counts(prepared, chunks, jobs):
        for state, count in found.items():
            counts[state] = counts.get(state, 0) + count
        done += sum(found.values())
        if progress is not None:
            progress(done, samples)
    return Distribution(prepared, {s: Fraction(c, samples) for s, c in counts.items()}, "estimate", samples)


def _chunk_counts(prepared: Prepared, chunks: list[tuple[int, int, int, bool]], jobs: int) -> Iterator[dict[State, int]]:
    if jobs <= 1 or len(chunks) <= 1:
        yield from (_sample_chunk(prepared, chunk) for chunk in chunks)
        return
    import multiprocessing

    with multiprocessing.Pool(min(jobs, len(chunks)), initializer=_worker_start, initargs=(prepared,)) as pool:
        yield from pool.imap(_worker_chunk, chunks)


_worker_prepared: Prepared | None = None


def _worker_start(prepared: Prepared) -> None:
    import signal

    global _worker_prepared
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops the pool on Ctrl-C
    _worker_prepared = prepared


def _worker_chunk(chunk: tuple[int, int, int, bool]) -> dict[State, int]:
    assert _worker_prepared is not None
    return _sample_chunk(_worker_prepared, chunk)


def _sample_chunk(prepared: Prepared, chunk: tuple[int, int, int, bool]) -> dict[State, int]:
    seed, index, size, outcomes_only = chunk
    import random  # here: an exact run never samples, and need not import it

    engine = SampleEngine(rng=random.Random(f"fracas samples {seed} {index}"))
    program, action, start = prepared.program, prepared.action, prepared.start
    check = _checker(prepared)

    def counted() -> dict[State, int]:
        counts: dict[Any, int] = {}
        if outcomes_only:
            # Counted by the outcomes' values in their one order (every run's outcomes are made from the
            # start's), which hash far faster than the outcomes themselves.
            first: dict[tuple[Any, ...], Frozen] = {}
            for state in resolve.sample_runs(program, action, start, engine, size, names=False, check=check):
                key = (tuple(state.outcomes.values()), state.stopped)
                counts[key] = counts.get(key, 0) + 1
                if key not in first:
                    first[key] = state.outcomes
            return {State((Frozen(),), Frozen(), first[key], key[1]): count for key, count in counts.items()}
        for state in resolve.sample_runs(program, action, start, engine, size, check=check):
            state = State(state.frames[:1], state.world, state.outcomes, state.stopped)
            counts[state] = counts.get(state, 0) + 1
        return counts

    return _diagnosed(prepared, counted)


# ---- diagnostics -----------------------------------------------------------------------


def run_diagnostic(rules: Ruleset, error: RunError) -> Diagnostic:
    if error.pos is None:
        return Diagnostic(rules.path, 0, 0, error.message, error.hint)
    return rules.source(error.pos).at(error.pos, error.message, error.hint)


def scenario_diagnostic(rules: Ruleset, scenario: Scenario, problem: InputProblem) -> Diagnostic:
    if isinstance(problem.where, n.Pos):
        return rules.source(problem.where).at(problem.where, problem.message, problem.hint)
    message = f"{problem.where}: {problem.message}"
    flag = _flag_of(scenario.flags, problem.where)
    if flag is not None:
        return Diagnostic(flag, 0, 0, message, problem.hint)
    top = problem.where.split(".")[0].split("[")[0]
    path, source = scenario.elsewhere.get(top, (scenario.path, scenario.text))
    line, column, text = _find_key(source, problem.where)
    last = problem.where.split(".")[-1]
    width = 1 if last.endswith("]") else len(last)  # a key is underlined, an item of a list marked
    return Diagnostic(path, line, column, message, problem.hint, text, width)


def _flag_of(flags: dict[str, str], where: str) -> str | None:
    """The flag that gave the value at a path, or one that holds it (`--vary attack` gave attack.armies; `[*]`
    gave every item); None where the scenario file gave it."""
    import re  # here: only a scenario with a problem needs it

    found = [(len(path), flag) for path, flag in flags.items()
             if re.fullmatch(re.escape(path).replace(r"\[\*\]", r"\[\d+\]") + r"(?:[.\[].*)?", where)]
    return max(found)[1] if found else None


def _find_key(text: str, where: str) -> tuple[int, int, str]:
    """The line, column and text of a TOML key path, or of the nearest enclosing key written; zeros if none."""
    # Here: only a scenario with a problem is searched for its keys, and a run without one need not import it.
    from fracas.interpreter.toml_places import key_places

    places = key_places(text) if text else {}
    path = where
    while path:
        if path in places:
            line, column = places[path]
            return line, column, lines_of(text)[line - 1]
        path = path[: max(path.rfind("."), path.rfind("["), 0)]  # the table or array around it
    return 0, 0, ""
