"""The exact cases the benchmarks time: a shipped rules file, a scenario, and the baseline for it.

Nothing here imports fracas: a baseline runs in a process of its own, so its
time and memory are its own. The fracas side builds its Scenario from
`action`, `inputs` and `choices`.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import dice, duel, epicinium, exalted, weewar

ROOT = Path(__file__).resolve().parents[3]

FOUR_10D6 = '''rules "Four rolls of 10d6, summed"
outcome total: int = 0
action four_rolls() {
    for i in range(4) {
        total += roll(10, 6)
    }
}
'''

# The newcomers' margin duel (written from the README alone): long health bars, each round a chance to change nothing.
DUEL = '''rules "A duel to the end: each strikes in turn, for the margin of a d20 attack over a d20 defence"
kind duelist {
    attack: int = 5
    defence: int = 5
    health: int = 20
}
outcome a_wins: bool = false
outcome a_left: int = 0
outcome b_left: int = 0
action duel(a: duelist, b: duelist) {
    while a.health > 0 and b.health > 0 {
        let a_roll = roll(1, 20)
        let b_parry = roll(1, 20)
        let margin = (a_roll + a.attack) - (b_parry + b.defence)
        if margin > 0 {
            b.health -= margin
        }
        if b.health > 0 {
            let b_roll = roll(1, 20)
            let a_parry = roll(1, 20)
            let back = (b_roll + b.attack) - (a_parry + a.defence)
            if back > 0 {
                a.health -= back
            }
        }
    }
    a_wins = b.health <= 0
    a_left = max(a.health, 0)
    b_left = max(b.health, 0)
}
'''


@dataclass(frozen=True)
class Case:
    name: str  # the BENCH line's
    title: str
    action: str
    inputs: dict[str, Any]
    outcomes: tuple[str, ...]
    baseline: Callable[[], dict]
    rules_file: str | None = None  # under ROOT
    rules_text: str | None = None
    choices: dict[str, Any] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)


def shipped_scenario(name: str) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """A scenario file of rules/scenarios: its action, inputs and choices."""
    with open(ROOT / "rules" / "scenarios" / f"{name}.toml", "rb") as file:
        data = tomllib.load(file)
    action = data.pop("action")
    choices = data.pop("choices", {})
    data.pop("params", None)
    return action, data, choices


# ---- Exalted ------------------------------------------------------------------------------


def exalted_attack(name: str, title: str, attacker: dict[str, Any] | None = None, defender: dict[str, Any] | None = None,
            choices: dict[str, Any] | None = None) -> Case:
    """The shipped commander attack, with some of its numbers or choices changed."""
    action, inputs, shipped_choices = shipped_scenario("exalted-commander-attack")
    inputs["attacker"].update(attacker or {})
    inputs["defender"].update(defender or {})
    chosen = {**shipped_choices, **(choices or {})}
    return Case(name, title, action, inputs, exalted.OUTCOMES, lambda: exalted.war_attack(
        inputs["attacker"], inputs["defender"], counterattack=chosen.get("counterattack", False),
        defender_response=chosen.get("defender_response", "war_dv"),
        counter_response=chosen.get("counter_response", "war_dv")),
        rules_file="rules/exalted-war.rules", choices=chosen)


def exalted_each_way(dice_each_way: int) -> Case:
    """The shipped attack with `dice_each_way` dice in the attack and in the counterattack (Wits makes up the pool)."""
    _, inputs, _ = shipped_scenario("exalted-commander-attack")
    wits = {role: dice_each_way - inputs[role]["war"] - inputs[role]["accuracy"] for role in ("attacker", "defender")}
    return exalted_attack(f"exact-exalted-{dice_each_way}-dice", f"Exalted attack and counterattack, {dice_each_way} dice each way",
                   {"wits": wits["attacker"]}, {"wits": wits["defender"]})


# ---- Weewar -------------------------------------------------------------------------------


def weewar_exchange(scenario: str, health: int) -> Case:
    """A shipped exchange with both units at `health`: six draws per health point each way.

    Past the game's 10 health points, the rules' `full_health` is raised to let them.
    """
    action, inputs, choices = shipped_scenario(scenario)
    inputs["attacker"]["health"] = inputs["defender"]["health"] = health
    return Case(f"exact-weewar-health-{health}", f"Weewar exchange ({scenario}), health {health} each",
                action, inputs, weewar.OUTCOMES,
                lambda: weewar.exchange(inputs["attacker"], inputs["defender"], inputs.get("neighbours", ())),
                rules_file="rules/weewar.rules", choices=choices, params={"full_health": max(10, health)})


def weewar_at_health(health: int) -> Case:
    return weewar_exchange("weewar-tank-ganging-up", health)


# ---- Epicinium ----------------------------------------------------------------------------


def epicinium_attack(name: str, title: str, inputs: dict[str, Any]) -> Case:
    return Case(name, title, "targeted_attack", inputs, epicinium.OUTCOMES,
                lambda: epicinium.targeted_attack(inputs["attackers"], inputs["target"], inputs["space"]),
                rules_file="rules/epicinium.rules")


def epicinium_squads(squads: int) -> Case:
    """`squads` Gunner squads (9 shots each) at a tank-like unit of twice their figures (3 hitpoints each) in a City.

    No unit of the game has that many figures, so its type is written in place (the rules' constraints refuse
    a Tank of more than 3).
    """
    big = {"figures": 6 * squads, "hitpoints": 3, "mechanical": True}
    inputs = {"attackers": [{"type": "gunner"}] * squads, "target": {"type": big, "figures": 6 * squads},
              "space": {"tile": "city"}}
    return epicinium_attack(f"exact-epicinium-{squads}-squads",
                            f"Epicinium: {squads} Gunner squads at a Tank of {6 * squads} figures in a City", inputs)


# ---- a duel ---------------------------------------------------------------------------------


def duel_at_health(health: int, a: dict[str, Any] | None = None, b: dict[str, Any] | None = None) -> Case:
    """Two duelists of `health` (attack 5, defence 5 unless given) fighting to the end."""
    inputs = {"a": {"attack": 5, "defence": 5, "health": health, **(a or {})},
              "b": {"attack": 5, "defence": 5, "health": health, **(b or {})}}
    return Case(f"exact-duel-health-{health}", f"a duel to the end, health {health} each (margin of d20s)", "duel",
                inputs, duel.OUTCOMES, lambda: duel.duel(inputs["a"], inputs["b"]), rules_text=DUEL)


# ---- dice ---------------------------------------------------------------------------------


def four_10d6(_: int = 4) -> Case:
    return Case("exact-four-10d6", "four rolls of 10d6, summed", "four_rolls", {}, dice.OUTCOMES,
                lambda: dice.sums_of_rolls(4, 10, 6), rules_text=FOUR_10D6)


def dice_rules(expression: str) -> str:
    """A rules file whose one action throws `expression` into the outcome `total`."""
    return f'rules "dice"\noutcome total: int = 0\naction throw() {{\n    total = {expression}\n}}\n'


FAMILIES: dict[str, Callable[[int], Case]] = {
    "exalted": exalted_each_way,
    "weewar": weewar_at_health,
    "epicinium": epicinium_squads,
    "four-10d6": four_10d6,
    "duel": duel_at_health,
}


def project(joint: list[tuple[dict[str, Any], Any]], outcomes: tuple[str, ...]) -> dict[tuple, Any]:
    """fracas's joint distribution keyed like a baseline's: a tuple of the outcomes' values.

    'stopped' is listed by fracas only when some run stopped; elsewhere an
    outcome fracas has and the baseline lacks (or the reverse) is an error.
    """
    out: dict[tuple, Any] = {}
    for values, p in joint:
        names = set(values) | {"stopped"} if "stopped" in outcomes else set(values)
        if names != set(outcomes):
            raise ValueError(f"fracas's outcomes {sorted(values)} are not the baseline's {sorted(outcomes)}")
        key = tuple(values.get(name, "") for name in outcomes)
        out[key] = out.get(key, 0) + p
    return out
