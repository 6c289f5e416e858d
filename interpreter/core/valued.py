"""Steps that give a value and change nothing: a call to one is a draw of the value it gives.

A step that only works a value out of its arguments (a trait roll that keeps
the better of two exploding dice, a damage roll) is an expression over chance
written as statements. Inlined, its blocks would run once for every state that
calls it, each carrying its caller's whole context: two exploding dice are
thousands of states for each state of the caller. Such a step keeps a routine
of its own, and its call is a draw block (codegen's `_call_valued`): the
sampler runs the step on its one state (`Run.call_value`), the exact engine
works out the distribution of the value it gives (`Run.value_dist`), once for
each distinct start as it does for any draw (its arguments, and the fields
and outcomes the step reads), and branches each caller on it.

The facts come from the step's generated lines, as liveness reads them: a
line that sets a field or an outcome, or stops the resolution, makes the step
one that changes something. A step that draws once and never loops gains
nothing (its draw is worked out once for each distinct thing it reads
inlined too), and one that gives a pool loses the drawing of a pool that the
caller only counts as its counts: both stay inlined.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from fracas.dsl.records import record
from fracas.interpreter.core.dist import Dist, Scaled
from fracas.interpreter.core.liveness import ANY, LineFacts

_STOPS = "S.stopped"  # what the line of a `stop` sets (codegen's s_Stop)
_BODIES = ("pool", "volley")


@record(frozen=True)
class Reads:
    """What a step that changes nothing reads besides its arguments: fields by name, and outcomes."""

    fields: frozenset[str]
    outcomes: frozenset[str]

    def facts(self) -> LineFacts:
        """As the facts of the line that calls the step: read on whatever entity."""
        return LineFacts(field_reads={(ANY, name) for name in self.fields}, outcome_reads=set(self.outcomes))


def reads_of(gen: Any, name: str) -> Reads | None:
    """What the step `name` reads, if it gives a value and changes nothing; else None.

    A step on a cycle of calls keeps the call sites it has (the engine's frames); any other step that
    changes nothing is made a routine of its own here (gen.routine), once.
    """
    memo: dict[str, Reads | None] = gen.valued_steps
    if name in memo:
        return memo[name]
    memo[name] = None  # while it is worked out: a step met again on the way is taken to change something
    decl = gen.rules.steps.get(name) or gen.regions.get(name)  # a step, or a region's (tested.py)
    if decl is None or decl.result is None or name in gen.recursive:
        return None
    saved = gen.take_facts()  # what the caller's line has read so far stays the caller's
    try:
        routine = gen.routine(name)
    finally:
        gen.facts = saved
    if decl.result.name in _BODIES or (decl.result.item is not None and decl.result.item.name in _BODIES):
        return None  # inlined, a pool the caller only counts is drawn as its counts (counted.py)
    draws = sum(getattr(block, "draw_slot", None) is not None for block in routine.blocks)
    order = routine.order
    loops = any(order[following] <= order[pc] for pc, after in enumerate(routine.successors)
                for following in after if following >= 0)
    if draws < 2 and not loops:
        return None  # one draw at most: inlined, it is drawn once for each distinct thing it reads all the same
    fields: set[str] = set()
    outcomes: set[str] = set()
    for block in routine.blocks:
        lines = getattr(block, "lines", None)
        if lines is None:  # a call site: a step that calls itself, which may change anything
            return None
        if len(block.facts) != len(lines):
            return None
        for (line, _), facts in zip(lines, block.facts):
            if facts is None or _STOPS in line:
                return None
            if facts.field_sets or facts.field_writes or facts.outcome_sets or facts.outcome_kills:
                return None
            fields |= {field for _, field in facts.field_reads}
            outcomes |= facts.outcome_reads
    found = memo[name] = Reads(frozenset(fields), frozenset(outcomes))
    return found


def as_dist(given: list[tuple[Any, Any]]) -> Any:
    """The values a step gave at its ends, with their probabilities (Scaled, Fractions or whole numbers), as
    whole-number weights over one total: the distribution a call draws from, or its one value if certain."""
    parts: list[tuple[Any, int, int]] = []
    for value, p in given:
        if type(p) is Scaled:
            parts.append((value, p.n, p.d))
        else:
            p = Fraction(p)
            parts.append((value, p.numerator, p.denominator))
    total = math.lcm(*(d for _, _, d in parts)) if parts else 1
    weights: dict[Any, int] = {}
    for value, top, bottom in parts:
        if top:
            weights[value] = weights.get(value, 0) + top * (total // bottom)
    if len(weights) == 1 and next(iter(weights.values())) == total:
        return next(iter(weights))
    return Dist(weights, total)
