"""Sampled runs agree with the exact engine: a chi-square test per scenario.

Each test samples a scenario with a fixed seed and compares the frequencies of
the joint outcomes with the exact probabilities. The threshold is the 99.9%
quantile of the chi-square distribution (Wilson-Hilferty approximation), so a
correct engine fails about once in a thousand seeds; with the seed fixed, the
test is deterministic.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from fracas import dsl
from fracas.interpreter import Scenario, exact, parse_scenario, prepare, sample

ROOT = Path(__file__).resolve().parent.parent
EPI = dsl.load(ROOT / "rules" / "epicinium.rules")
SAMPLES = 2000
Z_999 = 3.090  # standard normal quantile for 0.999


def chi_square_limit(df: int) -> float:
    k = max(df, 1)
    return k * (1 - 2 / (9 * k) + Z_999 * math.sqrt(2 / (9 * k))) ** 3


def joint_key(values: dict) -> tuple:
    return tuple(sorted((k, repr(v)) for k, v in values.items()))


def assert_sampling_matches_exact(rules, scenario: Scenario, samples: int = SAMPLES, seed: int = 1) -> None:
    dist = exact(rules, scenario)
    expected = {joint_key(values): p for values, p in dist.joint()}
    prepared = prepare(rules, scenario)
    counts: dict[tuple, int] = {}
    for i in range(samples):
        run = sample(rules, scenario, seed=seed * 1_000_003 + i, prepared=prepared)
        values = dict(run.outcomes)
        if "stopped" in dist.outcome_names:
            values["stopped"] = run.stopped or ""
        key = joint_key(values)
        assert key in expected, f"sampled an outcome the exact engine gives probability 0: {key}"
        counts[key] = counts.get(key, 0) + 1
    # Pool rare outcomes so every cell expects at least 5 observations.
    cells: list[tuple[float, int]] = []
    pooled_e, pooled_o = 0.0, 0
    for key, p in sorted(expected.items(), key=lambda kv: kv[1]):
        e = float(p) * samples
        if e < 5:
            pooled_e += e
            pooled_o += counts.get(key, 0)
        else:
            cells.append((e, counts.get(key, 0)))
    if pooled_e > 0:
        cells.append((pooled_e, pooled_o))
    if len(cells) < 2:
        return
    statistic = sum((o - e) ** 2 / e for e, o in cells)
    limit = chi_square_limit(len(cells) - 1)
    assert statistic < limit, f"chi-square {statistic:.2f} over {limit:.2f} with {len(cells) - 1} degrees of freedom"


SCENARIOS = {
    "gunners on a rifleman in a city under Bonedrought": (ROOT / "rules/scenarios/epicinium-gunners-vs-riflemen.toml").read_text(),
    "a gunner on riflemen in trenches": (ROOT / "rules/scenarios/epicinium-trenches.toml").read_text(),
    "sappers bombard a town with militia and a zeppelin": (ROOT / "rules/scenarios/epicinium-bombard-town.toml").read_text(),
    "firestorm on a forest with a gunner, in gas": """
        action = "indiscriminate"
        effect = "firestorm"
        [space]
        tile = "forest"
        stacks = 2
        gas = 1
        [ground]
        type = "gunner"
    """,
    "a bypassing militia on a farm": """
        action = "targeted_attack"
        [[attackers]]
        type = "rifleman"
        [[attackers]]
        type = "gunner"
        figures = 1
        [target]
        type = "militia"
        [bypassed]
        type = "tank"
        figures = 2
        [space]
        tile = "farm"
    """,
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_sampled_frequencies_match_exact_probabilities(name):
    assert_sampling_matches_exact(EPI, parse_scenario(SCENARIOS[name]))


WEEWAR = dsl.load(ROOT / "rules" / "weewar.rules")
WEEWAR_SCENARIOS = {
    "troopers on plains": (ROOT / "rules/scenarios/weewar-troopers-on-plains.toml").read_text(),
    "a tank ganging up in woods": (ROOT / "rules/scenarios/weewar-tank-ganging-up.toml").read_text(),
    "artillery with splash": """
        action = "exchange"
        [attacker]
        type = "light_artillery"
        splash = 2
        place = { q = 2, r = 0 }
        [defender]
        type = "trooper"
        health = 3
        place = { q = 0, r = 0 }
        [[neighbours]]
        type = "tank"
        place = { q = 1, r = 0 }
    """,
}


@pytest.mark.parametrize("name", list(WEEWAR_SCENARIOS))
def test_sampled_weewar_exchanges_match_exact_probabilities(name):
    assert_sampling_matches_exact(WEEWAR, parse_scenario(WEEWAR_SCENARIOS[name]))


EXALTED = dsl.load(ROOT / "rules" / "exalted-war.rules")


@pytest.mark.parametrize("choices", [{}, {"attacker_reroll": True, "counterattack": True}])
def test_sampled_war_attacks_match_exact_probabilities(choices):
    scenario = Scenario("war_attack", {
        "attacker": {"role": "commander", "wits": 3, "war": 2, "charisma": 1, "magnitude": 2, "damage": 1,
                     "intelligence": 1, "defense": 1},
        "defender": {"role": "commander", "wits": 2, "war": 2, "intelligence": 1, "defense": 1, "soak": 1,
                     "magnitude": 1, "damage": 1},
    }, choices=choices)
    assert_sampling_matches_exact(EXALTED, scenario)


GILGAMESH = dsl.load(ROOT / "rules" / "gilgamesh.rules")


def test_sampled_attacks_on_a_ship_match_exact_probabilities():
    scenario = parse_scenario((ROOT / "rules/scenarios/gilgamesh-broadside.toml").read_text())
    assert_sampling_matches_exact(GILGAMESH, scenario)
