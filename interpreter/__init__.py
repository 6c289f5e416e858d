"""fracas back end: runs a checked ruleset against scenarios, sampled or exactly.

    import dsl
    from interpreter import Scenario, exact, sample

    rules = dsl.load("rules/my-game.rules")
    odds = exact(rules, Scenario("attack", {...}))
"""

from interpreter.api import Distribution, Run, Scenario, estimate, exact, forced, prepare, sample
from interpreter.errors import RunError, ScenarioError
from interpreter.scenario import load_scenario, parse_scenario

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
