"""Rules are compiled once to Python source, and the fast paths draw exactly what the logged ones do."""

from __future__ import annotations

import copy
import dataclasses
import random
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fracas import dsl
from fracas.interpreter import Scenario, ScenarioError, exact, load_scenario, prepare, sample
from fracas.interpreter.tools.aggregates import evaluate_over
from fracas.interpreter.tools.sweep import metric_expression
from fracas.interpreter.core import engines, resolve, rt
from fracas.interpreter.core.state import Frozen
from fracas.dsl import nodes as n
from fracas.interpreter.core.codegen import Generator, RoutineBuilder, generator_for
from fracas.interpreter.runtime.bodies import Body, Pool, Volley
from fracas.interpreter.runtime.chance import Fire

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = sorted((ROOT / "rules" / "scenarios").glob("*.toml"))


def rules_for(scenario_path: Path) -> dsl.Ruleset:
    system = scenario_path.stem.split("-")[0]
    name = {"exalted": "exalted-war", "gilgamesh": "gilgamesh"}.get(system, system)
    return dsl.load(ROOT / "rules" / f"{name}.rules")


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_a_run_without_its_event_log_has_the_same_outcomes_and_state(path):
    rules, scenario = rules_for(path), load_scenario(path)
    prepared = prepare(rules, scenario)
    for seed in range(20):
        logged = sample(rules, scenario, seed=seed, prepared=prepared)
        quiet = sample(rules, scenario, seed=seed, prepared=prepared, events=False)
        assert logged.events and not quiet.events
        assert (quiet.outcomes, quiet.stopped, quiet.new_state()) == (logged.outcomes, logged.stopped,
                                                                      logged.new_state())


def test_a_second_run_compiles_nothing_new():
    path = ROOT / "rules" / "scenarios" / "epicinium-gunners-vs-riflemen.toml"
    rules, scenario = rules_for(path), load_scenario(path)
    prepared = prepare(rules, scenario)
    sample(rules, scenario, seed=1, prepared=prepared, events=False)
    exact(rules, scenario)
    compiled = len(generator_for(rules))
    for seed in range(2, 30):
        sample(rules, scenario, seed=seed, prepared=prepared, events=False)
    exact(rules, scenario)
    assert compiled > 0 and len(generator_for(rules)) == compiled


def test_the_generated_code_belongs_to_the_rules_and_are_shared_by_every_run():
    path = ROOT / "rules" / "scenarios" / "epicinium-gunners-vs-riflemen.toml"
    rules = rules_for(path)
    assert generator_for(rules) is generator_for(rules)
    assert generator_for(rules) is not generator_for(rules_for(path))


def test_a_metric_over_a_distribution_adds_nothing_to_the_generated_code():
    path = ROOT / "rules" / "scenarios" / "epicinium-gunners-vs-riflemen.toml"
    rules = rules_for(path)
    dist = exact(rules, load_scenario(path))
    metric = metric_expression("mean(figures_lost) + prob(stacks_lost > 0)", rules)
    first = evaluate_over(metric, dist.prepared, dist.states)
    compiled = len(generator_for(rules))
    for _ in range(20):
        assert evaluate_over(metric, dist.prepared, dist.states) == first
    assert len(generator_for(rules)) == compiled


def test_a_ruleset_changed_by_replace_generates_its_own_code():
    rules = dsl.loads("param bonus = 1\noutcome x: int = 0\naction go() { x = bonus }\n", "a.rules")
    sample(rules, Scenario("go", {}), seed=1)
    other = dataclasses.replace(rules)
    assert generator_for(other) is not generator_for(rules)


def test_an_event_draws_its_dice_even_when_no_log_is_kept():
    rules = dsl.loads("outcome result: int = 0\naction go() {\n    event rolled(1d6)\n    result = 1d6\n}\n",
                      "events.rules")
    scenario = Scenario("go", {})
    for seed in range(30):
        assert sample(rules, scenario, seed=seed, events=False).outcomes == sample(rules, scenario, seed=seed).outcomes


def test_an_error_in_an_event_is_found_with_or_without_the_log():
    rules = dsl.loads("outcome x: int = 0\naction go() {\n    event broken(1 / 0)\n}\n", "events.rules")
    for events in (True, False):
        with pytest.raises(ScenarioError, match="division by zero"):
            sample(rules, Scenario("go", {}), seed=1, events=events)


def test_a_parameter_read_before_it_is_set_is_a_located_error():
    # The checker sees a later parameter read directly; through a function it is found at run time.
    rules = dsl.loads("fn later_one() = later\nparam early: int = later_one()\nparam later: int = 2\n"
                      "outcome x: int = 0\naction go() { x = early }\n", "order.rules")
    with pytest.raises(ScenarioError, match="order.rules:1:18: error: unknown name 'later'"):
        sample(rules, Scenario("go", {}), seed=1)


