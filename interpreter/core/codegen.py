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
not, is a routine of its own, entered through a call site. A step that gives
a value writes it, at its `return`, to a slot the statement taking it (the
`let`, assignment or `return` whose whole value the call is) then reads.

Functions and modifiers become ordinary Python functions `(R, W, O, depth,
*args)` (a fn written with statements too: see fnbody.py). Generated code is compiled with the rules file as its file name and
each statement at its rules line, so a profile or a traceback names rules
lines.
"""

from __future__ import annotations

import _thread
import functools
import itertools
import marshal
import re
import sys
import types
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from fracas.dsl import cache as kept
from fracas.dsl import nodes as n
from fracas.dsl import records
from fracas.dsl.builtins import SIGNATURES
from fracas.dsl.records import field, record
from fracas.dsl.ruleset import Ruleset
from fracas.dsl.statements import map_children, statements, step_value
from fracas.interpreter.core.analysis import ChanceAnalysis
from fracas.interpreter.core.builtins import IMPLEMENTATIONS, POSITIONAL, dice_problem
from fracas.interpreter.core import counted
from fracas.interpreter.core import dist as D
from fracas.interpreter.core.errors import RunError
from fracas.interpreter.core import rt, tested, valued
from fracas.interpreter.core.fnbody import FnBody
from fracas.interpreter.core.kept_code import KeptCode, code_of, kept_for
from fracas.interpreter.core.liveness import ANY, EVERY_FIELD, LineFacts, slot_facts
from fracas.interpreter.runtime.bodies import ANY as ANY_BODY
from fracas.interpreter.runtime.chance import Dice
from fracas.interpreter.core.values import Ref, RowRef

END = -1
# The start of a line that only writes the event log: no work where nothing is logged (the exact engine), so the
# engine's readings of a block's lines pass over it. It names a slot by its number, not as F[n], so that no
# value is kept alive for the log alone.
TRACED = "R.trace is None or "
# The last line of a block: a jump, or a branch to one of two blocks (the test may hold anything, but
# the line ends with ` else N`).
# Patterns as text: re compiles each when first used (and keeps it), so that a run of kept code compiles none.
_JUMP = r"return (-?\d+)"
_BRANCH = r"return (-?\d+) if (.*) else (-?\d+)"
_JUMPS = r"\breturn (-?\d+)"
_MOST_INDENT = 4 * 40  # sampled blocks written one in another nest no deeper: Python's parser stops at 100
_SPLIT_DEPTH = 40
_LEAVES = (n.Number, n.Text, n.Bool, n.NoneLit, n.Name, n.Dice)

Scope = dict[str, str]  # a name -> the Python expression that holds it


@record
class Block:
    """Generated lines that end in a jump: what the exact engine runs states through, merging them after."""

    lines: list[tuple[str, int]] = field(default_factory=list)  # Python, and the rules line it came from
    ended: bool = False
    # A draw block computes one expression that meets chance into a slot: the sampler
    # draws its value (`lines`), the exact engine its distribution (`dist_lines`) and
    # then branches once on each distinct value.
    draw_slot: int | None = None
    dist_lines: list[tuple[str, int]] = field(default_factory=list)
    facts: list[LineFacts | None] = field(default_factory=list)  # beside each line: what it reads and changes
    successors: list[int] = field(default_factory=list)  # the blocks it may go to next (-1: the end)
    pos: n.Pos | None = None  # the expression drawn, for limit errors

    writes_world: bool = False  # whether its code may change the world, or the outcomes: set once written
    writes_outcomes: bool = False
    # What a draw's expression reads: its distribution is the same wherever these are.
    draw_slots: tuple[int, ...] = ()
    draw_world: bool = False
    draw_outcomes: bool = False


@record
class CallSite:
    """A block that runs another routine (a step that calls itself) and comes back."""

    routine: str
    args_slot: int
    back: int
    call: n.Call
    result: int | None = None  # the caller's slot that takes the value the step gives, if it gives one


@record
class Routine:
    """One action, or one step that calls itself: its blocks and its frame."""

    name: str
    decl: n.StepDecl
    slots: int = 0
    blocks: list[Block | CallSite] = field(default_factory=list)
    functions: list[Callable[..., int] | None] = field(default_factory=list)
    dist_functions: list[Callable[..., int] | None] = field(default_factory=list)
    # The sampler's (see _write_sampled); None while its module, read back with kept code, waits (Generator.sampled).
    sampled: list[Callable[..., int] | None] | None = field(default_factory=list)
    names: dict[str, int] = field(default_factory=dict)  # the routine's own top-level names -> slots
    params: list[int] = field(default_factory=list)
    result: int | None = None  # the slot that holds the value a step gives, when it ends
    order: list[int] = field(default_factory=list)  # each block's place in program order (loops go back)
    successors: list[list[int]] = field(default_factory=list)
    statics: dict[int, str] = field(default_factory=dict)  # slot -> the input entity it holds
    projections: dict[Any, Any] = field(default_factory=dict)  # what the exact engine forgets where
    # Each while loop: its first block (where every pass starts) -> the blocks of its passes (itself too).
    # The exact engine solves a loop whose states may come round again as a whole, there.
    loops: dict[int, frozenset[int]] = field(default_factory=dict)


_BASE = {"rt": rt, "D": D, "RowRef": RowRef, "Ref": Ref, "Fraction": Fraction}  # what every module may name


class Generator:
    """Writes the Python source of a ruleset's functions, modifiers and routines."""

    def __init__(self, rules: Ruleset):
        self.rules = rules
        self.namespace: dict[str, Any] = dict(_BASE)
        self._constant_names: dict[tuple[type, Any], str] = {}
        # Constants read back with kept code, by name, not yet in _constants: a call that writes no new code
        # never looks a constant up by value.
        self._read_back_constants: list[tuple[str, Any]] = []
        self._counter = itertools.count()
        self.source: list[tuple[str, int]] = []  # (line of Python, rules line)
        self.functions_made: set[str] = set()
        self.routines: dict[str, Routine] = {}
        self._depth = 0
        self.facts = LineFacts()  # what the code written since the last line taken reads and changes
        self._summaries: dict[str, LineFacts] = {}  # what each function's body reads
        self._lone: dict[tuple[int, tuple[str, ...]], tuple[n.Expr, Callable[..., Any]]] = {}
        # Lone functions read back from an earlier run but not run yet: key -> the expression, the function's
        # name and its marshalled module. Most are an example's or a metric's, which a call seldom needs.
        self._waiting: dict[tuple[int, tuple[str, ...]], tuple[n.Expr, str, bytes]] = {}
        # The same for routines' sampler functions: routine -> their names and marshalled module.
        self._sampled_waiting: dict[str, tuple[list[str | None], bytes]] = {}
        # Routines read back whose module (their blocks' functions alone) has not run yet: routine -> the
        # routine with its functions named, and the marshalled module. A call runs one action of many kept.
        self._routines_waiting: dict[str, tuple[Routine, bytes]] = {}
        self._reading_back = _thread.allocate_lock()
        self._in_iterable = 0  # writing the list a comprehension runs over: no assignment expression there
        self.code: list[types.CodeType] = []  # every module run in the namespace, in order: what kept_code keeps
        self.grown = False  # whether it made code since it was made, read back or last kept
        self._counted: frozenset[n.Pos] | None = None  # see counted_draws
        self.valued_steps: dict[str, valued.Reads | None] = {}  # see valued.reads_of
        self.regions: dict[str, n.StepDecl] = {}  # the steps of tested.py's regions, made while lowering

    # ---- what writing code needs, made when first needed: a call that runs kept code writes none

    @functools.cached_property
    def chance(self) -> ChanceAnalysis:
        return ChanceAnalysis(self.rules)

    @functools.cached_property
    def recursive(self) -> set[str]:
        return _recursive_steps(self.rules)

    @property
    def _constants(self) -> dict[tuple[type, Any], str]:
        if self._read_back_constants:
            for name, value in self._read_back_constants:
                self._constant_names[_constant_key(value)] = name
            self._read_back_constants = []
        return self._constant_names

    @_constants.setter
    def _constants(self, names: dict[tuple[type, Any], str]) -> None:
        self._constant_names, self._read_back_constants = names, []

    # ---- constants and names

    def take_facts(self) -> LineFacts:
        facts, self.facts = self.facts, LineFacts()
        return facts

    def _read_callee(self, target: str) -> None:
        summary = self._summaries.get(target)
        if summary is None:  # a function that calls itself, being written: it may read anything
            self.facts.field_reads.add((ANY, EVERY_FIELD))
        else:
            self.facts.merge(summary)

    def const(self, value: Any) -> str:
        """A name in the generated module bound to value (positions, primitives, fractions, nodes)."""
        key = _constant_key(value)
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

    # ---- expressions over chance, as distributions (the exact engine) -------------------------

    def dexpr(self, node: n.Expr, scope: Scope) -> str:
        """Code for node's value, or (where it meets chance) for the distribution of its values."""
        if not self.chance.may_draw(node):
            return self.expr(node, scope)
        special = getattr(self, "d_" + type(node).__name__, None)
        if special is not None:
            return special(node, scope)
        return self._lifted(node, scope)

    def _lifted(self, node: n.Expr, scope: Scope, code_of: Callable[[Any, Scope], str] | None = None) -> str:
        """A strict node whose parts meet chance: its value code (code_of's, if given), applied to every
        combination of theirs."""
        holes: list[str] = []
        parts: list[str] = []

        def hole(child: Any) -> Any:
            if isinstance(child, n.Expr) and self.chance.may_draw(child):
                name = f"__d{len(holes)}"
                holes.append(name)
                parts.append(self.dexpr(child, scope))
                return n.Name(child.pos, name=name)
            return child

        rewritten = map_children(node, hole)
        inner = {**scope, **{name: name.replace("__", "") for name in holes}}
        code = (code_of or getattr(self, "e_" + type(node).__name__))(rewritten, inner)
        args = ", ".join(name.replace("__", "") for name in holes)
        return f"D.apply(lambda {args}: {code}, ({''.join(p + ', ' for p in parts)}), R.budget)"

    def dtest(self, node: n.Expr, scope: Scope) -> str:
        if not self.chance.may_draw(node):
            return self.test(node, scope)
        code = self.dexpr(node, scope)
        if _always_bool(node):
            return code
        return f"D.apply(lambda v: rt.truth(v, {self.const(node.pos)}), ({code},), R.budget)"

    def d_Binary(self, node: n.Binary, scope: Scope) -> str:
        if node.op == "and":
            return (f"D.branch({self.dtest(node.left, scope)}, lambda: {self.dtest(node.right, scope)}, "
                    "lambda: False, R.budget)")
        if node.op == "or":
            return (f"D.branch({self.dtest(node.left, scope)}, lambda: True, "
                    f"lambda: {self.dtest(node.right, scope)}, R.budget)")
        return self._lifted(node, scope)

    def d_Conditional(self, node: n.Conditional, scope: Scope) -> str:
        return (f"D.branch({self.dtest(node.test, scope)}, lambda: {self.dexpr(node.then, scope)}, "
                f"lambda: {self.dexpr(node.otherwise, scope)}, R.budget)")

    def d_Comprehension(self, node: n.Comprehension, scope: Scope) -> str:
        var = self.fresh("c")
        inner = {**scope, node.var: var}
        item = self.dexpr(node.item, inner)
        if node.condition is None:
            build = f"D.sequence([{item} for {var} in src], R.budget)"
        else:
            condition = self.dtest(node.condition, inner)
            build = (f"D.kept_items([D.sequence([{condition}, {item}], R.budget) for {var} in src], R.budget)")
        source = f"rt.items_of({self.dexpr(node.source, scope)}, R, {self.const(node.pos)})"
        return f"D.apply(lambda src: {build}, ({source},), R.budget)"

    def d_ListLit(self, node: n.ListLit, scope: Scope) -> str:
        items = "".join(self.dexpr(item, scope) + ", " for item in node.items)
        return f"D.sequence([{items}], R.budget)"

    def d_Call(self, node: n.Call, scope: Scope) -> str:
        rules = self.rules
        if node.func in rules.fns or node.func in rules.modifiers:
            is_fn = node.func in rules.fns
            decl = rules.fns[node.func] if is_fn else rules.modifiers[node.func]
            body_draws = self.chance.may_draw(decl)
            target = (self.function(node.func, dist=body_draws) if is_fn
                      else self.modifier(node.func, dist=body_draws))
            args = self._arguments(node, decl.params, scope, dist=True)
            names = [f"x{i}" for i in range(len(args))]
            extra = "" if is_fn else f", call={self.const(node)}"
            call = (f"{target}(R, W, O, {self._deeper(node)}"
                    f"{''.join(', ' + a for a in names)}{extra})")
            return f"D.apply(lambda {', '.join(names)}: {call}, ({''.join(a + ', ' for a in args)}), R.budget)"
        division = _rounded_division(node)
        if division is not None:  # over each combination of the division's parts: no distribution of fractions
            return self._lifted(division, scope, lambda rewritten, inner: self._rounded(node.func, rewritten, inner))
        if node.func in ("min", "max") and len(node.args) >= 2:
            # Of independent distributions, by their cumulative weights: no product of their values.
            args = "".join(self.dexpr(a, scope) + ", " for a in node.args)
            return f"D.extreme({node.func == 'max'}, ({args}), R.budget)"
        return self._lifted(node, scope)

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
            return f"rt.fail({self.const(node.pos)}, {problem[0]!r}, {problem[1]!r})"
        return f"rt.draw(R, {self.const(Dice(node.count, node.sides))}, {self.const(node.pos)})"

    def e_Name(self, node: n.Name, scope: Scope) -> str:
        name, rules = node.name, self.rules
        if name in scope:
            return scope[name]
        if name in rules.outcomes:
            self.facts.outcome_reads.add(name)
            return f"O[{name!r}]"
        if name in rules.params or name in rules.choices:
            return f"R.param({name!r}, {self.const(node.pos)})"
        if name in rules.rows:
            return self.const(RowRef(rules.rows[name].kind, name))
        return f"rt.fail({self.const(node.pos)}, {f'unknown name {name!r}'!r})"

    def e_Attr(self, node: n.Attr, scope: Scope) -> str:
        self.facts.field_reads.add((_slot_in(node.obj, scope), node.name))
        obj, pos = self.expr(node.obj, scope), self.const(node.pos)
        kind = self.rules.kinds.get(node.kind)
        if kind is None or node.name not in kind.field_names or self._in_iterable:
            return f"rt.attr({obj}, {node.name!r}, W, R, {pos})"
        # The checker knows the kind read: its field by place, once the record is found and is of that kind
        # (else, and for none, the general read and its errors). Rows are records of the program.
        record = (f"(W[_o.id] if (_t := type(_o := {obj})) is Ref else R.program.rows[_o.name] if _t is RowRef "
                  f"else rt.record_of(_o, W, R, {pos}, {node.name!r}))")
        return (f"(_r.values[{kind.field_names.index(node.name)}] if (_r := {record}).shape.kind == {kind.name!r} "
                f"else rt.attr(_r, {node.name!r}, W, R, {pos}))")

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
        if (op == "/" and isinstance(node.left, n.Number) and isinstance(node.right, n.Number)
                and type(node.left.value) is int and type(node.right.value) is int and node.right.value):
            # A probability written as a fraction (`trials(n, 2/6)`): worked out once, not at each call.
            quotient = Fraction(node.left.value, node.right.value)
            return repr(quotient.numerator) if quotient.denominator == 1 else self.const(quotient)
        left, right = self.expr(node.left, scope), self.expr(node.right, scope)
        pos = self.const(node.pos)
        if op in self._ARITHMETIC:
            return f"rt.{self._ARITHMETIC[op]}({left}, {right}, R, {pos})"
        if op in self._ORDERED:
            return f"rt.{self._ORDERED[op]}({left}, {right}, {pos})"
        if op in ("==", "!=", "in", "not in"):
            return f"({left} {op} {right})"
        return f"rt.fail({pos}, {f'unknown operator {op}'!r})"

    def e_InRange(self, node: n.InRange, scope: Scope) -> str:
        value, low, high = (self.expr(part, scope) for part in (node.value, node.low, node.high))
        return f"rt.in_range({value}, {low}, {high}, {node.negated}, {self.const(node.pos)})"

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
        self._in_iterable += 1  # Python refuses an assignment expression there
        source = f"rt.items_of({self.expr(node.source, scope)}, R, {self.const(node.pos)})"
        self._in_iterable -= 1
        return f"tuple([{self.expr(node.item, inner)} for {var} in {source}{condition}])"

    def e_RecordLit(self, node: n.RecordLit, scope: Scope) -> str:
        """A record written in a rule: a constant value of its kind, defaults filled in from its other fields."""
        kind = self.rules.kinds[node.kind]
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

    def assigned(self, stmt: n.Assign, scope: Scope) -> tuple[str, str]:
        """How an assignment changes its target, and by what: its own operator and value, or, for an item set by
        its index, rt.ITEM_SET and the item's change (a list is a value: the whole list is made anew, from itself)."""
        if stmt.index is None:
            return stmt.op, self.expr(stmt.value, scope)
        index, value = self.expr(stmt.index, scope), self.expr(stmt.value, scope)  # in the order written
        return rt.ITEM_SET, f"rt.ItemSet({index}, {stmt.op!r}, {value}, {self.const(stmt.index.pos)})"

    def local_update(self, target: str, op: str, value: str, pos: n.Pos) -> str:
        """The line that changes a local (held in `target`) by `=`, `+=`, `-=` or `*=`."""
        if op == "=":
            return f"{target} = {value}"
        if op in ("+=", "-="):  # whole numbers need no check: the common case inline
            return (f"{target} = (_a {op[0]} _b if type(_a := {target}) is type(_b := {value}) is int "
                    f"else rt.combine({op!r}, _a, _b, R, {self.const(pos)}))")
        return f"{target} = rt.combine({op!r}, {target}, {value}, R, {self.const(pos)})"

    def _arguments(self, call: n.Call, params: tuple[n.Param, ...], scope: Scope, dist: bool = False) -> list[str]:
        """Arguments in the callee's order; a missing one takes its default, read where the callee is declared."""
        code = self.dexpr if dist else self.expr
        given = {param.name: code(arg, scope) for param, arg in zip(params, call.args)}
        given.update({kw.name: code(kw.value, scope) for kw in call.keywords})
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
        return f"{target}(R, W, O, {self._deeper(call)}{args})"

    def _deeper(self, call: n.Call) -> str:
        """The depth of a call made here, or the located error past the limit."""
        return f"(depth + 1 if depth < {self.rules.limits.call_depth} else rt.deeper(depth, R, {self.const(call.pos)}))"

    def _builtin(self, call: n.Call, scope: Scope) -> str:
        sig, implementation = SIGNATURES.get(call.func), IMPLEMENTATIONS.get(call.func)
        pos = self.const(call.pos)
        if sig is None or implementation is None:
            return f"rt.fail({pos}, {f'unknown function {call.func!r}'!r})"
        division = _rounded_division(call)
        if division is not None:
            return self._rounded(call.func, division, scope)
        impl = self.const(implementation)
        if sig.variadic:
            items = "".join(self.expr(a, scope) + ", " for a in call.args)
            if len(call.args) >= 2 and call.func in ("min", "max"):  # no list to spread, none empty: Python's own
                return f"{call.func}({items})"
            return f"rt.variadic({impl}, {call.func!r}, [{items}], R, {pos})"
        given = [(name, self.expr(arg, scope)) for (name, _), arg in zip(sig.params, call.args)]
        given += [(kw.name, self.expr(kw.value, scope)) for kw in call.keywords]
        positional = self._positional(call.func, given)
        if positional is not None:
            return f"{positional}R, {pos})"
        pairs = ", ".join(f"{k!r}: {v}" for k, v in given)
        return f"{impl}({{{pairs}}}, R, {pos})"

    def _rounded(self, func: str, division: n.Binary, scope: Scope) -> str:
        """floor(a / b) or ceil(a / b) in one step: whole numbers divided as Python divides them, no fraction made."""
        return (f"rt.{func}_div({self.expr(division.left, scope)}, {self.expr(division.right, scope)}, R, "
                f"{self.const(division.pos)})")

    def _positional(self, func: str, given: list[tuple[str, str]]) -> str | None:
        """The call up to R, its arguments in place and defaults filled in, if `func` takes them so and they
        are written in the order it takes them (so that they are still computed in the order written)."""
        found = POSITIONAL.get(func)
        if found is None:
            return None
        implementation, defaults = found
        order = [name for name, _ in SIGNATURES[func].params]
        names = [name for name, _ in given]
        if any(name not in order for name in names) or names != sorted(names, key=order.index):
            return None
        codes = dict(given)
        args = [codes[name] if name in codes else self._default(default) for name, default in zip(order, defaults)]
        return f"{self.const(implementation)}({''.join(arg + ', ' for arg in args)}"

    def _default(self, value: Any) -> str:
        return repr(value) if value is None or type(value) in (int, str) else self.const(value)

    # ---- functions and modifiers ------------------------------------------------------------

    def function(self, name: str, dist: bool = False) -> str:
        """A function of the rules as a Python function; dist: the one that returns distributions."""
        target = f"{'dfn' if dist else 'fn'}_{name}"
        if target not in self.functions_made:
            self.functions_made.add(target)  # before the body, so a function may call itself
            decl = self.rules.fns[name]
            scope = {p.name: f"a_{p.name}" for p in decl.params}
            args = "".join(f", a_{p.name}" for p in decl.params)
            saved = self.take_facts()
            try:
                if decl.body is None:  # statements, which the checker keeps free of chance: one function serves
                    FnBody(self, decl, target).write()
                else:
                    body = self.dexpr(decl.body, scope) if dist else self.expr(decl.body, scope)
                    self._define([f"def {target}(R, W, O, depth{args}):", f"    return {body}"], decl.pos.line)
            except RecursionError:  # at the fn that nests too deeply, not at what called it
                raise self._too_deep(decl.pos) from None
            self._summaries[target] = self.take_facts()
            self.facts = saved
        self._read_callee(target)
        return target

    def modifier(self, name: str, dist: bool = False) -> str:
        """The first argument, changed by each term whose condition holds, in the order written.

        dist: for terms that meet chance, in the exact engine (each term's amount
        is then drawn as a distribution and its value applied to each in turn).
        """
        target = f"{'dmod' if dist else 'mod'}_{name}"
        if target in self.functions_made:
            self._read_callee(target)
            return target
        self.functions_made.add(target)
        saved = self.take_facts()
        if dist:
            self._dist_modifier(self.rules.modifiers[name], target)
        else:
            self._modifier(self.rules.modifiers[name], target)
        self._summaries[target] = self.take_facts()
        self.facts = saved
        self._read_callee(target)
        return target

    def _modifier(self, decl: n.ModifierDecl, target: str) -> None:
        scope = {p.name: f"a_{p.name}" for p in decl.params}
        args = "".join(f", a_{p.name}" for p in decl.params)
        first = f"a_{decl.params[0].name}"
        # The terms applied are listed only for the event log.
        lines = [f"def {target}(R, W, O, depth{args}, call=None):",
                 f"    value = {first}",
                 "    applied = [] if R.trace is not None and call is not None else None"]
        for term in decl.terms:
            indent = "    "
            if term.when is not None:
                lines.append(f"    if {self.test(term.when, scope)}:")
                indent = "        "
            lines.append(f"{indent}before = value")
            lines.append(f"{indent}value = {self._term(term, self.expr(term.amount, scope))}")
            lines.append(f"{indent}if applied is not None and value != before: applied.append({self.const(term)})")
        lines.append("    if applied and R.trace is not None and call is not None:")
        lines.append(f"        rt.log_modifier(R, {self.const(decl)}, call, {first}, value, applied)")
        lines.append("    return value")
        self._define(lines, decl.pos.line)

    def _term(self, term: n.Term, amount: str) -> str:
        """A term applied to `value`: whole numbers added, and bounds, inline; anything else through rt.TERMS."""
        general = f"rt.within(rt.TERMS[{term.op!r}](_a, _b), R, {self.const(term.pos)})"
        if term.op == "add":  # a sum of whole numbers grows by a digit at most: no check
            return f"(_a + _b if type(_a := value) is type(_b := {amount}) is int else {general})"
        if term.op in ("at least", "at most"):  # the value or the bound: each already within the limits
            return f"{'max' if term.op == 'at least' else 'min'}(value, {amount})"
        return f"rt.within(rt.TERMS[{term.op!r}](value, {amount}), R, {self.const(term.pos)})"

    def _dist_modifier(self, decl: n.ModifierDecl, target: str) -> None:
        # Rare (a modifier that rolls): the terms apply in turn to each value the value has so far.
        scope = {p.name: f"a_{p.name}" for p in decl.params}
        args = "".join(f", a_{p.name}" for p in decl.params)
        first = f"a_{decl.params[0].name}"
        lines = [f"def {target}(R, W, O, depth{args}, call=None):", f"    value = {first}"]
        for term in decl.terms:
            amount = self.dexpr(term.amount, scope)
            step = (f"D.apply(lambda v, a: rt.within(rt.TERMS[{term.op!r}](v, a), R, {self.const(term.pos)}), "
                    f"(value, {amount}), R.budget)")
            if term.when is None:
                lines.append(f"    value = {step}")
            else:
                lines.append(f"    value = D.branch({self.dtest(term.when, scope)}, lambda: {step}, lambda: value, R.budget)")
        lines.append("    return value")
        self._define(lines, decl.pos.line)

    # ---- routines: actions and steps that call themselves --------------------------------------

    def routine(self, name: str) -> Routine:
        built = self.routines.get(name)
        if built is None and name in self._routines_waiting:
            with self._reading_back:  # one thread runs the module; the others then find the routine it made
                built = self.routines.get(name)
                waiting = self._routines_waiting.get(name)
                if built is None and waiting is not None:
                    built = self._routine_read_back(*waiting)
                    del self._routines_waiting[name]
                    # A region's step that does not read back is built again from what was kept of it: its
                    # caller, read back, found no region this time.
                    if tested.is_region(waiting[0].decl):
                        self.regions.setdefault(name, waiting[0].decl)
        if built is None:
            decl = self.rules.actions.get(name) or self.rules.steps.get(name) or self.regions[name]
            builder = RoutineBuilder(self, decl)
            built = self.routines[name] = builder.routine  # known before it is built: a step may call itself
            try:
                builder.build()
            except RecursionError:
                raise self._too_deep(decl.pos) from None
        return built

    def _routine_read_back(self, named: Routine, data: bytes) -> Routine | None:
        """A waiting routine, its module run now; None if it does not read back whole (built afresh then)."""
        code = _unmarshal(data)
        if code is None or not _block_names(named) <= set(code.co_names):
            return None  # damaged, or another routine's module: it would rebind functions already running
        exec(code, self.namespace)
        try:
            routine = _with_functions(named, self.namespace, named.name in self._sampled_waiting)
        except KeyError:
            return None
        self.code.append(code)
        self.routines[named.name] = routine
        return routine

    # ---- lone expressions: constants, expectations, metrics ----------------------------------

    def lone(self, expr: n.Expr, names: tuple[str, ...]) -> Callable[[Any, Any, Any, Any], Any]:
        """A function (R, W, O, L) -> the value of one expression, kept for the rules' lifetime.

        `names` are the local names the expression may read, from the dict L.
        """
        key = (id(expr), names)
        hit = self._lone.get(key)
        if hit is None or hit[0] is not expr:
            try:
                hit = self._lone[key] = (expr, self._read_back(key, expr) or self._make_lone(expr, names))
            except RecursionError:
                raise self._too_deep(expr.pos) from None
        return hit[1]

    def _read_back(self, key: tuple[int, tuple[str, ...]], expr: n.Expr) -> Callable[..., Any] | None:
        waiting = self._waiting.pop(key, None)
        if waiting is None or waiting[0] is not expr:
            return None
        code = _unmarshal(waiting[2])
        if code is None:
            return None
        exec(code, self.namespace)
        self.code.append(code)
        return self.namespace.get(waiting[1])

    def sampled(self, routine: Routine) -> list[Callable[..., int] | None]:
        """A routine's sampler functions, their module run now if it was read back and waits."""
        found = routine.sampled
        if found is None:
            waiting = self._sampled_waiting.get(routine.name)
            code = None if waiting is None else _unmarshal(waiting[1])
            if code is None:  # damaged (or read by another thread just now): written again
                builder = RoutineBuilder(self, routine.decl)
                builder.routine = routine
                builder.write_sampled()
                found = routine.sampled
            else:
                exec(code, self.namespace)
                self.code.append(code)
                found = routine.sampled = [None if name is None else self.namespace[name] for name in waiting[0]]
            self._sampled_waiting.pop(routine.name, None)
        return found  # type: ignore[return-value]

    def counted_draws(self) -> frozenset[n.Pos]:
        """The draws of pools that the rest of their step only counts (counted.py): found when first asked, and
        kept with the code (walking every step for them cost a fifth of a first call)."""
        found = self._counted
        if found is None:
            found = self._counted = counted.counted_draws(self.rules)
            self.grown = True
        return found

    def once(self, expr: n.Expr, names: tuple[str, ...]) -> Callable[[Any, Any, Any, Any], Any]:
        """As `lone`, for an expression made for one evaluation: nothing of it is kept with the rules."""
        kept = (self.namespace, self._constants, self.functions_made, self._summaries, self.source, self.code,
                self.grown)
        self.namespace, self._constants = dict(self.namespace), dict(self._constants)
        self.functions_made, self._summaries, self.source = set(self.functions_made), dict(self._summaries), []
        self.code = []
        try:
            return self._make_lone(expr, names)
        finally:
            (self.namespace, self._constants, self.functions_made, self._summaries, self.source, self.code,
             self.grown) = kept

    def _make_lone(self, expr: n.Expr, names: tuple[str, ...]) -> Callable[[Any, Any, Any, Any], Any]:
        name = self.fresh("lone")
        code = self.expr(expr, {local: f"L[{local!r}]" for local in names})
        self.take_facts()
        self._define([f"def {name}(R, W, O, L):", "    depth = 0", f"    return {code}"], expr.pos.line)
        self.compile(expr.pos.path or self.rules.path)
        return self.namespace[name]

    def __len__(self) -> int:
        """How many functions have been written so far."""
        return (len(self.functions_made) + len(self._lone) + len(self._waiting) + len(self.routines)
                + len(self._routines_waiting))

    # ---- the module -------------------------------------------------------------------------

    def _define(self, lines: list[str], rules_line: int) -> None:
        self.source.extend((line, rules_line) for line in lines)

    def compile(self, filename: str, keep: bool = False) -> None:
        """Compile what has been written since the last call into the namespace.

        keep: the compiled code is kept in the user's cache folder (as Python
        keeps .pyc files), keyed by the generated text: the next run of the
        same rules skips Python's compiler.
        """
        if not self.source:
            return
        text = "\n".join(line for line, _ in self.source) + "\n"
        lines = [rules_line for _, rules_line in self.source]
        self.source = []
        name = None
        if keep:
            given = f"{sys.version}\0{marshal.version}\0{filename}\0{lines}\0{text}"
            name = f"code-{kept.fingerprint(given.encode('utf-8', 'surrogatepass')).hexdigest()[:32]}.marshal"
            code = _unmarshal(kept.load(name))
            if code is not None:
                self._run(code)
                return
        import ast  # only where code is compiled: a run of kept code never needs it (2 ms of a fresh process)

        try:
            tree = ast.parse(text, filename)
            for node in ast.walk(tree):  # each statement at the rules line it came from
                if hasattr(node, "lineno"):
                    node.lineno = node.end_lineno = max(1, lines[node.lineno - 1])
            code = compile(tree, filename, "exec")
        except (SyntaxError, RecursionError) as error:
            at = getattr(error, "lineno", None)
            line = max(1, lines[at - 1] if isinstance(at, int) and 0 < at <= len(lines) else min(lines, default=1))
            raise self._too_deep(n.Pos(line, 1, line, 1, filename)) from None
        if name is not None:
            kept.store(name, marshal.dumps(code))
        self._run(code)

    def _too_deep(self, pos: n.Pos) -> RunError:
        """A rule whose expressions nest past what Python follows, writing its code or compiling it, though within
        the rules' own nesting limit (a level of the rules is a few of Python's; the code fracas writes is
        otherwise valid, so that is all a refusal can mean). What was half made is dropped with this generator:
        the next call starts from what was kept."""
        if self.rules.runtime_cache.get("generator") is self:
            del self.rules.runtime_cache["generator"]
        return RunError(pos, "an expression here nests too deeply to be compiled",
                        "write parts of it as their own lets or fns: each level of brackets, 'if ... then ... else' "
                        "and call is a few levels of the Python that fracas runs")

    def _run(self, code: types.CodeType) -> None:
        exec(code, self.namespace)
        self.code.append(code)
        self.grown = True

    # ---- kept between runs (see kept_code.py) ------------------------------------------------

    def kept(self, made_by: bytes) -> KeptCode | None:
        """What this generator made, as plain data that pickles with its rules; None if some of it is not plain."""
        if self.source:
            return None  # written but not compiled yet: only between a routine's start and its end
        constants = set(self._constants.values())
        for name, value in self.namespace.items():
            if name not in _BASE and name != "__builtins__" and name not in constants \
                    and not isinstance(value, types.FunctionType):
                return None  # something the modules made that running them again might not make the same

        def named(functions: list[Callable[..., Any] | None]) -> list[str | None]:
            return [None if f is None else self._function_name(f) for f in functions]

        sampled_waiting = {name: data for name, (_, data) in self._sampled_waiting.items()}
        try:
            routines = {name: records.replace(routine, functions=named(routine.functions),
                                              dist_functions=named(routine.dist_functions),
                                              sampled=named(routine.sampled) if routine.sampled is not None
                                              else self._sampled_waiting[name][0],
                                              projections=dict(routine.projections))
                        for name, routine in self.routines.items()}
            lone = [(expr, names, self._function_name(function)) for (_, names), (expr, function) in self._lone.items()]
        except LookupError:
            return None
        later = {name: data for expr, name, data in self._waiting.values()}
        routines_waiting = {name: data for name, (_, data) in self._routines_waiting.items()}
        routines.update({name: named for name, (named, _) in self._routines_waiting.items()})
        samplers = {frozenset(filter(None, routine.sampled)): name for name, routine in routines.items()}
        blocks_of = {name: _block_names(routine) for name, routine in routines.items()}
        first = []
        for module in self.code:
            name = _lone_alone(module)
            sampler = samplers.get(frozenset(module.co_names))
            alone = _routine_alone(module, blocks_of) if sampler is None and name is None else None
            if sampler is not None:
                sampled_waiting[sampler] = marshal.dumps(module)
            elif alone is not None:
                routines_waiting[alone] = marshal.dumps(module)
            elif name is None:
                first.append(module)
            else:
                later[name] = marshal.dumps(module)
        # Lone functions in the modules run first, and those whose own modules wait: sorted here, so that a
        # process reading them back builds its tables in one pass each (a first call's cost, every process).
        waiting = [(expr, names, name, later[name]) for expr, names, name in lone if name in later]
        waiting += [(expr, names, name, data) for (_, names), (expr, name, data) in self._waiting.items()]
        lone = [entry for entry in lone if entry[2] not in later]
        constants = {name: _Primitive.of(self.namespace[name]) for name in self._constants.values()}
        if not all(isinstance(value, _KEPT_CONSTANTS) or value is ANY_BODY for value in constants.values()):
            return None  # a constant the code may compare by identity, which a pickle would not keep
        primitives = {name: value for name, value in constants.items() if isinstance(value, _Primitive)}
        plain = {name: value for name, value in constants.items() if name not in primitives}
        parts = {"constants": plain, "primitives": primitives,
                 "counter": next(self._counter), "functions made": set(self.functions_made),
                 "summaries": dict(self._summaries), "counted": self._counted, "lone": lone, "waiting": waiting,
                 "routines": routines, "routines waiting": routines_waiting,
                 "sampled waiting": sampled_waiting}
        return KeptCode(made_by, marshal.dumps(first), parts)

    def _function_name(self, function: Callable[..., Any]) -> str:
        name = function.__name__
        if self.namespace.get(name) is not function:
            raise LookupError(name)
        return name

    @classmethod
    def restored(cls, rules: Ruleset, found: KeptCode) -> Generator | None:
        """The generator that made what was kept, as it was then; None if it does not read back whole."""
        code = code_of(found)
        if code is None:
            return None
        gen = cls(rules)
        try:
            parts = found.parts
            constants = {**parts["constants"],
                         **{name: value.found() for name, value in parts["primitives"].items()}}
            gen.namespace.update(constants)
            gen._read_back_constants = list(constants.items())
            for module in code:
                exec(module, gen.namespace)
            namespace = gen.namespace
            waiting_samplers = parts["sampled waiting"]
            waiting_routines = parts["routines waiting"]
            gen.routines = {name: _with_functions(routine, namespace, name in waiting_samplers)
                            for name, routine in parts["routines"].items() if name not in waiting_routines}
            gen._routines_waiting = {name: (parts["routines"][name], data) for name, data in waiting_routines.items()}
            gen._sampled_waiting = {name: (parts["routines"][name].sampled, data)
                                    for name, data in waiting_samplers.items()}
            gen._lone = {(id(expr), names): (expr, namespace[name]) for expr, names, name in parts["lone"]}
            gen._waiting = {(id(expr), names): (expr, name, data) for expr, names, name, data in parts["waiting"]}
            gen._counter = itertools.count(parts["counter"])
            gen.functions_made = set(parts["functions made"])
            gen._summaries = dict(parts["summaries"])
            gen._counted = parts["counted"]
        except Exception:  # from another version of this code, or damaged: made afresh instead
            return None
        gen.code = code
        return gen


