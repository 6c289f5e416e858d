"""Whole-number weights: the exact distributions every chance primitive computes, and the budget
that stops a runaway computation with an error naming its limit.

The primitives' distributions are checked against brute-force enumeration of
every roll, as fractions, so the integer algorithms give exactly the
probabilities they always did.
"""

from __future__ import annotations

import itertools
import operator
import random
from fractions import Fraction

import pytest

from fracas import dsl
from fracas.interpreter import Scenario, ScenarioError, exact
from fracas.interpreter.runtime.bodies import Body, Pool, Shot, Volley
from fracas.interpreter.runtime.chance import Bernoulli, Binomial, Dice, Fire, SuccessPool, Tally, Uniform, one_die
from fracas.interpreter.runtime.dice import DiceSum, Exploding, Faces, Keep
from fracas.interpreter.runtime.weights import (
    Allowance,
    LimitError,
    Memo,
    StateLimitError,
    Weights,
    WorkLimitError,
    convolve,
    dense_power,
)

# ---- the Weights type ----------------------------------------------------------------


def test_equal_outcomes_merge_and_come_in_canonical_order():
    w = Weights.of([(3, 1), ("a", 2), (1, 4), (3, 5), (None, 1)])
    assert w.outcomes == (None, 1, 3, "a") and w.weights == (1, 4, 6, 2) and w.total == 13


def test_outcomes_of_no_weight_are_left_out():
    assert Weights.of([(1, 0), (2, 3)]).outcomes == (2,)


def test_a_negative_weight_is_refused():
    with pytest.raises(ValueError):
        Weights.of([(1, -1), (2, 3)])


def test_probabilities_are_weights_over_the_total():
    assert Weights.of([(0, 1), (1, 3)]).probabilities() == {0: Fraction(1, 4), 1: Fraction(3, 4)}


def test_reduced_divides_by_the_common_factor():
    w = Weights.of([(0, 4), (1, 6)]).reduced()
    assert w.weights == (2, 3) and w.total == 5


def test_map_merges_equal_images():
    w = Weights.of([(-1, 1), (0, 1), (1, 1)]).map(abs)
    assert w.probabilities() == {0: Fraction(1, 3), 1: Fraction(2, 3)}


def test_combine_multiplies_the_weights_of_independent_outcomes():
    coin = Weights.of([(0, 1), (1, 1)])
    assert coin.combine(coin, operator.add).probabilities() == {0: Fraction(1, 4), 1: Fraction(1, 2), 2: Fraction(1, 4)}
    assert coin.combine(coin, max).probabilities() == {0: Fraction(1, 4), 1: Fraction(3, 4)}


def test_a_sum_of_sparse_or_fraction_outcomes_is_combined_outcome_by_outcome():
    sparse = Weights.of([(0, 1), (1000, 1)])
    assert sparse.combine(sparse, operator.add).outcomes == (0, 1000, 2000)
    halves = Weights.of([(Fraction(1, 2), 1), (1, 1)])
    assert halves.power(2).probabilities() == {1: Fraction(1, 4), Fraction(3, 2): Fraction(1, 2), 2: Fraction(1, 4)}


def test_power_is_the_sum_of_independent_copies():
    die = Weights.of((face, 1) for face in range(1, 7))
    three = die.power(3)
    by_hand = die.combine(die, operator.add).combine(die, operator.add)
    assert three.probabilities() == by_hand.probabilities() and three.total == 216


def test_power_of_none_is_zero_for_a_sum_and_refused_otherwise():
    die = Weights.of([(1, 1), (2, 1)])
    assert die.power(0).probabilities() == {0: 1}
    with pytest.raises(ValueError):
        die.power(0, max)


def test_power_folds_any_associative_function():
    die = Weights.of((face, 1) for face in range(1, 7))
    assert die.power(2, max).probabilities()[6] == Fraction(11, 36)


@pytest.mark.parametrize("seed", range(8))
def test_the_packed_product_equals_the_double_loop(seed):
    rng = random.Random(seed)
    a = [rng.randrange(0, 2 ** rng.choice([1, 30, 200])) for _ in range(rng.randrange(1, 90))]
    b = [rng.randrange(0, 2 ** rng.choice([1, 30, 200])) for _ in range(rng.randrange(1, 90))]
    a[-1] = b[-1] = 1
    expected = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            expected[i + j] += x * y
    assert convolve(a, b) == expected


def test_dense_power_by_squaring_equals_repeated_products():
    ways, result = [1, 2, 0, 3], [1]
    for _ in range(13):
        result = convolve(result, ways)
    assert dense_power(ways, 13) == result


@pytest.mark.parametrize("ways, count", [([5, 1], 1), ([2, 4], 30), ([7, 3], 200), ([1, 1], 9)])
def test_dense_power_of_two_outcomes_is_the_binomial_of_repeated_products(ways, count):
    result = [1]
    for _ in range(count):
        result = convolve(result, ways)
    assert dense_power(ways, count) == result


