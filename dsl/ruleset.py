"""A checked ruleset: the declarations of a rules file, resolved and typed."""

from __future__ import annotations

from typing import Any

from fracas.dsl import nodes as n
from fracas.dsl.diagnostics import Diagnostic, SourceFile
from fracas.dsl.limits import DEFAULT, Limits
from fracas.dsl.records import field, record
from fracas.dsl.types import Type, type_from


@record(frozen=True, slots=True)
class FieldInfo:
    """One field of a kind, with its type resolved: what a record of the kind holds there."""

    name: str
    type: Type
    default: n.Expr | None
    decl: n.FieldDecl


@record(frozen=True, slots=True)
class Constraint:
    """A condition a valid value meets: a `require`, or a field's, parameter's or input's bounds.

    `reads` are the paths of names and fields the test reads, in the order
    written (("filled",), ("track", "size")): an error names their values,
    and the first one given in a scenario is where it points.
    """

    test: n.Expr
    pos: n.Pos
    text: str  # as the rules write it: "filled in 0..track.size"
    message: str = ""  # the designer's own words, if any
    reads: tuple[tuple[str, ...], ...] = ()


@record(frozen=True, slots=True)
class KindInfo:
    """A kind's fields and constraints, resolved once so that runtimes need not read its declaration."""

    name: str
    fields: tuple[FieldInfo, ...]
    decl: n.KindDecl
    constraints: tuple[Constraint, ...] = ()

    def field(self, name: str) -> FieldInfo | None:
        for info in self.fields:
            if info.name == name:
                return info
        return None

    @property
    def field_names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)


@record(frozen=True, slots=True)
class Typed:
    """A parameter or an outcome: a name with a type and a value expression."""

    name: str
    type: Type
    value: n.Expr
    decl: n.Decl


@record
class Ruleset:
    """What the checker makes of a rules file: its declarations by name, typed, for a runtime to run."""

    path: str
    title: str
    sources: dict[str, SourceFile]
    kinds: dict[str, KindInfo] = field(default_factory=dict)
    rows: dict[str, n.RowDecl] = field(default_factory=dict)
    tables: dict[str, n.TableDecl] = field(default_factory=dict)
    table_types: dict[str, Type] = field(default_factory=dict)
    params: dict[str, Typed] = field(default_factory=dict)
    choices: dict[str, Typed] = field(default_factory=dict)
    outcomes: dict[str, Typed] = field(default_factory=dict)
    modifiers: dict[str, n.ModifierDecl] = field(default_factory=dict)
    fns: dict[str, n.FnDecl] = field(default_factory=dict)
    fn_types: dict[str, Type] = field(default_factory=dict)
    steps: dict[str, n.StepDecl] = field(default_factory=dict)
    actions: dict[str, n.StepDecl] = field(default_factory=dict)
    action_locals: dict[str, dict[str, Type]] = field(default_factory=dict)
    examples: tuple[n.ExampleDecl, ...] = ()
    constraints: tuple[Constraint, ...] = ()  # on the parameters and choices
    requires: tuple[n.Require, ...] = ()  # as written at the top of the file (and of the files it extends)
    action_constraints: dict[str, tuple[Constraint, ...]] = field(default_factory=dict)  # on an action's inputs
    assigned_fields: set[str] = field(default_factory=set)  # every field name a statement assigns, of any kind
    bases: tuple[str, ...] = ()  # the files this one extends
    warnings: tuple[Diagnostic, ...] = ()  # what `fracas check` says without refusing the rules
    limits: Limits = DEFAULT
    # What a runtime derives from these rules once (compiled closures): not part of their meaning.
    # Not an argument of __init__, so a ruleset made by replace starts with its own.
    runtime_cache: dict[str, Any] = field(default_factory=dict, init=False, compare=False, repr=False)
    # What a runtime derived from these rules and keeps with them, pickled where they are
    # (the checked cache): plain data, checked by whoever reads it back. Not an argument of
    # __init__ either: a ruleset made by replace has other rules to derive from.
    kept: dict[str, Any] = field(default_factory=dict, init=False, compare=False, repr=False)
    # The file in the user's cache folder this ruleset was loaded from or stored in, if any.
    cache_name: str | None = field(default=None, init=False, compare=False, repr=False)

    def __getstate__(self) -> dict[str, Any]:
        # Closures do not pickle; a copy sent elsewhere compiles again (or restores what is kept).
        return {**self.__dict__, "runtime_cache": {}}

    def rows_of(self, kind: str) -> list[str]:
        """The names of a kind's rows (an enum's values), in the order declared."""
        return [name for name, row in self.rows.items() if row.kind == kind]

    def source(self, pos: n.Pos) -> SourceFile:
        return self.sources.get(pos.path) or SourceFile(pos.path or self.path, "")

    def text_of(self, node: n.Node) -> str:
        """The source text a node was written as (its first line, if it spans several)."""
        pos = node.pos
        line = self.source(pos).line(pos.line)
        if pos.end_line == pos.line and pos.end_column > pos.column:
            return line[pos.column - 1 : pos.end_column - 1]
        return line[pos.column - 1 :].strip() + " ..."

    def full_text_of(self, node: n.Node) -> str:
        """The source text a node was written as, all of it: its lines joined by a space, comments left out."""
        pos = node.pos
        source = self.source(pos)
        if pos.end_line <= pos.line:
            return self.text_of(node)
        lines = [source.line(number) for number in range(pos.line, pos.end_line + 1)]
        lines[-1] = lines[-1][: pos.end_column - 1]
        lines[0] = lines[0][pos.column - 1 :]
        return " ".join(part for part in (line[: comment_start(line)].strip() for line in lines) if part)

    def param_types(self, decl: n.StepDecl | n.FnDecl | n.ModifierDecl) -> dict[str, Type]:
        return {p.name: type_from(p.type, self.kinds) for p in decl.params}

    def members(self, kind: str) -> list[str] | None:
        """The rows of a kind without fields that has rows (an enum): its only values, a table making none of
        them; None for any other kind."""
        info = self.kinds.get(kind)
        if info is None or info.fields:
            return None
        return self.rows_of(kind) or None

    @property
    def default_action(self) -> str | None:
        return next(iter(self.actions), None)


def comment_start(line: str) -> int:
    """Where the comment of a line of rules begins (its `#`, outside any text), or the line's length."""
    return _scanned(line)[0]


def read_as_rules_after(start: str) -> bool:
    """Whether what follows this start of a line is read as rules: neither in its comment nor in a text it opens."""
    at, quoted = _scanned(start)
    return at == len(start) and not quoted


def _scanned(line: str) -> tuple[int, bool]:
    """Where the line's comment begins (or its length), and whether a text is open at its end."""
    quoted = False
    for index, char in enumerate(line):
        if char == '"' and (index == 0 or line[index - 1] != "\\"):
            quoted = not quoted
        elif char == "#" and not quoted:
            return index, False
    return len(line), quoted

