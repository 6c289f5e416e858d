"""How `fire` allocates shots: at random among the living, focused on one body, or in the defender's order.

The headline: 2-damage shots at 3-wound models destroy about 0.75 models on
average when each shot goes to one model until it dies (the excess of one
shot lost), and about 0.36 when each shot hits a random living model. Both
are checked against an independent calculation, as exact fractions.
"""

from __future__ import annotations

import json
from fractions import Fraction
from math import comb

import pytest

from fracas import dsl
from fracas.dsl.builtins import ALLOCATIONS
from fracas.dsl.diagnostics import RulesError
from fracas.interpreter import Scenario, ScenarioError, exact, forced, sample
from fracas.interpreter.tools.cli import main
from fracas.interpreter.runtime.allocation import FOCUSED, FOCUSED_CARRY, POLICIES, RANDOM, allocation_order, focused
from fracas.interpreter.runtime.bodies import Body, Pool, Volley
from fracas.interpreter.runtime.chance import Fire
from test_agreement import assert_sampling_matches_exact

# Nine shots; a shot hits on 3+, wounds on 4+, and the save fails on 1 to 4: 2/3 * 1/2 * 2/3 get through.
THROUGH = Fraction(2, 3) * Fraction(1, 2) * Fraction(2, 3)
MODELS, WOUNDS, DAMAGE, SHOTS = 4, 3, 2, 9

FIRE = f"destroyed = lethal(fire(volley(unsaved, damage: {DAMAGE}), bodies({MODELS}, {WOUNDS}), allocate: how))"


def sequence(fire: str = FIRE, then: str = "") -> dsl.Ruleset:
    """The shots of a sequence of three rolls, fired at a squad of models; `then`, a statement after."""
    return dsl.loads(f"""
param shots = {SHOTS}
outcome destroyed: int = 0

action shoot(how: text = "random") {{
    let hits = trials(shots, 2/3)
    let wounds = trials(hits, 1/2)
    let unsaved = trials(wounds, 2/3)
    {fire}
    {then}
}}
""", "sequence.rules")


SQUAD = """
enum member { leader trooper }
choice first_hit: member = trooper "whose bodies the defender puts in front"
outcome troopers_lost: int = 0
outcome leader_lost: int = 0

action squad_fire(shots: int, how: text = "focused_carry") {
    let squad = bodies(1, 3, owner: leader) + bodies(3, 1, owner: trooper)
    let after = fire(volley(shots, damage: 2), squad, allocate: how, order: [first_hit])
    troopers_lost = lethal(after, owner: trooper)
    leader_lost = lethal(after, owner: leader)
}

action in_pool_order(shots: int) {
    let after = fire(volley(shots, damage: 2), bodies(1, 3, owner: leader) + bodies(3, 1, owner: trooper),
                     allocate: "focused")
    troopers_lost = lethal(after, owner: trooper)
    leader_lost = lethal(after, owner: leader)
}
"""


def unsaved_shots() -> dict[int, Fraction]:
    """How many of the nine shots get through: a binomial, counted by hand."""
    return {k: comb(SHOTS, k) * THROUGH**k * (1 - THROUGH) ** (SHOTS - k) for k in range(SHOTS + 1)}


def random_destroyed(shots: int) -> Fraction:
    """Mean models destroyed when each shot hits a living model uniformly: a chain over (fresh, hit once)."""
    states = {(MODELS, 0): Fraction(1)}
    for _ in range(shots):
        following: dict[tuple[int, int], Fraction] = {}
        for (fresh, once), p in states.items():
            living = fresh + once
            if not living:
                following[(fresh, once)] = following.get((fresh, once), 0) + p
                continue
            if fresh:  # a fresh model takes 2 of its 3 wounds
                key = (fresh - 1, once + 1)
                following[key] = following.get(key, 0) + p * Fraction(fresh, living)
            if once:  # a model hit before dies
                key = (fresh, once - 1)
                following[key] = following.get(key, 0) + p * Fraction(once, living)
        states = following
    return sum((MODELS - fresh - once) * p for (fresh, once), p in states.items())


