"""The checker: resolves every name, kind, field and type, and rejects what cannot run.

It reports all the problems it finds (not just the first), each located, and
builds the Ruleset the interpreter runs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable

from dsl import nodes as n
from dsl.builtins import SIGNATURES, Signature
from dsl.diagnostics import Diagnostic, RulesError, SourceFile, closest, did_you_mean
from dsl.ruleset import FieldInfo, KindInfo, Ruleset, Typed
from dsl.types import (
    ANY,
    BASIC_TYPES,
    BOOL,
    INT,
    NONE,
    NUMBER,
    POOL,
    TEXT,
    VOLLEY,
    Type,
    fits,
    list_of,
    unify,
)

EXAMPLE_NAMES = {"stopped": TEXT}  # extra names an `expect` may read


def type_from(expr: n.TypeExpr, kinds: Iterable[str]) -> Type:
    """The Type a written type names (unknown names become `any`; the checker reports them)."""
    if expr.name == "list":
        assert expr.item is not None
        return Type("list", type_from(expr.item, kinds), expr.optional)
    if expr.name in BASIC_TYPES or expr.name in kinds:
        return Type(expr.name, optional=expr.optional)
    return ANY


class Scope:
    """Local names visible at one point of a step, with their types."""

    def __init__(self, names: dict[str, Type] | None = None, parent: Scope | None = None):
        self.names = dict(names or {})
        self.parent = parent

    def lookup(self, name: str) -> Type | None:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return None

    def all_names(self) -> set[str]:
        names = set(self.names)
        return names | self.parent.all_names() if self.parent else names

    def child(self) -> Scope:
        return Scope(parent=self)


class Checker:
    def __init__(self, module: n.Module, source: SourceFile):
        self.module = module
        self.source = source
        self.diagnostics: list[Diagnostic] = []
        self.rules = Ruleset(module.path, module.title, {source.path: source})
        self._fn_in_progress: set[str] = set()
        self._in_example = False

    # ---- reporting

    def error(self, pos: n.Pos, message: str, hint: str = "") -> None:
        self.diagnostics.append(self.rules.source(pos).at(pos, message, hint))

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
            self.expect(typed.value, typed.type, Scope())
        for typed in self.rules.choices.values():
            self.check_choice(typed)
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
        return self.rules

    # ---- declarations

    def collect(self) -> None:
        seen: dict[str, n.Decl] = {}
        examples = []
        for decl in self.module.decls:
            if isinstance(decl, n.ExampleDecl):
                examples.append(decl)
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
                self.error(decl.pos, f"'{decl.name}' is declared twice",
                           f"the first is at line {first.pos.line}")
                continue
            if decl.name in SIGNATURES:
                self.error(decl.pos, f"'{decl.name}' is the name of a builtin function",
                           "choose another name")
                continue
            if decl.name in EXAMPLE_NAMES:
                self.error(decl.pos, f"'{decl.name}' is kept for why a resolution stopped, which every "
                           "resolution reports", "choose another name")
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
        if expr.name == "list":
            assert expr.item is not None
            return Type("list", self.resolve_type(expr.item), expr.optional)
        if expr.name in BASIC_TYPES or expr.name in self.rules.kinds:
            return Type(expr.name, optional=expr.optional)
        hint = did_you_mean(expr.name, list(BASIC_TYPES) + list(self.rules.kinds))
        if not hint:
            hint = "a type is one of " + ", ".join(BASIC_TYPES) + ", a kind, or 'list of T'"
        self.error(expr.pos, f"unknown type '{expr.name}'", hint)
        return ANY

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
                    self.expect(field.default, field.type, scope)
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
        for kind in (decl.row_kind, decl.column_kind):
            if kind not in self.rules.kinds:
                self.error(decl.pos, f"unknown kind '{kind}' for table '{decl.name}'", did_you_mean(kind, self.rules.kinds))
                return

        def check_key(name: str, kind: str, pos: n.Pos) -> None:
            row = self.rules.rows.get(name)
            if row is None or row.kind != kind:
                names = [r for r, d in self.rules.rows.items() if d.kind == kind]
                self.error(pos, f"'{name}' is not a {kind}", did_you_mean(name, names)
                           or f"the {kind} rows are: {', '.join(names)}")

        for name, pos in zip(decl.columns, decl.column_pos):
            check_key(name, decl.column_kind, pos)
        if len(set(decl.columns)) != len(decl.columns):
            self.error(decl.pos, f"table '{decl.name}' names a column twice")
        if decl.default is not None:
            self.expect(decl.default, value_type, Scope(), constant=True)
        seen: set[str] = set()
        for row in decl.rows:
            check_key(row.name, decl.row_kind, row.pos)
            if row.name in seen:
                self.error(row.pos, f"row '{row.name}' appears twice in table '{decl.name}'")
            seen.add(row.name)
            if len(row.cells) != len(decl.columns):
                self.error(row.pos, f"row '{row.name}' has {len(row.cells)} values for {len(decl.columns)} columns")
            for cell in row.cells:
                self.expect(cell, value_type, Scope(), constant=True)

    def check_param(self, typed: Typed) -> None:
        actual = self.expect(typed.value, typed.type, Scope(), constant=True)
        if typed.type.name == "any":
            self.rules.params[typed.name] = Typed(typed.name, actual, typed.value, typed.decl)

    def check_setting_order(self) -> None:
        """Parameters, then choices, are set in the order written: none may read one set after it."""
        settings = [*self.rules.params.values(), *self.rules.choices.values()]
        for position, typed in enumerate(settings):
            later = {other.name for other in settings[position + 1:]}
            for name in free_names(typed.value):
                if name.name == typed.name:
                    self.error(name.pos, f"'{typed.name}' reads itself", "give it a value that does not depend on it")
                elif name.name in later:
                    self.error(name.pos, f"'{typed.name}' reads '{name.name}', which is set after it",
                               f"parameters, then choices, are set in the order written: declare '{name.name}' first")

    def check_choice(self, typed: Typed) -> None:
        if not (typed.type.name == "bool" or (typed.type.is_kind and not self.rules.kinds[typed.type.name].fields)):
            self.error(typed.decl.pos, f"choice '{typed.name}' needs options: make its type bool or an enum",
                       "declare the options with: enum NAME { first second ... }")
            return
        self.expect(typed.value, typed.type, Scope(), constant=True)

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
        if not decl.params:
            self.error(decl.pos, f"modifier '{decl.name}' needs a parameter: the value it modifies")
            return
        scope = self.check_params(decl.params)
        if not scope.names[decl.params[0].name].is_numeric:
            self.error(decl.params[0].pos, "a modifier changes a number: its first parameter must be int or number")
        for term in decl.terms:
            self.expect(term.amount, NUMBER, scope)
            if term.when is not None:
                self.expect(term.when, BOOL, scope)

    def fn_type(self, name: str) -> Type:
        if name in self.rules.fn_types:
            return self.rules.fn_types[name]
        if name in self._fn_in_progress:
            return ANY  # recursion: the outer inference decides
        decl = self.rules.fns[name]
        self._fn_in_progress.add(name)
        result = self.infer(decl.body, self.check_params(decl.params))
        self._fn_in_progress.discard(name)
        self.rules.fn_types[name] = result
        return result

    def check_step(self, decl: n.StepDecl) -> None:
        scope = self.check_params(decl.params)
        body = scope.child()
        self.check_block(decl.body, body)
        if decl.is_action:
            self.rules.action_locals[decl.name] = dict(body.names)

    # ---- statements

    def check_block(self, stmts: tuple[n.Stmt, ...], scope: Scope) -> None:
        for stmt in stmts:
            self.check_stmt(stmt, scope)

    def check_stmt(self, stmt: n.Stmt, scope: Scope) -> None:
        if isinstance(stmt, n.Let):
            if scope.lookup(stmt.name) is not None:
                self.error(stmt.pos, f"'{stmt.name}' is already defined here",
                           f"to change it, write '{stmt.name} = ...' without 'let'")
            elif self.global_type(stmt.name) is not None:
                self.error(stmt.pos, f"'{stmt.name}' would hide a declaration of the same name",
                           "choose another name")
            if stmt.type is not None:
                declared = self.resolve_type(stmt.type)
                self.expect(stmt.value, declared, scope)
                scope.names[stmt.name] = declared
            else:
                scope.names[stmt.name] = self.infer(stmt.value, scope)
        elif isinstance(stmt, n.Assign):
            self.check_assign(stmt, scope)
        elif isinstance(stmt, n.If):
            self.expect(stmt.test, BOOL, scope)
            self.check_block(stmt.then, scope.child())
            self.check_block(stmt.otherwise, scope.child())
        elif isinstance(stmt, n.For):
            source = self.infer(stmt.source, scope)
            item = ANY
            if source.name == "list":
                item = source.item or ANY
            elif source.name != "any":
                self.error(stmt.source.pos, f"a for loop runs over a list, not a {source}")
            inner = scope.child()
            inner.names[stmt.var] = item
            self.check_block(stmt.body, inner)
        elif isinstance(stmt, n.CallStmt):
            self.check_call_stmt(stmt.call, scope)
        elif isinstance(stmt, n.Event):
            for arg in stmt.args:
                self.infer(arg, scope)
            for kw in stmt.keywords:
                self.infer(kw.value, scope)

    def check_call_stmt(self, call: n.Call, scope: Scope) -> None:
        step = self.rules.steps.get(call.func) or self.rules.actions.get(call.func)
        if step is None:
            if call.func in self.rules.fns or call.func in self.rules.modifiers or call.func in SIGNATURES:
                self.error(call.pos, f"the value of '{call.func}(...)' is not used",
                           "store it with 'let name = ...' or assign it to a field")
            else:
                self.error(call.pos, f"unknown step '{call.func}'", did_you_mean(call.func, self.rules.steps))
            return
        self.check_arguments(call, self.rules.param_types(step), step.params, scope)

    def check_assign(self, stmt: n.Assign, scope: Scope) -> None:
        head, *path = stmt.target
        target = scope.lookup(head)
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
        for name in path:
            target = self.field_type(target, name, stmt.pos)
        if stmt.op == "=" or (stmt.op == "+=" and target.name == "list"):
            self.expect(stmt.value, target, scope)
            return
        value = self.infer(stmt.value, scope)
        if stmt.op in ("-=", "*=") and not (target.is_numeric and value.is_numeric):
            self.error(stmt.pos, f"'{stmt.op}' needs numbers, not {target} and {value}")
        elif stmt.op == "+=" and self.plus_type(target, value) is None:
            self.error(stmt.pos, f"cannot add {value} to {target}")
        elif stmt.op != "=" and target.name == "int" and value.name == "number":
            self.error(stmt.pos, "an int field cannot take a fraction",
                       "round it explicitly with floor, ceil or round")

    # ---- examples

    def check_example(self, example: n.ExampleDecl) -> None:
        if example.run is None:
            self.error(example.pos, f"example '{example.name}' has no 'run' line",
                       "write run ACTION(name: value, ...)")
            return
        action = self.rules.actions.get(example.run.func)
        if action is None:
            self.error(example.run.pos, f"unknown action '{example.run.func}'",
                       did_you_mean(example.run.func, self.rules.actions))
            return
        for name, value in example.sets:
            param = self.rules.params.get(name) or self.rules.choices.get(name)
            if param is None:
                self.error(value.pos, f"unknown parameter or choice '{name}'",
                           did_you_mean(name, list(self.rules.params) + list(self.rules.choices)))
            else:
                self.expect(value, param.type, Scope(), constant=True)
        self.check_arguments(example.run, self.rules.param_types(action), action.params, Scope())
        if example.rolls is not None:
            for item in example.rolls.items:
                self.expect(item, INT, Scope(), constant=True)
        if not example.expects:
            self.error(example.pos, f"example '{example.name}' expects nothing",
                       "add an 'expect' line that could fail")
        scope = Scope(self.rules.param_types(action))
        scope.names.update(self.rules.action_locals.get(action.name, {}))
        scope.names.update(EXAMPLE_NAMES)
        self._in_example = True
        for expect in example.expects:
            self.expect(expect, BOOL, scope)
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

    def visible_names(self, scope: Scope) -> set[str]:
        return (scope.all_names() | set(self.rules.params) | set(self.rules.choices) | set(self.rules.outcomes)
                | set(self.rules.rows))

    def expect(self, expr: n.Expr, expected: Type, scope: Scope, constant: bool = False) -> Type:
        """Check that expr fits `expected`; record literals take their kind from it."""
        if isinstance(expr, n.RecordLit) and expected.is_kind:
            self.check_record(expr, expected, scope)
            self.rules.record_kinds[id(expr)] = expected.name
            return expected.required()
        if isinstance(expr, n.ListLit) and expected.name == "list" and expected.item is not None:
            items = [self.expect(item, expected.item, scope, constant) for item in expr.items]
            if items and expected == list_of(NUMBER) and all(t == INT for t in items):
                return list_of(INT)  # whole numbers where numbers are wanted: sum([1, 2]) is an int
            return expected
        if constant and _uses_chance(expr):
            self.error(expr.pos, "a constant cannot depend on chance",
                       "roll dice in a step, not in a row, parameter or default")
        actual = self.infer(expr, scope)
        if not fits(actual, expected):
            hint = ""
            if actual.name == "number" and expected.name == "int":
                hint = "this may be a fraction: round it explicitly with floor, ceil or round"
            elif actual.name == "none":
                hint = f"only an optional type ('{expected}?') accepts none"
            self.error(expr.pos, f"expected {expected}, found {actual}", hint)
        return actual

    def check_given_fields(self, kind: KindInfo, fields: list[tuple[str, n.Expr, n.Pos]], scope: Scope,
                           constant: bool) -> set[str]:
        """Check field values given to a kind (in a row or a record); the names given."""
        given: set[str] = set()
        for name, value, pos in fields:
            info = kind.field(name)
            if info is None:
                near = closest(name, kind.field_names)
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
        given = self.check_given_fields(kind, [(f.name, f.value, f.pos) for f in expr.fields], scope, False)
        missing = [f.name for f in kind.fields if f.default is None and f.name not in given]
        if missing:
            self.error(expr.pos, f"a {kind.name} needs {', '.join(repr(m) for m in missing)}")

    def field_type(self, obj: Type, name: str, pos: n.Pos) -> Type:
        if obj.name == "any":
            return ANY
        if not obj.is_kind:
            self.error(pos, f"a {obj} has no field '{name}'")
            return ANY
        kind = self.rules.kinds[obj.name]
        info = kind.field(name)
        if info is None:
            self.error(pos, f"unknown field '{name}' of kind '{kind.name}'",
                       did_you_mean(name, kind.field_names)
                       or f"the fields of '{kind.name}' are: {', '.join(kind.field_names)}")
            return ANY
        return info.type

    def plus_type(self, a: Type, b: Type) -> Type | None:
        if a.is_numeric and b.is_numeric:
            return INT if a.name == b.name == "int" else (ANY if "any" in (a.name, b.name) else NUMBER)
        for same in (POOL, VOLLEY, TEXT):
            if a.name == same.name and b.name == same.name:
                return same
        if a.name == "list" and b.name == "list":
            return unify(a, b)
        return None

    def infer(self, expr: n.Expr, scope: Scope) -> Type:
        method = getattr(self, "infer_" + type(expr).__name__)
        return method(expr, scope)

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
        if found is None:
            found = self.global_type(expr.name)
        if found is None:
            if expr.name in self.rules.tables:
                table = self.rules.tables[expr.name]
                self.error(expr.pos, f"'{expr.name}' is a table: look a value up with "
                                     f"{expr.name}[{table.row_kind}, {table.column_kind}]")
            elif expr.name in self.rules.kinds:
                self.error(expr.pos, f"'{expr.name}' is a kind, not a value",
                           f"name one of its rows, or write {{ field: value }} where a {expr.name} is expected")
            elif expr.name in self.rules.fns or expr.name in SIGNATURES:
                self.error(expr.pos, f"'{expr.name}' is a function: call it with (...)")
            else:
                self.error(expr.pos, f"unknown name '{expr.name}'",
                           did_you_mean(expr.name, self.visible_names(scope)))
            return ANY
        return found

    def infer_Attr(self, expr: n.Attr, scope: Scope) -> Type:
        return self.field_type(self.infer(expr.obj, scope), expr.name, expr.pos)

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
        obj = self.infer(expr.obj, scope)
        self.expect(expr.index, INT, scope)
        if obj.name == "list":
            return obj.item or ANY
        if obj.name != "any":
            self.error(expr.pos, f"only a list can be indexed, not a {obj}")
        return ANY

    def infer_Unary(self, expr: n.Unary, scope: Scope) -> Type:
        if expr.op == "not":
            self.expect(expr.operand, BOOL, scope)
            return BOOL
        operand = self.infer(expr.operand, scope)
        if not operand.is_numeric:
            self.error(expr.pos, f"cannot negate a {operand}")
            return ANY
        return operand.required()

    def infer_Binary(self, expr: n.Binary, scope: Scope) -> Type:
        op = expr.op
        if op in ("and", "or"):
            self.expect(expr.left, BOOL, scope)
            self.expect(expr.right, BOOL, scope)
            return BOOL
        left = self.infer(expr.left, scope)
        right = self.infer(expr.right, scope)
        if op in ("in", "not in"):
            if right.name == "list":
                if right.item and unify(left, right.item) is None:
                    self.error(expr.pos, f"a {left} is never in a list of {right.item}")
            elif right.name != "any":
                self.error(expr.right.pos, f"'{op}' needs a list on its right, not a {right}")
            return BOOL
        if op in ("==", "!="):
            if unify(left, right) is None:
                self.error(expr.pos, f"comparing a {left} with a {right} is always {op == '!='}".lower())
            return BOOL
        if op in ("<", "<=", ">", ">="):
            if not (left.is_numeric and right.is_numeric):
                self.error(expr.pos, f"'{op}' compares numbers, not {left} and {right}")
            return BOOL
        if op == "+":
            result = self.plus_type(left, right)
            if result is None:
                self.error(expr.pos, f"cannot add {left} and {right}")
                return ANY
            return result
        if not (left.is_numeric and right.is_numeric):
            self.error(expr.pos, f"'{op}' needs numbers, not {left} and {right}")
            return ANY
        if op == "/":
            return NUMBER
        return INT if left.name == right.name == "int" else (ANY if "any" in (left.name, right.name) else NUMBER)

    def infer_Conditional(self, expr: n.Conditional, scope: Scope) -> Type:
        self.expect(expr.test, BOOL, scope)
        then = self.infer(expr.then, scope)
        otherwise = self.infer(expr.otherwise, scope)
        result = unify(then, otherwise)
        if result is None:
            self.error(expr.pos, f"the two branches give a {then} and a {otherwise}")
            return ANY
        return result

    def infer_ListLit(self, expr: n.ListLit, scope: Scope) -> Type:
        item: Type = ANY
        for element in expr.items:
            found = self.infer(element, scope)
            merged = unify(item, found)
            if merged is None:
                self.error(element.pos, f"a list of {item} cannot also hold a {found}")
            else:
                item = merged
        return list_of(item)

    def infer_Comprehension(self, expr: n.Comprehension, scope: Scope) -> Type:
        source = self.infer(expr.source, scope)
        inner = scope.child()
        if source.name == "list":
            inner.names[expr.var] = source.item or ANY
        else:
            if source.name != "any":
                self.error(expr.source.pos, f"'for' runs over a list, not a {source}")
            inner.names[expr.var] = ANY
        if expr.condition is not None:
            self.expect(expr.condition, BOOL, inner)
        return list_of(self.infer(expr.item, inner))

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
        if name in SIGNATURES:
            return self.check_builtin(call, SIGNATURES[name], scope)
        if name in self.rules.steps or name in self.rules.actions:
            self.error(call.pos, f"'{name}' is a step: call it as a statement, not inside an expression")
            return ANY
        known = set(self.rules.fns) | set(self.rules.modifiers) | {
            s.name for s in SIGNATURES.values() if self._in_example or not s.aggregate}
        self.error(call.pos, f"unknown function '{name}'", did_you_mean(name, known))
        return ANY

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
        if sig.aggregate and not self._in_example:
            self.error(call.pos, f"'{sig.name}' reads a whole distribution: it belongs in an example's 'expect'")
            return ANY
        if sig.variadic:
            if call.keywords:
                self.error(call.keywords[0].pos, f"'{sig.name}' takes no named arguments")
            types = [self.infer(a, scope) for a in call.args]
            if not types:
                self.error(call.pos, f"'{sig.name}' needs at least one number")
            elif len(types) == 1 and types[0].name == "list":
                if types[0].item and not types[0].item.is_numeric:
                    self.error(call.pos, f"'{sig.name}' needs numbers, not a {types[0]}")
            else:
                for arg, t in zip(call.args, types):
                    if not t.is_numeric:
                        self.error(arg.pos, f"'{sig.name}' needs numbers, not a {t}")
            return sig.returns(types) if callable(sig.returns) else sig.returns
        names = [p for p, _ in sig.params]
        if len(call.args) > len(names):
            self.error(call.pos, f"'{sig.name}' takes at most {len(names)} argument(s), {len(call.args)} given")
        arg_types: dict[str, Type] = {}
        for (pname, ptype), arg in zip(sig.params, call.args):
            arg_types[pname] = self.expect(arg, ptype, scope)
        for kw in call.keywords:
            ptype = dict(sig.params).get(kw.name)
            if ptype is None:
                self.error(kw.pos, f"'{sig.name}' has no parameter '{kw.name}'", did_you_mean(kw.name, names))
                continue
            if kw.name in arg_types:
                self.error(kw.pos, f"'{kw.name}' is given twice")
            arg_types[kw.name] = self.expect(kw.value, ptype, scope)
        missing = [p for p in names[: sig.required] if p not in arg_types]
        if missing:
            self.error(call.pos, f"'{sig.name}' needs {', '.join(repr(m) for m in missing)}",
                       f"{sig.name}({', '.join(names)}): {sig.summary}")
        ordered = [arg_types.get(p, ANY) for p in names]
        return sig.returns(ordered) if callable(sig.returns) else sig.returns


def _uses_chance(expr: n.Expr) -> bool:
    if isinstance(expr, n.Dice):
        return True
    if isinstance(expr, n.Call) and expr.func in SIGNATURES and SIGNATURES[expr.func].chance:
        return True
    for child in _children(expr):
        if _uses_chance(child):
            return True
    return False


def free_names(expr: n.Expr, bound: frozenset[str] = frozenset(),
               skip: Callable[[n.Expr], bool] = lambda expr: False) -> Iterable[n.Name]:
    """The names an expression reads that none of its comprehensions binds, outside the parts `skip` picks."""
    if skip(expr):
        return
    if isinstance(expr, n.Name):
        if expr.name not in bound:
            yield expr
        return
    if isinstance(expr, n.Comprehension):
        yield from free_names(expr.source, bound, skip)
        inner = bound | {expr.var}
        for part in (expr.item, expr.condition):
            if part is not None:
                yield from free_names(part, inner, skip)
        return
    for child in _children(expr):
        yield from free_names(child, bound, skip)


def _children(expr: n.Expr) -> Iterable[n.Expr]:
    for field in dataclasses.fields(expr):
        value = getattr(expr, field.name)
        if isinstance(value, n.Expr):
            yield value
        elif isinstance(value, tuple):
            for item in value:
                if isinstance(item, n.Expr):
                    yield item
                elif isinstance(item, (n.Keyword, n.FieldInit)):
                    yield item.value


def check(module: n.Module, source: SourceFile) -> Ruleset:
    return Checker(module, source).run()


def check_expectation(rules: Ruleset, expr: n.Expr, source: SourceFile, scope: dict[str, Type]) -> Type:
    """The type of `expr` read as an example's `expect` line, `scope` holding the action's names.

    For expressions written outside a rules file (a sweep's metric): `source`
    is their own text, so that a problem points into it. RulesError if wrong.
    """
    checker = Checker(n.Module(expr.pos, path=rules.path, title=rules.title), source)
    checker.rules = dataclasses.replace(rules, sources={**rules.sources, source.path: source})
    checker._in_example = True  # prob, mean, always, never and possible are allowed, as in `expect`
    found = checker.expect(expr, ANY, Scope({**scope, **EXAMPLE_NAMES}))
    if checker.diagnostics:
        raise RulesError(sorted(checker.diagnostics, key=lambda d: (d.line, d.column)))
    return found
