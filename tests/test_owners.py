"""An owner (or a shot's source) may be a value of any type, and the rules tell `true` from `1`.

Python's `==` takes `true` for `1` and `false` for `0`, inside lists too; the
rules never do (a comparison of the two does not type-check). Where a value of
any type meets another (a body's owner, a query's `owner:`, a shot's source),
the engines compare them as the rules do: counts by owner, pools merged by the
exact engine, and the pools a volley can leave. A value of any type goes no
further: a list to `pick` from holds one type, as every other list does.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from fracas import dsl
from fracas.interpreter import Scenario, exact, sample
from fracas.interpreter.runtime.bodies import Pool, Volley
from fracas.interpreter.runtime.chance import Fire

GO = Scenario("go", {})


def rules(body: str, outcomes: tuple[str, ...] = ("x",)) -> dsl.Ruleset:
    declared = "\n".join(f"outcome {name}: int = 0" for name in outcomes)
    return dsl.loads(f"{declared}\naction go() {{\n{body}\n}}\n", "owners.rules")


def odds(ruleset: dsl.Ruleset, outcomes_only: bool = False) -> list:
    return exact(ruleset, GO, outcomes_only=outcomes_only).joint()


def test_a_count_by_owner_true_leaves_out_the_bodies_of_owner_1():
    counts = rules("""
    let pool = bodies(2, 1, owner: 1) + bodies(1, 3, owner: true)
    lethal_true = lethal(fire(volley(9), pool, allocate: "focused", order: [1]), owner: true)
    living_true = living(pool, owner: true)
    living_one = living(pool, owner: 1)
    hit_true = hitpoints_of(pool, owner: true)
    taken_true = damage_taken(fire(volley(2), pool, allocate: "focused", order: [1]), owner: true)
""", ("lethal_true", "living_true", "living_one", "hit_true", "taken_true"))
    expected = {"lethal_true": 1, "living_true": 1, "living_one": 2, "hit_true": 3, "taken_true": 0}
    assert odds(counts) == [(expected, Fraction(1))]
    assert sample(counts, GO, seed=3).outcomes == expected


def test_a_count_by_owner_0_leaves_out_the_bodies_of_owner_false():
    counts = rules("x = living(bodies(2, 1, owner: false) + bodies(1, 1, owner: 0), owner: 0)")
    assert odds(counts) == [({"x": 1}, Fraction(1))]


def test_a_count_by_owner_list_of_true_leaves_out_the_bodies_of_owner_list_of_1():
    counts = rules("x = living(bodies(2, 1, owner: [1]) + bodies(1, 1, owner: [true]), owner: [true])")
    assert odds(counts) == [({"x": 1}, Fraction(1))]


def test_pools_owned_by_1_and_by_true_stay_apart_in_exact_odds():
    # Merged as equal, the two pools would give x = 1 for certain.
    apart = rules("""
    let pool = if roll(1d2) == 1 then bodies(1, 1, owner: 1) else bodies(1, 1, owner: true)
    x = lethal(fire(volley(1), pool), owner: true)
""")
    assert odds(apart) == [({"x": 0}, Fraction(1, 2)), ({"x": 1}, Fraction(1, 2))]


def test_a_volley_at_bodies_of_owners_1_and_true_counts_each_owner_apart():
    # Read only by counting, the pools the volley can leave are those of counted bodies: of two owners, not one.
    counted = rules("""
    let after = fire(volley(1), bodies(1, 1, owner: 1) + bodies(1, 1, owner: true))
    x = lethal(after, owner: true)
    y = lethal(after, owner: 1)
""", ("x", "y"))
    halves = [({"x": 0, "y": 1}, Fraction(1, 2)), ({"x": 1, "y": 0}, Fraction(1, 2))]
    assert odds(counted, outcomes_only=True) == halves  # odds alone: the volley's pools are of counted bodies
    assert odds(counted) == halves


def test_volleys_from_sources_1_and_true_are_two_final_states():
    sources = rules("let shots = if roll(1d2) == 1 then volley(1, source: 1) else volley(1, source: true)")
    assert len(exact(sources, GO).states) == 2


def test_a_list_to_pick_from_holds_items_of_one_type():
    with pytest.raises(dsl.RulesError) as caught:
        rules("let o = pick([1, true])\n    x = if o == 1 then 1 else 0")
    (problem,) = caught.value.diagnostics
    assert (problem.message, problem.line, problem.column) == ("a list of int cannot also hold a bool", 3, 18)


def test_what_pick_gives_is_of_its_lists_type():
    with pytest.raises(dsl.RulesError) as caught:
        rules("x = pick([\"a\", \"b\"])")
    assert caught.value.diagnostics[0].message == "expected int, found text"


def test_a_number_picked_is_a_number():
    assert odds(rules("x = pick([1, 2]) + 1")) == [({"x": 2}, Fraction(1, 2)), ({"x": 3}, Fraction(1, 2))]


def test_volleys_focused_by_orders_of_1_and_true_are_two_chances():
    # Equal by Python's ==, one would be taken for the other by a memo of distributions keyed by the chance.
    volley, pool = Volley.make(1, 2), Pool.make(1, 2, 2) + Pool.make(1, 2, 1)
    by_one, by_true = Fire(volley, pool, "focused", (1,)), Fire(volley, pool, "focused", (True,))
    assert by_one != by_true and by_one == Fire(volley, pool, "focused", (1,))
    assert by_one.distribution() != by_true.distribution()


def test_an_order_may_name_owners_of_one_type_and_tags_of_another():
    mixed = rules("""
    let pool = bodies(1, 1, owner: 1) + bodies(1, 1, owner: 2, tag: "banner")
    x = lethal(fire(volley(1), pool, allocate: "focused", order: ["banner", 1]), owner: 2)
""")
    assert odds(mixed) == [({"x": 1}, Fraction(1))]
