"""The abstract syntax tree: slotted dataclasses, frozen, that carry source positions.

Nodes are immutable (a node refuses every assignment, as a frozen dataclass
does) so a checked module can be shared by every run, cached, and used as a
dictionary key by the engines.
"""

from __future__ import annotations

from fractions import Fraction

from fracas.dsl.records import field, record


@record(frozen=True, slots=True)
class Pos:
    """Where a node was written, from its first character to its last, so that errors can point there."""

    line: int
    column: int
    end_line: int
    end_column: int
    path: str = ""

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"


NOWHERE = Pos(0, 0, 0, 0)

# Slotted and frozen: equal when of the same class with equal fields but for the position, hashed as
# those, rebuilt through __init__ when unpickled (the parse cache reads tens of thousands of nodes a load).
_node = record(frozen=True, slots=True)


@_node
class Node:
    pos: Pos = field(compare=False, repr=False)


# ---- types ------------------------------------------------------------------


@_node
class TypeExpr(Node):
    name: str = ""  # "list" for list types
    item: TypeExpr | None = None  # element type of a list
    optional: bool = False


# ---- expressions --------------------------------------------------------------


@_node
class Expr(Node):
    pass


@_node
class Number(Expr):
    value: int | Fraction = 0


@_node
class Dice(Expr):
    count: int = 1
    sides: int = 6


@_node
class Text(Expr):
    value: str = ""


@_node
class Bool(Expr):
    value: bool = False


@_node
class NoneLit(Expr):
    pass


@_node
class Name(Expr):
    name: str = ""


@_node
class Attr(Expr):
    obj: Expr = None  # type: ignore[assignment]
    name: str = ""
    kind: str = ""  # the kind of record whose field it reads, where the checker knows it: set by the checker


@_node
class Index(Expr):
    obj: Expr = None  # type: ignore[assignment]
    index: Expr = None  # type: ignore[assignment]
    more: tuple[Expr, ...] = ()  # further keys, for a table


@_node
class Keyword(Node):
    name: str = ""
    value: Expr = None  # type: ignore[assignment]


@_node
class Call(Expr):
    func: str = ""
    args: tuple[Expr, ...] = ()
    keywords: tuple[Keyword, ...] = ()


@_node
class Unary(Expr):
    op: str = ""  # "-" or "not"
    operand: Expr = None  # type: ignore[assignment]


@_node
class Binary(Expr):
    op: str = ""  # + - * / == != < <= > >= and or in "not in"
    left: Expr = None  # type: ignore[assignment]
    right: Expr = None  # type: ignore[assignment]


@_node
class InRange(Expr):
    """`value in low..high`: both ends included; `not in` when negated."""

    value: Expr = None  # type: ignore[assignment]
    low: Expr = None  # type: ignore[assignment]
    high: Expr = None  # type: ignore[assignment]
    negated: bool = False


@_node
class Conditional(Expr):
    test: Expr = None  # type: ignore[assignment]
    then: Expr = None  # type: ignore[assignment]
    otherwise: Expr = None  # type: ignore[assignment]


@_node
class ListLit(Expr):
    items: tuple[Expr, ...] = ()


@_node
class Comprehension(Expr):
    item: Expr = None  # type: ignore[assignment]
    var: str = ""
    source: Expr = None  # type: ignore[assignment]
    condition: Expr | None = None
    var_pos: Pos = field(default=NOWHERE, compare=False, repr=False)  # where the item's name is written


@_node
class FieldInit(Node):
    name: str = ""
    value: Expr = None  # type: ignore[assignment]


@_node
class RecordLit(Expr):
    fields: tuple[FieldInit, ...] = ()
    kind: str = ""  # the kind of record it makes: set by the checker, from the type wanted where it is written


# ---- statements ------------------------------------------------------------------


@_node
class Stmt(Node):
    pass


@_node
class Let(Stmt):
    name: str = ""
    value: Expr = None  # type: ignore[assignment]
    type: TypeExpr | None = None  # when given, the local may later hold any value of this type
    name_pos: Pos = field(default=NOWHERE, compare=False, repr=False)  # where the name is written


@_node
class Assign(Stmt):
    target: tuple[str, ...] = ()  # a name, then field names
    index: Expr | None = None  # `target[index] op value`: an item of the list at target set in place
    op: str = "="
    value: Expr = None  # type: ignore[assignment]
    target_pos: tuple[Pos, ...] = field(default=(), compare=False, repr=False)  # where each name of target is


@_node
class If(Stmt):
    test: Expr = None  # type: ignore[assignment]
    then: tuple[Stmt, ...] = ()
    otherwise: tuple[Stmt, ...] = ()


@_node
class For(Stmt):
    var: str = ""
    source: Expr = None  # type: ignore[assignment]
    body: tuple[Stmt, ...] = ()
    var_pos: Pos = field(default=NOWHERE, compare=False, repr=False)  # where the loop's name is written


@_node
class While(Stmt):
    test: Expr = None  # type: ignore[assignment]
    body: tuple[Stmt, ...] = ()


