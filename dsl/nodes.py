"""The abstract syntax tree: frozen dataclasses that carry source positions.

Nodes are immutable so a checked module can be shared by every run, cached,
and used as a dictionary key by the engines.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from fractions import Fraction
from functools import cache


@cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


def _reduce(node: object) -> tuple[type, tuple[object, ...]]:
    # Rebuilt through __init__ when unpickled: the generic __setstate__ that
    # dataclasses gives frozen slotted classes looks up the fields of every
    # object, and the parse cache reads tens of thousands of them per load.
    return type(node), tuple(getattr(node, name) for name in _field_names(type(node)))


@dataclass(frozen=True, slots=True)
class Pos:
    line: int
    column: int
    end_line: int
    end_column: int
    path: str = ""

    __reduce__ = _reduce

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"


NOWHERE = Pos(0, 0, 0, 0)


@dataclass(frozen=True, slots=True)
class Node:
    pos: Pos = field(compare=False, repr=False)

    __reduce__ = _reduce


# ---- types ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TypeExpr(Node):
    name: str = ""  # "list" for list types
    item: TypeExpr | None = None  # element type of a list
    optional: bool = False


# ---- expressions --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Expr(Node):
    pass


@dataclass(frozen=True, slots=True)
class Number(Expr):
    value: int | Fraction = 0


@dataclass(frozen=True, slots=True)
class Dice(Expr):
    count: int = 1
    sides: int = 6


@dataclass(frozen=True, slots=True)
class Text(Expr):
    value: str = ""


@dataclass(frozen=True, slots=True)
class Bool(Expr):
    value: bool = False


@dataclass(frozen=True, slots=True)
class NoneLit(Expr):
    pass


@dataclass(frozen=True, slots=True)
class Name(Expr):
    name: str = ""


@dataclass(frozen=True, slots=True)
class Attr(Expr):
    obj: Expr = None  # type: ignore[assignment]
    name: str = ""
    kind: str = ""  # the kind of record whose field it reads, where the checker knows it: set by the checker


@dataclass(frozen=True, slots=True)
class Index(Expr):
    obj: Expr = None  # type: ignore[assignment]
    index: Expr = None  # type: ignore[assignment]
    more: tuple[Expr, ...] = ()  # further keys, for a table


@dataclass(frozen=True, slots=True)
class Keyword(Node):
    name: str = ""
    value: Expr = None  # type: ignore[assignment]


@dataclass(frozen=True, slots=True)
class Call(Expr):
    func: str = ""
    args: tuple[Expr, ...] = ()
    keywords: tuple[Keyword, ...] = ()


@dataclass(frozen=True, slots=True)
class Unary(Expr):
    op: str = ""  # "-" or "not"
    operand: Expr = None  # type: ignore[assignment]


@dataclass(frozen=True, slots=True)
class Binary(Expr):
    op: str = ""  # + - * / == != < <= > >= and or in "not in"
    left: Expr = None  # type: ignore[assignment]
    right: Expr = None  # type: ignore[assignment]


@dataclass(frozen=True, slots=True)
class InRange(Expr):
    """`value in low..high`: both ends included; `not in` when negated."""

    value: Expr = None  # type: ignore[assignment]
    low: Expr = None  # type: ignore[assignment]
    high: Expr = None  # type: ignore[assignment]
    negated: bool = False


@dataclass(frozen=True, slots=True)
class Conditional(Expr):
    test: Expr = None  # type: ignore[assignment]
    then: Expr = None  # type: ignore[assignment]
    otherwise: Expr = None  # type: ignore[assignment]


@dataclass(frozen=True, slots=True)
class ListLit(Expr):
    items: tuple[Expr, ...] = ()


@dataclass(frozen=True, slots=True)
class Comprehension(Expr):
    item: Expr = None  # type: ignore[assignment]
    var: str = ""
    source: Expr = None  # type: ignore[assignment]
    condition: Expr | None = None
    var_pos: Pos = field(default=NOWHERE, compare=False, repr=False)  # where the item's name is written


@dataclass(frozen=True, slots=True)
class FieldInit(Node):
    name: str = ""
    value: Expr = None  # type: ignore[assignment]


@dataclass(frozen=True, slots=True)
class RecordLit(Expr):
    fields: tuple[FieldInit, ...] = ()
    kind: str = ""  # the kind of record it makes: set by the checker, from the type wanted where it is written


# ---- statements ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Stmt(Node):
    pass


@dataclass(frozen=True, slots=True)
class Let(Stmt):
    name: str = ""
    value: Expr = None  # type: ignore[assignment]
    type: TypeExpr | None = None  # when given, the local may later hold any value of this type
    name_pos: Pos = field(default=NOWHERE, compare=False, repr=False)  # where the name is written


@dataclass(frozen=True, slots=True)
class Assign(Stmt):
    target: tuple[str, ...] = ()  # a name, then field names
    op: str = "="
    value: Expr = None  # type: ignore[assignment]
    target_pos: tuple[Pos, ...] = field(default=(), compare=False, repr=False)  # where each name of target is


@dataclass(frozen=True, slots=True)
class If(Stmt):
    test: Expr = None  # type: ignore[assignment]
    then: tuple[Stmt, ...] = ()
    otherwise: tuple[Stmt, ...] = ()


@dataclass(frozen=True, slots=True)
class For(Stmt):
    var: str = ""
    source: Expr = None  # type: ignore[assignment]
    body: tuple[Stmt, ...] = ()
    var_pos: Pos = field(default=NOWHERE, compare=False, repr=False)  # where the loop's name is written


@dataclass(frozen=True, slots=True)
class While(Stmt):
    test: Expr = None  # type: ignore[assignment]
    body: tuple[Stmt, ...] = ()


@dataclass(frozen=True, slots=True)
class Break(Stmt):
    """Leaves the innermost loop."""


@dataclass(frozen=True, slots=True)
class Stop(Stmt):
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Return(Stmt):
    """Ends the current step or fn (not the resolution).

    `value` is what follows the word, if anything: the value given, in a step
    or fn that declares one; elsewhere only a text may follow, and `reason`
    holds it (shown by explain).
    """

    reason: str = ""
    value: Expr | None = None


@dataclass(frozen=True, slots=True)
class CallStmt(Stmt):
    call: Call = None  # type: ignore[assignment]


@dataclass(frozen=True, slots=True)
class Event(Stmt):
    name: str = ""
    args: tuple[Expr, ...] = ()
    keywords: tuple[Keyword, ...] = ()


# ---- declarations --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Decl(Node):
    name: str = ""
    override: bool = field(default=False, compare=False)  # replaces or extends a base declaration


@dataclass(frozen=True, slots=True)
class Bounds(Node):
    """`in low..high` after a field's, parameter's or input's type: sugar for a require."""

    low: Expr = None  # type: ignore[assignment]
    high: Expr = None  # type: ignore[assignment]