def mean_destroyed(how: str) -> Fraction:
    return exact(sequence(), Scenario("shoot", {"how": how})).mean("destroyed")


def test_focused_fire_with_excess_lost_destroys_three_quarters_of_a_model_on_average():
    # One model until it dies: every second shot that gets through kills one, its third point lost.
    expected = sum(p * min(MODELS, k // 2) for k, p in unsaved_shots().items())
    assert mean_destroyed("focused") == expected == Fraction(291053648, 387420489)
    assert round(float(expected), 2) == 0.75


def test_random_fire_spreads_the_same_shots_thin():
    expected = sum(p * random_destroyed(k) for k, p in unsaved_shots().items())
    assert mean_destroyed("random") == expected
    assert round(float(expected), 2) == 0.36


def test_focused_fire_carrying_the_excess_loses_nothing():
    expected = sum(p * min(MODELS, DAMAGE * k // WOUNDS) for k, p in unsaved_shots().items())
    assert mean_destroyed("focused_carry") == expected


def test_random_is_the_default():
    rules = sequence(fire=FIRE.replace(", allocate: how", ""))
    assert exact(rules, Scenario("shoot", {})).mean("destroyed") == mean_destroyed("random")


@pytest.mark.parametrize("how", ["focused", "focused_carry"])
def test_sampled_focused_fire_agrees_with_the_exact_odds(how):
    assert_sampling_matches_exact(sequence(), Scenario("shoot", {"how": how}), samples=2000)


def test_focused_fire_reads_no_forced_roll_for_the_bodies():
    # 7 hits, 5 wound, 3 unsaved: the first model dies to two shots, the third shot starts on the second.
    run = forced(sequence(), Scenario("shoot", {"how": "focused"}), [7, 5, 3])
    assert run.outcomes["destroyed"] == 1


def test_focused_fire_draws_no_random_number_for_the_bodies():
    # A roll after the fire comes out the same as if there were no fire at all.
    with_fire, without = sequence(then="destroyed = 1d1000"), sequence(fire="", then="destroyed = 1d1000")
    for seed in range(10):
        expected = sample(without, Scenario("shoot", {}), seed=seed).outcomes["destroyed"]
        for how in ("focused", "focused_carry"):
            assert sample(with_fire, Scenario("shoot", {"how": how}), seed=seed).outcomes["destroyed"] == expected


def squad(scenario: dict, choice: str | None = None) -> dict:
    rules = dsl.loads(SQUAD, "squad.rules")
    choices = {"first_hit": choice} if choice else {}
    return dict(forced(rules, Scenario(scenario.pop("action", "squad_fire"), scenario, choices=choices), []).outcomes)


def test_pool_order_is_the_order_bodies_were_added():
    assert squad({"action": "in_pool_order", "shots": 2}) == {"troopers_lost": 0, "leader_lost": 1}
    assert squad({"action": "in_pool_order", "shots": 3}) == {"troopers_lost": 1, "leader_lost": 1}


def test_the_defenders_order_puts_the_chosen_bodies_first():
    # Troopers in front: each 2-damage shot kills one and carries 1 to the next.
    assert squad({"shots": 2}) == {"troopers_lost": 3, "leader_lost": 0}
    assert squad({"shots": 2}, choice="leader") == {"troopers_lost": 1, "leader_lost": 1}


def test_excess_is_lost_without_carry():
    assert squad({"shots": 2, "how": "focused"}) == {"troopers_lost": 2, "leader_lost": 0}


def test_each_choice_of_order_has_its_own_exact_odds():
    rules = dsl.loads(SQUAD, "squad.rules")
    for choice, troopers in (("trooper", 3), ("leader", 1)):
        dist = exact(rules, Scenario("squad_fire", {"shots": 2}, choices={"first_hit": choice}))
        assert dist.marginal("troopers_lost") == {troopers: 1}


# ---- mistakes are located errors ------------------------------------------------------------


def problems(fire: str) -> list:
    with pytest.raises(RulesError) as caught:
        sequence(fire=fire)
    return list(caught.value.diagnostics)


def test_an_unknown_policy_is_named_with_the_ones_there_are():
    [d] = problems('destroyed = lethal(fire(volley(unsaved), bodies(4, 3), allocate: "focussed"))')
    assert (d.line, d.column) == (9, 70)  # at the word
    assert d.message == """'fire' has no allocate "focussed\""""
    assert d.hint == """did you mean 'focused'? allocate is one of "random", "focused", "focused_carry\""""


def test_an_order_for_random_shots_is_refused():
    for fire in ('destroyed = lethal(fire(volley(unsaved), bodies(4, 3), order: ["a"]))',
                 'destroyed = lethal(fire(volley(unsaved), bodies(4, 3), allocate: "random", order: ["a"]))'):
        [d] = problems(fire)
        assert d.line == 9 and "focused shots" in d.message and d.hint.startswith('add allocate: "focused"')


def test_a_policy_computed_while_running_is_checked_then():
    with pytest.raises(ScenarioError) as caught:
        exact(sequence(), Scenario("shoot", {"how": "sideways"}))
    d = caught.value.diagnostics[0]
    assert d.line == 9 and d.message == """'fire' has no allocate "sideways\"""" and "focused_carry" in d.hint


def test_fracas_check_stops_at_an_unknown_policy_with_exit_code_2(tmp_path, capsys):
    rules = tmp_path / "squad.rules"
    rules.write_text(SQUAD.replace('how: text = "focused_carry"', 'how: text = "focused"')
                     .replace("allocate: how", 'allocate: "carry"'))
    assert main(["check", str(rules)]) == 2
    err = capsys.readouterr().err
    assert "squad.rules:9:" in err and 'no allocate "carry"' in err and "Traceback" not in err


# ---- the runtime, directly -------------------------------------------------------------------


def test_adding_pools_numbers_their_groups_in_order():
    pool = Pool.make(2, 1, "a") + Pool.make(1, 2, "b") + Pool.make(1, 1, "a")
    assert sorted((b.owner, b.group) for b in pool.bodies) == [("a", 0), ("a", 0), ("a", 2), ("b", 1)]
    assert Pool.make(2, 1) + (Pool.make(1, 2) + Pool.make(1, 3)) == (Pool.make(2, 1) + Pool.make(1, 2)) + Pool.make(1, 3)


def test_an_empty_pool_added_first_takes_no_place_in_the_order():
    assert Pool.empty() + Pool.make(1, 2, "b") == Pool.make(1, 2, "b")


def test_a_body_already_hit_is_finished_before_a_fresh_one_of_its_group():
    pool = Pool.of([Body(3, 0, "a"), Body(3, 2, "a"), Body(3, 1, "a")])
    after, hits = focused(Volley.make(1, 1), pool, FOCUSED)
    assert hits[0].before == Body(3, 2, "a") and hits[0].after.lethal
    assert [pool.bodies[i].damage for i in allocation_order(pool)] == [2, 1, 0]


def test_a_body_that_cannot_die_takes_every_shot_once_first():
    pool = Pool.make(1, None, "wall") + Pool.make(2, 1, "a")
    after, _ = focused(Volley.make(5, 3), pool, FOCUSED_CARRY)
    assert after.lethal_count() == 0


def test_shots_with_no_living_body_left_are_lost():
    after, hits = focused(Volley.make(3, 5), Pool.make(1, 2), FOCUSED_CARRY)
    assert after.damage_taken() == 2 and len(hits) == 1


def test_carried_damage_goes_on_through_several_bodies():
    after, hits = focused(Volley.make(1, 5), Pool.make(4, 2), FOCUSED_CARRY)
    assert after.lethal_count() == 2 and after.damage_taken() == 5
    assert [hit.carried for hit in hits] == [False, True, True]


def test_focused_fire_has_one_certain_outcome_in_the_exact_engine():
    fire = Fire(Volley.make(10_000, 1), Pool.make(10_000, 3), FOCUSED)
    assert fire.distribution() == {Pool.of([Body(3, 3)] * 3333 + [Body(3, 1)] + [Body(3, 0)] * 6666): 1}


def test_the_checker_and_the_runtime_know_the_same_policies():
    assert set(ALLOCATIONS) == set(POLICIES) and RANDOM in POLICIES


def test_diff_shows_a_variant_that_changes_how_shots_are_allocated(tmp_path, capsys):
    (tmp_path / "base.rules").write_text(
        "outcome lost: int = 0\n"
        "fn shots_at(n: int) = fire(volley(n, damage: 2), bodies(3, 3))\n"
        "step shoot(n: int) { lost = lethal(fire(volley(n, damage: 2), bodies(3, 3), allocate: \"focused\")) }\n"
        "action go(n: int) { shoot(n) }\n")
    (tmp_path / "variant.rules").write_text(
        'extends "base.rules"\n'
        'override fn shots_at(n: int) = fire(volley(n, damage: 2), bodies(3, 3), allocate: "focused")\n'
        "override step shoot(n: int) {\n"
        '    lost = lethal(fire(volley(n, damage: 2), bodies(3, 3), allocate: "focused_carry", order: ["a"]))\n'
        "}\n")
    assert main(["diff", str(tmp_path / "base.rules"), str(tmp_path / "variant.rules"), "--json"]) == 0
    changes = {(c["category"], c["name"]): c["details"] for c in json.loads(capsys.readouterr().out)}
    assert changes[("fn", "shots_at")] == ['fire at line 2: allocate (unwritten: "random") -> "focused"']
    assert changes[("step", "shoot")] == ['fire at line 4: allocate "focused" -> "focused_carry"',
                                          'fire at line 4: order (unwritten) -> ["a"]']


EQUAL_BUT_UNLIKE = dsl.loads("""rules "focus"
outcome by_one: int = 0
outcome by_true: int = 0
action go() {
    let p = bodies(1, 2, owner: 2) + bodies(1, 2, owner: 1)
    by_one = lethal(fire(volley(1, damage: 2), p, allocate: "focused", order: [1]), owner: 2)
    by_true = lethal(fire(volley(1, damage: 2), p, allocate: "focused", order: [true]), owner: 2)
}
""", "focus.rules")


def test_an_order_of_true_names_no_owner_1_though_python_finds_them_equal():
    # Two volleys equal as Python compares them, whose orders the rules tell apart: neither may stand for the other.
    assert exact(EQUAL_BUT_UNLIKE, Scenario("go", {})).joint() == [({"by_one": 0, "by_true": 1}, Fraction(1))]
    assert sample(EQUAL_BUT_UNLIKE, Scenario("go", {}), seed=1).outcomes == {"by_one": 0, "by_true": 1}


def test_a_forced_roll_names_a_living_body_in_the_pool_s_sorted_order_where_a_body_hit_moves_after_fresh_ones():
    rules = dsl.loads("outcome dead: int = 0\naction go() {\n    let pool = bodies(3, 2)\n"
                      "    pool = fire(volley(2), pool)\n    dead = lethal(pool)\n}\n", "t.rules")
    assert forced(rules, Scenario("go", {}), [0, 0]).outcomes["dead"] == 0  # two bodies hit once each
    assert forced(rules, Scenario("go", {}), [0, 2]).outcomes["dead"] == 1  # the first body, now last, again


def test_a_forced_roll_counts_bodies_by_owner_before_the_order_they_were_added():
    rules = dsl.loads('outcome zeta: int = 0\naction go() {\n    let pool = bodies(1, 1, owner: "zeta") + '
                      'bodies(2, 1, owner: "alpha")\n    zeta = lethal(fire(volley(1), pool), owner: "zeta")\n}\n',
                      "t.rules")
    assert forced(rules, Scenario("go", {}), [0]).outcomes["zeta"] == 0
    assert forced(rules, Scenario("go", {}), [2]).outcomes["zeta"] == 1
