"""A checked ruleset completed with what the checker learnt that the syntax could not say.

A dice literal means a roll, except where a value of type dice is wanted,
where it describes one (`damage: dice = 1d6 + 1`): there it is replaced by
what it means, a call of the builtin `dice`. A record literal takes its kind
from the type wanted where it is written, and carries it from then on
(`RecordLit.kind`); a field read takes the kind of the record it reads,
where that is known (`Attr.kind`). Only the checker knows the types, so it names these
nodes, by where they are written, and this module rebuilds every
declaration that holds one. Nodes are frozen, so a node holding a replaced
one is rebuilt too.
"""

from __future__ import annotations

from typing import Any

from fracas.dsl import nodes as n
from fracas.dsl import records
from fracas.dsl import walk
from fracas.dsl.records import field, record
from fracas.dsl.ruleset import Ruleset


@record
class Learnt:
    """What the checker learnt of some nodes, each named by where it is written (no two are written at one place)."""

    described: dict[n.Pos, n.Call] = field(default_factory=dict)  # a dice literal that describes: the call it means
    record_kinds: dict[n.Pos, str] = field(default_factory=dict)  # a record literal: its kind
    # A field read: the kind of the record read ("" where a read checked twice found two kinds).
    field_kinds: dict[n.Pos, str] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.described or self.record_kinds or self.field_kinds)

    def field_read(self, pos: n.Pos, kind: str) -> None:
        self.field_kinds[pos] = kind if self.field_kinds.get(pos, kind) == kind else ""

    def complete(self, value: Any) -> Any:
        """A node (or a tuple, a dict, or a dataclass holding nodes) with what was learnt written into it."""
        if isinstance(value, n.Node):
            return self._node(value)
        if isinstance(value, tuple):
            items = tuple(self.complete(item) for item in value)
            return value if all(a is b for a, b in zip(items, value)) else items
        if isinstance(value, dict):
            return {key: self.complete(item) for key, item in value.items()}
        if records.is_record(value):
            # What a ruleset keeps besides nodes (a kind's fields, a parameter, a constraint) may hold some.
            changes = {}
            for f in records.fields(value):
                old = getattr(value, f.name)
                new = self.complete(old)
                if new is not old:
                    changes[f.name] = new
            return records.replace(value, **changes) if changes else value
        return value

    def _node(self, node: n.Node) -> Any:
        # Recursion, as the checker's own walk: a tree deeper than Python allows was refused before.
        if isinstance(node, n.Dice):
            return self.described.get(node.pos, node)
        rebuilt = walk.map_children(node, self._node)
        if isinstance(node, n.RecordLit) and node.pos in self.record_kinds:
            rebuilt = records.replace(rebuilt, kind=self.record_kinds[node.pos])
        elif isinstance(node, n.Attr) and self.field_kinds.get(node.pos):
            rebuilt = records.replace(rebuilt, kind=self.field_kinds[node.pos])
        return rebuilt


def complete_rules(rules: Ruleset, learnt: Learnt) -> None:
    """Every declaration, constraint and example of `rules` completed with what was learnt, in place."""
    if not learnt:
        return
    for f in records.fields(rules):
        if f.init and f.name not in ("sources", "warnings", "limits"):
            setattr(rules, f.name, learnt.complete(getattr(rules, f.name)))
