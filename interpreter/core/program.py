"""A checked ruleset with one choice of parameter values: the tables the engine reads.

The values come structured already (fracas.interpreter.inputs turns what a
scenario, an example or the command line gives into them); the engine, the
constraints and the evaluator of final states only read them.
"""

from __future__ import annotations

from typing import Any

from fracas.dsl import nodes as n
from fracas.dsl.ruleset import Ruleset
from fracas.interpreter.core.resolve import evaluate
from fracas.interpreter.core.state import Frozen
from fracas.interpreter.core.values import Record, RowRef, Shape


class Program:
    """Rules plus the values of their parameters, choices and rows; never changed once built.

    `params` and `rows` are filled by fracas.interpreter.inputs in the order
    the rules declare them (a default or a row may read those before it),
    before the program is handed to anything else.
    """

    def __init__(self, rules: Ruleset, params: dict[str, Any], rows: dict[str, Record]):
        self.rules = rules
        self.shapes = {name: Shape(name, kind.field_names) for name, kind in rules.kinds.items()}
        self.params = params
        self.rows = rows
        self.tables: dict[str, dict[tuple[str, str], Any]] = {}
        self.table_defaults: dict[str, Any] = {}
        for name, table in rules.tables.items():
            kind = rules.table_types[name].name
            self.tables[name] = {(row.name, column): _cell(cell, kind)
                                 for row in table.rows for column, cell in zip(table.columns, row.cells)}
            if table.default is not None:
                self.table_defaults[name] = _cell(table.default, kind)
        # A memo, not a table: the states and records fracas.interpreter.core.constraints has checked.
        self.constraints_met: dict[Any, Any] = {}
        # A memo too: where a sampled run of an action from a start state stands at its first chance
        # (fracas.interpreter.core.resolve.resolve_one).
        self.before_chance: dict[Any, Any] = {}
        # Made when first needed: constraints.check_after's quick test that a state breaks no constraint (with the
        # test of a record's start values, and of one field changed: see constraints.clear_test).
        self.clear_test: tuple[Any, ...] | None = None

    def row_ref(self, name: str) -> RowRef | None:
        """The reference to the row of this name (None: the rules have none); made when asked for, as a scenario
        names a few rows of the many the rules may have."""
        decl = self.rules.rows.get(name)
        return None if decl is None else RowRef(decl.kind, name)

    def constant(self, expr: n.Expr, frame: dict[str, Any] | None = None,
                 world: dict[str, Record] | None = None) -> Any:
        """A value that needs no chance: a parameter, a row field, a default (which may read the entities made so far)."""
        return evaluate(self, expr, frame or {}, world or {})

    def outcome_defaults(self) -> Frozen:
        return Frozen({name: self.constant(t.value) for name, t in self.rules.outcomes.items()})


def _cell(cell: n.Number | n.Name | n.NoneLit, kind: str) -> Any:
    """A table's cell as a value: a number, a row of the table's kind named, or none (a table of T?)."""
    if isinstance(cell, n.NoneLit):
        return None
    return RowRef(kind, cell.name) if isinstance(cell, n.Name) else cell.value
