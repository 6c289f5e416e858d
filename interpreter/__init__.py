"""fracas back end: runs a checked ruleset against scenarios, sampled or exactly.

    from fracas import dsl
    from fracas.interpreter import Scenario, exact, sample

    rules = dsl.load("rules/my-game.rules")
    odds = exact(rules, Scenario("attack", {...}))
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fracas.interpreter.api import (Distribution, Run, RunError, Scenario, ScenarioError, estimate, exact, forced,
                                        prepare, sample)
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

# Each name is imported when first asked for. The API brings the engine core, which a process that
# only loads rules (whose cached code is unpickled from fracas.interpreter.core) need not import; the
# scenario file readers bring a TOML parser and its writer (and cattrs, for a file that does not fit), which
# a caller who builds its Scenarios itself never needs.
_SCENARIO_FILES = ("load_scenario", "parse_scenario")


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    home = "fracas.interpreter.tools.scenario" if name in _SCENARIO_FILES else "fracas.interpreter.api"
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # asked once: later lookups find it without this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
