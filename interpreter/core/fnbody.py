"""A fn written with statements, as one Python function.

The checker keeps such a fn pure (no chance, no steps, no writes but to its
own locals), so it needs no blocks, draws or states: its statements become
Python statements, its `if`, `for`, `while` and `break` Python's own, `return VALUE` Python's
return, and both engines call it as they call a fn written `= expr`. Its
locals live in a list `L`, so that a block nested too deep for Python's
compiler (twenty loops, a hundred indents) goes on in a helper function that
shares them; a helper gives back `(value,)` for a `return`, None otherwise.
"""

from __future__ import annotations

from typing import Any, Protocol

from fracas.dsl import nodes as n

Scope = dict[str, str]


class Writer(Protocol):
    """What a fn's statements need of the code generator (codegen.Generator), which imports this module."""

    def expr(self, node: n.Expr, scope: Scope) -> str: ...
    def test(self, node: n.Expr, scope: Scope) -> str: ...
    def const(self, value: Any) -> str: ...
    def fresh(self, prefix: str) -> str: ...
    def local_update(self, target: str, op: str, value: str, pos: n.Pos) -> str: ...
    def _define(self, lines: list[str], rules_line: int) -> None: ...


_HELPER_EVERY = 8  # nesting levels written in one Python function before a helper takes the rest


class FnBody:
    def __init__(self, gen: Writer, decl: n.FnDecl, target: str):
        self.gen = gen
        self.decl = decl
        self.target = target
        self.slots = len(decl.params)
        # Whether the innermost loop around the statement being written is in the same Python function
        # (a `break` is then Python's) or outside a helper (which then gives back rt.BROKE).
        self.loops_here: list[bool] = [False]

    def write(self) -> None:
        decl, gen = self.decl, self.gen
        assert decl.block is not None
        scope = {p.name: f"L[{i}]" for i, p in enumerate(decl.params)}
        body = self.block(decl.block, scope, 1, helper=False)
        args = "".join(f", a_{p.name}" for p in decl.params)
        start = "".join(f"a_{p.name}, " for p in decl.params)
        ended = f"fn {decl.name!r} reached its end without giving a value"
        gen._define([f"def {self.target}(R, W, O, depth{args}):",
                     f"    L = [{start}] + [None] * {self.slots - len(decl.params)}",
                     *body,
                     f"    return rt.fail({gen.const(decl.pos)}, {ended!r})"], decl.pos.line)

    def local(self) -> str:
        self.slots += 1
        return f"L[{self.slots - 1}]"

    def block(self, stmts: tuple[n.Stmt, ...], scope: Scope, level: int, helper: bool) -> list[str]:
        """The lines of a block at an indent of `level`; helper: inside a helper function, which gives (value,)."""
        if level > 1 and level % _HELPER_EVERY == 0:
            return self.in_helper(stmts, scope, level, helper)
        inner = dict(scope)  # a block's lets are its own
        lines: list[str] = []
        for stmt in stmts:
            lines += self.statement(stmt, inner, level, helper)
        return lines or ["    " * level + "pass"]

    def in_helper(self, stmts: tuple[n.Stmt, ...], scope: Scope, level: int, helper: bool) -> list[str]:
        name = self.gen.fresh("fnblock")
        self.loops_here.append(False)
        body = self.block(stmts, scope, 1 + _HELPER_EVERY, helper=True)  # past a multiple: not split again
        self.loops_here.pop()
        shift = "    " * _HELPER_EVERY
        self.gen._define([f"def {name}(R, W, O, depth, L):"] + [line.removeprefix(shift) for line in body],
                         self.decl.pos.line)
        indent = "    " * level
        passed = "return _given" if helper else "return _given[0]"
        if self.loops_here[-1]:  # a break in the helper leaves the loop around this call
            return [f"{indent}_given = {name}(R, W, O, depth, L)", f"{indent}if _given is rt.BROKE: break",
                    f"{indent}if _given is not None: {passed}"]
        return [f"{indent}_given = {name}(R, W, O, depth, L)", f"{indent}if _given is not None: {passed}"]

    def loop_body(self, stmts: tuple[n.Stmt, ...], scope: Scope, level: int, helper: bool) -> list[str]:
        self.loops_here.append(True)
        lines = self.block(stmts, scope, level, helper)
        self.loops_here.pop()
        return lines

    def statement(self, stmt: n.Stmt, scope: Scope, level: int, helper: bool) -> list[str]:
        gen, indent = self.gen, "    " * level
        if isinstance(stmt, n.Let):
            value = gen.expr(stmt.value, scope)
            scope[stmt.name] = target = self.local()
            return [f"{indent}{target} = {value}"]
        if isinstance(stmt, n.Assign):  # the checker allows only the fn's own locals here
            op, value = gen.assigned(stmt, scope)
            return [indent + gen.local_update(scope[stmt.target[0]], op, value, stmt.pos)]
        if isinstance(stmt, n.If):
            lines = [f"{indent}if {gen.test(stmt.test, scope)}:", *self.block(stmt.then, scope, level + 1, helper)]
            if stmt.otherwise:
                lines += [f"{indent}else:", *self.block(stmt.otherwise, scope, level + 1, helper)]
            return lines
        if isinstance(stmt, n.For):
            source = gen.expr(stmt.source, scope)
            var = self.local()
            head = f"{indent}for {var} in rt.fn_loop({source}, R, {gen.const(stmt.source.pos)}):"
            return [head, *self.loop_body(stmt.body, {**scope, stmt.var: var}, level + 1, helper)]
        if isinstance(stmt, n.While):
            passes = self.local()
            return [f"{indent}{passes} = 0",
                    f"{indent}while {gen.test(stmt.test, scope)}:",
                    f"{indent}    {passes} = rt.fn_pass({passes}, R, {gen.const(stmt.pos)})",
                    *self.loop_body(stmt.body, scope, level + 1, helper)]
        if isinstance(stmt, n.Break):
            return [f"{indent}break" if self.loops_here[-1] else f"{indent}return rt.BROKE"]
        if isinstance(stmt, n.Return) and stmt.value is not None:
            value = gen.expr(stmt.value, scope)
            return [f"{indent}return ({value},)" if helper else f"{indent}return {value}"]
        problem = f"a fn cannot run this statement (line {stmt.pos.line})"  # refused by the checker
        return [f"{indent}rt.fail({gen.const(stmt.pos)}, {problem!r})"]
