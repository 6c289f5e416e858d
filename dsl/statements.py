"""What a body of statements holds, read from its syntax: its expressions, its inner blocks and the calls it makes."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from fracas.dsl import nodes as n
from fracas.dsl import walk

_WRAPPERS = (n.Keyword, n.FieldInit)  # a name given with a value: the value is the expression


def children(node: n.Node) -> Iterator[n.Expr]:
    """The expressions directly inside a node (an expression or a statement), in the order written."""
    for child in walk.children(node):
        if isinstance(child, n.Expr):
            yield child
        elif isinstance(child, _WRAPPERS):
            yield child.value


def map_children(node: n.Node, change: Callable[[n.Expr], Any]) -> Any:
    """The node with each expression `children` yields replaced by change(expression)."""
    def one(child: n.Node) -> Any:
        if isinstance(child, _WRAPPERS):
            return walk.map_children(child, change)
        return change(child) if isinstance(child, n.Expr) else child

    return walk.map_children(node, one)


def blocks(stmt: n.Stmt) -> Iterator[tuple[n.Stmt, ...]]:
    """The blocks a statement holds (an if's two, a loop's body), each a scope of its own."""
    for name in walk.field_names(type(stmt)):
        value = getattr(stmt, name)
        if isinstance(value, tuple) and value and all(isinstance(item, n.Stmt) for item in value):
            yield value


def statements(stmts: Iterable[n.Stmt]) -> Iterator[n.Stmt]:
    """Every statement of a block, those of its inner blocks too, each before the ones inside it."""
    stack = list(reversed(tuple(stmts)))
    while stack:
        stmt = stack.pop()
        yield stmt
        stack.extend(reversed([inner for block in blocks(stmt) for inner in block]))


def expressions(stmts: Iterable[n.Stmt]) -> Iterator[n.Expr]:
    """Every expression a block's statements hold directly or in their inner blocks, in the order written."""
    for stmt in statements(stmts):
        yield from children(stmt)


def calls(expr: n.Expr) -> Iterator[n.Call]:
    """The calls inside an expression, itself included."""
    return (node for node in walk.descendants(expr) if isinstance(node, n.Call))


def step_value(stmt: n.Stmt) -> n.Call | None:
    """The call a `let`, assignment or `return` takes its whole value from, if it is one (a step's, maybe)."""
    if isinstance(stmt, (n.Let, n.Assign, n.Return)) and isinstance(stmt.value, n.Call):
        return stmt.value
    return None
