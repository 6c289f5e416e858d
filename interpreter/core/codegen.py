"""Checked rules compiled to Python source, once per ruleset, as Jinja2 compiles templates.

Each action becomes a *routine*: a control-flow graph of blocks, each block a
generated Python function `b<N>(S, R)` that changes one working state `S`
(its frame of slots `F`, the world `W`, the outcomes `O`) and returns the
index of the next block, or -1 at the end. `R` is the run: the program's
tables, the engine that resolves chance (`R.chooser`) and the event log.

Control flow is lowered to jumps, so that every statement kind has one
definition here (`Generator.s_<Kind>`), and both engines run the same blocks:
the sampler follows the jumps on one state; the exact engine keeps states
per block and merges equal ones before running it (see engines.py). A
statement that may meet chance gets a block of its own, so that the exact
engine branches on it alone and merges right after it.

Steps are inlined where they are called (each call gets its own slots), which
is what lets liveness see through them; a step that calls itself, directly or
not, is a routine of its own, entered through a call site.

Functions and modifiers become ordinary Python functions `(R, W, O, depth,
*args)`. Generated code is compiled with the rules file as its file name and
each statement at its rules line, so a profile or a traceback names rules
lines.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from dsl import nodes as n
from dsl.builtins import SIGNATURES
from dsl.ruleset import Ruleset
from interpreter.analysis import ChanceAnalysis
from interpreter.builtins import IMPLEMENTATIONS, dice_problem
from interpreter.core import rt
from interpreter.runtime.chance import Dice
from interpreter.values import RowRef

END = -1
_SPLIT_DEPTH = 40
_LEAVES = (n.Number, n.Text, n.Bool, n.NoneLit, n.Name, n.Dice)

Scope = dict[str, str]  # a name -> the Python expression that holds it


@dataclass
class Block:
    lines: list[str] = field(default_factory=list)
    ended: bool = False
    chance: bool = False  # a statement here may meet chance: the exact engine enumerates it
    pos: n.Pos | None = None  # the statement that gives the block its chance, for limit errors


@dataclass
class CallSite:
    """A block that runs another routine (a step that calls itself) and comes back."""

    routine: str
    args_slot: int
    back: int
    call: n.Call


@dataclass
class Routine:
    """One action, or one step that calls itself: its blocks and its frame."""

    name: str
    decl: n.StepDecl
    slots: int = 0
    blocks: list[Block | CallSite] = field(default_factory=list)
    functions: list[Callable[..., int] | None] = field(default_factory=list)
    names: dict[str, int] = field(default_factory=dict)  # the routine's own top-level names -> slots
    params: list[int] = field(default_factory=list)
    order: list[int] = field(default_factory=list)  # each block's place in program order (loops go back)


class Generator:
    """Writes the Python source of a ruleset's functions, modifiers and routines."""

    def __init__(self, rules: Ruleset):
        self.rules = rules
        self.chance = ChanceAnalysis(rules)
        self.namespace: dict[str, Any] = {"rt": rt, "RowRef": RowRef, "Fraction": Fraction}
        self._constants: dict[tuple[type, Any], str] = {}
        self._counter = itertools.count()
        self.source: list[tuple[str, int]] = []  # (line of Python, rules line)
        self.functions_made: set[str] = set()
        self.recursive = _recursive_steps(rules)
        self.routines: dict[str, Routine] = {}
        self._depth = 0

    # ---- constants and names

    def const(self, value: Any) -> str:
        """A name in the generated module bound to value (positions, primitives, fractions, nodes)."""
        key = (type(value), id(value)) if not isinstance(value, (int, str, Fraction)) else (type(value), value)
        name = self._constants.get(key)
        if name is None:
            name = self._constants[key] = f"K{next(self._counter)}"
            self.namespace[name] = value
        return name

    def fresh(self, prefix: str) -> str:
        return f"{prefix}{next(self._counter)}"

    # ---- expressions ------------------------------------------------------------------------

    def expr(self, node: n.Expr, scope: Scope) -> str:
        self._depth += 1
        try:
            if self._depth % _SPLIT_DEPTH == 0 and not isinstance(node, _LEAVES):
                return self._split(node, scope)
            return getattr(self, "e_" + type(node).__name__)(node, scope)
        finally:
            self._depth -= 1

    def _split(self, node: n.Expr, scope: Scope) -> str:
        """A deeply nested expression goes on in a function of its own: Python's parser nests 200 deep at most."""
        name = self.fresh("deep")
        params = {code: f"v{i}" for i, code in enumerate(sorted(set(scope.values())))}
        inner = {key: params[code] for key, code in scope.items()}
        body = getattr(self, "e_" + type(node).__name__)(node, inner)
        args = "".join(", " + p for p in params.values())
        self._define([f"def {name}(R, W, O, depth{args}):", f"    return {body}"], node.pos.line)
        return f"{name}(R, W, O, depth{''.join(', ' + code for code in params)})"

    def test(self, node: n.Expr, scope: Scope) -> str:
        code = self.expr(node, scope)
        if _always_bool(node):
            return code
        return f"rt.truth({code}, {self.const(node.pos)})"

    def e_Number(self, node: n.Number, scope: Scope) -> str:
        return repr(node.value) if type(node.value) is int else self.const(node.value)

    def e_Text(self, node: n.Text, scope: Scope) -> str:
        return repr(node.value)

    def e_Bool(self, node: n.Bool, scope: Scope) -> str:
        return "True" if node.value else "False"

    def e_NoneLit(self, node: n.NoneLit, scope: Scope) -> str:
        return "None"

    def e_Dice(self, node: n.Dice, scope: Scope) -> str:
        limits = self.rules.limits
        problem = dice_problem(node.count, node.sides, limits)
        if problem:
            return f"rt.fail({self.const(node.pos)}, {problem!r}, {limits.hint('count')!r})"
        return f"R.chooser.draw({self.const(Dice(node.count, node.sides))}, {self.const(node.pos)})"

    def e_Name(self, node: n.Name, scope: Scope) -> str:
        name, rules = node.name, self.rules
        if name in scope:
            return scope[name]
        if name in rules.outcomes:
            return f"O[{name!r}]"
        if name in rules.params or name in rules.choices:
            return f"R.param({name!r}, {self.const(node.pos)})"
        if name in rules.rows:
            return self.const(RowRef(rules.rows[name].kind, name))
        return f"rt.fail({self.const(node.pos)}, {f'unknown name {name!r}'!r})"

    def e_Attr(self, node: n.Attr, scope: Scope) -> str:
        return f"rt.attr({self.expr(node.obj, scope)}, {node.name!r}, W, R, {self.const(node.pos)})"

    def e_Index(self, node: n.Index, scope: Scope) -> str:
        obj = node.obj
        if isinstance(obj, n.Name) and obj.name in self.rules.tables and obj.name not in scope:
            row, column = (self.expr(key, scope) for key in (node.index, *node.more))
            return f"rt.cell(R, {obj.name!r}, {row}, {column}, {self.const(node.pos)})"
        return (f"rt.item({self.expr(obj, scope)}, {self.expr(node.index, scope)}, {self.const(node.pos)}, "
                f"{self.const(node.index.pos)})")

    def e_Unary(self, node: n.Unary, scope: Scope) -> str:
        if node.op == "not":
            return f"(not {self.test(node.operand, scope)})"
        return f"(-{self.expr(node.operand, scope)})"

    _ARITHMETIC = {"+": "add", "-": "sub", "*": "mul", "/": "div"}
    _ORDERED = {"<": "lt", "<=": "le", ">": "gt", ">=": "ge"}

    def e_Binary(self, node: n.Binary, scope: Scope) -> str:
        op = node.op
        if op in ("and", "or"):
            return f"({self.test(node.left, scope)} {op} {self.test(node.right, scope)})"
        left, right = self.expr(node.left, scope), self.expr(node.right, scope)
        pos = self.const(node.pos)
        if op in self._ARITHMETIC:
            return f"rt.{self._ARITHMETIC[op]}({left}, {right}, R, {pos})"
        if op in self._ORDERED:
            return f"rt.{self._ORDERED[op]}({left}, {right}, {pos})"
        if op in ("==", "!=", "in", "not in"):
            return f"({left} {op} {right})"
        return f"rt.fail({pos}, {f'unknown operator {op}'!r})"

    def e_Conditional(self, node: n.Conditional, scope: Scope) -> str:
        return (f"({self.expr(node.then, scope)} if {self.test(node.test, scope)} "
                f"else {self.expr(node.otherwise, scope)})")

    def e_ListLit(self, node: n.ListLit, scope: Scope) -> str:
        items = []
        for item in node.items:  # a loop, not a generator: lists nest as deep as the nesting limit
            items.append(self.expr(item, scope) + ", ")
        return "(" + "".join(items) + ")"

    def e_Comprehension(self, node: n.Comprehension, scope: Scope) -> str:
        var = self.fresh("c")
        inner = {**scope, node.var: var}
        condition = "" if node.condition is None else f" if {self.test(node.condition, inner)}"
        return f"tuple([{self.expr(node.item, inner)} for {var} in {self.expr(node.source, scope)}{condition}])"

    def e_RecordLit(self, node: n.RecordLit, scope: Scope) -> str:
        """A record written in a rule: a constant value of its kind, defaults filled in from its other fields."""
        kind = self.rules.kinds[self.rules.record_kinds[id(node)]]
        given = {f.name: self.expr(f.value, scope) for f in node.fields}
        if all(info.name in given or info.default is None for info in kind.fields):
            values = "".join(given.get(info.name, "None") + ", " for info in kind.fields)
            return f"rt.record(R, {kind.name!r}, ({values}))"
        # Defaults may read the fields before them: a function of its own computes them in order.
        name = self.fresh("record")
        lines = [f"def {name}(R, W, O, depth, given):"]
        local: Scope = {}
        for info in kind.fields:
            var = self.fresh("f")
            local[info.name] = var
            if info.name in given:
                lines.append(f"    {var} = given[{info.name!r}]")
            elif info.default is not None:
                lines.append(f"    {var} = {self.expr(info.default, dict(local))}")
            else:
                lines.append(f"    {var} = None")
        lines.append(f"    return rt.record(R, {kind.name!r}, ({''.join(local[i.name] + ', ' for i in kind.fields)}))")
        self._define(lines, node.pos.line)
        pairs = ", ".join(f"{k!r}: {v}" for k, v in given.items())
        return f"{name}(R, W, O, depth, {{{pairs}}})"

    def e_Call(self, node: n.Call, scope: Scope) -> str:
        rules = self.rules
        if node.func in rules.fns:
            return self._call_function(node, rules.fns[node.func].params, self.function(node.func), scope)
        if node.func in rules.modifiers:
            call = self._call_function(node, rules.modifiers[node.func].params, self.modifier(node.func), scope)
            return call[:-1] + f", call={self.const(node)})"
        return self._builtin(node, scope)

    def _arguments(self, call: n.Call, params: tuple[n.Param, ...], scope: Scope) -> list[str]:
        """Arguments in the callee's order; a missing one takes its default, read where the callee is declared."""
        given = {param.name: self.expr(arg, scope) for param, arg in zip(params, call.args)}
        given.update({kw.name: self.expr(kw.value, scope) for kw in call.keywords})
        out = []
        for param in params:
            if param.name in given:
                out.append(given[param.name])
            elif param.default is not None:
                out.append(self.expr(param.default, {}))
            else:
                out.append(f"rt.fail({self.const(call.pos)}, {f'{call.func!r} needs {param.name!r}'!r})")
        return out

    def _call_function(self, call: n.Call, params: tuple[n.Param, ...], target: str, scope: Scope) -> str:
        args = "".join(", " + a for a in self._arguments(call, params, scope))
        return f"{target}(R, W, O, rt.deeper(depth, R, {self.const(call.pos)}){args})"

    def _builtin(self, call: n.Call, scope: Scope) -> str:
        sig, implementation = SIGNATURES.get(call.func), IMPLEMENTATIONS.get(call.func)
        pos = self.const(call.pos)
        if sig is None or implementation is None:
            return f"rt.fail({pos}, {f'unknown function {call.func!r}'!r})"
        impl = self.const(implementation)
        if sig.variadic:
            items = "".join(self.expr(a, scope) + ", " for a in call.args)
            return f"rt.variadic({impl}, {call.func!r}, [{items}], R, {pos})"
        given = [(name, self.expr(arg, scope)) for (name, _), arg in zip(sig.params, call.args)]
        given += [(kw.name, self.expr(kw.value, scope)) for kw in call.keywords]
        pairs = ", ".join(f"{k!r}: {v}" for k, v in given)
        return f"{impl}({{{pairs}}}, R, {pos})"

    # ---- functions and modifiers ------------------------------------------------------------

    def function(self, name: str) -> str:
        target = f"fn_{name}"
        if target not in self.functions_made:
            self.functions_made.add(target)  # before the body, so a function may call itself
            decl = self.rules.fns[name]
            scope = {p.name: f"a_{p.name}" for p in decl.params}
            args = "".join(f", a_{p.name}" for p in decl.params)
            self._define([f"def {target}(R, W, O, depth{args}):",
                          f"    return {self.expr(decl.body, scope)}"], decl.pos.line)
        return target

    def modifier(self, name: str) -> str:
        """The first argument, changed by each term whose condition holds, in the order written."""
        target = f"mod_{name}"
        if target not in self.functions_made:
            self.functions_made.add(target)
            decl = self.rules.modifiers[name]
            scope = {p.name: f"a_{p.name}" for p in decl.params}
            args = "".join(f", a_{p.name}" for p in decl.params)
            first = f"a_{decl.params[0].name}"
            lines = [f"def {target}(R, W, O, depth{args}, call=None):",
                     f"    value = {first}",
                     "    applied = []"]
            for term in decl.terms:
                indent = "    "
                if term.when is not None:
                    lines.append(f"    if {self.test(term.when, scope)}:")
                    indent = "        "
                lines.append(f"{indent}before = value")
                lines.append(f"{indent}value = rt.within(rt.TERMS[{term.op!r}](value, {self.expr(term.amount, scope)}),"
                             f" R, {self.const(term.pos)})")
                lines.append(f"{indent}if value != before: applied.append({self.const(term)})")
            lines.append("    if applied and R.trace is not None and call is not None:")
            lines.append(f"        rt.log_modifier(R, {self.const(decl)}, call, {first}, value, applied)")
            lines.append("    return value")
            self._define(lines, decl.pos.line)
        return target

    # ---- routines: actions and steps that call themselves --------------------------------------

    def routine(self, name: str) -> Routine:
        built = self.routines.get(name)
        if built is None:
            decl = self.rules.actions.get(name) or self.rules.steps[name]
            builder = RoutineBuilder(self, decl)
            built = self.routines[name] = builder.routine  # known before it is built: a step may call itself
            builder.build()
        return built

    # ---- the module -------------------------------------------------------------------------

    def _define(self, lines: list[str], rules_line: int) -> None:
        self.source.extend((line, rules_line) for line in lines)

    def compile(self, filename: str) -> None:
        """Compile what has been written since the last call into the namespace."""
        if not self.source:
            return
        text = "\n".join(line for line, _ in self.source) + "\n"
        lines = [rules_line for _, rules_line in self.source]
        tree = ast.parse(text, filename)
        for node in ast.walk(tree):  # each statement at the rules line it came from
            if hasattr(node, "lineno"):
                node.lineno = node.end_lineno = max(1, lines[node.lineno - 1])
        exec(compile(tree, filename, "exec"), self.namespace)
        self.source = []


