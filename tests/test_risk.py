"""rules/risk.rules, a battle fought until it ends, against an exact calculation written here by hand."""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from itertools import product
from pathlib import Path

import pytest

from fracas import dsl
from fracas.interpreter import Scenario, exact, sample

RISK = dsl.load(Path(__file__).resolve().parent.parent / "rules" / "risk.rules")


@cache
def exchange(attack_dice: int, defence_dice: int) -> dict[tuple[int, int], Fraction]:
    """(attacker's losses, defender's losses) of one exchange, by sorting every throw of the dice."""
    counts: dict[tuple[int, int], int] = {}
    for attack in product(range(1, 7), repeat=attack_dice):
        for defence in product(range(1, 7), repeat=defence_dice):
            pairs = list(zip(sorted(attack, reverse=True), sorted(defence, reverse=True)))
            lost = sum(a <= d for a, d in pairs)
            counts[lost, len(pairs) - lost] = counts.get((lost, len(pairs) - lost), 0) + 1
    return {losses: Fraction(count, 6 ** (attack_dice + defence_dice)) for losses, count in counts.items()}


@cache
def taken(attackers: int, defenders: int) -> Fraction:
    if defenders == 0:
        return Fraction(1)
    if attackers == 1:
        return Fraction(0)
    return sum((p * taken(attackers - a, defenders - d)
                for (a, d), p in exchange(min(3, attackers - 1), min(2, defenders)).items()), Fraction(0))


def test_one_exchange_of_three_dice_against_two_matches_sorting_the_dice():
    odds = exact(RISK, Scenario("attack_once", {"attack": {"armies": 4}, "defence": {"armies": 2}}))
    lost = odds.marginal("attacker_lost")
    assert lost == {a: p for (a, _), p in exchange(3, 2).items()}


@pytest.mark.parametrize("attackers", range(2, 11))
def test_the_chance_to_take_the_territory_matches_an_exact_calculation_up_to_ten_against_ten(attackers):
    for defenders in range(1, 11):
        odds = exact(RISK, Scenario("battle", {"attack": {"armies": attackers}, "defence": {"armies": defenders}}), outcomes_only=True)
        assert odds.marginal("taken").get(True, Fraction(0)) == taken(attackers, defenders), (attackers, defenders)


def test_every_battle_ends_with_the_defender_gone_or_one_attacker_left():
    odds = exact(RISK, Scenario("battle", {"attack": {"armies": 7}, "defence": {"armies": 6}}), outcomes_only=True)
    for outcomes, _ in odds.joint():
        assert outcomes["defenders_left"] == 0 or outcomes["attackers_left"] == 1


def test_a_sampled_battle_runs_to_its_end_too():
    for seed in range(20):
        outcomes = sample(RISK, Scenario("battle", {"attack": {"armies": 10}, "defence": {"armies": 10}}), seed=seed).outcomes
        assert outcomes["defenders_left"] == 0 or outcomes["attackers_left"] == 1