# ---- the primitives against enumerating every roll -----------------------------------------


def enumerate_dice(count: int, sides: int, value=sum) -> dict:
    out: dict = {}
    for faces in itertools.product(range(1, sides + 1), repeat=count):
        key = value(faces)
        out[key] = out.get(key, 0) + Fraction(1, sides**count)
    return out


@pytest.mark.parametrize("count, sides", [(0, 6), (1, 1), (1, 6), (2, 6), (3, 4), (5, 3), (4, 10)])
def test_a_sum_of_dice_is_every_roll_counted(count, sides):
    assert Dice(count, sides).distribution() == enumerate_dice(count, sides)


@pytest.mark.parametrize("p", [Fraction(0), Fraction(1), Fraction(1, 3), Fraction(7, 10)])
def test_a_chance_is_true_with_its_probability(p):
    assert Bernoulli(p).distribution() == {v: q for v, q in {False: 1 - p, True: p}.items() if q}


@pytest.mark.parametrize("n, p", [(0, Fraction(1, 2)), (1, Fraction(1, 3)), (6, Fraction(2, 5)), (5, Fraction(0)),
                                  (5, Fraction(1)), (9, Fraction(999, 1000))])
def test_trials_are_every_sequence_of_hits_and_misses_counted(n, p):
    out: dict = {}
    for hits in itertools.product((0, 1), repeat=n):
        q = Fraction(1)
        for hit in hits:
            q *= p if hit else 1 - p
        if q:
            out[sum(hits)] = out.get(sum(hits), 0) + q
    assert Binomial(n, p).distribution() == out


def test_a_pick_weighs_repeated_items():
    assert Uniform(("a", "b", "a")).distribution() == {"a": Fraction(2, 3), "b": Fraction(1, 3)}


@pytest.mark.parametrize("count, sides, at_least, double_at, reroll", [
    (3, 6, 4, None, ()), (3, 10, 7, 10, ()), (2, 10, 7, 10, (1,)), (3, 6, 5, 6, (1, 2)), (2, 4, 9, None, (4,)),
    (3, 6, 1, None, ()), (2, 6, 0, 6, (2,)), (0, 6, 4, None, ()), (3, 6, 6, 6, ()), (2, 10, 3, 3, (10,)),
])
def test_successes_are_every_roll_and_reroll_counted(count, sides, at_least, double_at, reroll):
    pool = SuccessPool(count, sides, at_least, double_at, reroll)
    die: dict = {}
    for first in range(1, sides + 1):
        seconds = range(1, sides + 1) if first in reroll else [None]
        for second in seconds:
            face = first if second is None else second
            q = Fraction(1, sides) * (Fraction(1, sides) if second is not None else 1)
            die[pool._value(face)] = die.get(pool._value(face), 0) + q
    out: dict = {}
    for values in itertools.product(die.items(), repeat=count):
        total, q = sum(v for v, _ in values), Fraction(1)
        for _, p in values:
            q *= p
        out[total] = out.get(total, 0) + q
    assert pool.distribution() == out


@pytest.mark.parametrize("sides", [1, 4, 6, 10])
def test_a_success_pool_weighs_as_one_die_raised_to_the_pool(sides):
    # Summed by value in place, not mapped and raised: the same whole numbers, and the same work and outcomes
    # held counted, for a pool of any size and every way of counting a face.
    for at_least, double_at, reroll, count in itertools.product(range(0, sides + 2), (None, *range(1, sides + 2)),
                                                                 ((), (1,), tuple(range(1, sides + 1))), (0, 1, 5)):
        pool = SuccessPool(count, sides, at_least, double_at, reroll)
        mine, theirs = Allowance(None, None), Allowance(None, None)
        raised = one_die(sides, reroll).map(pool._value).power(count, budget=theirs, what=pool.describe())
        assert pool._weights(mine) == raised, pool
        assert mine.spent == theirs.spent, pool


@pytest.mark.parametrize("count, sides", [(-1, 6), (3, 0)])
def test_a_success_pool_of_no_dice_or_no_faces_is_refused(count, sides):
    # Rules cannot make one (a count below zero and a die without faces are refused where they are written); the
    # runtime's own callers are told, not left in a loop.
    with pytest.raises(ValueError):
        SuccessPool(count, sides, 4)._weights(Allowance(None, 10**6))


@pytest.mark.parametrize("count, sides, groups", [(3, 6, ((1, 2), (6,))), (4, 4, ((1,), (2,), (3,))), (2, 6, ())])
def test_a_tally_is_every_roll_counted(count, sides, groups):
    tally = Tally(count, sides, groups)
    assert tally.distribution() == enumerate_dice(count, sides, tally._counts)


