"""Where an expression is evaluated, and the lookups every evaluator shares."""

from __future__ import annotations

import math
from fractions import Fraction
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from dsl import nodes as n
from dsl.limits import Limits
from interpreter.errors import RunError
from interpreter.state import Frozen, State
from interpreter.values import Record, Ref, RowRef, show

if TYPE_CHECKING:
    from interpreter.program import Program


class Env:
    """The program, the state, the local names, the engine that resolves chance."""

    __slots__ = ("program", "state", "frame", "chooser", "depth")

    def __init__(self, program: Program, state: State, frame: Frozen | dict[str, Any], chooser: Any, depth: int = 0):
        self.program = program
        self.state = state
        self.frame = frame
        self.chooser = chooser
        self.depth = depth

    def inner(self, frame: dict[str, Any], pos: n.Pos) -> Env:
        if self.depth >= self.program.rules.limits.call_depth:
            limits = self.program.rules.limits
            raise RunError(pos, f"calls nest deeper than {limits.call_depth}",
                           "a function may be calling itself forever; " + limits.hint("call_depth"))
        return Env(self.program, self.state, frame, self.chooser, self.depth + 1)

    def outside(self) -> Env:
        """An environment with no local names: where defaults of parameters are evaluated."""
        return Env(self.program, self.state, {}, self.chooser, self.depth)


def lookup(name: str, env: Env, pos: n.Pos) -> Any:
    frame = env.frame
    if name in frame:
        return frame[name]
    program = env.program
    if name in env.state.outcomes:
        return env.state.outcomes[name]
    if name in program.params:
        return program.params[name]
    if name in program.row_refs:
        return program.row_refs[name]
    raise RunError(pos, f"unknown name '{name}'")


def record_of(value: Any, env: Env, pos: n.Pos, name: str) -> Record:
    if isinstance(value, Ref):
        return env.state.world[value.id]
    if isinstance(value, RowRef):
        return env.program.rows[value.name]
    if isinstance(value, Record):
        return value
    if value is None:
        raise RunError(pos, f"there is nothing here (none), so it has no field '{name}'",
                       "check it first, for example: if x != none { ... }")
    raise RunError(pos, f"{show(value)} has no field '{name}'")


def field(value: Any, name: str, env: Env, pos: n.Pos) -> Any:
    record = record_of(value, env, pos, name)
    index = record.shape.index.get(name)
    if index is None:
        raise RunError(pos, f"a {record.shape.kind} has no field '{name}'")
    return record.values[index]


def digit_check(limits: Limits, pos: n.Pos) -> Callable[[Any], Any]:
    """A check that a computed number stays within the digits limit (a fraction: both its parts).

    Squaring in a loop would otherwise grow a number until fracas hangs.
    """
    most_bits = math.ceil(limits.digits * math.log2(10))

    def within(value: Any) -> Any:
        kind = type(value)
        if kind is int:
            bits = value.bit_length()
        elif kind is Fraction:
            bits = max(value.numerator.bit_length(), value.denominator.bit_length())
        else:
            return value
        if bits > most_bits:
            raise RunError(pos, f"a number grew past the limit of {limits.digits} digits", limits.hint("digits"))
        return value

    return within


def round_half_away(x: Fraction | int) -> int:
    return math.floor(x + Fraction(1, 2)) if x >= 0 else -math.floor(-x + Fraction(1, 2))