_LONE = r"lone\d+"  # patterns as text: see _JUMP
_OWN = r"(lone|deep|record|K)\d+"  # a lone module's own helpers, and constants


def _with_functions(named: Routine, namespace: dict[str, Any], sampler_waits: bool) -> Routine:
    """A routine read back, its functions (kept by name) found in the namespace its modules ran in; its
    sampler's left for when it first samples, where their module waits."""
    def found(names: list[str | None]) -> list[Callable[..., Any] | None]:
        return [None if name is None else namespace[name] for name in names]

    return records.replace(named, functions=found(named.functions), dist_functions=found(named.dist_functions),
                           sampled=None if sampler_waits else found(named.sampled),
                           projections=dict(named.projections))


def _block_names(named: Routine) -> set[str]:
    """The names of a kept routine's block functions (its sampler's apart)."""
    return {name for name in (*named.functions, *named.dist_functions) if name is not None}


def _routine_alone(module: types.CodeType, blocks_of: dict[str, set[str]]) -> str | None:
    """The routine whose blocks' functions are all that a module defines, if there is one: nothing else calls
    into it, so it may wait until the routine first runs."""
    import dis  # here: only a call that keeps code reads a module's instructions

    defined = {step.argval for step in dis.get_instructions(module) if step.opname == "STORE_NAME"}
    if not defined:
        return None
    return next((name for name, blocks in blocks_of.items() if defined <= blocks), None)


