"""Nodes of a checked ruleset replaced by others: what the checker learnt that the syntax could not say.

A dice literal means a roll, except where a value of type dice is wanted,
where it describes one (`damage: dice = 1d6 + 1`). Only the checker knows
the types, so it names the literals that describe, and this module rebuilds
every declaration that holds one, with the literal replaced by what it means
(a call of the builtin `dice`). Nodes are frozen, so a node holding a
replaced one is rebuilt too; a record literal rebuilt keeps its kind.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from fracas.dsl import nodes as n
from fracas.dsl.ruleset import Ruleset

Replacements = dict[int, tuple[n.Node, n.Node]]  # id of a node -> (that node, what stands for it)


def replace_nodes(rules: Ruleset, replacements: Replacements) -> None:
    """Every declaration of `rules` with the nodes named in `replacements` replaced, in place."""
    if not replacements:
        return
    rebuild = _Rebuilder(rules, replacements)
    for table in (rules.kinds, rules.rows, rules.params, rules.choices, rules.outcomes, rules.modifiers,
                  rules.fns, rules.steps, rules.actions):
        for name, value in table.items():
            table[name] = rebuild(value)
    rules.examples = rebuild(rules.examples)


class _Rebuilder:
    def __init__(self, rules: Ruleset, replacements: Replacements):
        self.rules = rules
        self.replacements = replacements

    def __call__(self, value: Any) -> Any:
        # A stack would spare the recursion, but the checker has walked these trees recursively already.
        if isinstance(value, tuple):
            items = tuple(self(item) for item in value)
            return value if all(a is b for a, b in zip(items, value)) else items
        if not dataclasses.is_dataclass(value) or isinstance(value, (n.Pos, type)):
            return value
        found = self.replacements.get(id(value))
        if found is not None and found[0] is value:
            return found[1]
        changes = {}
        for field in dataclasses.fields(value):
            if field.name == "pos":
                continue
            old = getattr(value, field.name)
            new = self(old)
            if new is not old:
                changes[field.name] = new
        if not changes:
            return value
        rebuilt = dataclasses.replace(value, **changes)
        kind = self.rules.record_kinds.get(id(value))
        if kind is not None and isinstance(value, n.RecordLit):
            self.rules.record_kinds[id(rebuilt)] = kind
        return rebuilt
