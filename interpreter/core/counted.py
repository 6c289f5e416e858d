"""Draws of a pool that the rest of their step reads only by counting its bodies.

After `pool = fire(shots, pool)`, a volley of a few dozen shots leaves a hundred pools or more, each the
state of a branch of its own: bodies that took a point of damage or two. Where every later read of the
name counts bodies (lethal, living, count_bodies, len: directly, or through a fn whose parameter is read
only so), pools with as many lethal and as many living bodies of each owner and tag are one pool to the
rest of the step. The exact engine then draws the pool as those counts (chance.Fire's `counted`): the
branches that differ only in damage short of lethal are one, through every block after the volley.

Only a draw outside loops is taken (the next pass reads the name again, before the draw), and only in a run
that does not show the action's names at its end (odds of outcomes alone): a final state shows its pool
whole. What this cannot tell (the name read any other way, passed to a step, stored) keeps the pool whole.

It rests on two facts of the language, which a new construct must keep or tell this module of: a local is
read only where a Name node names it (or an assignment's target, changed in place), and nothing but the
whole final state (and an outcome, never counted) shows a local once the run has ended.
"""

from __future__ import annotations

from collections.abc import Iterator

from fracas.dsl import nodes as n
from fracas.dsl.ruleset import Ruleset
from fracas.dsl.walk import children

# Builtins that read a pool only by counting its bodies (of an owner, of a tag), and the parameter that takes it.
COUNTING = {"lethal": "pool", "living": "pool", "count_bodies": "pool", "len": "items"}
# Builtins whose value is a pool drawn by chance.
POOL_DRAWS = frozenset({"fire"})

def counted_draws(rules: Ruleset) -> frozenset[n.Pos]:
    """Where the draws of pools are written (their calls) whose value the rest of their step or action reads
    only by counting its bodies."""
    params = _CountingParams(rules)
    return frozenset(call.pos for decl in (*rules.actions.values(), *rules.steps.values())
                     for name, call, after in _draws_outside_loops(decl.body, rules, ())
                     if all(_read_only_by_counting(stmt, name, params) for stmt in after))


def _draws_outside_loops(body: tuple[n.Stmt, ...], rules: Ruleset,
                         later: tuple[n.Stmt, ...]) -> Iterator[tuple[str, n.Call, tuple[n.Stmt, ...]]]:
    """Each statement that sets a name to a drawn pool, outside loops, with every statement that may run after
    it (`later`: those after the statements that hold `body`)."""
    for index, stmt in enumerate(body):
        after = body[index + 1:] + later
        if isinstance(stmt, n.If):
            yield from _draws_outside_loops(stmt.then, rules, after)
            yield from _draws_outside_loops(stmt.otherwise, rules, after)
            continue
        if isinstance(stmt, n.Let):
            name = stmt.name
        elif isinstance(stmt, n.Assign) and stmt.op == "=" and len(stmt.target) == 1 and stmt.index is None:
            name = stmt.target[0]
        else:
            continue  # a loop's draws among the rest: its next pass reads the name before drawing again
        value = stmt.value
        if (isinstance(value, n.Call) and value.func in POOL_DRAWS and value.func not in rules.fns
                and name not in rules.outcomes):  # an outcome is shown at the end, whole
            yield name, value, after


class _CountingParams:
    """Which parameters of the rules' fns their bodies read only by counting bodies, found when first asked."""

    def __init__(self, rules: Ruleset):
        self.rules = rules
        self.found: dict[tuple[str, str], bool] = {}

    def counts(self, fn: str, param: str) -> bool:
        key = (fn, param)
        if key not in self.found:
            self.found[key] = False  # a fn that calls itself with the parameter: not known to count, so not
            decl = self.rules.fns[fn]
            body: tuple[n.Node, ...] = (decl.body,) if decl.body is not None else decl.block or ()
            self.found[key] = all(_read_only_by_counting(node, param, self) for node in body)
        return self.found[key]


def _read_only_by_counting(node: n.Node, name: str, params: _CountingParams) -> bool:
    """Whether every read of `name` in the node counts bodies of its value (a name set anew is still taken
    as the same: it errs toward keeping a pool whole)."""
    if isinstance(node, n.Name):
        return node.name != name
    if isinstance(node, n.Assign) and node.target[0] == name and (node.op != "=" or len(node.target) > 1
                                                                  or node.index is not None):
        return False  # changed in place, or a field of it set: read whole
    if isinstance(node, n.Call):
        return all(_counted_at(node, param, value, name, params) or _read_only_by_counting(value, name, params)
                   for param, value in _arguments(node, params.rules))
    return all(_read_only_by_counting(child, name, params) for child in children(node))


def _counted_at(call: n.Call, param: str | None, value: n.Expr, name: str, params: _CountingParams) -> bool:
    """Whether the argument is the name, given where the call only counts its bodies."""
    if not (isinstance(value, n.Name) and value.name == name) or param is None:
        return False
    if call.func in params.rules.fns:
        return params.counts(call.func, param)
    return COUNTING.get(call.func) == param


def _arguments(call: n.Call, rules: Ruleset) -> Iterator[tuple[str | None, n.Expr]]:
    """Each argument of a call with the parameter it is given to, where known: a fn's by its declaration,
    a counting builtin's first; None for the rest."""
    decl = rules.fns.get(call.func)
    names = ([p.name for p in decl.params] if decl is not None
             else [COUNTING[call.func]] if call.func in COUNTING else [])
    for index, value in enumerate(call.args):
        yield (names[index] if index < len(names) else None), value
    for keyword in call.keywords:
        yield keyword.name, keyword.value
