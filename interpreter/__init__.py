"""fracas back end: runs a checked ruleset against scenarios, sampled or exactly.

    from fracas import dsl
    from fracas.interpreter import Scenario, exact, sample

    rules = dsl.load("rules/my-game.rules")
    odds = exact(rules, Scenario("attack", {...}))
"""

from __future__ import annotations

from typing import Any

from fracas.interpreter.api import (Distribution, Run, RunError, Scenario, ScenarioError, estimate, exact, forced, prepare,
                                    sample)

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

# The scenario file readers bring cattrs and a TOML parser, a third of the time this package takes
# to import: they are imported when first asked for, not by a caller who builds its Scenarios itself.
_SCENARIO_FILES = ("load_scenario", "parse_scenario")


def __getattr__(name: str) -> Any:
    if name in _SCENARIO_FILES:
        from fracas.interpreter.tools import scenario

        value = getattr(scenario, name)
        globals()[name] = value  # asked once: later lookups find it without this function
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