def test_runs_without_a_log_work_out_what_comes_before_chance_once(monkeypatch):
    """Every sampled run from one start passes the same way to its first chance: it starts there."""
    path = ROOT / "rules" / "scenarios" / "epicinium-gunners-vs-riflemen.toml"
    rules, scenario = rules_for(path), load_scenario(path)
    prepared = prepare(rules, scenario)
    worked_out = []
    real = engines.run_until_chance
    monkeypatch.setattr(resolve, "run_until_chance", lambda *args: worked_out.append(1) or real(*args))
    quiet = [sample(rules, scenario, seed=seed, prepared=prepared, events=False) for seed in range(5)]
    assert worked_out == [1]
    for seed, run in enumerate(quiet):
        logged = sample(rules, scenario, seed=seed, prepared=prepared)
        assert (run.outcomes, run.new_state()) == (logged.outcomes, logged.new_state())


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_runs_one_after_another_end_where_as_many_single_runs_do(path):
    """Odds by sampling run a chunk of runs together: each draws, and ends, as a run of its own would."""
    rules, scenario = rules_for(path), load_scenario(path)
    prepared = prepare(rules, scenario)
    program, action, start = prepared.program, prepared.action, prepared.start
    one_by_one = engines.SampleEngine(rng=random.Random(5))
    single = [resolve.resolve_one(program, action, start, one_by_one) for _ in range(30)]
    together = list(resolve.sample_runs(program, action, start, engines.SampleEngine(rng=random.Random(5)), 30))
    assert together == single


def test_an_error_before_chance_stops_every_run_that_meets_it():
    rules = dsl.loads("outcome x: int = 0\naction go(n: int) {\n    let y = floor(6 / n)\n    x = roll(1, 6) + y\n}\n",
                      "divide.rules")
    scenario = Scenario("go", {"n": 0})
    prepared = prepare(rules, scenario)
    for seed in range(3):
        with pytest.raises(ScenarioError, match="divide.rules:3:"):
            sample(rules, scenario, seed=seed, prepared=prepared, events=False)


bodies = st.builds(Body, st.sampled_from([None, 1, 2, 3]), st.integers(0, 3), st.sampled_from(["a", "b"]),
                   st.sampled_from(["", "x"]))


@settings(max_examples=300, deadline=None)
@given(st.lists(bodies, max_size=6), st.lists(st.integers(-1, 3), max_size=8), st.integers(0, 2**32))
def test_a_volley_sampled_without_its_log_lands_where_the_logged_one_does(body_list, damages, seed):
    pool = Pool.of(Body(b.hitpoints, min(b.damage, b.hitpoints or 0), b.owner, b.tag) for b in body_list)
    volley = Volley(tuple(shot for d in damages for shot in Volley.make(1, d).shots))
    fire = Fire(volley, pool)
    assert fire.sample(random.Random(seed)) == fire.sample_trace(random.Random(seed))[0]


@settings(max_examples=100, deadline=None)
@given(st.lists(bodies, min_size=1, max_size=6), st.lists(st.integers(-1, 3), max_size=8), st.integers(0, 2**32))
def test_a_volley_fired_again_and_again_at_one_pool_lands_as_at_a_fresh_copy_of_it(body_list, damages, seed):
    """A sampled run fires at the pool it made before its first chance each time: what it remembers of that
    pool, and of the pools it left, changes no landing."""
    pool = Pool.of(Body(b.hitpoints, min(b.damage, b.hitpoints or 0), b.owner, b.tag) for b in body_list)
    volley = Volley(tuple(shot for d in damages for shot in Volley.make(1, d).shots))
    again = Fire(volley, pool)
    for run in range(20):
        fresh = Fire(Volley(volley.shots), Pool(pool.bodies))
        assert again.sample(random.Random(seed + run)) == fresh.sample(random.Random(seed + run))


# ---- sampled runs remembered by the values they drew -------------------------------------------


class EveryBlock(engines.SampleEngine):
    """Draws as the sampling engine does, but is not it: its runs run every block, none remembered."""


def remembered_and_run(path: Path, runs: int, seed: int = 11, prepared=None) -> tuple[list, list, random.Random,
                                                                                      random.Random]:
    if prepared is None:
        prepared = prepare(rules_for(path), load_scenario(path))
    program, action, start = prepared.program, prepared.action, prepared.start
    remembering, running = engines.SampleEngine(rng=random.Random(seed)), EveryBlock(rng=random.Random(seed))
    remembered = list(resolve.sample_runs(program, action, start, remembering, runs))
    run = [resolve.resolve_one(program, action, start, running) for _ in range(runs)]
    return remembered, run, remembering.rng, running.rng


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_a_remembered_run_ends_as_running_its_blocks_does_with_the_same_random_numbers(path):
    remembered, run, remembering, running = remembered_and_run(path, 300)
    assert remembered == run
    assert remembering.getstate() == running.getstate()  # and the runs after them draw the same, too


