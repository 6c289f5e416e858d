"""The checker: resolves every name, kind, field and type, and rejects what cannot run.

It reports all the problems it finds (not just the first), each located, and
builds the Ruleset the interpreter runs.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Iterable, Iterator
from decimal import Decimal
from fractions import Fraction
from typing import Any

from fracas.dsl import missing
from fracas.dsl import nodes as n
from fracas.dsl import records
from fracas.dsl.builtins import (AGAIN_WITHOUT_DEPTH, COUNTS, DEPTH_WITHOUT_AGAIN, NO_SIDES, ORDER_WITHOUT_FOCUS,
                                 PROBABILITY_HINT, SIGNATURES, Signature, faces_problems, negative, not_a_probability,
                                 words_hint)
from fracas.dsl.diagnostics import (Diagnostic, RulesError, SourceFile, closest, did_you_mean, listed, no_value_cell,
                                    with_article)
from fracas.dsl.narrowing import Changes, Path, always_leaves, breaks, changes, proven
from fracas.dsl.reads import free_names, path_of, paths_read
from fracas.dsl.records import record, replace
from fracas.dsl.rewrite import Learnt, complete_rules
from fracas.dsl.ruleset import Constraint, FieldInfo, KindInfo, Ruleset, Typed
from fracas.dsl.statements import blocks, calls, children, expressions, statements, step_value
from fracas.dsl.types import (
    ANY,
    BASIC_TYPES,
    BOOL,
    DICE,
    INT,
    NONE,
    NUMBER,
    POOL,
    TEXT,
    UNKNOWN,
    VOLLEY,
    Type,
    fits,
    list_of,
    type_from,
    unify,
)
from fracas.dsl.writes import outcomes_set_by

EXAMPLE_NAMES = {"stopped": TEXT}  # extra names an `expect` may read
_KEPT_NAME = "'{name}' is kept for why a resolution stopped, which every resolution reports"


@record
class Body:
    """The fn, step or action whose statements are being checked."""

    what: str  # "fn", "step" or "action"
    name: str
    gives: Type | None  # the type of the value it gives, if it gives one
    params: Scope  # the scope of its parameters


class Scope:
    """Local names visible at one point of a step, with their types, and the places known not to be none."""

    def __init__(self, names: dict[str, Type] | None = None, parent: Scope | None = None):
        self.names = dict(names or {})
        self.parent = parent
        self.facts: dict[Path, bool] = {}  # a place known not none (True), or no longer known (False)

    def known(self, path: Path | None) -> bool:
        scope: Scope | None = self
        while path is not None and scope is not None:
            if path in scope.facts:
                return scope.facts[path]
            scope = scope.parent
        return False

    def learn(self, paths: Iterable[Path]) -> None:
        self.facts.update(dict.fromkeys(paths, True))

    def narrowed(self, paths: frozenset[Path]) -> Scope:
        """A scope where `paths` are known not none (this one, if there are none)."""
        if not paths:
            return self
        inner = self.child()
        inner.learn(paths)
        return inner

    def forget(self, change: Changes) -> None:
        """What a change may have made none again is no longer known: a place assigned and the fields read
        from it; after a call of a step, every field and every outcome (a local is the caller's own)."""
        scope: Scope | None = self
        seen: set[Path] = set()
        while scope is not None:
            seen.update(scope.facts)
            scope = scope.parent
        for path in seen:
            assigned = any(_may_be_changed_by(path, place) for place in change.places)
            if assigned or (change.calls and (len(path) > 1 or self.lookup(path[0]) is None)):
                self.facts[path] = False

    def bind(self, name: str, type_: Type) -> None:
        """A name made here that may reuse one around it (a loop's, a comprehension's): what was known of the other
        one, and of the fields read from it, is not known of this one."""
        self.names[name] = type_
        scope: Scope | None = self
        shadowed: set[Path] = set()
        while scope is not None:
            shadowed.update(path for path in scope.facts if path[0] == name)
            scope = scope.parent
        self.facts.update(dict.fromkeys(shadowed, False))
        self.facts[(name,)] = not type_.optional and type_.name != "none"

    def lookup(self, name: str) -> Type | None:
        owner = self.owner(name)
        return None if owner is None else owner.names[name]

    def owner(self, name: str) -> Scope | None:
        """The scope that declares a name: this one or one around it."""
        scope: Scope | None = self
        while scope is not None:
            if name in scope.names:
                return scope
            scope = scope.parent
        return None

    def all_names(self) -> set[str]:
        names = set(self.names)
        return names | self.parent.all_names() if self.parent else names

    def child(self) -> Scope:
        return Scope(parent=self)


def _may_be_changed_by(path: Path, place: Path) -> bool:
    """Whether assigning `place` may change what `path` reads: the place itself or a field read from it, or,
    for a field, the same fields read through another name, which may hold the very same thing (`let q = p`,
    a step given one thing twice, a loop's name)."""
    if path[: len(place)] == place:
        return True
    fields = place[1:]
    return bool(fields) and any(path[i: i + len(fields)] == fields for i in range(1, len(path) - len(fields) + 1))


class Checker:
    def __init__(self, module: n.Module, source: SourceFile, bases: dict[str, SourceFile] | None = None):
        self.module = module
        self.source = source
        self.diagnostics: list[Diagnostic] = []
        # The texts of the files extended too: a declaration inherited from one is shown from it.
        self.rules = Ruleset(module.path, module.title, {**(bases or {}), source.path: source})
        self._fn_in_progress: set[str] = set()
        self._in_example = False
        self._in_aggregate = ""  # the distribution function whose argument is being checked, if any
        self._comprehended: list[str] = []  # the names of the comprehensions around what is checked
        self._requires: list[n.Require] = []  # at the top of the file: over the parameters
        # Declarations refused for their names (a builtin's, the examples' own): a use of one is not told again.
        self._misnamed: set[str] = set()
        # Names declared twice as different things (an enum's value and an outcome): a use may mean either, so it is
        # left unjudged, the declaration told once rather than each use after it.
        self._clashing: set[str] = set()
        self.learnt = Learnt()  # dice literals that describe a roll rather than make one, the kinds of records
        self._taken_away: set[n.Pos] = set()  # `1d6 - 1d4` where a dice value is wanted, reported once
        self._loops = 0  # loops around the statement being checked, in its step: where `break` may stand
        self._body: Body | None = None
        self._value_calls: set[n.Pos] = set()  # calls of a step whose value a let, assignment or return takes
        self._fn_chance: dict[str, bool] = {}
        self._fn_outcome: dict[str, str | None] = {}  # a fn or modifier -> the first outcome it reads, if any
        # A name that may hold a record written in the rules (a value: its fields never change), by the scope that
        # declares it, with where the record is written; as the statements come, so that a later plain `=` of
        # anything else takes the name back.
        self._record_values: dict[tuple[Scope, str], n.Pos] = {}

    # ---- reporting

    def error(self, pos: n.Pos, message: str, hint: str = "") -> None:
        self.diagnostics.append(self.rules.source(pos).at(pos, message, hint))

    def _written(self, pos: n.Pos) -> str:
        """The text a one-line node was written as."""
        if pos.line != pos.end_line:
            return ""
        return self.rules.source(pos).line(pos.line)[pos.column - 1:pos.end_column - 1]

    # ---- entry

    def run(self) -> Ruleset:
        self.collect()
        self.check_kinds()
        for decl in self.rules.rows.values():
            self.check_row(decl)
        for decl in self.rules.tables.values():
            self.check_table(decl)
        for typed in list(self.rules.params.values()):
            self.check_param(typed)
        self.check_setting_order()
        for typed in self.rules.outcomes.values():
            self.expect(typed.value, typed.type, Scope(), constant=True)
        for typed in self.rules.choices.values():
            self.check_choice(typed)
        self.check_constraints()
        for decl in self.rules.modifiers.values():
            self.check_modifier(decl)
        for name in self.rules.fns:
            self.fn_type(name)
        for decl in list(self.rules.steps.values()) + list(self.rules.actions.values()):
            self.check_step(decl)
        for example in self.rules.examples:
            self.check_example(example)
        if self.diagnostics:
            self.diagnostics.sort(key=lambda d: (d.path, d.line, d.column))
            raise RulesError(self.diagnostics)
        complete_rules(self.rules, self.learnt)
        self.rules.warnings += tuple(self.never_run()) + tuple(self.never_set())
        if not self.module.decls:
            self.rules.warnings += (Diagnostic(self.source.path, 0, 0, "this rules file declares nothing",
                                               "declare kinds, rows, parameters, outcomes and the actions that "
                                               "change them; grammars/language.md shows each", severity="warning"),)
        return self.rules

    def never_run(self) -> Iterator[Diagnostic]:
        """A warning at each statement that follows, in its block, one that always leaves the block (a `return`,
        `stop` or `break` on every way through it): it can never run."""
        bodies = [decl.body for decl in (*self.rules.steps.values(), *self.rules.actions.values())]
        bodies += [decl.block for decl in self.rules.fns.values() if decl.block is not None]
        for body in bodies:
            for block in (body, *(inner for stmt in statements(body) for inner in blocks(stmt))):
                left = next((stmt for stmt in block[:-1] if always_leaves((stmt,))), None)
                if left is None:
                    continue
                after = block[block.index(left) + 1]
                found = self.rules.source(after.pos).at(
                    after.pos, "this never runs: the statement before it leaves the block on every way through it",
                    f"remove it, or put what leaves (line {left.pos.line}) inside an 'if'")
                yield replace(found, severity="warning")

    def never_set(self) -> Iterator[Diagnostic]:
        """A warning at each outcome that no action assigns, nor anything an action calls: it never changes.

        A file without actions (a base that others extend with theirs) is not judged."""
        if not self.rules.actions:
            return
        written = set().union(*(outcomes_set_by(self.rules, action) for action in self.rules.actions))
        for name, typed in self.rules.outcomes.items():
            if name not in written:
                found = self.rules.source(typed.decl.pos).at(
                    typed.decl.pos, f"outcome '{name}' is never set: no action assigns it, nor any step one calls",
                    f"assign it in the step where it happens ({name} = ...), or remove it")
                yield replace(found, severity="warning")

    # ---- declarations

    def collect(self) -> None:
        seen: dict[str, n.Decl] = {}
        examples = []
        for decl in self.module.decls:
            if isinstance(decl, n.ExampleDecl):
                twin = next((e for e in examples if e.name == decl.name), None)
                if twin is not None:  # pytest would collect two items with one id
                    self.error(decl.pos, f"a second example titled \"{decl.name}\"",
                               f"the first is at line {twin.pos.line}; give each example its own title")
                examples.append(decl)
                continue
            if isinstance(decl, n.Require):
                self._requires.append(decl)
                continue
            if isinstance(decl, n.KindDecl):
                if decl.name in BASIC_TYPES or decl.name in ("list", "none", "any"):
                    self.error(decl.pos, f"'{decl.name}' is a built-in type; a kind needs another name")
                    continue
                if decl.name in self.rules.kinds:
                    self.error(decl.pos, f"kind '{decl.name}' is declared twice",
                               f"the first is at line {self.rules.kinds[decl.name].decl.pos.line}")
                    continue
                self.rules.kinds[decl.name] = KindInfo(decl.name, (), decl)
                continue
            if decl.name in seen:
                first = seen[decl.name]
                if type(first) is type(decl):
                    self.error(decl.pos, f"'{decl.name}' is declared twice", f"the first is at line {first.pos.line}")
                else:
                    self.error(decl.pos, f"'{decl.name}' is declared twice",
                               f"the first, at line {first.pos.line}, is {_declared_as(first)}: one of the two needs "
                               "another name")
                    self._clashing.add(decl.name)
                continue
            if decl.name in SIGNATURES and not isinstance(decl, n.RowDecl):  # a row is never called: `fire` may name one
                self.error(decl.pos, f"'{decl.name}' is the name of a builtin function",
                           "choose another name")
                self._misnamed.add(decl.name)
                continue
            if decl.name in EXAMPLE_NAMES:
                self.error(decl.pos, _KEPT_NAME.format(name=decl.name), "choose another name")
                self._misnamed.add(decl.name)
                continue
            seen[decl.name] = decl
            if isinstance(decl, n.RowDecl):
                self.rules.rows[decl.name] = decl
            elif isinstance(decl, n.TableDecl):
                self.rules.tables[decl.name] = decl
            elif isinstance(decl, n.ParamDecl):
                declared = type_from(decl.type, ()) if decl.type else ANY
                self.rules.params[decl.name] = Typed(decl.name, declared, decl.value, decl)
            elif isinstance(decl, n.OutcomeDecl):
                self.rules.outcomes[decl.name] = Typed(decl.name, ANY, decl.value, decl)
            elif isinstance(decl, n.ChoiceDecl):
                self.rules.choices[decl.name] = Typed(decl.name, ANY, decl.value, decl)
            elif isinstance(decl, n.ModifierDecl):
                self.rules.modifiers[decl.name] = decl
            elif isinstance(decl, n.FnDecl):
                self.rules.fns[decl.name] = decl
            elif isinstance(decl, n.StepDecl):
                (self.rules.actions if decl.is_action else self.rules.steps)[decl.name] = decl
        self.rules.examples = tuple(examples)
        self.rules.requires = tuple(self._requires)
        # Types can name kinds only now that every kind is known.
        for name, typed in self.rules.outcomes.items():
            decl = typed.decl
            assert isinstance(decl, n.OutcomeDecl)
            self.rules.outcomes[name] = Typed(name, self.resolve_type(decl.type), decl.value, decl)
        for name, typed in self.rules.params.items():
            decl = typed.decl
            assert isinstance(decl, n.ParamDecl)
            if decl.type is not None:
                self.rules.params[name] = Typed(name, self.resolve_type(decl.type), decl.value, decl)
        for name, typed in self.rules.choices.items():
            decl = typed.decl
            assert isinstance(decl, n.ChoiceDecl)
            self.rules.choices[name] = Typed(name, self.resolve_type(decl.type), decl.value, decl)

    def resolve_type(self, expr: n.TypeExpr) -> Type:
        return type_from(expr, self.rules.kinds, self._unknown_type)

    def _unknown_type(self, expr: n.TypeExpr) -> None:
        hint = did_you_mean(expr.name, list(BASIC_TYPES) + list(self.rules.kinds))
        if not hint:
            hint = "a type is one of " + ", ".join(BASIC_TYPES) + ", a kind, or 'list of T'"
        self.error(expr.pos, f"unknown type '{expr.name}'", hint)

    def check_kinds(self) -> None:
        for name, info in list(self.rules.kinds.items()):
            fields: list[FieldInfo] = []
            scope = Scope()
            for decl in info.decl.fields:
                if any(f.name == decl.name for f in fields):
                    self.error(decl.pos, f"field '{decl.name}' is declared twice in kind '{name}'")
                    continue
                type_ = self.resolve_type(decl.type)
                fields.append(FieldInfo(decl.name, type_, decl.default, decl))
            self.rules.kinds[name] = KindInfo(name, tuple(fields), info.decl)
        for info in self.rules.kinds.values():
            scope = Scope()
            for field in info.fields:
                if field.default is not None:
                    self.expect(field.default, field.type, scope, constant=True)
                scope.names[field.name] = field.type

    def check_row(self, decl: n.RowDecl) -> None:
        kind = self.rules.kinds.get(decl.kind)
        if kind is None:
            self.error(decl.kind_pos, f"unknown kind '{decl.kind}' for row '{decl.name}'",
                       did_you_mean(decl.kind, self.rules.kinds))
            return
        given = self.check_given_fields(kind, [(f.name, f.value, f.pos) for f in decl.fields], Scope(), True)
        missing = [f.name for f in kind.fields if f.default is None and f.name not in given]
        if missing:
            self.error(decl.pos, f"row '{decl.name}' does not give {', '.join(repr(m) for m in missing)}",
                       f"every {kind.name} needs a value for each field without a default")

    def check_table(self, decl: n.TableDecl) -> None:
        value_type = self.resolve_type(decl.type)
        self.rules.table_types[decl.name] = value_type
        # Its cells are written as numbers or as rows' names, and only so.
        if value_type.name not in ("int", "number", "any") and not (value_type.is_kind and not value_type.optional):
            self.error(decl.type.pos if decl.type.pos.line else decl.pos,
                       f"a table holds numbers or the rows of a kind, so its type is int, number or a kind, "
                       f"not {value_type}",
                       f"for values of another type, a fn can pick one from a list: fn {decl.name}(row: int, "
                       f"column: int): {value_type} = [[...], [...]][row][column]")
        for kind, written in ((decl.row_kind, decl.row_kind_pos), (decl.column_kind, decl.column_kind_pos)):
            if kind != "int" and kind not in self.rules.kinds:  # at the kind as written: a quick fix replaces it
                self.error(written if written.line else decl.pos, f"unknown kind '{kind}' for table '{decl.name}'",
                           did_you_mean(kind, [*self.rules.kinds, "int"])
                           or "a table is keyed by the rows of a kind, or by whole numbers (int)")
                return

        def check_key(key: str | int | Fraction, kind: str, pos: n.Pos) -> None:
            if kind == "int":
                if type(key) is not int:
                    written = key if not isinstance(key, Fraction) else Decimal(key.numerator) / key.denominator
                    self.error(pos, f"'{written}' is not a whole number, which table '{decl.name}' is keyed by here",
                               "write a column as a number, [2 4 6], and a row as its number and a colon, `2: ...`")
                return
            row = self.rules.rows.get(key) if isinstance(key, str) else None
            if row is None or row.kind != kind:
                names = [r for r, d in self.rules.rows.items() if d.kind == kind]
                if isinstance(key, str):
                    hint = did_you_mean(key, names) or listed(f"the {kind} rows", names, f"there is no {kind} row")
                else:  # a number where a row belongs
                    hint = (listed(f"the {kind} rows", names, f"there is no {kind} row")
                            + f"; a table keyed by numbers names int for them, as in table {decl.name}(int, ...)")
                self.error(pos, f"'{key}' is not {with_article(kind)}", hint)

        for name, pos in zip(decl.columns, decl.column_pos):
            check_key(name, decl.column_kind, pos)
        if len(set(decl.columns)) != len(decl.columns):
            self.error(decl.pos, f"table '{decl.name}' names a column twice")
        def check_cell(cell: n.Number | n.Name) -> None:
            # A name in a cell is a row of the table's kind, as written: not a parameter or a choice, whose value
            # the cell would not follow.
            if isinstance(cell, n.Name) and value_type.is_kind and (
                    cell.name not in self.rules.rows or self.rules.rows[cell.name].kind != value_type.name):
                if cell.name in self.rules.rows or self.global_type(cell.name) is None:
                    self.expect(cell, value_type, Scope(), constant=True)  # unknown, or a row of another kind
                    return
                names = [r for r, d in self.rules.rows.items() if d.kind == value_type.name]
                self.error(cell.pos, f"'{cell.name}' is not a value of {value_type}: a cell names one as written",
                           listed(f"the values of {value_type}", names, f"{value_type} has no rows"))
                return
            self.expect(cell, value_type, Scope(), constant=True)

        if decl.default is not None:
            check_cell(decl.default)
        seen: set[str] = set()
        for row in decl.rows:
            check_key(row.name, decl.row_kind, row.pos)
            if row.name in seen:
                self.error(row.pos, f"row '{row.name}' appears twice in table '{decl.name}'")
            seen.add(row.name)
            if len(row.cells) != len(decl.columns):
                # The next row's key, read as a cell for want of its colon: a row of the row kind's, or, in a table
                # of names keyed by number, a number.
                keys = [cell.name if isinstance(cell, n.Name) else str(cell.value) for cell in row.cells
                        if isinstance(cell, n.Name) and cell.name in self.rules.rows
                        and self.rules.rows[cell.name].kind == decl.row_kind
                        or isinstance(cell, n.Number) and decl.row_kind == "int" and value_type.is_kind]
                values, columns = len(row.cells), len(decl.columns)
                dashed = [written for cell in row.cells if isinstance(cell, n.Number) and cell.value < 0
                          and re.fullmatch(r"-\s+\S+", written := self._written(cell.pos))]
                self.error(row.pos, f"row '{row.name}' has {values} value{'s' * (values != 1)} for {columns} "
                                    f"column{'s' * (columns != 1)}",
                           f"'{keys[0]}' reads as one more cell: a row whose cells are names ends its key with a "
                           f"colon ({keys[0]}: ...)" if keys and len(row.cells) > len(decl.columns)
                           else f"'{dashed[0]}' reads as one number, {dashed[0].replace(' ', '')}: "
                                + no_value_cell(decl.type.name, decl.type.optional) if dashed else "")
                continue  # its cells are not where they were meant to be: their types would only mislead
            for cell in row.cells:
                check_cell(cell)

    def check_param(self, typed: Typed) -> None:
        before = len(self.diagnostics)
        actual = self.expect(typed.value, typed.type, Scope(), constant=True)
        if typed.type.name == "any":
            self.known_type(typed.value, actual, before, f"param {typed.name}: list of int = []")
            self.rules.params[typed.name] = Typed(typed.name, actual, typed.value, typed.decl)

    def known_type(self, value: n.Expr, found: Type, before: int, example: str) -> None:
        """A name whose type its value gives (no type written) must get a whole one: a list of any (`[]`)
        would take items of any types later, which the rules would then tell apart (true from 1) and Python
        not. Not said where the value has an error reported already (since `before`), of which it follows."""
        if _holds_any(found) and len(self.diagnostics) == before:
            self.error(value.pos, "what this list holds is not known from its value",
                       f"write its type, as in '{example}'")

    def check_setting_order(self) -> None:
        """Parameters, then choices, are set in the order written: none may read one set after it."""
        settings = [*self.rules.params.values(), *self.rules.choices.values()]
        place = {typed.name: position for position, typed in enumerate(settings)}  # not a set of those after, each
        for position, typed in enumerate(settings):
            for name in free_names(typed.value):
                if name.name == typed.name:
                    self.error(name.pos, f"'{typed.name}' reads itself", "give it a value that does not depend on it")
                elif place.get(name.name, -1) > position:
                    if typed.name in self.rules.params and name.name in self.rules.choices:
                        hint = (f"every parameter is set before the choices: read '{name.name}' where "
                                f"'{typed.name}' is used, in a step or fn")
                    else:
                        hint = f"parameters, then choices, are set in the order written: declare '{name.name}' first"
                    self.error(name.pos, f"'{typed.name}' reads '{name.name}', which is set after it", hint)

    def check_choice(self, typed: Typed) -> None:
        # The options are the kind's rows: an enum's values, or rows with fields (a move among a table's moves).
        kind = typed.type.name
        fields = typed.type.is_kind and bool(self.rules.kinds[kind].fields)
        if not (kind == "bool" or (typed.type.is_kind and (not fields or self.rules.rows_of(kind)))):
            self.error(typed.decl.pos, f"choice '{typed.name}' needs options: make its type bool, an enum, or a kind "
                       "with rows", "declare the options with: enum NAME { first second ... }")
            return
        if fields and isinstance(typed.value, n.RecordLit):  # a record written out is none of the rows to choose
            self.error(typed.value.pos, f"a choice's default is one of its options: one of the {kind} rows",
                       f"the {kind} rows are: {', '.join(self.rules.rows_of(kind))}")
            return
        self.expect(typed.value, typed.type, Scope(), constant=True)

    # ---- constraints

    def check_constraints(self) -> None:
        """Bounds and requires: of kinds over their fields, of the file over its parameters."""
        for name, info in list(self.rules.kinds.items()):
            scope = Scope({f.name: f.type for f in info.fields})
            found = [self.bounds_constraint(f.name, f.type, f.decl.bounds, scope)
                     for f in info.fields if f.decl.bounds is not None]
            for f in info.fields:
                self.default_within_bounds(f)
            found += [self.require_constraint(r, scope) for r in info.decl.requires]
            self.rules.kinds[name] = records.replace(info, constraints=tuple(found))
        settings = {**self.rules.params, **self.rules.choices}
        found = [self.bounds_constraint(t.name, t.type, t.decl.bounds, Scope())
                 for t in settings.values() if isinstance(t.decl, n.ParamDecl) and t.decl.bounds is not None]
        found += [self.require_constraint(r, Scope()) for r in self._requires]
        self.rules.constraints = tuple(found)

    def check_input_constraints(self, decl: n.StepDecl, scope: Scope) -> None:
        """An action's conditions on its inputs; a step, fn or modifier takes no bounds."""
        if not decl.is_action:
            self.refuse_bounds(decl.params)
            return
        found = [self.bounds_constraint(p.name, scope.names[p.name], p.bounds, scope)
                 for p in decl.params if p.bounds is not None]
        found += [self.require_constraint(r, scope) for r in decl.requires]
        self.rules.action_constraints[decl.name] = tuple(found)

    def refuse_bounds(self, params: tuple[n.Param, ...]) -> None:
        for param in params:
            if param.bounds is not None:
                self.error(param.bounds.pos, "only an action's inputs take bounds",
                           "the arguments of a step, fn or modifier come from the rules: bound the fields "
                           "of their kinds instead")

    def bounds_constraint(self, name: str, type_: Type, bounds: n.Bounds, scope: Scope) -> Constraint:
        if not type_.is_numeric or type_.optional:
            self.error(bounds.pos, f"bounds need a number, and '{name}' is {with_article(type_)}",
                       "write a require for any other condition")
        test = n.InRange(bounds.pos, value=n.Name(bounds.pos, name=name), low=bounds.low, high=bounds.high)
        for end in (bounds.low, bounds.high):
            self.constraint_reads(end, scope)
            self.expect(end, NUMBER, scope)
        text = f"{name} in {self.rules.text_of(bounds.low)}..{self.rules.text_of(bounds.high)}"
        return Constraint(test, bounds.pos, text, "", _reads(test, scope, self.rules))

    def default_within_bounds(self, field: FieldInfo) -> None:
        """A field's default written out as a number, outside its bounds written out: told once, at the default,
        rather than at every record of the kind made with it."""
        bounds = field.decl.bounds
        if bounds is None or field.default is None:
            return
        default, low, high = map(_written_number, (field.default, bounds.low, bounds.high))
        if default is None or not ((low is not None and default < low) or (high is not None and default > high)):
            return  # a bound a parameter gives is checked where a record is made
        empty = low is not None and high is not None and low > high
        self.error(field.default.pos, f"the default {self.rules.text_of(field.default)} of '{field.name}' is "
                   f"outside its bounds {self.rules.text_of(bounds.low)}..{self.rules.text_of(bounds.high)}",
                   "these bounds hold no number: write the lower first" if empty
                   else "give it a default within them, or widen them")

    def require_constraint(self, require: n.Require, scope: Scope) -> Constraint:
        self.constraint_reads(require.test, scope)
        self.expect(require.test, BOOL, scope)
        return Constraint(require.test, require.pos, self.rules.text_of(require.test), require.message,
                          _reads(require.test, scope, self.rules))

    def constraint_reads(self, expr: n.Expr, scope: Scope) -> None:
        """A constraint holds of a value, whatever a resolution does: no chance, no outcome."""
        if self.meets_chance(expr):
            self.error(expr.pos, "a constraint cannot depend on chance",
                       "it must hold or fail for a given value" + self.rolled_in_call(expr))
        read = self.outcome_read(expr, scope)
        if read is not None:
            self.error(read[0], f"a constraint cannot read the outcome '{read[1]}'" + _through(read[2]),
                       "it reads the fields or inputs it constrains, the parameters and the rows")

    def check_params(self, params: tuple[n.Param, ...]) -> Scope:
        scope = Scope()
        for param in params:
            if param.name in scope.names:
                self.error(param.pos, f"parameter '{param.name}' is declared twice")
            type_ = self.resolve_type(param.type)
            if param.default is not None:
                self.expect(param.default, type_, Scope(), constant=True)
            scope.names[param.name] = type_
        return scope

    def check_modifier(self, decl: n.ModifierDecl) -> None:
        self.refuse_bounds(decl.params)
        if not decl.params:
            self.error(decl.pos, f"modifier '{decl.name}' needs a parameter: the value it modifies")
            return
        scope = self.check_params(decl.params)
        value = scope.names[decl.params[0].name]
        if not value.is_numeric:
            self.error(decl.params[0].pos, "a modifier changes a number: its first parameter must be int or number")
        # What a modifier gives is of its first parameter's type: an int stays whole through every term.
        amount = INT if value.name == "int" else NUMBER
        for term in decl.terms:
            if term.when is not None:
                self.expect(term.when, BOOL, scope)
            # A term's amount is read only when its condition holds.
            self.expect(term.amount, amount, scope.narrowed(proven(term.when, True)) if term.when else scope)

    def fn_type(self, name: str) -> Type:
        if name in self.rules.fn_types:
            return self.rules.fn_types[name]
        if name in self._fn_in_progress:
            return ANY  # recursion: the outer inference decides
        decl = self.rules.fns[name]
        self.refuse_bounds(decl.params)
        if decl.block is not None:
            return self.check_fn_block(decl)
        self._fn_in_progress.add(name)
        params = self.check_params(decl.params)
        assert decl.body is not None
        if decl.result is not None:
            result = self.resolve_type(decl.result)
            self.expect(decl.body, result, params)
        else:
            result = self.infer(decl.body, params)
        self._fn_in_progress.discard(name)
        self.rules.fn_types[name] = result
        return result

    def check_fn_block(self, decl: n.FnDecl) -> Type:
        """A fn written with statements: it says what it gives, and computes it without changing anything."""
        if decl.result is None:
            self.error(decl.pos, f"fn '{decl.name}' is written with statements: say what it gives",
                       f"write its type after the parameters: fn {decl.name}(...): int {{ ... return VALUE }}")
            gives = ANY
        else:
            gives = self.resolve_type(decl.result)
        self.rules.fn_types[decl.name] = gives  # known before the body: a fn may call itself
        assert decl.block is not None
        self.check_body(Body("fn", decl.name, gives, self.check_params(decl.params)), decl.block, decl.pos)
        return gives

    def declaration_named(self, name: str, at: n.Pos) -> str:
        """The top-level declaration of a name, as a message at `at` says what a name would hide: what it is, and
        where (its file's name too, where that is another than the message's)."""
        rules = self.rules
        typed = rules.params.get(name) or rules.choices.get(name) or rules.outcomes.get(name)
        found = (typed.decl if typed is not None else rules.rows.get(name) or rules.tables.get(name)
                 or rules.fns.get(name) or rules.modifiers.get(name) or rules.steps.get(name)
                 or rules.actions.get(name))
        if found is None:
            return "a declaration of the same name"
        here = at.path or self.rules.path
        where = "" if (found.pos.path or self.rules.path) == here else f"{found.pos.path or self.rules.path}:"
        return f"{_declared_as(found)} declared at {'line ' if not where else where}{found.pos.line}"

    def check_step(self, decl: n.StepDecl) -> None:
        if decl.is_action:  # its inputs are names of the examples that run it, as the declarations are
            declared = (set(self.rules.fns) | set(self.rules.tables) | set(self.rules.modifiers) | self.step_names)
            for param in decl.params:
                if self.global_type(param.name) is not None or param.name in declared:
                    self.error(param.pos, f"input '{param.name}' would hide "
                                          f"{self.declaration_named(param.name, param.pos)}",
                               "an action's inputs and the rules' names are read alike (by an example's expect): "
                               "choose another name")
                elif param.name in EXAMPLE_NAMES:
                    self.error(param.pos, _KEPT_NAME.format(name=param.name), "an example's expect reads it: "
                               "choose another name")
        scope = self.check_params(decl.params)
        self.check_input_constraints(decl, scope)
        gives = self.resolve_type(decl.result) if decl.result is not None else None
        body = self.check_body(Body("action" if decl.is_action else "step", decl.name, gives, scope), decl.body,
                               decl.pos)
        if decl.is_action:
            self.rules.action_locals[decl.name] = dict(body.names)

    def check_body(self, body: Body, stmts: tuple[n.Stmt, ...], pos: n.Pos) -> Scope:
        """The statements of a fn, step or action; the scope of its top-level names."""
        outer, self._body = self._body, body  # a fn's body may be checked while another is, when first called
        loops, self._loops = self._loops, 0
        inner = body.params.child()
        self.check_block(stmts, inner)
        self._body, self._loops = outer, loops
        if body.gives is not None and not always_leaves(stmts):
            self.error(pos, f"{body.what} '{body.name}' gives a value of type {body.gives}, but can reach its end "
                       "without giving it", "end every way through it with 'return VALUE'")
        return inner

    @property
    def step_names(self) -> set[str]:
        return set(self.rules.steps) | set(self.rules.actions)

    # ---- statements

    def check_block(self, stmts: tuple[n.Stmt, ...], scope: Scope) -> None:
        for stmt in stmts:
            self.check_stmt(stmt, scope)

    def check_stmt(self, stmt: n.Stmt, scope: Scope) -> None:
        value_call = step_value(stmt)
        if value_call is not None and value_call.func in self.step_names:
            self._value_calls.add(value_call.pos)
        in_fn = self._body is not None and self._body.what == "fn"
        if in_fn and not self.check_fn_statement(stmt, scope):
            return
        self.check_statement_parts(stmt, scope)
        if in_fn:  # after the parts: only then is it known which dice literals describe a roll, not make one
            self.refuse_chance_in_fn(stmt)

    def check_statement_parts(self, stmt: n.Stmt, scope: Scope) -> None:
        if isinstance(stmt, n.Let):
            if scope.lookup(stmt.name) is not None:
                self.error(stmt.pos, f"'{stmt.name}' is already defined here",
                           f"to change it, write '{stmt.name} = ...' without 'let'")
            elif stmt.name in EXAMPLE_NAMES and self._body is not None and self._body.what == "action":
                self.error(stmt.pos, _KEPT_NAME.format(name=stmt.name), "an example's expect reads an action's "
                           "names and it alike: choose another name")
            elif self.global_type(stmt.name) is not None:
                self.error(stmt.pos, f"'{stmt.name}' would hide {self.declaration_named(stmt.name, stmt.pos)}",
                           "choose another name")
            if stmt.type is not None:
                declared = self.resolve_type(stmt.type)
                value = self.expect(stmt.value, declared, scope)
                scope.names[stmt.name] = declared
            elif isinstance(stmt.value, n.RecordLit):  # a record of no kind said: the let says it
                self.error(stmt.value.pos, "a record needs a known kind here", self.record_kind_hint(stmt))
                scope.names[stmt.name] = value = ANY
            else:
                before = len(self.diagnostics)
                value = scope.names[stmt.name] = self.infer(stmt.value, scope)
                self.known_type(stmt.value, value, before, f"let {stmt.name}: list of int = []")
            scope.facts[(stmt.name,)] = not value.optional and value.name != "none"
            self.holds_record(scope, stmt.name, stmt.value)
        elif isinstance(stmt, n.Assign):
            self.check_assign(stmt, scope)
        elif isinstance(stmt, n.If):
            self.check_if(stmt, scope)
        elif isinstance(stmt, n.For):
            source = self.not_none(stmt.source, self.infer(stmt.source, scope))
            item = ANY
            if source.name == "list":
                item = source.item or ANY
            elif source.name != "any":
                self.error(stmt.source.pos, f"a for loop runs over a list, not {with_article(source)}")
            # What the body changes on one pass is not known on the next one, nor after the loop.
            changed = changes(stmt.body, self.step_names)
            inner = scope.child()
            inner.forget(changed)
            inner.bind(stmt.var, item)
            self.check_loop_body(stmt.body, inner)
            scope.forget(changed)
        elif isinstance(stmt, n.While):
            self.check_while(stmt, scope)
        elif isinstance(stmt, n.Break):
            if not self._loops:
                self.error(stmt.pos, "'break' leaves a loop, and there is no loop around it here",
                           "to leave a step, write 'return'; to end the resolution, 'stop'")
        elif isinstance(stmt, n.CallStmt):
            self.check_call_stmt(stmt.call, scope)
            scope.forget(Changes(calls=True))
        elif isinstance(stmt, n.Event):
            for arg in stmt.args:
                self.infer(arg, scope)
            for kw in stmt.keywords:
                self.infer(kw.value, scope)
        elif isinstance(stmt, n.Return):
            self.check_return(stmt, scope)

    def check_return(self, stmt: n.Return, scope: Scope) -> None:
        """`return VALUE` in a fn or step that gives one; elsewhere `return`, or `return "why"` (for explain)."""
        body = self._body
        if body is None:
            return
        if body.gives is None:
            if stmt.value is not None and not isinstance(stmt.value, n.Text):
                hint = (f"to give a value, say its type after the parameters: step {body.name}(...): int {{ ... }}"
                        if body.what == "step" else "an action's results are its outcomes: set one")
                self.error(stmt.value.pos, f"{body.what} '{body.name}' gives no value: 'return' only ends it",
                           hint + "; a text after 'return' is the reason fracas explain shows")
            return
        if stmt.value is None:
            self.error(stmt.pos, f"{body.what} '{body.name}' gives a value of type {body.gives}: 'return' needs "
                       "the value", "return VALUE")
            return
        self.expect(stmt.value, body.gives, scope)

    def check_fn_statement(self, stmt: n.Stmt, scope: Scope) -> bool:
        """A fn computes a value and changes nothing: no step, event or stop, no writes but to its locals.

        Whether the statement is one a fn may hold at all (then its parts are checked too)."""
        assert self._body is not None
        name = self._body.name
        hint = f"a step may: step {name}(...): TYPE {{ ... return VALUE }}, its value taken with let x = {name}(...)"
        if isinstance(stmt, (n.Stop, n.Event, n.CallStmt)):
            what = {n.Stop: "stop the resolution", n.Event: "record an event", n.CallStmt: "call a step"}[type(stmt)]
            self.error(stmt.pos, f"a fn cannot {what}: it computes a value and changes nothing", hint)
            return False
        if isinstance(stmt, n.Assign) and (len(stmt.target) > 1 or scope.lookup(stmt.target[0]) is None):
            self.error(stmt.pos, f"a fn cannot change '{'.'.join(stmt.target)}': it changes nothing but its own "
                       "locals", hint)
        return True

    def refuse_chance_in_fn(self, stmt: n.Stmt) -> None:
        assert self._body is not None
        name = self._body.name
        for expr in expressions((stmt,)) if not isinstance(stmt, (n.If, n.For)) else self.heads(stmt):
            if self.meets_chance(expr):
                self.error(expr.pos, "a fn written with statements cannot depend on chance",
                           f"a step may roll: step {name}(...): TYPE {{ ... return VALUE }}, its value taken "
                           f"with let x = {name}(...)")
                return

    @staticmethod
    def heads(stmt: n.If | n.For) -> tuple[n.Expr, ...]:
        """The expressions of an if or for itself, not of its inner blocks (each checked as it comes)."""
        return (stmt.test,) if isinstance(stmt, n.If) else (stmt.source,)

    def meets_chance(self, expr: n.Expr) -> bool:
        """Whether evaluating expr may roll: a chance primitive in it, or in a fn or modifier it calls."""
        return _uses_chance(expr, self.learnt) or any(self.callee_meets_chance(c.func) for c in calls(expr))

    def refuse_chance_in_expectation(self, expr: n.Expr) -> None:
        """An expectation (an example's expect line, a sweep's metric) reads outcomes; it rolls nothing."""
        if self.meets_chance(expr):
            self.error(self.rolled_at(expr).pos, "an expectation cannot roll dice",
                       "it reads the resolution's outcomes: roll in the action, and read what it gives"
                       + self.rolled_in_call(expr))

    def rolled_at(self, expr: n.Expr) -> n.Expr:
        """The innermost part of an expression that meets chance (meets_chance): a dice literal, a chance builtin,
        or a call of a fn or modifier that rolls, for an error to point at."""
        while True:
            inner = next((child for child in children(expr) if self.meets_chance(child)), None)
            if inner is None:
                return expr
            expr = inner

    def outcome_read(self, expr: n.Expr, scope: Scope) -> tuple[n.Pos, str, str] | None:
        """The first outcome an expression reads, by its own names or in a fn or modifier it calls: where (the
        name, or the call), which, and the fn or modifier called ("" for a name of its own)."""
        for name in free_names(expr):
            if scope.lookup(name.name) is None and name.name in self.rules.outcomes:
                return name.pos, name.name, ""
        for call in calls(expr):
            found = self.callee_reads_outcome(call.func)
            if found is not None:
                return call.pos, found, call.func
        return None

    def callee_reads_outcome(self, name: str) -> str | None:
        if name not in self._fn_outcome:
            self._fn_outcome[name] = None  # a fn calling itself: decided by the rest of its body
            decl = self.rules.fns.get(name) or self.rules.modifiers.get(name)
            parts: list[n.Expr] = []
            bound: set[str] = set()
            if isinstance(decl, (n.FnDecl, n.ModifierDecl)):
                bound = {param.name for param in decl.params}
            if isinstance(decl, n.FnDecl) and decl.block is not None:
                parts = list(expressions(decl.block))
                bound |= {stmt.name for stmt in statements(decl.block) if isinstance(stmt, n.Let)}
                bound |= {stmt.var for stmt in statements(decl.block) if isinstance(stmt, n.For)}
            elif isinstance(decl, n.FnDecl):
                parts = [decl.body]
            elif isinstance(decl, n.ModifierDecl):
                parts = [part for term in decl.terms for part in (term.amount, term.when) if part is not None]
            inner = Scope(dict.fromkeys(bound, ANY))
            self._fn_outcome[name] = next((read[1] for part in parts
                                           if (read := self.outcome_read(part, inner)) is not None), None)
        return self._fn_outcome[name]

    def rolled_in_call(self, expr: n.Expr) -> str:
        """Where chance met by an expression comes from a fn or modifier it calls, and not from its own text: that
        one, for a hint ("; 'bonus' rolls dice")."""
        if _uses_chance(expr, self.learnt):
            return ""
        found = next((c.func for c in calls(expr) if self.callee_meets_chance(c.func)), None)
        return "" if found is None else f"; '{found}' may roll dice"

    def callee_meets_chance(self, name: str) -> bool:
        if name not in self._fn_chance:
            self._fn_chance[name] = False  # a fn calling itself: decided by the rest of its body
            decl = self.rules.fns.get(name) or self.rules.modifiers.get(name)
            parts: list[n.Expr] = []
            if isinstance(decl, n.FnDecl):
                parts = [decl.body] if decl.body is not None else list(expressions(decl.block or ()))
            elif isinstance(decl, n.ModifierDecl):
                parts = [part for term in decl.terms for part in (term.amount, term.when) if part is not None]
            self._fn_chance[name] = any(self.meets_chance(part) for part in parts)
        return self._fn_chance[name]

    def check_loop_body(self, body: tuple[n.Stmt, ...], scope: Scope) -> None:
        self._loops += 1
        before = dict(self._record_values)
        self.check_block(body, scope)
        self._record_values = before | self._record_values  # the body may run no time, or end holding a record
        self._loops -= 1

    def check_while(self, stmt: n.While, scope: Scope) -> None:
        # The condition is tested before every pass: what the body changes is not known when it is.
        changed = changes(stmt.body)
        scope.forget(changed)
        self.expect(stmt.test, BOOL, scope)
        inner = scope.child()
        inner.learn(proven(stmt.test, True))
        self.check_loop_body(stmt.body, inner)
        if not breaks(stmt.body):  # the loop ends only when its condition fails
            scope.learn(proven(stmt.test, False))

    def check_if(self, stmt: n.If, scope: Scope) -> None:
        self.expect(stmt.test, BOOL, scope)
        branches = ((stmt.then, True), (stmt.otherwise, False))
        held, after = self._record_values, {}
        for body, holds in branches:
            self._record_values = dict(held)  # each branch from what held before it, not what the other left
            inner = scope.child()
            inner.learn(proven(stmt.test, holds))
            self.check_block(body, inner)
            after[holds] = self._record_values
        # After `if x == none { return }`, the rest of the block knows x is not none.
        leaves = {holds: always_leaves(body) for body, holds in branches}
        # What may hold a record after the if: what either branch that goes on to the rest leaves holding one.
        going_on = [after[holds] for holds in (True, False) if not leaves[holds]]
        self._record_values = {key: pos for found in going_on for key, pos in found.items()} if going_on else held
        for holds in (True, False):
            if leaves[holds] and not leaves[not holds]:
                scope.learn(proven(stmt.test, not holds))
        for body, holds in branches:
            if not leaves[holds]:
                scope.forget(changes(body, self.step_names))

    def check_call_stmt(self, call: n.Call, scope: Scope) -> None:
        step = self.rules.steps.get(call.func) or self.rules.actions.get(call.func)
        if step is None and (call.func in self._misnamed or call.func in self._clashing):  # refused already
            self.arguments_alone(call, scope)
            return
        if step is None:
            if call.func in self.rules.fns or call.func in self.rules.modifiers or call.func in SIGNATURES:
                self.error(call.pos, f"the value of '{call.func}(...)' is not used",
                           "store it with 'let name = ...' or assign it to a field")
            else:
                self.error(call.pos, f"unknown step '{call.func}'",
                           missing.FUNCTIONS.get(call.func) or did_you_mean(call.func, self.rules.steps))
            return
        self.check_arguments(call, self.rules.param_types(step), step.params, scope)

    def holds_record(self, scope: Scope, name: str, value: n.Expr) -> None:
        """Note whether a local given this value may hold a record written in the rules from now on."""
        owner = scope.owner(name)
        if owner is None:
            return
        written = self.record_written(value, scope)
        if written is None:
            self._record_values.pop((owner, name), None)
        else:
            self._record_values[(owner, name)] = written

    def record_written(self, value: n.Expr, scope: Scope) -> n.Pos | None:
        """Where a value is, or may be, a record written in the rules: written there, held by a local, or one
        of a conditional's branches."""
        if isinstance(value, n.RecordLit):
            return value.pos
        if isinstance(value, n.Name):
            owner = scope.owner(value.name)
            return None if owner is None else self._record_values.get((owner, value.name))
        if isinstance(value, n.Conditional):
            return self.record_written(value.then, scope) or self.record_written(value.otherwise, scope)
        return None

    def record_changed(self, stmt: n.Assign, scope: Scope) -> bool:
        """Whether the assignment changes a field of a record written in the rules: said, where it does."""
        head = stmt.target[0]
        owner = scope.owner(head)
        written = None if owner is None else self._record_values.get((owner, head))
        if written is None:
            return False
        self.error(stmt.pos, f"'{head}' holds a record written in the rules (line {written.line}): a record is a value, "
                   "and its fields never change",
                   "only the scenario's things change (an action's inputs and what they hold); for a changed value, "
                   f"write a new record: {head} = {{...}}")
        return True

    def check_assign(self, stmt: n.Assign, scope: Scope) -> None:
        head, *path = stmt.target
        self.rules.assigned_fields.update(path)
        if (path or stmt.index is not None) and self.record_changed(stmt, scope):
            return
        target = scope.lookup(head)
        body = self._body
        # An action's inputs are the scenario's: what it leaves in them is the state it leaves.
        if (not path and body is not None and body.what != "action" and target is not None
                and scope.owner(head) is body.params):
            self.parameter_assigned(stmt, body)
            return
        if target is None and (head in self._clashing or head in self._misnamed):  # refused already, or either thing
            # may be meant: what is written to it is checked
            self.infer(stmt.value, scope)
            return
        if target is None:
            if head in self.rules.outcomes:
                target = self.rules.outcomes[head].type
            elif head in self.rules.params or head in self.rules.choices:
                what = "a parameter" if head in self.rules.params else "a choice"
                self.error(stmt.pos, f"'{head}' is {what}: it cannot change during a resolution",
                           "use 'let' for a working value")
                return
            elif head in self.rules.rows:
                self.error(stmt.pos, f"'{head}' is a row: rows are constants")
                return
            else:
                self.error(stmt.pos, f"unknown name '{head}'",
                           did_you_mean(head, scope.all_names() | set(self.rules.outcomes))
                           or f"declare it first with 'let {head} = ...'")
                return
        place: Path = (head,)
        for name in path:
            if target.optional and not scope.known(place):
                self.maybe_none(".".join(place), stmt.pos)
            target = self.field_type(target.required(), name, stmt.pos)
            place += (name,)
        if stmt.index is not None:
            target = self.item_assigned(stmt, target, place, scope)
            if target is None:
                return
            if stmt.op != "=" and target.optional:  # nothing tells which items are known not to be none
                self.error(stmt.pos, f"an item of '{'.'.join(place)}' may be none here, so '{stmt.op}' may not work "
                                     "on it", f"take the item first and check it: let v = {'.'.join(place)}[...], "
                                              "then if v != none { ... } and set the item with '='")
                return
        if stmt.op == "=" and stmt.index is not None:
            self.expect(stmt.value, target, scope)
            scope.forget(Changes(frozenset({stmt.target})))  # what was known of the list's items is not, now
            return
        if stmt.op == "=":
            value = self.expect(stmt.value, target, scope)
            scope.forget(Changes(frozenset({stmt.target})))
            if not value.optional and value.name != "none":
                scope.learn([stmt.target])
            if not path:
                self.holds_record(scope, head, stmt.value)
            return
        if target.optional and scope.known(place):
            target = target.required()
        elif target.optional:
            self.maybe_none(".".join(place), stmt.pos)
            return
        if stmt.op == "+=" and target.name in ("list", "dice"):
            self.expect(stmt.value, target, scope)
            return
        value = self.not_none(stmt.value, self.infer(stmt.value, scope))
        if stmt.op == "-=" and target.name == "dice" and value.name in ("int", "any"):
            if _dice_spine(stmt.value):
                self.dice_taken_away(stmt.pos)
            return
        if value.name == "dice" and stmt.op != "=":
            self.error(stmt.pos, f"'{stmt.op}' needs numbers, not {target} and dice", self.roll_hint(stmt.value))
            return
        if stmt.op in ("-=", "*=") and not (target.is_numeric and value.is_numeric):
            self.error(stmt.pos, f"'{stmt.op}' needs numbers, not {target} and {value}")
        elif stmt.op == "+=" and self.plus_type(target, value) is None:
            self.error(stmt.pos, f"cannot add {value} to {target}")
        elif stmt.op != "=" and target.name == "int" and value.name == "number":
            owner = scope.owner(head)
            held = ("item" if stmt.index is not None else "field" if path else "outcome" if owner is None
                    else "input" if body is not None and owner is body.params else "local")
            self.error(stmt.pos, f"an int {held} cannot take a fraction", "round it explicitly with floor, ceil or round")

    def item_assigned(self, stmt: n.Assign, target: Type, place: Path, scope: Scope) -> Type | None:
        """The type of the item `place[index]` that an assignment sets (None, said, where there is none)."""
        assert stmt.index is not None
        self.expect(stmt.index, INT, scope)
        if target.optional and not scope.known(place):
            self.maybe_none(".".join(place), stmt.pos)
            return None
        if target.name == "list":
            return target.item or ANY
        if target.name != "any":
            self.error(stmt.pos, f"only an item of a list can be set by its index, and '{'.'.join(place)}' is "
                                 f"{with_article(target)}")
            return None
        return ANY

    def parameter_assigned(self, stmt: n.Assign, body: Body) -> None:
        """A parameter is the caller's value: a new one would change nothing the caller sees."""
        head = stmt.target[0]
        if body.gives is not None:
            gives = "to give the caller a result, return it"
        else:
            gives = f"to give the caller a result, say its type (step {body.name}(...): int) and return it"
        self.error(stmt.pos, f"'{head}' is a parameter of {body.what} '{body.name}': assigning it would change "
                   "nothing the caller sees", f"work on a copy: let {head}_left = {head}; {gives}")

    # ---- examples

    @staticmethod
    def typed_by_default(typed: Typed) -> bool:
        """Whether a parameter's type is its default's, no type written (`param p = 0` is an int)."""
        return isinstance(typed.decl, n.ParamDecl) and typed.decl.type is None

    def check_example(self, example: n.ExampleDecl) -> None:
        if example.run is None:
            self.error(example.pos, f"example '{example.name}' has no 'run' line",
                       "write run ACTION(name: value, ...)")
            return
        action = self.rules.actions.get(example.run.func)
        if action is None:
            if example.run.func not in self._misnamed:  # its declaration's name is refused already
                self.error(example.run.pos, f"unknown action '{example.run.func}'",
                           did_you_mean(example.run.func, self.rules.actions))
            return
        for index, (name, value) in enumerate(example.sets):
            param = self.rules.params.get(name) or self.rules.choices.get(name)
            if param is None:
                named = example.set_pos[index] if index < len(example.set_pos) else value.pos
                self.error(named, f"unknown parameter or choice '{name}'",
                           did_you_mean(name, list(self.rules.params) + list(self.rules.choices)))
            elif self.typed_by_default(param) and param.type.name == "int" \
                    and self.infer(value, Scope()).name == "number":
                self.error(value.pos, f"'{name}' is a whole number, as its default {self.rules.text_of(param.value)} "
                           f"is: it takes no fraction", f"to take one, declare it as one: param {name}: number = "
                           f"{self.rules.text_of(param.value)}")
            else:
                self.expect(value, param.type, Scope(), constant=True)
        self.check_arguments(example.run, self.rules.param_types(action), action.params, Scope())
        if example.rolls is not None:
            for item in example.rolls.items:
                self.expect(item, INT, Scope(), constant=True)
        if not example.name.strip():  # `fracas test` and the editor's lens show an example by its name
            self.error(example.pos, "an example needs a name", 'say what it shows, as in example "EX-01 a miss '
                                                               'deals no damage"')
        if not example.expects:
            self.error(example.pos, f"example '{example.name}' expects nothing",
                       "add an 'expect' line that could fail")
        scope = Scope(self.rules.param_types(action))
        scope.names.update(self.rules.action_locals.get(action.name, {}))
        scope.names.update(EXAMPLE_NAMES)
        self._in_example = True
        for expect in example.expects:
            self.expect(expect, BOOL, scope)
            self.refuse_chance_in_expectation(expect)  # after it is checked: a dice literal compared with a dice
            # value describes them
        self._in_example = False

    # ---- expressions

    def global_type(self, name: str) -> Type | None:
        if name in self.rules.params:
            return self.rules.params[name].type
        if name in self.rules.choices:
            return self.rules.choices[name].type
        if name in self.rules.outcomes:
            return self.rules.outcomes[name].type
        if name in self.rules.rows:
            return Type(self.rules.rows[name].kind)
        return None

    def unknown_row(self, expr: n.Binary, scope: Scope) -> bool:
        """A name known nowhere compared with a row (`x == tackel`, `tackel in skills`): said, with the rows of that
        kind it may mean, where the other side's type tells the kind."""
        sides = [(expr.left, expr.right)] + ([(expr.right, expr.left)] if expr.op in ("==", "!=") else [])
        for name, other in sides:
            if not isinstance(name, n.Name) or name.name in self.visible_names(scope) or name.name in SIGNATURES \
                    or name.name in self.rules.fns or name.name in self.rules.tables or name.name in self.rules.kinds:
                continue
            found = self.infer(other, scope)
            kind = found.item if expr.op in ("in", "not in") and found.name == "list" and found.item else found
            rows = self.rules.rows_of(kind.name)
            self.error(name.pos, f"unknown name '{name.name}'", self.unknown_name_hint(name.name, scope)
                       or listed(f"the values of {kind.name}", rows, ""))
            return True
        return False

    def unknown_name_hint(self, name: str, scope: Scope) -> str:
        """What a name known nowhere may have meant: dice, another language's word, a name close to it."""
        return _dice_hint(name) or missing.NAMES.get(name) or did_you_mean(name, self.visible_names(scope))

    def visible_names(self, scope: Scope) -> set[str]:
        return (scope.all_names() | set(self.rules.params) | set(self.rules.choices) | set(self.rules.outcomes)
                | set(self.rules.rows))

    def expect(self, expr: n.Expr, expected: Type, scope: Scope, constant: bool = False,
               one_type: bool = False) -> Type:
        """Check that expr fits `expected`; record literals take their kind from it. one_type: a list written
        where a list of anything is wanted must still hold items of one type (what `pick` gives is one)."""
        if isinstance(expr, n.RecordLit) and expected.is_kind:
            self.check_record(expr, expected, scope)
            self.learnt.record_kinds[expr.pos] = expected.name
            return expected.required()
        if isinstance(expr, n.ListLit) and expected.name == "list" and expected.item is not None:
            items = [self.expect(item, expected.item, scope, constant) for item in expr.items]
            if items and expected == list_of(NUMBER) and all(t == INT for t in items):
                return list_of(INT)  # whole numbers where numbers are wanted: sum([1, 2]) is an int
            if expected.item.name == "any":  # the items' own type, where they have one: pick([1, 2]) is an int
                return list_of(self.item_type(expr.items, items, report=one_type))
            return expected
        records = (isinstance(expr, n.Comprehension) and expected.name == "list" and expected.item is not None
                   and expected.item.is_kind)  # [{armor: i} for i in range(2)]: records of the kind wanted
        actual = self.infer(expr, scope, expected.item if records else None)
        fitting = fits(actual, expected)
        if fitting and expected.name == "dice" and self.describe_dice(expr):
            actual = DICE.maybe() if actual.optional else DICE
        if constant and self.meets_chance(expr):
            hint = "roll dice in a step, not in a row, parameter or default" + self.rolled_in_call(expr)
            if expected.name == "any" and _dice_spine(expr):
                hint += "; to keep a roll for later, give it the type dice, as in 'name: dice = 1d6'"
            self.error(expr.pos, "a constant cannot depend on chance", hint)
        if constant:
            read = self.outcome_read(expr, scope)
            if read is not None:
                self.error(read[0], f"a constant cannot read the outcome '{read[1]}'" + _through(read[2]),
                           "an outcome has no value before a resolution: a default or a row reads the "
                           "parameters, the rows, the tables and the fns of them")
        if not fitting and fits(actual.required(), expected):
            self.not_none(expr, actual)
        elif not fitting:
            hint = ""
            if actual.name == "number" and expected.name == "int":
                hint = "this may be a fraction: round it explicitly with floor, ceil or round"
            elif actual.name == "none":
                hint = f"only an optional type ('{expected}?') accepts none"
            elif actual.name == "dice":
                hint = self.roll_hint(expr)
            elif actual.name == "bool" and expected.is_numeric and self._in_aggregate == "mean":
                hint = f"a truth counts for no number: how often it holds is prob({self.rules.text_of(expr)})"
            elif actual.name == "text":
                hint = self.unquoted_hint(expr, expected)
            self.error(expr.pos, f"expected {expected}, found {actual}", hint)
        return actual

    def not_none(self, expr: n.Expr, found: Type) -> Type:
        """A value used as what it holds, never none: an optional one must have been checked first."""
        if found.optional and found.name not in ("none", "any"):
            self.maybe_none(self.rules.text_of(expr), expr.pos, path_of(expr) is None)
            return found.required()
        return found

    def maybe_none(self, text: str, pos: n.Pos, computed: bool = False) -> None:
        if computed:  # a call (which may roll) or an expression: each one is worked out anew, so no check holds
            hint = f"take its value first and check that: let v = {text}, then 'if v != none {{ ... }}'"
        else:
            hint = (f"check it first: inside 'if {text} != none {{ ... }}', after '{text} != none and', "
                    f"or after 'if {text} == none {{ return }}'; a check holds until the place is set again "
                    "(through any name that may hold the same thing) or a step is called")
        self.error(pos, f"'{text}' may be none here", hint)

    def describe_dice(self, expr: n.Expr) -> bool:
        """The dice literals of a dice value describe a roll: those it adds up, and either branch of an if.

        Whether it has any. Elsewhere, `1d6` is a roll made where it is written.
        """
        found = False
        for node in _dice_spine(expr, literals_only=False):
            if isinstance(node, n.Dice):
                numbers = (n.Number(node.pos, value=node.count), n.Number(node.pos, value=node.sides))
                self.learnt.described[node.pos] = n.Call(node.pos, func="dice", args=numbers)
                found = True
            elif _dice_spine(node.right) and node.pos not in self._taken_away:
                self._taken_away.add(node.pos)
                self.dice_taken_away(node.pos)
                self.describe_dice(node.right)  # one mistake, one message: not also a roll in a constant
        return found

    def dice_taken_away(self, pos: n.Pos) -> None:
        self.error(pos, "dice cannot be taken away", "a dice value adds dice, and adds or takes away a number: "
                   "2d6 + 1d4 - 1")

    def roll_hint(self, expr: n.Expr) -> str:
        return (f"a value of type dice describes a roll; roll it where the rules roll it: "
                f"roll({self.rules.text_of(expr)})")

    def check_given_fields(self, kind: KindInfo, fields: list[tuple[str, n.Expr, n.Pos]], scope: Scope,
                           constant: bool) -> set[str]:
        """Check field values given to a kind (in a row or a record); the names given."""
        given: set[str] = set()
        for name, value, pos in fields:
            info = kind.field(name)
            if info is None:
                near = closest(name, kind.field_names)
                before = self.rules.source(pos).line(pos.line)[:pos.column - 1]
                if name == "d" and before[-1:].isdigit():  # `damage 1d-3`: another game's dice, the sides left out
                    count = re.search(r"[0-9]+$", before).group()  # type: ignore[union-attr]
                    self.error(pos, missing.DICE_WITHOUT_SIDES.message.format(written=f"{count}d"),
                               missing.DICE_WITHOUT_SIDES.hint)
                    continue
                self.error(pos, f"unknown field '{name}' of kind '{kind.name}'",
                           f"did you mean '{near}'?" if near
                           else f"the fields of '{kind.name}' are: {', '.join(kind.field_names)}")
                if near:  # the misspelt field stands for the one it resembles: no second error
                    given.add(near)
                continue
            if name in given:
                self.error(pos, f"field '{name}' is given twice")
            given.add(name)
            self.expect(value, info.type, scope, constant)
        return given

    def check_record(self, expr: n.RecordLit, kind_type: Type, scope: Scope) -> None:
        kind = self.rules.kinds[kind_type.name]
        members = self.rules.members(kind.name)
        if members is not None:  # a table would make a value that is none of them
            self.error(expr.pos, f"{with_article(kind.name)} is one of its rows ({', '.join(members)}), not a record",
                       f"write one of them, as in {members[0]}")
            return
        given = self.check_given_fields(kind, [(f.name, f.value, f.pos) for f in expr.fields], scope, False)
        missing = [f.name for f in kind.fields if f.default is None and f.name not in given]
        if missing:
            self.error(expr.pos, f"a {kind.name} needs {', '.join(repr(m) for m in missing)}")

    def field_type(self, obj: Type, name: str, pos: n.Pos) -> Type:
        if obj.name == "any":
            return ANY
        if not obj.is_kind:
            counted = obj.name in ("list", "text") and name in ("length", "len", "size", "count")
            self.error(pos, f"{with_article(obj)} has no field '{name}'",
                       f"len(...) counts the {'items' if obj.name == 'list' else 'characters'}" if counted else "")
            return ANY
        kind = self.rules.kinds[obj.name]
        info = kind.field(name)
        if info is None:
            self.error(pos, f"unknown field '{name}' of kind '{kind.name}'",
                       did_you_mean(name, kind.field_names)
                       or listed(f"the fields of '{kind.name}'", kind.field_names,
                                     f"'{kind.name}' has no fields"))
            return ANY
        return info.type

    def plus_type(self, a: Type, b: Type) -> Type | None:
        if "dice" in (a.name, b.name) and fits(a, DICE) and fits(b, DICE):
            return DICE  # more dice, or a number more: still a roll to make
        if a is UNKNOWN or b is UNKNOWN:  # an error in it, said already: anything adds, and nothing more is said
            return ANY
        if a.is_numeric and b.is_numeric:
            return INT if a.name == b.name == "int" else (ANY if "any" in (a.name, b.name) else NUMBER)
        for same in (POOL, VOLLEY, TEXT):
            if a.name == same.name and b.name == same.name:
                return same
        if a.name == "list" and b.name == "list":
            return unify(a, b)
        return None

    def infer(self, expr: n.Expr, scope: Scope, item: Type | None = None) -> Type:
        """The type of an expression. item: the kind of the records a comprehension makes, where a list of them
        is wanted (a record written alone knows no kind)."""
        method = getattr(self, "infer_" + type(expr).__name__)
        reported = len(self.diagnostics)
        found = method(expr, scope) if item is None else method(expr, scope, item)
        # An expression with an error in it (an unknown function, say) has an unknown type,
        # which fits anywhere: one mistake, one message, not a cascade of type errors after it.
        return UNKNOWN if len(self.diagnostics) > reported else found

    def infer_Number(self, expr: n.Number, scope: Scope) -> Type:
        return INT if isinstance(expr.value, int) else NUMBER

    def infer_Dice(self, expr: n.Dice, scope: Scope) -> Type:
        if expr.count < 1 or expr.sides < 1:
            self.error(expr.pos, "dice need at least one die of at least one side")
        return INT

    def infer_Text(self, expr: n.Text, scope: Scope) -> Type:
        return TEXT

    def infer_Bool(self, expr: n.Bool, scope: Scope) -> Type:
        return BOOL

    def infer_NoneLit(self, expr: n.NoneLit, scope: Scope) -> Type:
        return NONE

    def infer_Name(self, expr: n.Name, scope: Scope) -> Type:
        found = scope.lookup(expr.name)
        if found is None and (expr.name in self._clashing or expr.name in self._misnamed):
            return ANY  # a declaration refused already: its uses are not told again
        if found is None:
            found = self.global_type(expr.name)
        if found is None:
            if expr.name in self.rules.tables:
                table = self.rules.tables[expr.name]
                self.error(expr.pos, f"'{expr.name}' is a table: look a value up with "
                                     f"{expr.name}[{table.row_kind}, {table.column_kind}]")
            elif expr.name in self.rules.kinds:
                self.error(expr.pos, f"'{expr.name}' is a kind, not a value",
                           f"name one of its rows, or write {{ field: value }} where {with_article(expr.name)} "
                           "is expected")
            elif expr.name in self.rules.fns or expr.name in SIGNATURES:
                self.error(expr.pos, f"'{expr.name}' is a function: call it with (...)")
            else:
                self.error(expr.pos, f"unknown name '{expr.name}'", self.unknown_name_hint(expr.name, scope))
            return ANY
        return found.required() if found.optional and scope.known((expr.name,)) else found

    def infer_Attr(self, expr: n.Attr, scope: Scope) -> Type:
        obj = self.not_none(expr.obj, self.infer(expr.obj, scope))
        self.learnt.field_read(expr.pos, obj.name if obj.is_kind else "")
        found = self.field_type(obj, expr.name, expr.pos)
        return found.required() if found.optional and scope.known(path_of(expr)) else found

    def infer_Index(self, expr: n.Index, scope: Scope) -> Type:
        if isinstance(expr.obj, n.Name) and expr.obj.name in self.rules.tables and scope.lookup(expr.obj.name) is None:
            table = self.rules.tables[expr.obj.name]
            keys = (expr.index,) + expr.more
            if len(keys) != 2:
                self.error(expr.pos, f"table '{table.name}' is looked up with two keys: [{table.row_kind}, {table.column_kind}]")
                return ANY
            self.expect(keys[0], Type(table.row_kind), scope)
            self.expect(keys[1], Type(table.column_kind), scope)
            return self.rules.table_types.get(table.name, ANY)
        if expr.more:
            self.error(expr.more[0].pos, "a list takes one index")
        obj = self.not_none(expr.obj, self.infer(expr.obj, scope))
        self.expect(expr.index, INT, scope)
        if obj.name == "list":
            return obj.item or ANY
        if obj.name != "any":
            self.error(expr.pos, f"only a list can be indexed, not {with_article(obj)}")
        return ANY

    def infer_Unary(self, expr: n.Unary, scope: Scope) -> Type:
        if expr.op == "not":
            self.expect(expr.operand, BOOL, scope)
            return BOOL
        operand = self.not_none(expr.operand, self.infer(expr.operand, scope))
        if not operand.is_numeric:
            self.error(expr.pos, f"cannot negate {with_article(operand)}",
                       self.roll_hint(expr.operand) if operand.name == "dice" else "")
            return ANY
        return operand.required()

    def infer_Binary(self, expr: n.Binary, scope: Scope) -> Type:
        op = expr.op
        if op in ("and", "or"):
            self.expect(expr.left, BOOL, scope)
            # The right is read only when the left did not decide: `x != none and x > 3`.
            self.expect(expr.right, BOOL, scope.narrowed(proven(expr.left, op == "and")))
            return BOOL
        if op in ("in", "not in", "==", "!=") and self.unknown_row(expr, scope):
            return BOOL
        left = self.infer(expr.left, scope)
        right = self.infer(expr.right, scope)
        if op in ("in", "not in"):  # none may be looked for in a list, but the list must be there
            right = self.not_none(expr.right, right)
        elif op not in ("==", "!="):  # comparing with none is how an optional value is checked
            left, right = self.not_none(expr.left, left), self.not_none(expr.right, right)
        if op in ("in", "not in"):
            if right.name == "list":
                if right.item and unify(left, right.item) is None:
                    self.error(expr.pos, f"a {left} is never in a list of {right.item}")
            elif right.name != "any":
                self.error(expr.right.pos, f"'{op}' needs a list on its right, not {with_article(right)}")
            return BOOL
        if op in ("==", "!="):
            both = unify(left, right)
            if both is None:
                self.error(expr.pos, f"comparing {with_article(left)} with {with_article(right)} "
                                     f"is always {op == '!='}".lower(),
                           self.unquoted_hint(expr.right, left) or self.unquoted_hint(expr.left, right))
            elif both.name == "dice":  # two descriptions compared: `sword.damage == 1d6 + 1`
                self.describe_dice(expr.left)
                self.describe_dice(expr.right)
            return BOOL
        if op in ("<", "<=", ">", ">="):
            if not (left.is_numeric and right.is_numeric):
                ranked = left.is_kind and left.name == right.name  # `a > b` of an enum: no order of its own
                self.error(expr.pos, f"'{op}' compares numbers, not {left} and {right}",
                           self.dice_hint(expr, left, right) or (
                               f"the values of {left.name} have no order: give the kind a number to compare, which "
                               f"each row sets (kind {left.name} {{ rank: int }}), and compare "
                               f"{self.rules.text_of(expr.left)}.rank {op} {self.rules.text_of(expr.right)}.rank"
                               if ranked else ""))
            return BOOL
        if op == "+":
            result = self.plus_type(left, right)
            if result is None:
                self.error(expr.pos, f"cannot add {left} and {right}", self.dice_hint(expr, left, right))
                return ANY
            if result.name == "dice":
                self.describe_dice(expr)
            return result
        if op == "-" and left.name == "dice" and right.name in ("int", "any"):
            self.describe_dice(expr)
            return DICE
        if op == "-" and right.name == "dice" and fits(left, DICE):
            self.dice_taken_away(expr.pos)
            return ANY
        if not (left.is_numeric and right.is_numeric):
            self.error(expr.pos, f"'{op}' needs numbers, not {left} and {right}", self.dice_hint(expr, left, right))
            return ANY
        if op == "/":
            return NUMBER
        return INT if left.name == right.name == "int" else (ANY if "any" in (left.name, right.name) else NUMBER)

    def infer_InRange(self, expr: n.InRange, scope: Scope) -> Type:
        for part in (expr.value, expr.low, expr.high):
            found = self.infer(part, scope)
            if not found.is_numeric:
                self.error(part.pos, f"'in low..high' compares numbers, not {with_article(found)}")
        return BOOL

    def dice_hint(self, expr: n.Binary, left: Type, right: Type) -> str:
        """Where a number is wanted and a dice value given: how to roll it."""
        for side, found in ((expr.left, left), (expr.right, right)):
            if found.name == "dice":
                return self.roll_hint(side)
        return ""

    def infer_Conditional(self, expr: n.Conditional, scope: Scope) -> Type:
        self.expect(expr.test, BOOL, scope)
        then = self.infer(expr.then, scope.narrowed(proven(expr.test, True)))
        otherwise = self.infer(expr.otherwise, scope.narrowed(proven(expr.test, False)))
        result = unify(then, otherwise)
        if result is None:
            self.error(expr.pos, f"the two branches give {with_article(then)} and {with_article(otherwise)}",
                       self.unquoted_hint(expr.then, otherwise) or self.unquoted_hint(expr.otherwise, then))
            return ANY
        return result

    def unquoted_hint(self, written: n.Expr, wanted: Type) -> str:
        """A row's name written in quotes where a value of its kind is wanted: "retreat" for retreat."""
        if isinstance(written, n.Text) and wanted.is_kind and written.value in self.rules.rows \
                and self.rules.rows[written.value].kind == wanted.name:
            return f"'{written.value}' is a value of {wanted.name}: write it without quotes, {written.value}"
        return ""

    def infer_ListLit(self, expr: n.ListLit, scope: Scope) -> Type:
        return list_of(self.item_type(expr.items, [self.infer(element, scope) for element in expr.items]))

    def item_type(self, items: list[n.Expr], types: list[Type], report: bool = True) -> Type:
        """The type that a list's items, of these types, all fit; where one fits none the items before it do:
        reported there (report), or any (the list is not of one type: an `order:` of owners and tags)."""
        item: Type = ANY
        for element, found in zip(items, types):
            merged = unify(item, found)
            if merged is None:
                if not report:
                    return ANY
                self.error(element.pos, f"a list of {item} cannot also hold {with_article(found)}")
            else:
                item = merged
        return item

    def infer_Comprehension(self, expr: n.Comprehension, scope: Scope, item: Type | None = None) -> Type:
        source = self.not_none(expr.source, self.infer(expr.source, scope))
        inner = scope.child()
        if source.name == "list":
            inner.bind(expr.var, source.item or ANY)
        else:
            if source.name != "any":
                self.error(expr.source.pos, f"'for' runs over a list, not {with_article(source)}")
            inner.bind(expr.var, ANY)
        self._comprehended.append(expr.var)
        try:
            if expr.condition is not None:
                self.expect(expr.condition, BOOL, inner)
                inner = inner.narrowed(proven(expr.condition, True))  # [x for x in xs if x != none]
            return list_of(self.infer(expr.item, inner) if item is None else self.expect(expr.item, item, inner))
        finally:
            self._comprehended.pop()

    def record_kind_hint(self, stmt: n.Let) -> str:
        """How a `let` says the kind of the record it is given: of the kinds that have every field written, the one
        with the fewest others (a kind's name as a placeholder where none has them all)."""
        assert isinstance(stmt.value, n.RecordLit)
        written = {init.name for init in stmt.value.fields}
        fitting = sorted((len(info.fields), name) for name, info in self.rules.kinds.items()
                         if written <= set(info.field_names) and info.fields)
        kind = fitting[0][1] if fitting else "KIND"
        return f"say its kind in the let: let {stmt.name}: {kind} = {{...}}"

    def infer_RecordLit(self, expr: n.RecordLit, scope: Scope) -> Type:
        self.error(expr.pos, "a record needs a known kind here",
                   "records can be written where a parameter or field of a kind is expected")
        return ANY

    def infer_Call(self, call: n.Call, scope: Scope) -> Type:
        name = call.func
        if name in self.rules.fns:
            decl = self.rules.fns[name]
            self.check_arguments(call, self.rules.param_types(decl), decl.params, scope)
            return self.fn_type(name)
        if name in self.rules.modifiers:
            decl = self.rules.modifiers[name]
            types = self.rules.param_types(decl)
            self.check_arguments(call, types, decl.params, scope)
            return types[decl.params[0].name] if decl.params else ANY
        if name in self._misnamed or name in self._clashing:  # a declaration refused (for its name, or as the second
            self.arguments_alone(call, scope)                      # of a name): its calls are not judged by another's
            return ANY
        if name in SIGNATURES:
            return self.check_builtin(call, SIGNATURES[name], scope)
        step = self.rules.steps.get(name) or self.rules.actions.get(name)
        if step is not None:
            return self.step_value_type(call, step, scope)
        known = set(self.rules.fns) | set(self.rules.modifiers) | {
            s.name for s in SIGNATURES.values() if self._in_example or not s.aggregate}
        self.error(call.pos, f"unknown function '{name}'", missing.FUNCTIONS.get(name) or did_you_mean(name, known))
        return ANY

    def arguments_alone(self, call: n.Call, scope: Scope) -> None:
        """The arguments of a call to nothing known, each checked on its own."""
        for arg in (*call.args, *(keyword.value for keyword in call.keywords)):
            self.infer(arg, scope)

    def step_value_type(self, call: n.Call, step: n.StepDecl, scope: Scope) -> Type:
        """The value of a step, taken as the whole value of a let, an assignment or a return."""
        name = call.func
        what = "an action" if step.is_action else "a step"
        if self._body is not None and self._body.what == "fn":
            self.error(call.pos, f"a fn cannot call '{name}', {what}: it computes a value and changes nothing",
                       f"make '{self._body.name}' a step that gives a value: "
                       f"step {self._body.name}(...): TYPE {{ ... return VALUE }}")
            return ANY
        if step.result is None:
            if call.pos in self._value_calls:
                hint = ("say what it gives after its parameters and end it with return VALUE: "
                        f"step {name}(...): int {{ ... }}" if not step.is_action
                        else "an action's results are its outcomes: read the outcome it sets")
                self.error(call.pos, f"'{name}' is {what} that gives no value", hint)
            else:
                self.error(call.pos, f"'{name}' is {what}: call it as a statement, not inside an expression")
            return ANY
        if call.pos not in self._value_calls:
            self.error(call.pos, f"the value of the step '{name}' is taken only as the whole value of 'let', "
                       "an assignment or 'return'", f"take it first: let {name}_value = {self.rules.text_of(call)}; "
                       "then use the local")
            return ANY
        self.check_arguments(call, self.rules.param_types(step), step.params, scope)
        scope.forget(Changes(calls=True))  # the step may change any field or outcome the value is used with
        return type_from(step.result, self.rules.kinds)

    def check_arguments(self, call: n.Call, types: dict[str, Type], params: tuple[n.Param, ...],
                        scope: Scope) -> None:
        names = [p.name for p in params]
        if len(call.args) > len(names):
            self.error(call.pos, f"'{call.func}' takes {len(names)} argument(s), {len(call.args)} given")
        given = set(names[: len(call.args)])
        for name, arg in zip(names, call.args):
            self.expect(arg, types[name], scope)
        for kw in call.keywords:
            if kw.name not in types:
                self.error(kw.pos, f"'{call.func}' has no parameter '{kw.name}'", did_you_mean(kw.name, names))
                continue
            if kw.name in given:
                self.error(kw.pos, f"'{kw.name}' is given twice")
            given.add(kw.name)
            self.expect(kw.value, types[kw.name], scope)
        missing = [p.name for p in params if p.default is None and p.name not in given]
        if missing:
            self.error(call.pos, f"'{call.func}' needs {', '.join(repr(m) for m in missing)}")

    def check_builtin(self, call: n.Call, sig: Signature, scope: Scope) -> Type:
        if sig.name == "roll" and len(call.args) == 1 and not call.keywords:
            written = call.args[0]
            if isinstance(written, n.Text) and _DICE_TEXT.fullmatch(written.value):  # roll("2d6"): dice in quotes
                dice = re.sub(r"(?<![0-9])d", "1d", " ".join(written.value.split()))  # d6 is a name: 1d6 the die
                self.error(written.pos, "dice are written without quotes", f"write roll({dice})")
                return INT
            given = self.expect(call.args[0], DICE, scope)  # roll(d): a dice value, rolled here
            if given.name in ("dice", "any"):
                return INT
        if sig.aggregate and not self._in_example:
            self.error(call.pos, f"'{sig.name}' reads a whole distribution: it belongs in an example's 'expect'")
            return ANY
        if sig.aggregate and self._in_aggregate:  # an argument is read in each final state: no distribution there
            self.error(call.pos, f"'{sig.name}' inside '{self._in_aggregate}': each reads a whole distribution, "
                       f"and '{self._in_aggregate}' reads its argument in one final state at a time",
                       "take it out: combine the two with 'and', '+' and the like, "
                       "as in prob(x > 3) == 1/2 and always(x > 0)")
            return ANY
        bound: list[str] = []
        if sig.aggregate and self._comprehended:
            read = {name.name for arg in (*call.args, *(kw.value for kw in call.keywords)) for name in free_names(arg)}
            bound = [var for var in self._comprehended if var in read]
        if bound:  # worked out once, over every final state, before any item is
            self.error(call.pos, f"'{sig.name}' cannot read '{bound[0]}', the name of the comprehension around it",
                       f"'{sig.name}' reads the whole distribution once; write each case out, as in "
                       "prob(x == 1) == 1/6 and prob(x == 2) == 1/6")
            return ANY
        if sig.aggregate:
            self._in_aggregate = sig.name
            try:
                return self._check_builtin(call, sig, scope)
            finally:
                self._in_aggregate = ""
        return self._check_builtin(call, sig, scope)

    def _check_builtin(self, call: n.Call, sig: Signature, scope: Scope) -> Type:
        if sig.variadic:
            if call.keywords:
                self.error(call.keywords[0].pos, f"'{sig.name}' takes no named arguments")
            types = [self.not_none(a, self.infer(a, scope)) for a in call.args]
            if not types:
                self.error(call.pos, f"'{sig.name}' needs at least one number")
            elif len(types) == 1 and types[0].name == "list":
                item = types[0].item
                if item and (not item.is_numeric or (item.optional and item.name != "any")):
                    self.error(call.pos, f"'{sig.name}' needs numbers, not {with_article(types[0])}",
                               "a list whose items may be none: keep the numbers first, "
                               "[x for x in xs if x != none]" if item.is_numeric else "")
            else:
                for arg, t in zip(call.args, types):
                    if not t.is_numeric:
                        bound = (f"the {'highest' if sig.name == 'max' else 'lowest'} total it can roll is "
                                 f"{sig.name}_roll({self.rules.text_of(arg)}); " if len(call.args) == 1 else "")
                        self.error(arg.pos, f"'{sig.name}' needs numbers, not {with_article(t)}",
                                   bound + self.roll_hint(arg) if t.name == "dice" else "")
            return sig.returns(types) if callable(sig.returns) else sig.returns
        names = [p for p, _ in sig.params]
        if len(call.args) > len(names):
            self.error(call.pos, f"'{sig.name}' takes at most {len(names)} argument(s), {len(call.args)} given")
        arg_types: dict[str, Type] = {}
        one_type = sig.name == "pick"  # the value drawn is one of the items: of the list's one type
        for (pname, ptype), arg in zip(sig.params, call.args):
            items = arg_types.get("items")
            if sig.name == "without" and pname == "item" and isinstance(arg, n.RecordLit) and items is not None \
                    and items.name == "list" and items.item is not None and items.item.is_kind:
                ptype = items.item  # a record written out: of the list's kind
            arg_types[pname] = self.expect(arg, ptype, scope, one_type=one_type)
        for kw in call.keywords:
            ptype = dict(sig.params).get(kw.name)
            if ptype is None:
                self.error(kw.pos, f"'{sig.name}' has no parameter '{kw.name}'", did_you_mean(kw.name, names))
                continue
            if kw.name in arg_types:
                self.error(kw.pos, f"'{kw.name}' is given twice")
            arg_types[kw.name] = self.expect(kw.value, ptype, scope, one_type=one_type)
        missing = [p for p in names[: sig.required] if p not in arg_types]
        if missing:
            self.error(call.pos, f"'{sig.name}' needs {', '.join(repr(m) for m in missing)}",
                       f"{sig.name}({', '.join(names)}): {sig.summary}")
        given = dict(zip(names, call.args)) | {kw.name: kw.value for kw in call.keywords}
        self.check_words(sig, given)
        if sig.name == "fire":
            self.check_allocation(given)
        self.check_constant_dice(sig.name, given)
        if sig.name == "successes" and ("depth" in given) != ("again_at" in given):
            self.error(call.pos if "depth" not in given else given["depth"].pos,
                       *(AGAIN_WITHOUT_DEPTH if "depth" not in given else DEPTH_WITHOUT_AGAIN))
        faces = given.get("faces")
        if sig.name == "custom_dice" and isinstance(faces, n.ListLit) and not faces.items:
            self.error(faces.pos, "a die needs at least one face", "write its faces, as in [1, 1, 2, 3]")
        if sig.name == "len" and arg_types.get("items", ANY).name not in _COUNTED:
            self.error(given["items"].pos,
                       f"len counts a list, a pool, a volley or a text, not {with_article(arg_types['items'])}")
        if sig.name == "without":
            self.check_item_of(arg_types.get("items", ANY), arg_types.get("item", ANY), given.get("item"))
        ordered = [arg_types.get(p, ANY) for p in names]
        return sig.returns(ordered) if callable(sig.returns) else sig.returns

    def check_item_of(self, items: Type, item: Type, written: n.Expr | None) -> None:
        """`without`'s item is one the list may hold: one of another type is never in it, and every run would fail."""
        if written is None or items.name != "list" or items.item is None or fits(item, items.item) \
                or unify(item, items.item) is not None:
            return
        self.error(written.pos, f"a list of {items.item} never holds {with_article(item)}",
                   "take out an item of the list's own type: one picked from it, say")

    def check_constant_dice(self, name: str, given: dict[str, n.Expr]) -> None:
        """A count, a number of sides or faces written as numbers that no roll can take, found before any run."""
        taken = {param for param, _ in SIGNATURES[name].params}  # a word the builtin does not take is told apart
        for param in [param for param in COUNTS if param in taken]:  # dice, dice kept or dropped, explosions
            written = _written_int(given.get(param))
            if written is not None and written < 0:
                self.error(given[param].pos, negative(param, written), "a count is 0 or more")
        sides = _written_int(given.get("sides"))
        if sides is not None and sides < 1:
            self.error(given["sides"].pos, *NO_SIDES)
            return
        p = _written_number(given["p"]) if "p" in given else None
        if p is not None and not 0 <= p <= 1:
            self.error(given["p"].pos, not_a_probability(str(p)), PROBABILITY_HINT)
        known = {param: value for param, expr in given.items() if (value := _written(expr)) is not None}
        for param, place, message, hint in faces_problems(name, known):
            at = given[param]
            for index in place:  # the face at fault, in the list written out
                at = at.items[index] if isinstance(at, n.ListLit) else at
            self.error(at.pos, message, hint)
            return

    def check_words(self, sig: Signature, given: dict[str, n.Expr]) -> None:
        """A word written for a parameter that takes one of a few: one of them, or a located error."""
        for param, words in sig.words:
            value = given.get(param)
            if isinstance(value, n.Text) and value.value not in words:
                listed = words_hint(param, words)
                suggestion = did_you_mean(value.value, words)
                self.error(value.pos, f'\'{sig.name}\' has no {param} "{value.value}"',
                           f"{suggestion} {listed}" if suggestion else listed)

    def check_allocation(self, given: dict[str, n.Expr]) -> None:
        """An order of bodies is for focused allocation: random allocation has none to follow."""
        order, allocate = given.get("order"), given.get("allocate")
        if order is not None and (allocate is None or isinstance(allocate, n.Text) and allocate.value == "random"):
            self.error(order.pos, *ORDER_WITHOUT_FOCUS)


def _through(called: str) -> str:
    return f" (through '{called}', which reads it)" if called else ""


def _uses_chance(expr: n.Expr, learnt: Learnt) -> bool:
    if isinstance(expr, n.Dice):
        return expr.pos not in learnt.described
    if isinstance(expr, n.Call) and expr.func in SIGNATURES and SIGNATURES[expr.func].chance:
        return True
    for child in children(expr):
        if _uses_chance(child, learnt):
            return True
    return False


def _dice_hint(name: str) -> str:
    """`d6` or `D6` written for one die: the hint that says how dice are written."""
    found = re.fullmatch(r"[dD]([0-9]+)", name)
    return f"did you mean 1d{found.group(1)}?" if found else ""


# A text that writes dice as the rules do, "2d6 + 1": dice written in quotes, as a scenario gives them.
_DICE_TEXT = re.compile(r"\s*[0-9]*d[0-9]+(\s*[-+]\s*([0-9]*d[0-9]+|[0-9]+))*\s*")


def _dice_spine(expr: n.Expr, literals_only: bool = True) -> list[Any]:
    """The dice literals a value is the sum of: through +, the left of -, and the branches of an if.

    literals_only=False: the subtractions met on the way too.
    """
    found: list[Any] = []
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, n.Dice):
            found.append(node)
        elif isinstance(node, n.Binary) and node.op in ("+", "-"):
            stack.extend((node.left, node.right) if node.op == "+" else (node.left,))
            if node.op == "-" and not literals_only:
                found.append(node)
        elif isinstance(node, n.Conditional):
            stack.extend((node.then, node.otherwise))
    return found


