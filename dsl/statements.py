"""What a body of statements holds, read from its syntax: its expressions and the calls it makes."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from fracas.dsl import nodes as n


def children(node: n.Node) -> Iterable[n.Expr]:
    """The expressions directly inside a node (an expression or a statement), in the order written."""
    for field in dataclasses.fields(node):
        value = getattr(node, field.name)
        if isinstance(value, n.Expr):
            yield value
        elif isinstance(value, tuple):
            for item in value:
                if isinstance(item, n.Expr):
                    yield item
                elif isinstance(item, (n.Keyword, n.FieldInit)):
                    yield item.value


def expressions(stmts: Iterable[n.Stmt]) -> Iterable[n.Expr]:
    """Every expression a block's statements hold directly or in their inner blocks, in the order written."""
    for stmt in stmts:
        yield from children(stmt)
        for field in dataclasses.fields(stmt):
            value = getattr(stmt, field.name)
            if isinstance(value, tuple):
                yield from expressions(item for item in value if isinstance(item, n.Stmt))


def calls(expr: n.Expr) -> Iterable[n.Call]:
    """The calls inside an expression, itself included."""
    stack: list[object] = [expr]
    while stack:  # a stack, not recursion: expressions nest as deep as the nesting limit allows
        node = stack.pop()
        if isinstance(node, n.Call):
            yield node
        if isinstance(node, tuple):
            stack.extend(node)
        elif isinstance(node, n.Node):
            stack.extend(getattr(node, f.name) for f in dataclasses.fields(node) if f.name != "pos")


def step_value(stmt: n.Stmt) -> n.Call | None:
    """The call a `let`, assignment or `return` takes its whole value from, if it is one (a step's, maybe)."""
    if isinstance(stmt, (n.Let, n.Assign, n.Return)) and isinstance(stmt.value, n.Call):
        return stmt.value
    return None