@dataclass(frozen=True, slots=True)
class Require(Decl):
    """`require test "message"`: in a kind, on an action, or at the top of a file (over the parameters)."""

    test: Expr = None  # type: ignore[assignment]
    message: str = ""


@dataclass(frozen=True, slots=True)
class FieldDecl(Decl):
    type: TypeExpr = None  # type: ignore[assignment]
    default: Expr | None = None
    bounds: Bounds | None = None


@dataclass(frozen=True, slots=True)
class KindDecl(Decl):
    fields: tuple[FieldDecl, ...] = ()
    requires: tuple[Require, ...] = ()


@dataclass(frozen=True, slots=True)
class RowField(Node):
    name: str = ""
    value: Expr = None  # type: ignore[assignment]


@dataclass(frozen=True, slots=True)
class RowDecl(Decl):
    kind: str = ""
    kind_pos: Pos = field(default=NOWHERE, compare=False, repr=False)
    fields: tuple[RowField, ...] = ()


@dataclass(frozen=True, slots=True)
class TableRow(Node):
    name: str = ""
    cells: tuple[Number, ...] = ()


@dataclass(frozen=True, slots=True)
class TableDecl(Decl):
    row_kind: str = ""
    column_kind: str = ""
    type: TypeExpr = None  # type: ignore[assignment]
    default: Number | None = None
    columns: tuple[str, ...] = ()
    column_pos: tuple[Pos, ...] = field(default=(), compare=False, repr=False)
    rows: tuple[TableRow, ...] = ()
    row_kind_pos: Pos = field(default=NOWHERE, compare=False, repr=False)
    column_kind_pos: Pos = field(default=NOWHERE, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class ParamDecl(Decl):
    type: TypeExpr | None = None
    value: Expr = None  # type: ignore[assignment]
    bounds: Bounds | None = None


@dataclass(frozen=True, slots=True)
class ChoiceDecl(Decl):
    type: TypeExpr = None  # type: ignore[assignment]
    value: Expr = None  # type: ignore[assignment]
    description: str = ""


@dataclass(frozen=True, slots=True)
class OutcomeDecl(Decl):
    type: TypeExpr = None  # type: ignore[assignment]
    value: Expr = None  # type: ignore[assignment]


@dataclass(frozen=True, slots=True)
class Param(Decl):
    type: TypeExpr = None  # type: ignore[assignment]
    default: Expr | None = None
    bounds: Bounds | None = None  # an action's inputs only


@dataclass(frozen=True, slots=True)
class Term(Node):
    op: str = ""  # add, multiply, replace, at least, at most
    amount: Expr = None  # type: ignore[assignment]
    when: Expr | None = None


@dataclass(frozen=True, slots=True)
class ModifierDecl(Decl):
    params: tuple[Param, ...] = ()
    terms: tuple[Term, ...] = ()


@dataclass(frozen=True, slots=True)
class FnDecl(Decl):
    params: tuple[Param, ...] = ()
    body: Expr | None = None  # `= expr`; None for a fn written with statements
    result: TypeExpr | None = None  # `: type` after the parameters
    block: tuple[Stmt, ...] | None = None  # `{ ... return value }`


@dataclass(frozen=True, slots=True)
class StepDecl(Decl):
    params: tuple[Param, ...] = ()
    body: tuple[Stmt, ...] = ()
    result: TypeExpr | None = None  # a step that gives a value: `step name(...): type { ... }`
    is_action: bool = False
    requires: tuple[Require, ...] = ()  # an action's conditions on its inputs


@dataclass(frozen=True, slots=True)
class ExampleDecl(Decl):
    """`name` is the title; `example_id` the document ID that opens it, if any."""

    example_id: str = ""
    sets: tuple[tuple[str, Expr], ...] = ()
    run: Call | None = None
    rolls: ListLit | None = None
    expects: tuple[Expr, ...] = ()
    set_pos: tuple[Pos, ...] = field(default=(), compare=False, repr=False)  # where each set's name is written


@dataclass(frozen=True, slots=True)
class Extends(Node):
    path: str = ""


@dataclass(frozen=True, slots=True)
class Module(Node):
    path: str = ""
    title: str = ""
    extends: tuple[Extends, ...] = ()
    decls: tuple[Decl, ...] = ()
