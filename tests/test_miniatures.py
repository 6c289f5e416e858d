"""rules/miniatures.rules, the attack sequence of a miniatures wargame, against a calculation written here by hand.

The calculation follows the rulebook's words, not the rules file: the chance of
each roll from its target number, the unsaved wounds as a binomial, and the
damage of the wounds dealt to the models one at a time, as a chain over the
damage each living model has taken.
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from math import comb

import pytest

from fracas import dsl
from fracas.interpreter import Scenario, exact
from test_agreement import assert_sampling_matches_exact
from test_constraints import RULES

MINIATURES = dsl.load(RULES / "miniatures.rules")

Distribution = dict[int, Fraction]


def d6_at_least(needed: int) -> Fraction:
    """A d6 showing `needed` or more, where a 1 always fails and nothing past 6 can be made."""
    return Fraction(max(0, 7 - max(2, needed)), 6) if needed <= 6 else Fraction(0)


def wound_target(strength: int, toughness: int) -> int:
    """The rulebook's table, band by band, written from the lowest roll needed upwards."""
    bands = [(strength >= 2 * toughness, 2), (strength > toughness, 3), (strength == toughness, 4),
             (2 * strength > toughness, 5)]
    return next((needed for holds, needed in bands if holds), 6)


def binomial(n: int, p: Fraction) -> Distribution:
    return {k: comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)}


def uniform(*faces: int) -> Distribution:
    return {face: Fraction(1, len(faces)) for face in faces}


def points_after_feel_no_pain(damage: Distribution, feel_no_pain: int | None) -> Distribution:
    """The points of one unsaved wound that no feel-no-pain roll ignored."""
    ignored = d6_at_least(feel_no_pain) if feel_no_pain else Fraction(0)
    result: Distribution = defaultdict(Fraction)
    for points, p in damage.items():
        for kept, q in binomial(points, 1 - ignored).items():
            result[kept] += p * q
    return dict(result)


def allocate(wounds: int, points: Distribution, models: int, wounds_each: int, policy: str) -> Distribution:
    """Models destroyed by `wounds` unsaved wounds; a state is the damage on each living model, and the dead."""
    states: dict[tuple[tuple[int, ...], int], Fraction] = {((0,) * models, 0): Fraction(1)}
    for _ in range(wounds):
        following: dict[tuple[tuple[int, ...], int], Fraction] = defaultdict(Fraction)
        for (living, dead), p in states.items():
            if not living:
                following[living, dead] += p
                continue
            for dealt, q in points.items():
                if policy == "random":
                    for i in range(len(living)):
                        following[hit(living, i, dealt, wounds_each, dead)] += p * q / len(living)
                else:  # the most damaged model first, so that one is finished before another is started
                    following[hit(living, living.index(max(living)), dealt, wounds_each, dead,
                                  carry=policy == "focused_carry")] += p * q
        states = following
    result: Distribution = defaultdict(Fraction)
    for (_, dead), p in states.items():
        result[dead] += p
    return dict(result)


def hit(living: tuple[int, ...], i: int, dealt: int, wounds_each: int, dead: int,
        carry: bool = False) -> tuple[tuple[int, ...], int]:
    models = list(living)
    while models:
        taken = min(dealt, wounds_each - models[i])
        models[i] += taken
        dealt -= taken
        if models[i] < wounds_each:
            break
        del models[i]
        dead += 1
        if not carry or not dealt:
            break
        i = models.index(max(models)) if models else 0
    return tuple(sorted(models)), dead


def destroyed(attacks: Distribution, skill: int, strength: int, toughness: int, save: int, penetration: int,
              damage: Distribution, feel_no_pain: int | None, models: int, wounds_each: int,
              policy: str) -> Distribution:
    through = d6_at_least(skill) * d6_at_least(wound_target(strength, toughness)) * (
        1 - d6_at_least(save + penetration))
    points = points_after_feel_no_pain(damage, feel_no_pain)
    result: Distribution = defaultdict(Fraction)
    for count, p in attacks.items():
        for unsaved, q in binomial(count, through).items():
            for dead, r in allocate(unsaved, points, models, wounds_each, policy).items():
                result[dead] += p * q * r
    return dict(result)