def _lone_alone(module: types.CodeType) -> str | None:
    """The lone function a module defines, if that is all that any other code may call in it.

    At a module's top level only its functions are named (and the constants
    their defaults read): a module of one lone function and the helpers it
    wrote for itself can be run when that function is first needed.
    """
    lone = [name for name in module.co_names if re.fullmatch(_LONE, name)]
    if len(lone) != 1 or not all(re.fullmatch(_OWN, name) or name in _BASE for name in module.co_names):
        return None
    return lone[0]


def _unmarshal(data: bytes | None) -> Any:
    if data is None:
        return None
    try:
        code = marshal.loads(data)
    except Exception:  # unreadable, or from another Python: compile instead
        return None
    return code if isinstance(code, types.CodeType) else None


class RoutineBuilder:
    """Lowers one action (or one step that calls itself) to blocks."""

    def __init__(self, gen: Generator, decl: n.StepDecl):
        self.gen = gen
        self.decl = decl
        self.routine = Routine(decl.name, decl)
        self.current = self.new_block()
        self.exits: list[int] = []  # where a `return` goes: the end of the innermost inlined step
        self.results: list[int | None] = []  # beside each exit: the slot the value a step gives goes to
        self.inline_depth = 0
        self.consumed: list[int] = []  # slots of drawn values the statement being lowered reads
        self.copies: dict[int, int] = {}  # an inlined step's parameter slot -> the caller's slot passed to it
        self.breaks: list[int] = []  # where a `break` goes: the block after the innermost loop
        self.drawn_in: dict[int, int] = {}  # the slot of a value drawn -> its draw block

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
        if self.block.pos is None:
            self.block.pos = pos
        self.block.lines.append((line, pos.line))
        self.block.facts.append(self.gen.take_facts())

    def end(self, line: str, pos: n.Pos) -> None:
        if not self.block.ended:
            self.emit(line, pos)
            self.block.ended = True

    def start(self, index: int) -> None:
        self.current = index

    def jump(self, target: int, pos: n.Pos) -> None:
        if not self.block.ended:
            self.block.successors.append(target)
        self.end(f"return {target}", pos)

    def slot(self) -> int:
        self.routine.slots += 1
        return self.routine.slots - 1

    def draw(self, expr: n.Expr, scope: Scope) -> n.Name:
        """Compute an expression that meets chance in a draw block; the statement then reads its slot."""
        gen = self.gen
        if self.block.lines:
            self.jump_to_new(expr.pos)
        slot = self.slot()
        block = self.block
        block.draw_slot, block.pos = slot, expr.pos
        self.drawn_in[slot] = self.current
        block.lines.append((f"F[{slot}] = {gen.expr(expr, scope)}", expr.pos.line))
        block.facts.append(gen.take_facts())
        block.dist_lines.append((f"F[{slot}] = {gen.dexpr(expr, scope)}", expr.pos.line))
        gen.take_facts()  # the same reads as the line above
        self.jump_to_new(expr.pos)
        name = f"__draw{slot}"
        scope[name] = f"F[{slot}]"
        self.consumed.append(slot)
        return n.Name(expr.pos, name=name)

    def traced_after_draw(self, slot: int, line: str, pos: n.Pos) -> None:
        """A line of the log written in the block of the draw of `slot`, after the draw: where the sampler runs it
        and the exact engine, which runs the draw's distribution instead, does not (nor the blocks after it)."""
        block = self.routine.blocks[self.drawn_in[slot]]
        assert isinstance(block, Block) and block.draw_slot == slot
        block.lines.insert(1, (line, pos.line))
        block.facts.insert(1, LineFacts())

    def draw_into(self, slot: int, target: int) -> None:
        """The draw of `slot` made into `target` instead (see drawn_alone)."""
        block = self.routine.blocks[self.drawn_in.pop(slot)]
        assert isinstance(block, Block) and block.draw_slot == slot
        block.draw_slot = target
        for lines in (block.lines, block.dist_lines):
            line, at = lines[0]
            lines[0] = (f"F[{target}] = " + line.removeprefix(f"F[{slot}] = "), at)

    def jump_to_new(self, pos: n.Pos) -> None:
        following = self.new_block()
        self.jump(following, pos)
        self.start(following)

    def forget_draws(self, pos: n.Pos) -> None:
        """Drawn values are forgotten once their statement has read them, so that states merge."""
        if self.consumed:
            self.emit("".join(f"F[{s}] = " for s in self.consumed) + "None", pos)
            self.consumed = []

    def hoisted(self, stmt: n.Stmt, scope: Scope) -> n.Stmt:
        """The statement with each of its expressions that meets chance computed before it."""
        may_draw = self.gen.chance.may_draw

        def draw_if(expr: Any) -> Any:
            return self.draw(expr, scope) if isinstance(expr, n.Expr) and may_draw(expr) else expr

        if isinstance(stmt, n.Assign) and stmt.index is not None:  # written before the value: drawn before it
            stmt = records.replace(stmt, index=draw_if(stmt.index))
        value_call = step_value(stmt)
        if value_call is not None and self.gives_value(value_call.func):
            # The step runs before the statement, its value in a slot the statement reads.
            slot = self.call_step(map_children(value_call, draw_if), stmt.pos, scope)  # type: ignore[arg-type]
            name = f"__gives{slot}"
            scope[name] = f"F[{slot}]"
            self.consumed.append(slot)
            return records.replace(stmt, value=n.Name(value_call.pos, name=name))
        if isinstance(stmt, (n.Let, n.Assign, n.Return)):
            return records.replace(stmt, value=draw_if(stmt.value))
        if isinstance(stmt, n.If):
            return records.replace(stmt, test=draw_if(stmt.test))
        if isinstance(stmt, n.For):
            return records.replace(stmt, source=draw_if(stmt.source))
        if isinstance(stmt, n.Event):
            return map_children(stmt, draw_if)  # type: ignore[return-value]
        if isinstance(stmt, n.CallStmt):
            return records.replace(stmt, call=map_children(stmt.call, draw_if))
        return stmt

    # ---- the routine

    def build(self) -> Routine:
        scope: Scope = {}
        for param in self.decl.params:
            index = self.slot()
            self.routine.params.append(index)
            scope[param.name] = f"F[{index}]"
        if self.decl.result is not None:  # a step that calls itself and gives a value
            self.routine.result = self.slot()
            self.results.append(self.routine.result)
        names = self.statements(self.decl.body, scope, top=True)
        self.jump(END, self.decl.pos)
        # The rules' names, not those of the values drawn and given for a statement (`__draw1`): a final state
        # shows them, and keeps their slots.
        self.routine.names = {name: _slot_of(code) for name, code in names.items()
                              if code.startswith("F[") and not name.startswith("__")}
        self.routine.order = _program_order(self.routine.blocks)
        self.routine.successors = [_successors(block) for block in self.routine.blocks]
        self.routine.statics = self._statics()
        self._write()
        return self.routine

    def _statics(self) -> dict[int, str]:
        """Slots that hold an input entity of the action by name, all along: their fields are known by entity."""
        writes: dict[int, int] = {}
        for block in self.routine.blocks:
            for line, _ in getattr(block, "lines", ()):
                if line.rstrip().endswith("= None"):
                    continue  # forgetting a value is no new value
                for slot in slot_facts(line)[1]:
                    writes[slot] = writes.get(slot, 0) + 1
        named: dict[int, str] = {}
        if self.decl.is_action:
            named = {slot: param.name for slot, param in zip(self.routine.params, self.decl.params)
                     if not writes.get(slot)}
        changed = True
        while changed:
            changed = False
            for slot, source in self.copies.items():
                if slot not in named and source in named and writes.get(slot, 0) <= 1:
                    named[slot] = named[source]
                    changed = True
        return named

    def _write(self) -> None:
        gen = self.gen
        # What the blocks call that was written for them (the rules' functions, deep expressions) in a module of
        # its own, before them: the blocks' module then defines the blocks alone, and kept code lets it wait
        # until the routine first runs (a first call of another action of the same rules never reads it back).
        gen.compile(self.gen.rules.path, keep=True)
        names: list[str | None] = []
        for index, block in enumerate(self.routine.blocks):
            if isinstance(block, CallSite):
                names.append(None)
                continue
            name = f"{self.decl.name}_b{index}"
            names.append(name)
            block.writes_world = any("rt.set_field(" in line for line, _ in block.lines)
            block.writes_outcomes = any("rt.set_outcome(" in line for line, _ in block.lines)
            if block.draw_slot is not None:
                facts = block.facts[0]
                block.draw_slots = tuple(sorted(slot_facts(block.lines[0][0])[0]))
                block.draw_world = facts is None or bool(facts.field_reads)
                block.draw_outcomes = facts is None or bool(facts.outcome_reads)
            self._function(name, block.lines)
            if block.draw_slot is not None:
                self._function(name + "_dist", block.dist_lines + block.lines[1:])
        gen.compile(self.gen.rules.path, keep=True)
        self.routine.functions = [None if name is None else gen.namespace[name] for name in names]
        self.routine.dist_functions = [None if name is None else gen.namespace.get(name + "_dist", gen.namespace[name])
                                       for name in names]
        self.write_sampled()

    def write_sampled(self) -> None:
        """The sampler's functions, in a module of their own: kept code reads it back only when a run samples
        (an exact run never does, and it is half the code)."""
        sampled = self._write_sampled()
        self.gen.compile(self.gen.rules.path, keep=True)
        self.routine.sampled = [None if name is None else self.gen.namespace[name] for name in sampled]

    def _write_sampled(self) -> list[str | None]:
        """The blocks as the sampler runs them: each block that only one jump reaches is written into the
        block it comes from, so that one call runs a stretch of straight code and its branches.

        The exact engine runs the blocks one by one (states merge between them); the sampler follows one
        state, and jumps cost it a call each. Returns, for each block, the function that runs from it, or
        None for a block that is only reached inside another's (and for call sites).
        """
        blocks = self.routine.blocks
        reached = [0] * len(blocks)
        # Targets of a jump from inside a block (a loop's body), and blocks a step that calls itself comes
        # back to: they keep a function.
        inner: set[int] = set()
        for block in blocks:
            for target in _successors(block):
                if target >= 0:
                    reached[target] += 1
            if isinstance(block, CallSite):
                inner.add(block.back)
            else:
                for line, _ in block.lines[:-1]:
                    inner.update(int(found) for found in re.findall(_JUMPS, line))

        def joins(target: int) -> bool:
            return (target > 0 and reached[target] == 1 and target not in inner
                    and isinstance(blocks[target], Block))

        names: list[str | None] = [None] * len(blocks)
        waiting = [0] + [i for i, block in enumerate(blocks) if i and not (isinstance(block, Block) and joins(i))]
        for entry in waiting:  # grows when a block is too deep to be written in place
            if names[entry] is not None or isinstance(blocks[entry], CallSite):
                continue
            names[entry] = f"{self.decl.name}_s{entry}"
            out: list[tuple[str, int]] = []
            self._write_from(entry, "", out, joins, waiting)
            self._function(names[entry], out)  # type: ignore[arg-type]
        return names

    def _write_from(self, index: int, indent: str, out: list[tuple[str, int]], joins: Callable[[int], bool],
                    waiting: list[int]) -> None:
        block = self.routine.blocks[index]
        assert isinstance(block, Block)
        lines = block.lines or [(f"return {END}", self.decl.pos.line)]
        out.extend((indent + line, at) for line, at in lines[:-1])
        last, at = lines[-1]

        def jump(target: int) -> int:
            target = self._past_empty(target)
            if joins(target):  # reached alone, but not written in place here: it needs a function of its own
                waiting.append(target)
            return target

        def go(target: int, deeper: str) -> None:
            if joins(target) and len(deeper) < _MOST_INDENT:
                self._write_from(target, deeper, out, joins, waiting)
            else:
                out.append((f"{deeper}return {jump(target)}", at))

        plain, branch = re.fullmatch(_JUMP, last), re.fullmatch(_BRANCH, last)
        if plain is not None:
            go(int(plain.group(1)), indent)
        elif branch is not None and (joins(int(branch.group(1))) or joins(int(branch.group(3)))):
            out.append((f"{indent}if {branch.group(2)}:", at))
            go(int(branch.group(1)), indent + "    ")
            go(int(branch.group(3)), indent)
        elif branch is not None:
            then, otherwise = (jump(int(branch.group(i))) for i in (1, 3))
            out.append((f"{indent}return {then} if {branch.group(2)} else {otherwise}", at))
        else:
            out.append((indent + last, at))

    def _past_empty(self, target: int) -> int:
        """Where a jump to `target` ends up, past blocks that do nothing but jump on."""
        seen = {target}
        while target >= 0:
            block = self.routine.blocks[target]
            alone = isinstance(block, Block) and len(block.lines) == 1
            found = re.fullmatch(_JUMP, block.lines[0][0]) if alone else None
            if found is None or int(found.group(1)) in seen:
                break
            target = int(found.group(1))
            seen.add(target)
        return target

    def _function(self, name: str, lines: list[tuple[str, int]]) -> None:
        self.gen.source.extend(block_function(name, lines or [(f"return {END}", self.decl.pos.line)]))

    # ---- statements

    def statements(self, stmts: tuple[n.Stmt, ...], scope: Scope, top: bool = False) -> Scope:
        """Lower a block of statements; returns the scope at its end (its own names included). `top`: a routine's
        own body, whose names its final states show (no region of tested.py takes them away)."""
        inner = dict(scope)
        at = 0
        while at < len(stmts):
            stmt = stmts[at]
            if self.block.ended:  # after a stop or return: unreachable, but still checked code
                self.start(self.new_block())
            region = None if top or not isinstance(stmt, n.Let) else self.region_at(stmts, at, inner)
            if region is not None:
                self.s_region(region, inner)
                at += len(region.lets) + 1
                self.forget_draws(region.taker.pos)
                continue
            stmt = self.hoisted(stmt, inner)
            getattr(self, "s_" + type(stmt).__name__)(stmt, inner)
            self.forget_draws(stmt.pos)
            at += 1
        return inner

    def region_at(self, stmts: tuple[n.Stmt, ...], at: int, scope: Scope) -> tested.Region | None:
        """The region of tested.py that starts at statement `at`, if there is one and it is drawn as a value."""
        gen = self.gen
        rules = gen.rules
        counted = gen.counted_draws()
        region = tested.region_at(stmts, at, scope, rules.outcomes,
                                  lambda name: name in rules.steps or name in rules.actions,
                                  gen.chance.may_draw, lambda node: node.pos in counted)
        if region is None:
            return None
        gen.regions.setdefault(region.decl.name, region.decl)
        return region if valued.reads_of(gen, region.decl.name) is not None else None

    def s_region(self, region: tested.Region, scope: Scope) -> None:
        """Lets that only one statement reads: what it reads drawn as a value, and the statement on it (see
        tested.py). A `let` takes the value drawn as one drawn alone (see drawn_alone)."""
        gen, taker = self.gen, region.taker
        pos = region.lets[0].pos  # where the first die is rolled, as written: a limit met here is told there
        hold = self.slot()
        self.emit(f"F[{hold}] = ({''.join(gen.expr(arg, scope) + ', ' for arg in region.args)})", pos)
        self.forget_draws(pos)
        result = self.slot()
        self.drawn_in[result] = self.draw_valued(region.decl.name, hold, result, pos,
                                                 valued.reads_of(gen, region.decl.name))
        name = f"__draw{result}"
        scope[name] = f"F[{result}]"
        if region.links <= 1:  # an `if ... else if` reads it again in its `else`: dead after it all the same
            self.consumed.append(result)
        drawn = n.Name(region.reads.pos, name=name)
        if isinstance(taker, n.If):
            self.s_If(tested.taken_as(taker, region.links, drawn), scope)
        else:
            self.s_Let(records.replace(taker, value=drawn), scope)

    def drawn_alone(self, value: n.Expr, scope: Scope) -> int | None:
        """The slot of a value just drawn, if `value` is all of it (`let x = roll(...)`, `x = fire(...)`).

        Such a value is drawn straight into the name's slot, rather than copied there after the draw in a
        block of its own: the exact engine would run that block for every state the draw makes.
        """
        if not (isinstance(value, n.Name) and value.name.startswith("__draw")):
            return None
        slot = _slot_of(scope[value.name])
        return slot if slot in self.consumed else None

    def s_Let(self, stmt: n.Let, scope: Scope) -> None:
        drawn = self.drawn_alone(stmt.value, scope)
        if drawn is not None:
            self.consumed.remove(drawn)
            scope[stmt.name] = scope[stmt.value.name]  # type: ignore[attr-defined]
            self.traced_after_draw(drawn, f"{TRACED}rt.log_let(R, {self.gen.const(stmt)}, S, {drawn})", stmt.pos)
            return
        value = self.gen.expr(stmt.value, scope)
        index = self.slot()
        self.emit(f"F[{index}] = {value}", stmt.pos)
        self.emit(f"{TRACED}rt.log_let(R, {self.gen.const(stmt)}, S, {index})", stmt.pos)
        scope[stmt.name] = f"F[{index}]"

    def s_Assign(self, stmt: n.Assign, scope: Scope) -> None:
        gen, pos = self.gen, stmt.pos
        head, *path = stmt.target
        drawn = (self.drawn_alone(stmt.value, scope) if not path and stmt.op == "=" and stmt.index is None
                 and head in scope else None)
        if drawn is not None and scope[head].startswith("F["):
            self.consumed.remove(drawn)
            target = _slot_of(scope[head])
            self.traced_after_draw(drawn, f"{TRACED}rt.log_drawn(R, {gen.const(stmt)}, S, {target})", pos)
            self.draw_into(drawn, target)  # its old value is gone with the draw: the new one is said
            return
        op, value = gen.assigned(stmt, scope)
        K = gen.const(stmt)
        if not path:
            if head in scope:
                target = scope[head]
                if not target.startswith("F["):  # not a slot of the frame (a fn's own name): nothing logged
                    self.emit(gen.local_update(target, op, value, pos), pos)
                    return
                self.emit(f"_before = R.trace and rt.local_before(R, S, {_slot_of(target)})", pos)
                self.emit(gen.local_update(target, op, value, pos), pos)
                self.emit(f"{TRACED}rt.log_local(R, {K}, _before, S, {_slot_of(target)})", pos)
            elif head in gen.rules.outcomes:
                (gen.facts.outcome_kills if op == "=" else gen.facts.outcome_reads).add(head)
                gen.facts.outcome_sets.add(head)
                self.emit(f"rt.set_outcome(S, R, {head!r}, {op!r}, {value}, {K})", pos)
            else:
                self.emit(f"rt.fail({gen.const(pos)}, {f'unknown name {head!r}'!r})", pos)
            return
        owner = gen.expr(n.Name(pos, name=head), scope)
        slot = _slot_in(n.Name(pos, name=head), scope)
        if path[:-1]:
            gen.facts.field_reads.add((slot, path[0]))
            gen.facts.field_reads |= {(ANY, name) for name in path[1:-1]}
            slot = ANY
        gen.facts.field_writes.add(path[-1])
        gen.facts.field_sets.add((slot, path[-1]))
        if op == "=" and slot is not ANY:
            gen.facts.field_kills.add((slot, path[-1]))
        elif op != "=":
            gen.facts.field_reads.add((slot, path[-1]))
        self.emit(f"rt.set_field(S, R, {owner}, {tuple(path[:-1])!r}, {path[-1]!r}, {op!r}, {value}, {K})", pos)

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
        self.jump(END, stmt.pos)

    def s_Return(self, stmt: n.Return, scope: Scope) -> None:
        result = self.results[-1] if self.results else None
        if result is not None and stmt.value is not None:  # a step that gives a value (else: a reason, or none)
            self.emit(f"F[{result}] = {self.gen.expr(stmt.value, scope)}", stmt.pos)
            self.forget_draws(stmt.pos)
            if not tested.is_region(self.decl):  # a region's test, which is no step to the rules: not logged
                self.emit(f"rt.log_return(R, {self.gen.const(stmt)}, F[{result}])", stmt.pos)
        else:
            self.emit(f"rt.log_return(R, {self.gen.const(stmt)})", stmt.pos)
        self.jump(self.exits[-1] if self.exits else END, stmt.pos)

    def s_If(self, stmt: n.If, scope: Scope) -> None:
        test = self.gen.test(stmt.test, scope)
        then, otherwise, join = self.new_block(), self.new_block(), self.new_block()
        self.block.successors += [then, otherwise]
        self.end(f"return {then} if {test} else {otherwise}", stmt.pos)
        drawn, self.consumed = self.consumed, []
        for branch, body in ((then, stmt.then), (otherwise, stmt.otherwise)):
            self.start(branch)
            self.consumed = list(drawn)
            self.forget_draws(stmt.pos)
            self.statements(body, scope)
            self.jump(join, stmt.pos)
        self.start(join)

    def s_For(self, stmt: n.For, scope: Scope) -> None:
        gen = self.gen
        items, at, var = self.slot(), self.slot(), self.slot()
        source = gen.expr(stmt.source, scope)
        self.emit(f"F[{items}] = rt.loop_items({source}, R, {gen.const(stmt.source.pos)})", stmt.pos)
        self.forget_draws(stmt.pos)
        self.emit(f"F[{at}] = 0", stmt.pos)
        head, body, done = self.new_block(), self.new_block(), self.new_block()
        self.jump(head, stmt.pos)
        self.start(head)
        self.emit(f"i = F[{at}]", stmt.pos)
        self.emit(f"if i < len(F[{items}].items):", stmt.pos)
        self.emit(f"    F[{var}] = F[{items}].items[i]; F[{at}] = i + 1", stmt.pos)
        self.emit(f"    return {body}", stmt.pos)
        self.block.successors.append(body)
        # Forgotten once the loop is done, so that states merge after it.
        self.emit(f"F[{items}] = F[{at}] = F[{var}] = None", stmt.pos)
        self.jump(done, stmt.pos)
        self.start(body)
        self.breaks.append(done)
        self.statements(stmt.body, {**scope, stmt.var: f"F[{var}]"})
        self.breaks.pop()
        self.jump(head, stmt.pos)
        self.start(done)

    def s_While(self, stmt: n.While, scope: Scope) -> None:
        gen, pos = self.gen, stmt.pos
        head = self.new_block()
        self.emit(f"rt.loop_enter(R, S, {head})", pos)
        self.jump(head, pos)
        self.start(head)
        self.emit(f"rt.loop_pass(R, S, {head}, {gen.const(pos)})", pos)
        test = self.draw(stmt.test, scope) if gen.chance.may_draw(stmt.test) else stmt.test
        body, done = self.new_block(), self.new_block()
        self.block.successors += [body, done]
        self.end(f"return {body} if {gen.test(test, scope)} else {done}", pos)
        drawn, self.consumed = self.consumed, []
        self.start(body)
        self.consumed = list(drawn)
        self.forget_draws(pos)
        self.breaks.append(done)
        self.statements(stmt.body, scope)
        self.breaks.pop()
        self.jump(head, pos)
        self.routine.loops[head] = frozenset(range(head, len(self.routine.blocks))) - {done}
        self.start(done)
        self.consumed = list(drawn)
        self.forget_draws(pos)

    def s_Break(self, stmt: n.Break, scope: Scope) -> None:
        if not self.breaks:  # the checker refuses it; kept so unchecked code still fails where it is
            self.emit(f"rt.fail({self.gen.const(stmt.pos)}, {'break outside a loop'!r})", stmt.pos)
            return
        self.jump(self.breaks[-1], stmt.pos)

    def gives_value(self, name: str) -> bool:
        decl = self.gen.rules.steps.get(name) or self.gen.rules.actions.get(name)
        return decl is not None and decl.result is not None

    def s_CallStmt(self, stmt: n.CallStmt, scope: Scope) -> None:
        result = self.call_step(stmt.call, stmt.pos, scope)
        if result is not None:  # a value given and not taken: forgotten after the call
            self.consumed.append(result)

    def call_step(self, call: n.Call, pos: n.Pos, scope: Scope) -> int | None:
        """Run a step where it is called; the slot that then holds the value it gives, if it gives one."""
        gen = self.gen
        decl = gen.rules.steps.get(call.func) or gen.rules.actions.get(call.func)
        if decl is None:
            self.emit(f"rt.fail({gen.const(call.pos)}, {f'unknown step {call.func!r}'!r})", pos)
            return None
        result = self.slot() if decl.result is not None else None
        limits = gen.rules.limits
        if self.inline_depth + 1 >= limits.call_depth:
            self.emit(f"rt.fail({gen.const(call.pos)}, {f'steps call each other more than {limits.call_depth} deep'!r}, "
                      f"{'a step may be calling itself forever; ' + limits.hint('call_depth')!r})", pos)
            return result
        args = gen._arguments(call, decl.params, scope)
        if call.func in gen.recursive:
            self._call_unit(call, pos, decl, args, result)
            return result
        reads = valued.reads_of(gen, call.func) if result is not None else None
        if reads is not None:
            self._call_valued(call, pos, decl, args, result, reads)  # type: ignore[arg-type]
            return result
        slots = [self.slot() for _ in decl.params]
        for slot, param in zip(slots, decl.params):
            given = _given(call, decl.params, param.name)
            source = _slot_in(given, scope) if given is not None else ANY
            if source is not ANY:
                self.copies[slot] = source
        if slots:
            self.emit("".join(f"F[{s}], " for s in slots) + "= " + "".join(a + ", " for a in args), pos)
        self.forget_draws(pos)
        passed = "(" + "".join(f"F[{s}], " for s in slots) + ")"
        self.emit(f"{TRACED}rt.log_step(R, {gen.const(decl)}, {gen.const(call)}, {passed})", pos)
        done = self.new_block()
        self.exits.append(done)
        self.results.append(result)
        self.inline_depth += 1
        loops, self.breaks = self.breaks, []  # a step's `break` would leave its own loops only
        self.statements(decl.body, {p.name: f"F[{s}]" for p, s in zip(decl.params, slots)})
        self.breaks = loops
        self.inline_depth -= 1
        self.results.pop()
        self.exits.pop()
        self.jump(done, decl.pos)
        self.start(done)
        self.emit(f"{TRACED}rt.log_step_end(R, {gen.const(call)})", pos)
        if slots:  # the step's arguments are forgotten when it ends
            self.emit("".join(f"F[{s}] = " for s in slots) + "None", pos)
        return result

    def _arguments_held(self, call: n.Call, pos: n.Pos, decl: n.StepDecl, args: list[str]) -> int:
        """A step's arguments as one tuple in a slot, for a step run apart from its caller's blocks, and its log."""
        hold = self.slot()
        self.emit(f"F[{hold}] = ({''.join(a + ', ' for a in args)})", pos)
        self.forget_draws(pos)
        self.emit(f"{TRACED}rt.log_step(R, {self.gen.const(decl)}, {self.gen.const(call)}, F[{hold}])", pos)
        return hold

    def _call_valued(self, call: n.Call, pos: n.Pos, decl: n.StepDecl, args: list[str], result: int,
                     reads: valued.Reads) -> None:
        """A call to a step that gives a value and changes nothing: a draw of its value (see valued.py)."""
        hold = self._arguments_held(call, pos, decl, args)
        self.draw_valued(decl.name, hold, result, call.pos, reads)
        self.emit(f"{TRACED}rt.log_step_end(R, {self.gen.const(call)})", pos)

    def draw_valued(self, name: str, hold: int, result: int, pos: n.Pos, reads: valued.Reads | None) -> int:
        """A block of its own that draws the value the step `name` gives from the arguments in slot `hold` into
        slot `result` (`reads`: what else the step reads), as a draw's block does; the lines go on after it.
        Gives the block's number."""
        assert reads is not None
        gen = self.gen
        self.jump_to_new(pos)
        at, block = self.current, self.block
        block.draw_slot, block.pos = result, pos
        site = f"{name!r}, F[{hold}], S"
        block.lines.append((f"F[{result}] = R.call_value({site})", pos.line))
        facts = gen.take_facts()
        facts.merge(reads.facts())  # what the step reads, read here
        block.facts.append(facts)
        block.dist_lines.append((f"F[{result}] = R.value_dist({site})", pos.line))
        self.jump_to_new(pos)
        return at

    def _call_unit(self, call: n.Call, pos: n.Pos, decl: n.StepDecl, args: list[str], result: int | None) -> None:
        """A call to a step that calls itself: a call site the engine runs."""
        gen = self.gen
        hold = self._arguments_held(call, pos, decl, args)
        site = len(self.routine.blocks)
        back = site + 1
        self.routine.blocks.append(CallSite(decl.name, hold, back, call, result))
        self.routine.blocks.append(Block())
        self.jump(site, pos)
        self.start(back)
        self.emit(f"{TRACED}rt.log_step_end(R, {gen.const(call)})", pos)
        gen.routine(decl.name)  # made now, so a routine is complete before anything runs


