"""What an expression reads, from its syntax: the names and the field paths of names it reads.

A path is a name and the fields read from it, `("target", "upgrade")`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from fracas.dsl import nodes as n
from fracas.dsl.statements import children

Path = tuple[str, ...]


def path_of(expr: n.Expr) -> Path | None:
    """The place an expression reads, if it is a name or fields of one (`a.b.c` as ("a", "b", "c"))."""
    if isinstance(expr, n.Name):
        return (expr.name,)
    if isinstance(expr, n.Attr):
        inner = path_of(expr.obj)
        return None if inner is None else inner + (expr.name,)
    return None


def free_names(expr: n.Expr, bound: frozenset[str] = frozenset(),
               skip: Callable[[n.Expr], bool] = lambda expr: False) -> Iterable[n.Name]:
    """The names an expression reads that none of its comprehensions binds, outside the parts `skip` picks."""
    if skip(expr):
        return
    if isinstance(expr, n.Name):
        if expr.name not in bound:
            yield expr
        return
    if isinstance(expr, n.Comprehension):
        yield from free_names(expr.source, bound, skip)
        inner = bound | {expr.var}
        for part in (expr.item, expr.condition):
            if part is not None:
                yield from free_names(part, inner, skip)
        return
    for child in children(expr):
        yield from free_names(child, bound, skip)


def paths_read(expr: n.Expr, bound: frozenset[str] = frozenset()) -> Iterable[tuple[str, ...]]:
    """The names and field paths an expression reads, outside what its comprehensions bind."""
    names = path_of(expr)
    if names is not None:
        if names[0] not in bound:
            yield names
        return
    if isinstance(expr, n.Comprehension):
        yield from paths_read(expr.source, bound)
        for part in (expr.item, expr.condition):
            if part is not None:
                yield from paths_read(part, bound | {expr.var})
        return
    for child in children(expr):
        yield from paths_read(child, bound)