def every_target(volley: Volley, pool: Pool) -> dict:
    """Each shot at each living body in turn (any body when none lives), every path weighed."""
    paths = [(pool, Fraction(1))]
    for shot in volley.shots:
        following = []
        for current, p in paths:
            living = [i for i, body in enumerate(current.bodies) if not body.lethal]
            choices = living or list(range(len(current.bodies)))
            if not choices:
                following.append((current, p))
                continue
            for i in choices:
                following.append((current.replace(i, current.bodies[i].hit(shot.damage)), p / len(choices)))
        paths = following
    out: dict = {}
    for result, p in paths:
        out[result] = out.get(result, 0) + p
    return out


@pytest.mark.parametrize("seed", range(12))
def test_fire_is_every_choice_of_target_weighed(seed):
    rng = random.Random(seed)
    bodies = []
    for _ in range(rng.randrange(0, 5)):
        hitpoints = rng.choice([None, 1, 2, 3])
        bodies.append(Body(hitpoints, 0 if hitpoints is None else rng.randrange(hitpoints + 1), rng.choice("ab")))
    volley = Volley(tuple(Shot(rng.choice([0, 1, 2])) for _ in range(rng.randrange(0, 5))))
    assert Fire(volley, Pool.of(bodies)).distribution() == every_target(volley, Pool.of(bodies))


def test_distributions_come_in_canonical_order():
    assert list(Dice(2, 6).distribution()) == list(range(2, 13))
    assert list(Bernoulli(Fraction(1, 2)).distribution()) == [False, True]


# ---- the budget ------------------------------------------------------------------------------


def test_a_computation_over_the_work_limit_stops_naming_it():
    with pytest.raises(WorkLimitError) as caught:
        Dice(300, 300).weights(Allowance(work=1000))
    assert caught.value.name == "work" and "300d300" in str(caught.value) and caught.value.limit == 1000


def test_a_computation_holding_too_many_outcomes_stops_before_computing_them():
    with pytest.raises(StateLimitError) as caught:
        Dice(10_000, 10_000).weights(Allowance(states=1000))
    assert caught.value.name == "states" and "over the limit of 1000" in str(caught.value)


def test_a_remembered_result_is_held_to_the_states_limit_of_who_asks():
    pool = Pool.make(3, 2, "a")
    fire = Fire(Volley.make(4, 1), pool)
    fire.weights(Allowance())  # computed and remembered
    with pytest.raises(StateLimitError):
        fire.weights(Allowance(states=1))


def costly(problem, budget):
    budget.spend(problem, "a costly problem")
    return Weights.certain(problem)


def test_a_remembered_result_is_charged_the_work_it_cost():
    memo = Memo(costly)
    memo(500, Allowance(), "500")
    budget = Allowance()
    assert memo(500, budget, "500").outcomes == (500,) and budget.spent == 500


def test_a_remembered_result_stops_at_the_work_limit_as_it_did_when_computed():
    # Limits stop the same problems in a process that computed them before (the language server's).
    memo = Memo(costly)
    memo(500, Allowance(), "500")
    with pytest.raises(LimitError) as caught:
        memo(500, Allowance(work=499), "500")
    assert caught.value.name == "work"


@pytest.mark.parametrize("primitive", [
    Fire(Volley.make(10_000, 1), Pool.of(Body(3, 0, owner) for owner in range(60))),
    Fire(Volley.make(10_000, 1), Pool.make(3000, 3)),
    Tally(10_000, 10, tuple((face,) for face in range(1, 10))),
    Dice(10_000, 10_000),
    Keep(10_000, 10_000, 5000),
    Keep(10_000, 6, 5000),
    DiceSum(10_000, Exploding(6, 50)),
    DiceSum(3000, Faces((0, 1, 7, 1000))),
], ids=["bodies all different", "many bodies of three hitpoints", "tally of ten groups", "10000d10000",
        "keep half of 10000d10000", "keep half of 10000d6", "explode 10000d6", "3000 dice of sparse faces"])
def test_a_runaway_primitive_stops_at_a_limit_naming_it(primitive):
    with pytest.raises(LimitError) as caught:
        primitive.weights(Allowance(work=2_000_000))
    assert caught.value.name in ("states", "work")


def test_many_shots_at_bodies_that_cannot_die_leave_few_states():
    fire = Fire(Volley.make(10_000, 1), Pool.make(10_000, None) + Pool.make(1, 1, "mortal"))
    dist = fire.distribution()
    assert sorted(pool.lethal_count() for pool in dist) == [0, 1]
    assert dist[min(dist, key=lambda pool: pool.lethal_count())] == Fraction(10_000, 10_001) ** 10_000


def test_a_runaway_in_the_rules_is_a_located_error_of_the_exact_engine():
    rules = dsl.loads("outcome x: int = 0\naction go() {\n x = keep_highest(10000, 10000, 5000)\n}\n", "t.rules")
    with pytest.raises(ScenarioError) as caught:
        exact(rules, Scenario("go", {}))
    d = caught.value.diagnostics[0]
    assert d.line == 3 and "exact engine stopped" in d.message and "over the limit" in d.message