def odds(attacker: dict, target: dict, **params) -> object:
    return exact(MINIATURES, Scenario("attack", {"attacker": attacker, "target": target}, params=params))


@pytest.mark.parametrize("policy", ["focused", "focused_carry", "random"])
def test_gun_teams_at_brutes_match_the_hand_calculation_for_each_allocation(policy):
    # Nine shots of 2 damage on 3+, 4+, and a 4+ save worsened to 5+, at four brutes of 3 wounds.
    result = odds({"type": "gun_team", "models": 3}, {"type": "brute", "models": 4}, allocation=policy)
    expected = destroyed({9: Fraction(1)}, 3, 5, 5, 4, 1, {2: Fraction(1)}, None, 4, 3, policy)
    assert result.marginal("models_destroyed") == expected


def test_focused_destroys_a_mean_of_three_quarters_of_a_brute_and_random_a_third():
    focused = odds({"type": "gun_team", "models": 3}, {"type": "brute", "models": 4}).mean("models_destroyed")
    spread = odds({"type": "gun_team", "models": 3}, {"type": "brute", "models": 4},
                  allocation="random").mean("models_destroyed")
    assert (round(float(focused), 2), round(float(spread), 2)) == (0.75, 0.36)


@pytest.mark.parametrize("policy", ["focused", "random"])
def test_rolled_damage_and_feel_no_pain_match_the_hand_calculation(policy):
    # Two brutes' cleavers (four attacks, 1d3 damage) at zealots: wound on 3+, no save, feel no pain on 5+.
    result = odds({"type": "brute", "models": 2}, {"type": "zealot", "models": 3}, allocation=policy)
    expected = destroyed({4: Fraction(1)}, 3, 6, 4, 6, 1, uniform(1, 2, 3), 5, 3, 2, policy)
    assert result.marginal("models_destroyed") == expected


def test_rolled_attacks_and_damage_match_the_hand_calculation():
    # A walker's cannon: 1d3 attacks of 1d6 damage at another walker, which one shot rarely kills.
    result = odds({"type": "walker", "models": 1}, {"type": "walker", "models": 1})
    expected = destroyed(uniform(1, 2, 3), 4, 9, 8, 3, 3, uniform(1, 2, 3, 4, 5, 6), None, 1, 10, "focused")
    assert result.marginal("models_destroyed") == expected


@pytest.mark.parametrize("strength", range(1, 13))
@pytest.mark.parametrize("toughness", [1, 3, 4, 5, 6, 8])
def test_one_attack_wounds_as_the_table_says(strength, toughness):
    weapon = {"strength": strength}
    attacker = {"type": {"skill": 2, "toughness": 4, "wounds": 1, "save": 7, "weapon": weapon}, "models": 1}
    target = {"type": {"skill": 4, "toughness": toughness, "wounds": 1, "save": 7, "weapon": "rifle"}, "models": 1}
    result = odds(attacker, target)
    assert result.marginal("wounds").get(1, Fraction(0)) == Fraction(5, 6) * d6_at_least(
        wound_target(strength, toughness))


def test_feel_no_pain_takes_a_third_off_the_mean_damage_when_no_model_dies():
    # Rifles at zealots with more wounds than the shots can take: every point not ignored is dealt.
    result = odds({"type": "trooper", "models": 6}, {"type": "zealot", "models": 6})
    assert result.mean("wounds_dealt") == result.mean("unsaved") * Fraction(2, 3)
    assert result.mean("damage_ignored") == result.mean("unsaved") * Fraction(1, 3)


def test_sampled_attacks_agree_with_the_exact_odds():
    assert_sampling_matches_exact(MINIATURES, Scenario("attack", {"attacker": {"type": "brute", "models": 1},
                                                                  "target": {"type": "zealot", "models": 2}},
                                                       params={"allocation": "random"}))
