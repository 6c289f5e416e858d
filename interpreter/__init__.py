"""fracas back end: runs a checked ruleset against scenarios, sampled or exactly.

    from fracas import dsl
    from fracas.interpreter import Scenario, exact, sample

    rules = dsl.load("rules/my-game.rules")
    odds = exact(rules, Scenario("attack", {...}))
"""

from fracas.interpreter.api import (Distribution, Run, RunError, Scenario, ScenarioError, estimate, exact, forced, prepare,
                                    sample)
from fracas.interpreter.tools.scenario import load_scenario, parse_scenario

__all__ = [
    "Distribution",
    "Run",
    "RunError",
    "Scenario",
    "ScenarioError",
    "estimate",
    "exact",
    "forced",
    "load_scenario",
    "parse_scenario",
    "prepare",
    "sample",
]
