"""Evaluating an expression: run its compiled closure.

Expressions never change the state; chance primitives are handed to the
engine through `env.chooser`, which samples, follows forced rolls, or
branches over every outcome. The closures come from interpreter.compile.
"""

from __future__ import annotations

from typing import Any

from dsl import nodes as n
from interpreter.compile import Compiler, compiler_for
from interpreter.env import Env, field, lookup, record_of, round_half_away

__all__ = ["Env", "bind_arguments", "evaluate", "evaluate_once", "field", "lookup", "record_of", "round_half_away", "truth"]


def evaluate(expr: n.Expr, env: Env) -> Any:
    return compiler_for(env.program.rules).expr(expr)(env)


def evaluate_once(expr: n.Expr, env: Env) -> Any:
    """An expression built for one evaluation: compiled apart, so the ruleset's cache does not keep it."""
    return Compiler(env.program.rules).expr(expr)(env)


def truth(expr: n.Expr, env: Env) -> bool:
    return compiler_for(env.program.rules).test(expr)(env)


def bind_arguments(call: n.Call, params: tuple[n.Param, ...], env: Env) -> dict[str, Any]:
    return compiler_for(env.program.rules).binder(call, params)(env)
