"""A drawn pool that the rest of its step only counts is drawn as its counts, with the same odds."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from fracas import dsl
from fracas.interpreter import Scenario, exact
from fracas.interpreter.core.counted import counted_draws
from fracas.interpreter.runtime.bodies import Pool, Volley
from fracas.interpreter.runtime.chance import Fire
from fracas.interpreter.runtime.weights import Weights
from shortcuts import block_runs, without_counting_pools

ROOT = Path(__file__).resolve().parent.parent

HEADER = """rules "counted"
outcome dead: int = 0
outcome alive: int = 0
fn dead_of(p: pool, tag: text) = lethal(p, tag: tag)
fn wounds_of(p: pool) = damage_taken(p)
"""

VOLLEY = ('let pool = bodies(3, 3, tag: "a") + bodies(2, 2, tag: "b")\n'
          "pool = fire(volley(5), pool)\n")


def rules_of(after: str, before: str = VOLLEY) -> dsl.Ruleset:
    return dsl.loads(HEADER + "action go() {\n" + before + after + "\n}\n", "counted.rules")


def counted(after: str, before: str = VOLLEY) -> bool:
    """Whether the first volley's draw (the last line of `before` that fires) is taken as read only by counting."""
    text = HEADER + "action go() {\n" + before
    line = max(number for number, written in enumerate(text.splitlines(), 1) if "fire(" in written)
    return line in {pos.line for pos in counted_draws(rules_of(after, before))}


@pytest.mark.parametrize("after", [
    "dead = lethal(pool)",
    'dead = lethal(pool: pool, tag: "a")\nalive = living(pool)',
    "alive = count_bodies(pool) + len(pool)",
    'dead = dead_of(pool, "b")',
    "if lethal(pool) > 2 { dead = 1 }",
], ids=["lethal", "keywords", "count_bodies and len", "through a fn", "in a condition"])
def test_a_pool_read_only_by_counting_its_bodies_is_counted(after):
    assert counted(after)


@pytest.mark.parametrize("after", [
    "dead = damage_taken(pool)",
    "dead = wounds_of(pool)",
    "pool = fire(volley(1), pool)\ndead = lethal(pool)",
    "pool += bodies(1, 1)\ndead = lethal(pool)",
    "let copy = pool\ndead = lethal(copy)",
], ids=["damage", "through a fn that reads damage", "fired at again", "added to", "copied"])
def test_a_pool_read_any_other_way_is_kept_whole(after):
    assert not counted(after)


def test_a_pool_drawn_in_a_loop_is_kept_whole():
    # The next pass fires at the pool as the last one left it: read whole, before the draw.
    assert not counted("", before='let pool = bodies(3, 3)\nfor i in range(2) {\n  pool = fire(volley(2), pool)\n'
                                  "  dead = lethal(pool)\n}\n")


def test_a_pool_passed_to_a_step_is_kept_whole():
    text = (HEADER + "step count(p: pool) { dead = lethal(p) }\n"
            "action go() {\n" + VOLLEY + "count(pool)\n}\n")
    assert counted_draws(dsl.loads(text, "counted.rules")) == frozenset()


def test_odds_of_outcomes_alone_with_a_counted_pool_are_those_of_whole_states():
    rules = rules_of('dead = lethal(pool, tag: "a")\nalive = living(pool, tag: "b")')
    whole, alone = exact(rules, Scenario("go", {})), exact(rules, Scenario("go", {}), outcomes_only=True)
    assert alone.joint() == whole.joint() and sum(p for _, p in alone.joint()) == 1


def test_a_final_state_that_shows_its_names_shows_the_pool_whole():
    rules = rules_of("dead = lethal(pool)")
    damage = {sum(b.damage for b in state.frames[0]["pool"].bodies) for state in exact(rules, Scenario("go", {})).states}
    assert damage == {5}  # five shots of 1 damage, none wasted while a body lives: every one shows


def test_a_counted_volley_has_a_pool_for_each_count_and_the_same_counts():
    pool = Pool.make(3, 3, tag="a") + Pool.make(2, 2, tag="b")
    whole = Fire(Volley.make(5, 1), pool).distribution()
    counts = Fire(Volley.make(5, 1), pool, counted=True).distribution()
    assert len(counts) < len(whole)

    def by_counts(distribution: dict[Pool, Fraction]) -> dict[tuple[int, ...], Fraction]:
        found: dict[tuple[int, ...], Fraction] = {}
        for p, chance in distribution.items():
            key = (p.lethal_count(tag="a"), p.lethal_count(tag="b"), p.living_count(tag="a"), len(p))
            found[key] = found.get(key, 0) + chance
        return found

    assert by_counts(counts) == by_counts(whole)


def test_a_counted_volley_gives_its_pools_in_canonical_order():
    pool = Pool.make(3, 3, owner="x") + Pool.make(2, 2, tag="b") + Pool.make(1, None)
    found = Fire(Volley.make(6, 1), pool, counted=True).weights()
    assert found == Weights.of(zip(found.outcomes, found.weights)) and len(found.outcomes) > 3


def test_a_counted_volley_leaves_fewer_states_to_run_through_the_rest_of_the_action(monkeypatch):
    # Three squads' 27 shots at 18 figures of 3 hitpoints in a city leave 149 pools, and 19 counts of lethal bodies.
    rules = dsl.load(ROOT / "rules" / "epicinium.rules")
    big = {"figures": 18, "hitpoints": 3, "mechanical": True}
    scenario = Scenario("targeted_attack", {"attackers": [{"type": "gunner"}] * 3,
                                            "target": {"type": big, "figures": 18}, "space": {"tile": "city"}})
    runs = block_runs(monkeypatch)
    counts = exact(rules, scenario, outcomes_only=True).joint()
    counting = sum(runs.values())
    runs.clear()
    without_counting_pools(monkeypatch)
    assert exact(dsl.load(rules.path), scenario, outcomes_only=True).joint() == counts
    assert counting * 3 < sum(runs.values())


def test_an_outcome_that_holds_a_pool_is_shown_whole():
    text = 'rules "t"\noutcome left: pool = bodies(0, 1)\naction go() {\n  left = fire(volley(2), bodies(2, 3))\n}\n'
    rules = dsl.loads(text, "outcome.rules")
    assert counted_draws(rules) == frozenset()
    shown = exact(rules, Scenario("go", {}), outcomes_only=True).marginal("left")
    assert {sum(body.damage for body in pool.bodies) for pool in shown} == {2}
