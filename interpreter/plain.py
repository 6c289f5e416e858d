"""Runtime values written back as plain data (for TOML and JSON): the state files.

A state file is a scenario file, so the data reads back as the same value:
entities as tables, rows by name, a none as the text "none"; what a scenario
cannot give is an Unwritable text that the tools show and refuse to write.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from fracas.dsl import nodes as n
from fracas.dsl.diagnostics import Diagnostic
from fracas.dsl.records import replace
from fracas.dsl.ruleset import FieldInfo, Ruleset
from fracas.dsl.types import Type
from fracas.interpreter.core.errors import RunError
from fracas.interpreter.core.program import Program
from fracas.interpreter.core.state import Frozen
from fracas.interpreter.core.values import Record, Ref, RowRef, show
from fracas.interpreter.inputs import NONE_TEXT
from fracas.interpreter.runtime.bodies import Pool, Volley
from fracas.interpreter.runtime.chance import DiceValue


def plain(rules: Ruleset, value: Any, world: Frozen, type_: Type | None = None, at: n.Pos | None = None,
          program: Program | None = None) -> Any:
    """A runtime value as plain data (for TOML and JSON): entities as tables, rows by name.

    A state file is a scenario file, so the data reads back as the same
    value: a none is written "none" (see `_plain_none`); an entity met in
    two places is written in both, and reads back as two equal things;
    what a scenario cannot give (a pool, a volley) is an Unwritable text,
    shown by a run and refused by dump_state. `type_` is the declared type,
    when known; `at` the declaration a refusal points to. `program`: the
    values' own, which works out a default written as an expression.
    """
    return _Writer(rules, program).plain(value, world, type_, at)


class _Writer:
    """Writes the values of one ruleset; a refusal points at the rules' declaration."""

    def __init__(self, rules: Ruleset, program: Program | None = None):
        self.rules = rules
        self.program = program

    def plain(self, value: Any, world: Frozen, type_: Type | None = None, at: n.Pos | None = None) -> Any:
        if value is None:
            return self._plain_none(type_, at)
        if isinstance(value, (Ref, Record)):
            return self._plain_fields(world[value.id] if isinstance(value, Ref) else value, world)
        if isinstance(value, RowRef):
            return value.name
        if isinstance(value, tuple):
            item = type_.item if type_ is not None and type_.name == "list" else None
            return [self.plain(v, world, item, at) for v in value]
        if isinstance(value, (int, Fraction)) and not isinstance(value, bool):
            return self._plain_number(value, at)
        if isinstance(value, (bool, str)):
            return value
        if isinstance(value, DiceValue):
            return show(value)  # as a scenario gives it: "2d6 + 1"
        kind = "pool" if isinstance(value, Pool) else "volley" if isinstance(value, Volley) else type(value).__name__
        return self._unwritable(show(value), at, f"a {kind} cannot be written to a state file",
                                f"a state file holds what a scenario can give; keep the {kind} in a local (let) "
                                "of the action")

    def _plain_fields(self, record: Record, world: Frozen) -> dict[str, Any]:
        kind = self.rules.kinds[record.shape.kind]
        data: dict[str, Any] = {}
        for info, value in zip(kind.fields, record.values):
            if value is None and self._defaults_to_none(info, record, kind.fields, world):
                continue  # left out, the default gives none again: the file stays as a designer writes it
            data[info.name] = self.plain(value, world, info.type, info.decl.pos)
        return data

    def _defaults_to_none(self, info: FieldInfo, record: Record, fields: tuple[FieldInfo, ...],
                          world: Frozen) -> bool:
        """Whether a field left out reads back as none: its default is none, or works out to none from the fields
        before it (which the file holds as they are)."""
        if info.default is None or isinstance(info.default, n.NoneLit):
            return True
        if self.program is None:
            return False
        before = {f.name: v for f, v in zip(fields, record.values)}
        try:
            return self.program.constant(info.default, before, dict(world)) is None
        except RunError:  # the default fails for these fields: left to the refusal
            return False

    def _plain_none(self, type_: Type | None, at: n.Pos | None) -> Any:
        """The text "none", but where it would read back as a text (text?) or the type is not known."""
        if type_ is None or type_.name == "any":
            return self._unwritable(NONE_TEXT, at, "this none cannot be written: its type is not known here",
                                    "put the list in a field of a kind, whose declared type says how to write none")
        if type_.name == "text":
            return self._unwritable(NONE_TEXT, at,
                                    'a text? that is none cannot be written: "none" would read back as a text',
                                    "a text? field whose default is none can be none: the state file leaves it out")
        return NONE_TEXT

    def _plain_number(self, value: int | Fraction, at: n.Pos | None) -> int | str:
        try:
            text = str(value)
        except ValueError:  # past Python's limit of digits, which would stop the file being read back
            return self._unwritable("...", at, "a number of too many digits cannot be written to a state file",
                                    "check the rule that makes it so large")
        return value if isinstance(value, int) else text

    def _unwritable(self, shown: str, at: n.Pos | None, message: str, hint: str) -> Unwritable:
        place = self.rules.source(at).at(at, message, hint) if at is not None else Diagnostic("", 0, 0, message, hint)
        return Unwritable(shown, place)


class Unwritable(str):
    """A value a state file cannot hold: a text to show, and why it cannot be written (no TOML path yet)."""

    problem: Diagnostic

    def __new__(cls, shown: str, problem: Diagnostic) -> Unwritable:
        text = super().__new__(cls, shown)
        text.problem = problem
        return text

    def at_path(self, where: str, path: str) -> Diagnostic:
        """The problem, named by the TOML path of the value (and a file, if the rules gave none)."""
        return replace(self.problem, path=self.problem.path or path, message=f"{where}: {self.problem.message}")