def _reads(expr: n.Expr, scope: Scope, rules: Ruleset) -> tuple[tuple[str, ...], ...]:
    """The paths a constraint reads from what it constrains (or from the parameters), each once."""
    found: list[tuple[str, ...]] = []
    for path in paths_read(expr):
        head = path[0]
        if scope.lookup(head) is not None or head in rules.params or head in rules.choices:
            if path not in found:
                found.append(path)
    return tuple(found)


def check(module: n.Module, source: SourceFile, bases: dict[str, SourceFile] | None = None) -> Ruleset:
    return Checker(module, source, bases).run()


def check_expectation(rules: Ruleset, expr: n.Expr, source: SourceFile,
                      scope: dict[str, Type]) -> tuple[Type, n.Expr]:
    """The type of `expr` read as an example's `expect` line, `scope` holding the action's names, and `expr`
    completed as the checker completes the rules (its record literals know their kinds).

    For expressions written outside a rules file (a sweep's metric): `source`
    is their own text, so that a problem points into it. RulesError if wrong.
    """
    checker = Checker(n.Module(expr.pos, path=rules.path, title=rules.title), source)
    checker.rules = records.replace(rules, sources={**rules.sources, source.path: source})
    checker._in_example = True  # prob, mean, always, never and possible are allowed, as in `expect`
    found = checker.expect(expr, ANY, Scope({**scope, **EXAMPLE_NAMES}))
    checker.refuse_chance_in_expectation(expr)  # here, once, not by each run that would evaluate it
    for where in checker.learnt.described:  # the expression is used as written: no literal can describe
        checker.error(where, "a dice value here is written dice(count, sides)", "as in dice(1, 6) + 1")
    if checker.diagnostics:
        raise RulesError(sorted(checker.diagnostics, key=lambda d: (d.line, d.column)))
    return found, checker.learnt.complete(expr)