@_node
class Break(Stmt):
    """Leaves the innermost loop."""


@_node
class Stop(Stmt):
    reason: str = ""


@_node
class Return(Stmt):
    """Ends the current step or fn (not the resolution).

    `value` is what follows the word, if anything: the value given, in a step
    or fn that declares one; elsewhere only a text may follow, and `reason`
    holds it (shown by explain).
    """

    reason: str = ""
    value: Expr | None = None


@_node
class CallStmt(Stmt):
    call: Call = None  # type: ignore[assignment]


@_node
class Event(Stmt):
    name: str = ""
    args: tuple[Expr, ...] = ()
    keywords: tuple[Keyword, ...] = ()


# ---- declarations --------------------------------------------------------------


@_node
class Decl(Node):
    name: str = ""
    override: bool = field(default=False, compare=False)  # replaces or extends a base declaration


@_node
class Bounds(Node):
    """`in low..high` after a field's, parameter's or input's type: sugar for a require."""

    low: Expr = None  # type: ignore[assignment]
    high: Expr = None  # type: ignore[assignment]


@_node
class Require(Decl):
    """`require test "message"`: in a kind, on an action, or at the top of a file (over the parameters)."""

    test: Expr = None  # type: ignore[assignment]
    message: str = ""


@_node
class FieldDecl(Decl):
    type: TypeExpr = None  # type: ignore[assignment]
    default: Expr | None = None
    bounds: Bounds | None = None


@_node
class KindDecl(Decl):
    fields: tuple[FieldDecl, ...] = ()
    requires: tuple[Require, ...] = ()


@_node
class RowField(Node):
    name: str = ""
    value: Expr = None  # type: ignore[assignment]


@_node
class RowDecl(Decl):
    kind: str = ""
    kind_pos: Pos = field(default=NOWHERE, compare=False, repr=False)
    fields: tuple[RowField, ...] = ()


@_node
class TableRow(Node):
    name: str | int = ""  # a row's name, or its number in a table keyed by int
    cells: tuple[Number | Name, ...] = ()  # numbers, or the names of rows (of an enum)


@_node
class TableDecl(Decl):
    row_kind: str = ""
    column_kind: str = ""
    type: TypeExpr = None  # type: ignore[assignment]
    default: Number | Name | None = None
    columns: tuple[str | int | Fraction, ...] = ()  # rows' names, or numbers (whole ones, where keyed by int)
    column_pos: tuple[Pos, ...] = field(default=(), compare=False, repr=False)
    rows: tuple[TableRow, ...] = ()
    row_kind_pos: Pos = field(default=NOWHERE, compare=False, repr=False)
    column_kind_pos: Pos = field(default=NOWHERE, compare=False, repr=False)


@_node
class ParamDecl(Decl):
    type: TypeExpr | None = None
    value: Expr = None  # type: ignore[assignment]
    bounds: Bounds | None = None


@_node
class ChoiceDecl(Decl):
    type: TypeExpr = None  # type: ignore[assignment]
    value: Expr = None  # type: ignore[assignment]
    description: str = ""


@_node
class OutcomeDecl(Decl):
    type: TypeExpr = None  # type: ignore[assignment]
    value: Expr = None  # type: ignore[assignment]


@_node
class Param(Decl):
    type: TypeExpr = None  # type: ignore[assignment]
    default: Expr | None = None
    bounds: Bounds | None = None  # an action's inputs only


@_node
class Term(Node):
    op: str = ""  # add, multiply, replace, at least, at most
    amount: Expr = None  # type: ignore[assignment]
    when: Expr | None = None


@_node
class ModifierDecl(Decl):
    params: tuple[Param, ...] = ()
    terms: tuple[Term, ...] = ()


@_node
class FnDecl(Decl):
    params: tuple[Param, ...] = ()
    body: Expr | None = None  # `= expr`; None for a fn written with statements
    result: TypeExpr | None = None  # `: type` after the parameters
    block: tuple[Stmt, ...] | None = None  # `{ ... return value }`


@_node
class StepDecl(Decl):
    params: tuple[Param, ...] = ()
    body: tuple[Stmt, ...] = ()
    result: TypeExpr | None = None  # a step that gives a value: `step name(...): type { ... }`
    is_action: bool = False
    requires: tuple[Require, ...] = ()  # an action's conditions on its inputs


@_node
class ExampleDecl(Decl):
    """`name` is the title; `example_id` the document ID that opens it, if any."""

    example_id: str = ""
    sets: tuple[tuple[str, Expr], ...] = ()
    run: Call | None = None
    rolls: ListLit | None = None
    expects: tuple[Expr, ...] = ()
    set_pos: tuple[Pos, ...] = field(default=(), compare=False, repr=False)  # where each set's name is written


@_node
class Extends(Node):
    path: str = ""


@_node
class Module(Node):
    path: str = ""
    title: str = ""
    extends: tuple[Extends, ...] = ()
    decls: tuple[Decl, ...] = ()