# ---- helpers -------------------------------------------------------------------------------------


def block_function(name: str, lines: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """A function of a working state and the run, (S, R), that runs these lines as a block's are run."""
    return [(f"def {name}(S, R):", lines[0][1]), ("    F = S.F; W = S.W; O = S.O; depth = 0", lines[0][1]),
            *(("    " + line, rules_line) for line, rules_line in lines)]


_BOOLEAN_OPS = {"and", "or", "==", "!=", "<", "<=", ">", ">=", "in", "not in"}


def _always_bool(node: n.Expr) -> bool:
    return (isinstance(node, (n.Bool, n.InRange)) or (isinstance(node, n.Binary) and node.op in _BOOLEAN_OPS)
            or (isinstance(node, n.Unary) and node.op == "not"))


def _slot_in(expr: n.Expr, scope: Scope) -> Any:
    """The slot a name stands for, if the expression is a name held in a slot."""
    if isinstance(expr, n.Name):
        code = scope.get(expr.name, "")
        if code.startswith("F[") and code.endswith("]") and code[2:-1].isdigit():
            return int(code[2:-1])
    return ANY


def _given(call: n.Call, params: tuple[n.Param, ...], name: str) -> n.Expr | None:
    for param, arg in zip(params, call.args):
        if param.name == name:
            return arg
    for keyword in call.keywords:
        if keyword.name == name:
            return keyword.value
    return None


def _slot_of(code: str) -> int:
    return int(code[2:-1])


def _successors(block: Block | CallSite) -> list[int]:
    return [block.back] if isinstance(block, CallSite) else block.successors


def _program_order(blocks: list[Block | CallSite]) -> list[int]:
    """Each block's rank in reverse postorder: before every block it leads to, except along a loop."""
    seen: set[int] = set()
    post: list[int] = []
    stack: list[tuple[int, Any]] = [(0, iter(_successors(blocks[0])))]
    seen.add(0)
    while stack:
        index, following = stack[-1]
        for nxt in following:
            if nxt >= 0 and nxt not in seen:
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
        for node in statements(decl.body):
            if isinstance(node, n.CallStmt):
                found.add(node.call.func)
            value = step_value(node)
            if value is not None:
                found.add(value.func)
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
        found = kept_for(rules)
        gen = Generator.restored(rules, found) if found is not None else None
        gen = rules.runtime_cache["generator"] = gen or Generator(rules)
    return gen


@record(frozen=True)
class _Primitive:
    """A built-in function's implementation bound as a constant, kept by its name (a lambda does not pickle)."""

    name: str
    positional: bool

    @staticmethod
    def of(value: Any) -> Any:
        if isinstance(value, types.FunctionType):
            for name, implementation in IMPLEMENTATIONS.items():
                if implementation is value:
                    return _Primitive(name, False)
            for name, (implementation, _) in POSITIONAL.items():
                if implementation is value:
                    return _Primitive(name, True)
        return value

    def found(self) -> Any:
        return POSITIONAL[self.name][0] if self.positional else IMPLEMENTATIONS[self.name]


# What generated code binds that reads back from a pickle as good as it was: values, and the rules'
# own nodes (pickled with them, so that they are the same objects); ANY, too, pickles as itself.
_KEPT_CONSTANTS = (int, str, Fraction, n.Node, n.Pos, RowRef, Dice, _Primitive)


def _constant_key(value: Any) -> tuple[type, Any]:
    # By value where equal values serve alike; by identity otherwise (a node, a position, a primitive).
    return (type(value), id(value)) if not isinstance(value, (int, str, Fraction)) else (type(value), value)


def _rounded_division(call: n.Call) -> n.Binary | None:
    """The division a call of floor or ceil rounds, if that is all it is given."""
    if call.func not in ("floor", "ceil") or len(call.args) != 1 or call.keywords:
        return None
    division = call.args[0]
    return division if isinstance(division, n.Binary) and division.op == "/" else None
