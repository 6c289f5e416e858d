"""Why an `expect` line failed, as pytest says why an assert did: the value of each of its parts.

The expectation is shown whole, then every sub-expression under it with its
value, indented by depth. A part that was never read is left out: the right
of an `and` whose left is false, the branch of an `if` not taken, what an
aggregate reads outcome by outcome. A fraction is shown with its decimal
form, so that two probabilities can be compared at a glance.

Values come from the one evaluator of final states (api.final_value),
with each aggregate replaced by the value it has over the whole distribution.
"""

from __future__ import annotations

from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any

from fracas.dsl import nodes as n
from fracas.dsl.builtins import SIGNATURES
from fracas.dsl.reads import free_names
from fracas.dsl.statements import children
from fracas.dsl.ruleset import Ruleset
from fracas.interpreter.tools.aggregates import aggregate_calls, with_values
from fracas.interpreter.api import Prepared, RunError, State, final_value, show

ALIGN_AT_MOST = 60  # a value starts after the widest part shown, unless parts are wider than this


def shown_value(value: Any, digits: int = 6) -> str:
    """A value as the rules write it; a fraction with its decimal form too: 1/6 (0.166667)."""
    if isinstance(value, Fraction) and value.denominator != 1:
        return f"{show(value)} ({decimal(value, digits)})"
    return show(value)


def digits_apart(values: list[Any]) -> int:
    """The significant digits that show these numbers' decimals apart where they differ (six at least, and at
    most thirty): 11/20 and 5500001/10000000 are 0.55 and 0.5500001, not both 0.550000."""
    numbers = {value for value in values if isinstance(value, Fraction) and value.denominator != 1}
    numbers |= {Fraction(value) for value in values if type(value) is int and numbers}
    digits = 6
    while digits < 30 and len({Decimal(decimal(number, digits)) for number in numbers}) < len(numbers):
        digits += 1
    return digits


def decimal(value: Fraction, digits: int = 6) -> str:
    """Six significant digits, never written with an exponent: 0.000001, not 1e-06."""
    with localcontext() as context:
        context.prec = digits
        return format(Decimal(value.numerator) / Decimal(value.denominator), "f")


def explain(rules: Ruleset, prepared: Prepared, state: State, expect: n.Expr,
            known: dict[n.Pos, Any] | None = None) -> list[str]:
    """Lines showing every part of `expect` read in `state`, and its value; `known` gives the aggregates' (by place)."""
    values = _Values(prepared, state, known or {})
    read: list[tuple[int, str, Any, bool, n.Expr]] = []
    # The expectation itself is the line above these; its parts are shown, or it alone if it has none.
    parts = _parts_read(expect, values)
    stack: list[tuple[n.Expr, int]] = [(child, 0) for child in reversed(parts)] if parts else [(expect, 0)]
    while stack:
        node, depth = stack.pop()
        value, readable = values(node)
        read.append((depth, rules.full_text_of(node), value, readable, node))
        if readable:
            stack.extend((child, depth + 1) for child in reversed(_parts_read(node, values)))
    digits = digits_apart([value for _, _, value, readable, _ in read if readable])
    rows: list[tuple[int, str, str]] = []
    for depth, text, value, readable, node in read:
        shown = shown_value(value, digits) if readable else f"(cannot be read: {value})"
        if not _plain_literal(node) and shown != text:  # a row's name, say, reads as its value
            rows.append((depth, text, shown))
    if not rows:  # every part reads as its value (red == blue): the expectation itself is shown
        return [f"{rules.full_text_of(expect)}    {shown_value(values(expect)[0])}"]
    width = min(ALIGN_AT_MOST, max(2 * depth + len(text) for depth, text, _ in rows))
    return [f"{'  ' * depth}{text}".ljust(width) + f"    {shown}" for depth, text, shown in rows]


class _Values:
    """The value of each part in one final state, each computed once."""

    def __init__(self, prepared: Prepared, state: State, known: dict[n.Pos, Any]):
        self.prepared, self.state, self.known = prepared, state, known
        self.rules = prepared.rules
        self.found: dict[tuple[n.Pos, n.Expr], tuple[Any, bool]] = {}

    def __call__(self, node: n.Expr) -> tuple[Any, bool]:
        key = (node.pos, node)  # a part by its place, and by what it is: a node and its only part may share one
        if key not in self.found:
            self.found[key] = self._compute(node)
        return self.found[key]

    def _compute(self, node: n.Expr) -> tuple[Any, bool]:
        calls = aggregate_calls(node)
        if calls:
            node = with_values(node, [self.known[call.pos] for call in calls])
        try:
            return final_value(node, self.prepared, self.state, once=True), True
        except RunError as error:
            return error.message, False


def _parts_read(node: n.Expr, values: _Values) -> list[n.Expr]:
    """The parts of a node that were read to give its value."""
    if isinstance(node, n.Call) and node.func in SIGNATURES and SIGNATURES[node.func].aggregate:
        return []  # read outcome by outcome: no one value to show
    if not aggregate_calls(node) and not any(True for _ in free_names(node)):
        return []  # a constant, such as 1/6 * 1/4: its value says all
    if isinstance(node, n.Comprehension):
        return [node.source]  # the rest reads the comprehension's own name
    if isinstance(node, n.Index) and isinstance(node.obj, n.Name) and node.obj.name in values.rules.tables:
        return [node.index, *node.more]  # a table is looked up, not read
    if isinstance(node, n.Binary) and node.op in ("and", "or"):
        decided = values(node.left)[0] is (node.op == "or")  # false and ..., true or ...: the right is never read
        return [node.left] if decided else [node.left, node.right]
    if isinstance(node, n.Conditional):
        return [node.test, node.then if values(node.test)[0] is True else node.otherwise]
    return list(children(node))


def _plain_literal(node: n.Expr) -> bool:
    """A literal whose value reads as written: nothing to add by showing it."""
    if isinstance(node, n.Number):
        return isinstance(node.value, int)
    return isinstance(node, (n.Bool, n.Text, n.NoneLit))
