"""Flow typing: where an optional value is known not to be none.

A value of type `T?` is used as a `T` only where the rules have checked it:
inside `if x != none { ... }`, on the right of `x != none and ...`, after
`if x == none { return }`. The checker asks these functions what a
condition proves and what a block may change; they read the syntax only.

A place is a path: a name and the fields read from it, `("target", "upgrade")`.
"""

from __future__ import annotations

from collections.abc import Collection

from fracas.dsl import nodes as n
from fracas.dsl.reads import Path, path_of
from fracas.dsl.records import record
from fracas.dsl.statements import statements, step_value



def proven(condition: n.Expr, holds: bool) -> frozenset[Path]:
    """The places a condition proves not none, when it holds (holds=True) or when it does not."""
    if isinstance(condition, n.Unary) and condition.op == "not":
        return proven(condition.operand, not holds)
    if isinstance(condition, n.Binary):
        op = condition.op
        if op in ("and", "or"):
            left, right = proven(condition.left, holds), proven(condition.right, holds)
            # Both hold, or (when an `or` fails) both fail: what either proves. Else only what both do.
            return left | right if (op == "and") == holds else left & right
        if op in ("==", "!="):
            for place, other in ((condition.left, condition.right), (condition.right, condition.left)):
                path = path_of(place)
                if isinstance(other, n.NoneLit) and path is not None and (op == "!=") == holds:
                    return frozenset({path})
    return frozenset()


@record(frozen=True)
class Changes:
    """What a block may change: places it assigns, and whether it calls a step (which may change any field)."""

    places: frozenset[Path] = frozenset()
    calls: bool = False


def changes(stmts: tuple[n.Stmt, ...], steps: Collection[str] = ()) -> Changes:
    """`steps`: the names of the steps, whose value a `let` or an assignment may take (a call too)."""
    places: set[Path] = set()
    calls = False
    for stmt in statements(stmts):
        if isinstance(stmt, n.Assign):
            places.add(stmt.target)
        if isinstance(stmt, n.CallStmt):
            calls = True
        value = step_value(stmt)
        if value is not None and value.func in steps:
            calls = True
    return Changes(frozenset(places), calls)


def always_leaves(stmts: tuple[n.Stmt, ...]) -> bool:
    """Whether a block never reaches its end: a `stop`, `return` or `break` on every way through it."""
    for stmt in stmts:
        if isinstance(stmt, (n.Stop, n.Return, n.Break)):
            return True
        if isinstance(stmt, n.If) and always_leaves(stmt.then) and always_leaves(stmt.otherwise):
            return True
    return False


def breaks(stmts: tuple[n.Stmt, ...]) -> bool:
    """Whether a loop's body has a `break` of its own (not one of a loop inside it)."""
    stack: list[n.Stmt] = list(stmts)
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, n.Break):
            return True
        if isinstance(stmt, n.If):
            stack.extend(stmt.then)
            stack.extend(stmt.otherwise)
    return False