_COUNTED = frozenset({"list", "pool", "volley", "text", "any"})  # what len counts (any: known only when run)


def _holds_any(found: Type) -> bool:
    """Whether a type is a list (of lists...) of any: what an empty list's is."""
    while found.name == "list" and found.item is not None:
        found = found.item
        if found.name == "any":
            return True
    return False


def _written(expr: n.Expr) -> int | tuple[Any, ...] | None:
    """The whole number, or the list of them (of lists of them...), an argument writes out, if it is one."""
    if isinstance(expr, n.ListLit):
        items = tuple(_written(item) for item in expr.items)
        return None if any(item is None for item in items) else items
    return _written_int(expr)


def _declared_as(decl: n.Decl) -> str:
    """What a top-level declaration declares, as a message says it."""
    if isinstance(decl, n.RowDecl):
        return f"a row of {decl.kind}" if decl.fields else f"a value of {decl.kind}"
    if isinstance(decl, n.StepDecl):
        return "an action" if decl.is_action else "a step"
    return {n.OutcomeDecl: "an outcome", n.ParamDecl: "a parameter", n.ChoiceDecl: "a choice", n.TableDecl: "a table",
            n.FnDecl: "a fn", n.ModifierDecl: "a modifier"}.get(type(decl), "something else")


def _written_number(expr: n.Expr) -> Fraction | None:
    """The number an argument writes out with numbers alone (`3/2`, `-0.5`, `1 - 1/6`), if it is one."""
    if isinstance(expr, n.Number):
        return Fraction(expr.value)
    if isinstance(expr, n.Unary) and expr.op == "-":
        found = _written_number(expr.operand)
        return None if found is None else -found
    if isinstance(expr, n.Binary) and expr.op in _ARITHMETIC:
        left, right = _written_number(expr.left), _written_number(expr.right)
        if left is None or right is None or (expr.op == "/" and right == 0):
            return None
        return _ARITHMETIC[expr.op](left, right)
    return None


_ARITHMETIC = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}


def _written_int(expr: n.Expr | None) -> int | None:
    """The whole number an argument writes out (`3`, `-1`), if it is one."""
    if isinstance(expr, n.Unary) and expr.op == "-":
        found = _written_int(expr.operand)
        return None if found is None else -found
    if isinstance(expr, n.Number) and type(expr.value) is int:
        return expr.value
    return None