def test_runs_that_draw_many_times_remember_no_more_places_than_the_bound_and_still_agree(monkeypatch):
    monkeypatch.setattr(resolve, "_NODES", 12)
    path = ROOT / "rules" / "scenarios" / "weewar-troopers-on-plains.toml"
    prepared = prepare(rules_for(path), load_scenario(path))
    remembered, run, _, _ = remembered_and_run(path, 300, seed=3, prepared=prepared)
    assert remembered == run
    trees = [tree for (_, start, *_), tree in prepared.program.before_chance.items() if start == prepared.start]
    assert trees and all(tree.nodes <= 12 for tree in trees)


def test_a_final_state_met_again_is_not_checked_again():
    path = ROOT / "rules" / "scenarios" / "epicinium-riflemen-vs-city.toml"
    rules, scenario = rules_for(path), load_scenario(path)
    prepared = prepare(rules, scenario)
    program, action, start = prepared.program, prepared.action, prepared.start
    shown: list = []
    finals = list(resolve.sample_runs(program, action, start, engines.SampleEngine(rng=random.Random(2)), 500,
                                      check=shown.append))
    assert len(shown) > 1 and len(set(finals)) <= len(shown) < len(finals)  # once per place, not per run


BREAKS_SOMETIMES = """\
kind piece { health: int in 0..5 = 5 }
outcome rolled: int = 0
action strike(p: piece) {
    rolled = roll(1, 6)
    p.health -= if rolled == 6 then 6 else 0
}
"""


def test_a_run_that_breaks_a_constraint_is_refused_every_time_it_is_met_not_only_the_first():
    rules = dsl.loads(BREAKS_SOMETIMES, "breaks.rules")
    scenario = Scenario("strike", {"p": {}})
    prepared = prepare(rules, scenario)
    refused = 0
    for seed in range(60):
        try:
            run = sample(rules, scenario, seed=seed, prepared=prepared, events=False)
        except ScenarioError as error:
            assert "after strike, p.health is -1: it breaks the constraint 'health in 0..5'" in str(error)
            refused += 1
        else:
            assert run.outcomes["rolled"] != 6
    assert refused > 2


# ---- one definition of each statement and expression --------------------------------------------


def concrete(base: type) -> list[type]:
    found, waiting = [], [base]
    while waiting:
        for kind in waiting.pop().__subclasses__():
            waiting.append(kind)
            if getattr(n, kind.__name__, None) is kind:  # not the class a slotted dataclass was made from
                found.append(kind)
    return found


@pytest.mark.parametrize("kind", concrete(n.Stmt), ids=lambda kind: kind.__name__)
def test_every_statement_kind_has_its_one_meaning_in_the_code_generator(kind):
    assert callable(getattr(RoutineBuilder, f"s_{kind.__name__}", None)), f"codegen has no s_{kind.__name__}"


@pytest.mark.parametrize("kind", concrete(n.Expr), ids=lambda kind: kind.__name__)
def test_every_expression_kind_has_its_one_meaning_in_the_code_generator(kind):
    assert callable(getattr(Generator, f"e_{kind.__name__}", None)), f"codegen has no e_{kind.__name__}"


# ---- runs with an event log start at the first chance too ----------------------------------------


def every_block_logged(prepared, seed: int) -> tuple[list, object]:
    """A logged run of every block from the first, as runs were before they started at the first chance."""
    program, action, start = prepared.program, prepared.action, prepared.start
    routine = resolve.routine_of(program, action)
    trace = engines.Trace()
    R = engines.Run(program, engines.SampleEngine(seed, trace), generator_for(program.rules))
    S = rt.Working(resolve._start(routine, start), Frozen(start.world), Frozen(start.outcomes))
    engines.run_one(routine, S, R)
    return trace.events, resolve._final_of(routine, S)


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_a_logged_run_logs_what_running_every_block_logs(path):
    rules, scenario = rules_for(path), load_scenario(path)
    prepared = prepare(rules, scenario)
    for seed in range(4):
        events, final = every_block_logged(prepared, seed)
        run = sample(rules, scenario, seed=seed, prepared=prepared)
        assert run.events == events and run.state == final


