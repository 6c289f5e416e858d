"""One walk over the syntax tree reaches every kind of node, and a checked tree carries what the checker learnt.

fracas.dsl.walk is driven by the nodes' fields: these tests hold it to every
node class in fracas.dsl.nodes, so that a new kind of node, or a new field
holding nodes, is walked without anyone remembering to add it.
"""

from __future__ import annotations

import dataclasses
import inspect
import pickle
import re

import pytest

from fracas import dsl
from fracas.dsl import nodes as n
from fracas.dsl import walk
from fracas.dsl.parse import parse_expression

NODE_CLASSES = {name: cls for name, cls in inspect.getmembers(n, inspect.isclass)
                if issubclass(cls, n.Node) and cls.__module__ == n.__name__}
ABSTRACT = {"Node", "Expr", "Stmt", "Decl"}  # no node is made of these alone
MARK = n.Pos(99, 1, 99, 2, "mark")


def node_fields(cls: type) -> list[tuple[str, str]]:
    """The fields of a node class whose type names a node class: (field, the type as written)."""
    found = []
    for f in dataclasses.fields(cls):
        named = set(re.findall(r"[A-Za-z_]+", f.type)) & set(NODE_CLASSES)
        if f.name != "pos" and named:
            found.append((f.name, f.type))
    return found


def held(written: str) -> tuple[type, object]:
    """A node of the class a field's type names, and the value that holds it as the type says (alone or in tuples)."""
    name = next(word for word in re.findall(r"[A-Za-z_]+", written) if word in NODE_CLASSES)
    node = NODE_CLASSES[name](MARK)
    if written.startswith("tuple[tuple["):
        return node, (("name", node),)
    if written.startswith("tuple["):
        return node, (node,)
    return node, node


FIELDS = [(cls, field, written) for cls in NODE_CLASSES.values() for field, written in node_fields(cls)]


@pytest.mark.parametrize("cls, field, written", FIELDS, ids=[f"{c.__name__}.{f}" for c, f, _ in FIELDS])
def test_every_field_that_holds_nodes_is_walked(cls: type, field: str, written: str) -> None:
    node, value = held(written)
    parent = cls(n.NOWHERE, **{field: value})
    assert any(child is node for child in walk.children(parent))
    assert any(child is node for child in walk.descendants(parent))
    other = n.Name(n.NOWHERE, name="other")
    changed = walk.map_children(parent, lambda child: other if child is node else child)
    assert any(child is other for child in walk.children(changed))
    assert not any(child is node for child in walk.children(changed))


def test_every_node_class_is_reached_from_a_module() -> None:
    reached: set[str] = set()
    todo = ["Module"]
    while todo:
        name = todo.pop()
        if name in reached:
            continue
        reached.add(name)
        for _, written in node_fields(NODE_CLASSES[name]):
            for word in set(re.findall(r"[A-Za-z_]+", written)) & set(NODE_CLASSES):
                base = NODE_CLASSES[word]
                todo.extend(other for other, cls in NODE_CLASSES.items() if issubclass(cls, base))
    assert set(NODE_CLASSES) - ABSTRACT - reached == set()


def test_descendants_give_each_node_before_its_parts_in_the_order_written() -> None:
    expr = parse_expression("a + b * c", "<test>")
    order = [node.name if isinstance(node, n.Name) else node.op for node in walk.descendants(expr)]
    assert order == ["+", "a", "*", "b", "c"]


def test_a_node_with_nothing_changed_is_the_same_node() -> None:
    expr = parse_expression("max(1, x.y) + [2, 3][0]", "<test>")
    assert walk.map_children(expr, lambda child: child) is expr


RECORDS = """
kind point { x: int  y: int = 0 }
outcome where: point = {x: 1}
action go(p: point) {
  where = {x: p.x + 1, y: 2}
}
"""


def record_literals(rules: dsl.Ruleset) -> list[n.RecordLit]:
    found = [node for decl in rules.actions.values() for node in walk.descendants(decl)]
    found += [node for typed in rules.outcomes.values() for node in walk.descendants(typed.value)]
    return [node for node in found if isinstance(node, n.RecordLit)]


def test_a_checked_record_literal_carries_its_kind() -> None:
    rules = dsl.loads(RECORDS)
    literals = record_literals(rules)
    assert len(literals) == 2
    assert {literal.kind for literal in literals} == {"point"}


def test_a_checked_ruleset_keeps_its_record_kinds_through_a_pickle() -> None:
    rules = pickle.loads(pickle.dumps(dsl.loads(RECORDS)))
    assert {literal.kind for literal in record_literals(rules)} == {"point"}