class RoutineBuilder:
    """Lowers one action (or one step that calls itself) to blocks."""

    def __init__(self, gen: Generator, decl: n.StepDecl):
        self.gen = gen
        self.decl = decl
        self.routine = Routine(decl.name, decl)
        self.current = self.new_block()
        self.exits: list[int] = []  # where a `return` goes: the end of the innermost inlined step
        self.inline_depth = 0

    # ---- blocks

    def new_block(self) -> int:
        self.routine.blocks.append(Block())
        return len(self.routine.blocks) - 1

    @property
    def block(self) -> Block:
        block = self.routine.blocks[self.current]
        assert isinstance(block, Block)
        return block

    def emit(self, line: str, pos: n.Pos) -> None:
        self.block.lines.append((line, pos.line))  # type: ignore[arg-type]

    def end(self, line: str, pos: n.Pos) -> None:
        if not self.block.ended:
            self.emit(line, pos)
            self.block.ended = True

    def start(self, index: int) -> None:
        self.current = index

    def jump(self, target: int, pos: n.Pos) -> None:
        self.end(f"return {target}", pos)

    def slot(self) -> int:
        self.routine.slots += 1
        return self.routine.slots - 1

    def isolate(self, stmt: n.Stmt) -> None:
        """Give a statement that may meet chance a block of its own."""
        if self.block.lines:
            following = self.new_block()
            self.jump(following, stmt.pos)
            self.start(following)
        self.block.chance = True
        self.block.pos = stmt.pos

    # ---- the routine

    def build(self) -> Routine:
        scope: Scope = {}
        for param in self.decl.params:
            index = self.slot()
            self.routine.params.append(index)
            scope[param.name] = f"F[{index}]"
        names = self.statements(self.decl.body, scope)
        self.end(f"return {END}", self.decl.pos)
        self.routine.names = {name: _slot_of(code) for name, code in names.items() if code.startswith("F[")}
        self.routine.order = _program_order(self.routine.blocks)
        self._write()
        return self.routine

    def _write(self) -> None:
        gen = self.gen
        names: list[str | None] = []
        for index, block in enumerate(self.routine.blocks):
            if isinstance(block, CallSite):
                names.append(None)
                continue
            name = f"{self.decl.name}_b{index}"
            names.append(name)
            lines = block.lines or [(f"return {END}", self.decl.pos.line)]
            gen.source.append((f"def {name}(S, R):", lines[0][1]))
            gen.source.append(("    F = S.F; W = S.W; O = S.O; depth = 0", lines[0][1]))
            gen.source.extend(("    " + line, rules_line) for line, rules_line in lines)  # type: ignore[misc]
        gen.compile(self.gen.rules.path)
        self.routine.functions = [None if name is None else gen.namespace[name] for name in names]

    # ---- statements

    def statements(self, stmts: tuple[n.Stmt, ...], scope: Scope) -> Scope:
        """Lower a block of statements; returns the scope at its end (its own names included)."""
        inner = dict(scope)
        for stmt in stmts:
            if self.block.ended:  # after a stop or return: unreachable, but still checked code
                self.start(self.new_block())
            chance = self.gen.chance.may_draw(stmt) and not isinstance(stmt, (n.If, n.For, n.CallStmt))
            if chance:
                self.isolate(stmt)
            getattr(self, "s_" + type(stmt).__name__)(stmt, inner)
            if chance and not self.block.ended:
                following = self.new_block()
                self.jump(following, stmt.pos)
                self.start(following)
        return inner

    def s_Let(self, stmt: n.Let, scope: Scope) -> None:
        value = self.gen.expr(stmt.value, scope)
        index = self.slot()
        self.emit(f"F[{index}] = {value}", stmt.pos)
        scope[stmt.name] = f"F[{index}]"

    def s_Assign(self, stmt: n.Assign, scope: Scope) -> None:
        gen, pos = self.gen, stmt.pos
        head, *path = stmt.target
        value = gen.expr(stmt.value, scope)
        K = gen.const(stmt)
        if not path:
            if head in scope:
                target = scope[head]
                if stmt.op == "=":
                    self.emit(f"{target} = {value}", pos)
                else:
                    self.emit(f"{target} = rt.combine({stmt.op!r}, {target}, {value}, R, {gen.const(pos)})", pos)
            elif head in gen.rules.outcomes:
                self.emit(f"rt.set_outcome(S, R, {head!r}, {stmt.op!r}, {value}, {K})", pos)
            else:
                self.emit(f"rt.fail({gen.const(pos)}, {f'unknown name {head!r}'!r})", pos)
            return
        owner = gen.expr(n.Name(pos, name=head), scope)
        self.emit(f"rt.set_field(S, R, {owner}, {tuple(path[:-1])!r}, {path[-1]!r}, {stmt.op!r}, {value}, {K})", pos)

    def s_Event(self, stmt: n.Event, scope: Scope) -> None:
        # The arguments are evaluated even with no log to write: a die among them must
        # draw, so that a seed gives the same resolution with or without the log.
        values = "".join(self.gen.expr(a, scope) + ", " for a in stmt.args)
        named = "".join(f"({kw.name!r}, {self.gen.expr(kw.value, scope)}), " for kw in stmt.keywords)
        self.emit(f"rt.event(R, {self.gen.const(stmt)}, [{values}], [{named}])", stmt.pos)

    def s_Stop(self, stmt: n.Stop, scope: Scope) -> None:
        reason = stmt.reason or f"stopped at line {stmt.pos.line}"
        self.emit(f"rt.log_stop(R, {self.gen.const(stmt)}, {reason!r})", stmt.pos)
        self.emit(f"S.stopped = {reason!r}", stmt.pos)
        self.end(f"return {END}", stmt.pos)

    def s_Return(self, stmt: n.Return, scope: Scope) -> None:
        self.emit(f"rt.log_return(R, {self.gen.const(stmt)})", stmt.pos)
        self.jump(self.exits[-1] if self.exits else END, stmt.pos)

    def s_If(self, stmt: n.If, scope: Scope) -> None:
        if self.gen.chance.may_draw(stmt.test):
            self.isolate(stmt)
        test = self.gen.test(stmt.test, scope)
        then, otherwise, join = self.new_block(), self.new_block(), self.new_block()
        self.end(f"return {then} if {test} else {otherwise}", stmt.pos)
        for branch, body in ((then, stmt.then), (otherwise, stmt.otherwise)):
            self.start(branch)
            self.statements(body, scope)
            self.jump(join, stmt.pos)
        self.start(join)

    def s_For(self, stmt: n.For, scope: Scope) -> None:
        gen = self.gen
        if gen.chance.may_draw(stmt.source):
            self.isolate(stmt)
        items, at, var = self.slot(), self.slot(), self.slot()
        source = gen.expr(stmt.source, scope)
        self.emit(f"F[{items}] = rt.loop_items({source}, R, {gen.const(stmt.source.pos)})", stmt.pos)
        self.emit(f"F[{at}] = 0", stmt.pos)
        head, body, done = self.new_block(), self.new_block(), self.new_block()
        self.jump(head, stmt.pos)
        self.start(head)
        self.emit(f"i = F[{at}]", stmt.pos)
        self.emit(f"if i < len(F[{items}]):", stmt.pos)
        self.emit(f"    F[{var}] = F[{items}][i]; F[{at}] = i + 1", stmt.pos)
        self.emit(f"    return {body}", stmt.pos)
        # Forgotten once the loop is done, so that states merge after it.
        self.emit(f"F[{items}] = F[{at}] = F[{var}] = None", stmt.pos)
        self.jump(done, stmt.pos)
        self.start(body)
        self.statements(stmt.body, {**scope, stmt.var: f"F[{var}]"})
        self.jump(head, stmt.pos)
        self.start(done)

    def s_CallStmt(self, stmt: n.CallStmt, scope: Scope) -> None:
        call, gen = stmt.call, self.gen
        decl = gen.rules.steps.get(call.func) or gen.rules.actions.get(call.func)
        if decl is None:
            self.emit(f"rt.fail({gen.const(call.pos)}, {f'unknown step {call.func!r}'!r})", stmt.pos)
            return
        limits = gen.rules.limits
        if self.inline_depth + 1 >= limits.call_depth:
            self.emit(f"rt.fail({gen.const(call.pos)}, {f'steps call each other more than {limits.call_depth} deep'!r}, "
                      f"{'a step may be calling itself forever; ' + limits.hint('call_depth')!r})", stmt.pos)
            return
        chance = gen.chance.may_draw(call)
        if chance:
            self.isolate(stmt)
        args = gen._arguments(call, decl.params, scope)
        if call.func in gen.recursive:
            self._call_unit(stmt, decl, args)
            return
        slots = [self.slot() for _ in decl.params]
        if slots:
            self.emit("".join(f"F[{s}], " for s in slots) + "= " + "".join(a + ", " for a in args), stmt.pos)
        self.emit(f"rt.log_step(R, {gen.const(decl)}, {gen.const(call)})", stmt.pos)
        if chance:  # the arguments drew: merge before the step runs
            following = self.new_block()
            self.jump(following, stmt.pos)
            self.start(following)
        done = self.new_block()
        self.exits.append(done)
        self.inline_depth += 1
        self.statements(decl.body, {p.name: f"F[{s}]" for p, s in zip(decl.params, slots)})
        self.inline_depth -= 1
        self.exits.pop()
        self.jump(done, decl.pos)
        self.start(done)
        if slots:  # the step's arguments are forgotten when it ends
            self.emit("".join(f"F[{s}] = " for s in slots) + "None", stmt.pos)

    def _call_unit(self, stmt: n.CallStmt, decl: n.StepDecl, args: list[str]) -> None:
        """A call to a step that calls itself: a call site the engine runs."""
        gen = self.gen
        hold = self.slot()
        self.emit(f"F[{hold}] = ({''.join(a + ', ' for a in args)})", stmt.pos)
        self.emit(f"rt.log_step(R, {gen.const(decl)}, {gen.const(stmt.call)})", stmt.pos)
        site = len(self.routine.blocks)
        back = site + 1
        self.routine.blocks.append(CallSite(decl.name, hold, back, stmt.call))
        self.routine.blocks.append(Block())
        self.jump(site, stmt.pos)
        self.start(back)
        gen.routine(decl.name)  # made now, so a routine is complete before anything runs