def test_the_events_before_the_first_chance_are_each_runs_own_copies_all_the_way_down():
    path = ROOT / "rules" / "scenarios" / "epicinium-gunners-vs-riflemen.toml"
    rules, scenario = rules_for(path), load_scenario(path)
    prepared = prepare(rules, scenario)
    first = sample(rules, scenario, seed=1, prepared=prepared)
    written = copy.deepcopy(first.events)
    modifier = next(i for i, event in enumerate(first.events) if event["kind"] == "modifier")
    first.events[0]["text"] = "changed by the caller"
    first.events[modifier]["terms"].append(99999)  # a list inside an event
    again = sample(rules, scenario, seed=1, prepared=prepared).events
    assert again[0]["text"] == written[0]["text"]
    assert again[modifier]["terms"] == written[modifier]["terms"] and 99999 not in again[modifier]["terms"]


def test_an_events_lists_and_dictionaries_are_each_runs_own_too():
    rules = dsl.loads('outcome x: int = 0\naction go() {\n    event announced(1, 2, at: 3)\n    x = roll(1, 6)\n}\n',
                      "announce.rules")
    scenario = Scenario("go", {})
    prepared = prepare(rules, scenario)
    first = sample(rules, scenario, seed=1, prepared=prepared)
    event = next(event for event in first.events if event["kind"] == "event")
    event["args"].append("changed")
    event["keywords"]["at"] = "changed"
    again = next(event for event in sample(rules, scenario, seed=1, prepared=prepared).events if event["kind"] == "event")
    assert again["args"] == ["1", "2"] and again["keywords"] == {"at": "3"}


def test_a_state_remembered_by_a_caller_that_checks_nothing_is_still_checked_for_one_that_does():
    rules = dsl.loads(BREAKS_SOMETIMES, "breaks.rules")
    scenario = Scenario("strike", {"p": {}})
    prepared = prepare(rules, scenario)
    unchecked = list(resolve.sample_runs(prepared.program, prepared.action, prepared.start,
                                         engines.SampleEngine(rng=random.Random(1)), 200))
    assert any(state.outcomes["rolled"] == 6 for state in unchecked)
    refused = 0
    for seed in range(60):
        try:
            sample(rules, scenario, seed=seed, prepared=prepared, events=False)
        except ScenarioError:
            refused += 1
    assert refused > 2


MANY_WAYS = """\
outcome total: int = 0
action throw() {
    for i in range(3) {
        total += roll(1, 1000)
    }
}
"""


def test_runs_that_seldom_draw_the_same_let_their_tree_go_and_still_agree(monkeypatch):
    monkeypatch.setattr(resolve, "_WINDOW", 16)
    rules = dsl.loads(MANY_WAYS, "many.rules")
    prepared = prepare(rules, Scenario("throw", {}))
    remembered, run, remembering, running = remembered_and_run(ROOT, 100, prepared=prepared)
    assert remembered == run and remembering.getstate() == running.getstate()
    [tree] = prepared.program.before_chance.values()
    assert tree.root is None  # let go: nearly every run drew three numbers not drawn before


def test_runs_that_often_draw_the_same_keep_their_tree(monkeypatch):
    monkeypatch.setattr(resolve, "_WINDOW", 16)
    path = ROOT / "rules" / "scenarios" / "epicinium-riflemen-vs-city.toml"
    prepared = prepare(rules_for(path), load_scenario(path))
    remembered_and_run(path, 100, prepared=prepared)
    [tree] = prepared.program.before_chance.values()
    assert tree.root is not None


def test_runs_one_after_another_refuse_an_engine_with_an_event_log_or_a_script():
    path = ROOT / "rules" / "scenarios" / "epicinium-riflemen-vs-city.toml"
    prepared = prepare(rules_for(path), load_scenario(path))
    for engine in (engines.SampleEngine(1, engines.Trace()), engines.ForcedEngine([1, 2, 3])):
        with pytest.raises(TypeError, match="sampling engine without an event log"):
            next(resolve.sample_runs(prepared.program, prepared.action, prepared.start, engine, 3))


def test_a_fraction_written_with_whole_numbers_is_worked_out_once_not_at_each_run(monkeypatch):
    from fracas.interpreter.core import rt

    rules = dsl.loads("outcome hits: int = 0\noutcome half: number = 0\naction go(n: int = 3) {\n"
                      "    hits = trials(n, 2/6)\n    half = 6/2 + n / 2\n}\n", "fold.rules")
    divided = []
    real = rt.div
    monkeypatch.setattr(rt, "div", lambda a, b, R, pos: divided.append((a, b)) or real(a, b, R, pos))
    odds = exact(rules, Scenario("go", {}))
    assert odds.marginal("hits")[3] == Fraction(1, 27)
    assert set(divided) == {(3, 2)}  # n / 2 alone: 2/6 and 6/2 were worked out when the code was written
    assert {sample(rules, Scenario("go", {}), seed=s).outcomes["half"] for s in range(3)} == {Fraction(9, 2)}
