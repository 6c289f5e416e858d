"""The one walk over the syntax tree: a node's children, a node with other children, every node below one.

Driven by the nodes' dataclass fields, so that a new kind of node is walked
without a word here: a field that holds a node, or a tuple of them (at any
depth, as an example's `sets` of name and value), holds children. Positions
are not nodes. Callers that give statements and expressions a meaning of
their own (the checker, the code generator) dispatch on the kinds they know
and come here for the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from fracas.dsl import nodes as n
from fracas.dsl import records

_FIELDS: dict[type, tuple[str, ...]] = {}  # a node class -> the names of its fields but its position


def field_names(kind: type) -> tuple[str, ...]:
    """The fields of a node class that may hold children: all but its position."""
    names = _FIELDS.get(kind)
    if names is None:
        names = _FIELDS[kind] = tuple(f.name for f in records.fields(kind) if f.name != "pos")
    return names


def children(node: n.Node) -> Iterator[n.Node]:
    """The nodes a node holds directly, in the order of its fields (the order written)."""
    for name in field_names(type(node)):
        value = getattr(node, name)
        if isinstance(value, n.Node):
            yield value
        elif isinstance(value, tuple):
            yield from _in_tuple(value)


def _in_tuple(items: tuple[Any, ...]) -> Iterator[n.Node]:
    for item in items:
        if isinstance(item, n.Node):
            yield item
        elif isinstance(item, tuple):
            yield from _in_tuple(item)


def map_children(node: n.Node, change: Callable[[n.Node], Any]) -> Any:
    """The node with each child replaced by change(child); the node itself when nothing changed."""
    changes = {}
    for name in field_names(type(node)):
        value = getattr(node, name)
        new = _mapped(value, change)
        if new is not value:
            changes[name] = new
    return records.replace(node, **changes) if changes else node


def _mapped(value: Any, change: Callable[[n.Node], Any]) -> Any:
    if isinstance(value, n.Node):
        return change(value)
    if isinstance(value, tuple):
        items = tuple(_mapped(item, change) for item in value)
        return value if all(a is b for a, b in zip(items, value)) else items
    return value


def descendants(root: n.Node | tuple[Any, ...]) -> Iterator[n.Node]:
    """Every node from root down (a tuple of nodes: each of them), each before its children, in the order written."""
    # A stack, not recursion: expressions nest as deep as the nesting limit allows.
    stack: list[n.Node] = list(reversed(list(_in_tuple(root)))) if isinstance(root, tuple) else [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(list(children(node))))