# ---- helpers -------------------------------------------------------------------------------------


_BOOLEAN_OPS = {"and", "or", "==", "!=", "<", "<=", ">", ">=", "in", "not in"}


def _always_bool(node: n.Expr) -> bool:
    return (isinstance(node, n.Bool) or (isinstance(node, n.Binary) and node.op in _BOOLEAN_OPS)
            or (isinstance(node, n.Unary) and node.op == "not"))


def _slot_of(code: str) -> int:
    return int(code[2:-1])


def _successors(block: Block | CallSite) -> list[int]:
    if isinstance(block, CallSite):
        return [block.back]
    found = []
    for line, _ in block.lines:  # type: ignore[misc]
        text = line.strip()
        if text.startswith("return "):
            for word in text[len("return "):].replace(" if ", " ").replace(" else ", " ").split():
                if word.lstrip("-").isdigit() and int(word) >= 0:
                    found.append(int(word))
    return found


def _program_order(blocks: list[Block | CallSite]) -> list[int]:
    """Each block's rank in reverse postorder: before every block it leads to, except along a loop."""
    seen: set[int] = set()
    post: list[int] = []
    stack: list[tuple[int, iter]] = [(0, iter(_successors(blocks[0])))]
    seen.add(0)
    while stack:
        index, following = stack[-1]
        for nxt in following:
            if nxt not in seen:
                seen.add(nxt)
                stack.append((nxt, iter(_successors(blocks[nxt]))))
                break
        else:
            stack.pop()
            post.append(index)
    rank = [len(blocks)] * len(blocks)
    for place, index in enumerate(reversed(post)):
        rank[index] = place
    return rank


def _recursive_steps(rules: Ruleset) -> set[str]:
    """The steps on a cycle of calls: they keep a routine and frames of their own instead of being inlined."""
    calls: dict[str, set[str]] = {}
    for name, decl in {**rules.steps, **rules.actions}.items():
        found: set[str] = set()
        stack: list[Any] = list(decl.body)
        while stack:
            node = stack.pop()
            if isinstance(node, n.CallStmt):
                found.add(node.call.func)
            if isinstance(node, n.If):
                stack.extend(node.then)
                stack.extend(node.otherwise)
            elif isinstance(node, n.For):
                stack.extend(node.body)
        calls[name] = found
    recursive = set()
    for start in calls:
        stack, seen = list(calls[start]), set()
        while stack:
            name = stack.pop()
            if name == start:
                recursive.add(start)
                break
            if name not in seen:
                seen.add(name)
                stack.extend(calls.get(name, ()))
    return recursive


def generator_for(rules: Ruleset) -> Generator:
    gen = rules.runtime_cache.get("generator")
    if gen is None:
        gen = rules.runtime_cache["generator"] = Generator(rules)
    return gen
