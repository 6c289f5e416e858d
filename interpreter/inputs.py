"""Inputs structured by the rules: the program of a ruleset, and an action's arguments.

Inputs come as plain data (from TOML) or as expressions (from an example's
`run` line). Either way they are structured by the kinds the rules declare:
a table becomes an entity of the world, a text names a row, a number stays
exact. Anything that does not fit, or breaks a constraint, is an
InputProblem with a path and a hint.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from fracas.dsl import nodes as n
from fracas.dsl.cache import stamp
from fracas.dsl.checked import keep_with
from fracas.dsl.diagnostics import closest, did_you_mean, listed, with_article
from fracas.dsl.ruleset import Constraint, Ruleset
from fracas.dsl.types import Type, type_from
from fracas.interpreter.core.kept_code import code_digest
from fracas.interpreter.core.errors import RunError
from fracas.interpreter.core.constraints import (Path, breach, described, first_broken, path_text, plain, readings,
                                                 records_in, where_written)
from fracas.interpreter.core.program import Program
from fracas.interpreter.core.rt import bits_limit
from fracas.interpreter.core.state import Frozen, State
from fracas.interpreter.core.values import Record, Ref, RowRef, normalize, show
from fracas.interpreter.runtime.chance import parse_dice

EMPTY = State((Frozen(),), Frozen(), Frozen())
NONE_TEXT = "none"  # how TOML, which has no null, gives a none; `none` is a keyword, so nothing else is called so


class InputProblem(Exception):
    """An input that does not fit the rules; `where` is a TOML key path or a source position."""

    def __init__(self, where: str | n.Pos, message: str, hint: str = ""):
        super().__init__(message)
        self.where = where
        self.message = message
        self.hint = hint


class InputProblems(InputProblem):
    """Several inputs that do not fit, in the order they are read: a scenario's problems told at once, not one
    a run. Told as the first where one problem is expected."""

    def __init__(self, problems: list[InputProblem]):
        first = problems[0]
        super().__init__(first.where, first.message, first.hint)
        self.problems = problems


def each_problem(problem: InputProblem) -> list[InputProblem]:
    return problem.problems if isinstance(problem, InputProblems) else [problem]


def told_together(problems: list[InputProblem]) -> None:
    """Raise the problems found, if any: one alone as itself."""
    if len(problems) == 1:
        raise problems[0]
    if problems:
        raise InputProblems(problems)


_UNMADE = object()  # a value that did not fit: its problem is among those gathered


def build_program(rules: Ruleset, overrides: dict[str, Any] | None = None,
                  choices: dict[str, Any] | None = None) -> Program:
    """The program of `rules` with these parameter and choice values, every constant checked."""
    overrides, choices = overrides or {}, choices or {}
    key = _program_key(overrides, choices)
    if key is None:
        return _built_program(rules, overrides, choices)
    # A program never changes once built: the calls of one process share it, and with it its memos (the
    # constraints' quick test, the states checked, where sampled runs stand at their first chance).
    made = rules.runtime_cache.setdefault("programs", {})
    found = made.get(key)
    if found is None:
        found = _kept_program(rules, key)
        if found is None:
            found = _built_program(rules, overrides, choices)
            _keep_program(found, key)
        if len(made) >= _MOST_PROGRAMS_MADE:
            del made[next(iter(made))]
        made[key] = found
    return found


_MOST_PROGRAMS_MADE = 16  # a sweep's values, each a program: the last ones met stay


def _built_program(rules: Ruleset, overrides: dict[str, Any], choices: dict[str, Any]) -> Program:
    """The program made afresh: every parameter, choice and row evaluated and checked."""
    params: dict[str, Any] = {}
    rows: dict[str, Record] = {}
    program = Program(rules, params, rows)
    given = _Structurer(program)
    problems: list[InputProblem] = []
    # Choices read like parameters; the scenario or --choose picks their values.
    for section, declared, values in (("params", rules.params, overrides), ("choices", rules.choices, choices)):
        for name, typed in declared.items():
            if name in values:
                # A record given for a parameter is a value, as one written in the rules is: no thing of a world.
                made: dict[str, Record] = {}
                told = len(problems)
                params[name] = _as_value(given._gathered(problems, given.structure, values[name], typed.type,
                                                         f"{section}.{name}", made), made)
                if len(problems) > told and _typed_by_whole_default(typed):
                    default = rules.text_of(typed.value)
                    for problem in problems[told:]:
                        if "a whole number" in problem.message:
                            problem.hint = (f"'{name}' is a whole number, as its default {default} is: to take a "
                                            f"fraction, declare it as one, param {name}: number = {default}")
            elif problems:  # a default may read a value set before it, which did not fit
                continue
            else:
                params[name] = program.constant(typed.value)
    told_together(problems)
    for name, decl in rules.rows.items():
        rows[name] = given.record(decl.kind, {f.name: f.value for f in decl.fields}, name, {}, constant=True)
    given.check_constants(overrides, choices)
    return program


def _typed_by_whole_default(typed: Any) -> bool:
    """Whether a parameter is a whole number only because its default is one, no type written (`param p = 0`)."""
    return isinstance(typed.decl, n.ParamDecl) and typed.decl.type is None and typed.type.name == "int"


def _as_value(value: Any, world: dict[str, Record]) -> Any:
    """A value structured as a scenario's input, each thing in it (a Ref into `world`) its record, as a value."""
    if type(value) is Ref:
        record = world[value.id]
        return Record(record.shape, tuple(_as_value(item, world) for _, item in record.items()))
    if type(value) is tuple:
        return tuple(_as_value(item, world) for item in value)
    return value


# A program is the same in every run of the same rules with the same parameters set and choices made: kept
# with the checked rules, as their generated code is, a first call in a fresh process reads its constants
# back instead of evaluating and checking every row again. The rules as written keep theirs; of the
# programs with parameters set or choices made, the first few met are kept and none after them (until
# fracas changes), so that a scenario run again reads its program back while a sweep over a parameter
# does not write the cache, some milliseconds, for every value. A scenario first met after a sweep may
# find no room: its program is built each time, as every program was before. Only a program that built
# and passed its checks is kept.
_DEFAULT_PROGRAM = "default program"  # where the program of the rules as written is kept
_AS_WRITTEN = ""  # its key
_SET_PROGRAMS = "programs with parameters set or choices made"
_MOST_SET_PROGRAMS = 4


def _program_key(overrides: dict[str, Any], choices: dict[str, Any]) -> str | None:
    """The parameters set and choices made, as the key of their program; None if a value is not written the way
    a scenario file or the rules write one (a runtime value from the API), whose text may not tell it apart."""
    if not overrides and not choices:
        return _AS_WRITTEN
    if not all(map(_written, overrides.values())) or not all(map(_written, choices.values())):
        return None
    return repr((sorted(overrides.items()), sorted(choices.items())))


def _written(value: Any) -> bool:
    """Whether a value is data as a scenario file gives it, or an expression of the rules (an example's `set`)."""
    if isinstance(value, (dict, list, tuple)):
        return all(map(_written, value.values() if isinstance(value, dict) else value))
    return value is None or isinstance(value, (str, int, float, Fraction, n.Node))


def _kept_program(rules: Ruleset, key: str) -> Program | None:
    found = rules.kept.get(_DEFAULT_PROGRAM) if key == _AS_WRITTEN else _set_programs(rules).get(key)
    try:
        if not isinstance(found, tuple) or found[0] != _program_digest():
            return None
    except OSError:
        return None
    _, shapes, params, rows = found
    program = Program(rules, dict(params), dict(rows))
    program.shapes = dict(shapes)  # the very shapes the rows were made with
    return program


def _set_programs(rules: Ruleset) -> dict[str, Any]:
    found = rules.kept.get(_SET_PROGRAMS)
    return found if isinstance(found, dict) else {}


def _keep_program(program: Program, key: str) -> None:
    rules = program.rules
    if rules.cache_name is None:  # rules given as text keep nothing a run derives (see keep_if_grown)
        return
    try:
        digest = _program_digest()
    except OSError:
        return
    made = (digest, dict(program.shapes), dict(program.params), dict(program.rows))
    if key == _AS_WRITTEN:
        keep_with(rules, _DEFAULT_PROGRAM, made)
        return
    kept = {other: found for other, found in _set_programs(rules).items()
            if isinstance(found, tuple) and found[0] == digest}  # those of another version are no use
    if len(kept) >= _MOST_SET_PROGRAMS:
        return
    kept[key] = made
    keep_with(rules, _SET_PROGRAMS, kept)


@functools.cache
def _program_digest() -> bytes:
    """What a program is made by besides its rules: the engine core (whose values it holds) and this module."""
    return code_digest() + stamp(__file__).encode()


def action_inputs(program: Program, action: n.StepDecl, given: dict[str, Any]) -> State:
    """The state an action starts from: its arguments, the world of entities they create, the outcomes' defaults."""
    args, world = _Structurer(program).inputs(action, given)
    return State((Frozen(args),), Frozen(world), program.outcome_defaults())


def input_shape_problems(program: Program, action: n.StepDecl, given: dict[str, Any]) -> list[InputProblem]:
    """What does not fit in an action's inputs whatever the parameters: unknown keys, values of the wrong type,
    fields missing. Their constraints are not tested (they may read the parameters: those of `program` may not
    be the scenario's)."""
    try:
        _Structurer(program, constrained=False).inputs(action, given)
    except InputProblem as problem:
        return each_problem(problem)
    return []


class _Structurer:
    """Given data made into the runtime values of one program, checked against the constraints of their kinds
    (`constrained`)."""

    def __init__(self, program: Program, constrained: bool = True):
        self.program = program
        self.rules = program.rules
        self.constrained = constrained

    def structure(self, value: Any, type_: Type, where: str, world: dict[str, Record]) -> Any:
        """Turn input data (TOML values or example expressions) into a runtime value of type_."""
        if isinstance(value, n.Expr):
            return self._structure_expr(value, type_, where, world)
        if value == NONE_TEXT and type_.optional and type_.name not in ("text", "any"):
            return None  # `none` is a keyword, so no row, enum value or number is called "none"
        name = type_.name
        if name == "any":
            return value
        if type_.is_kind:
            members = self.rules.members(name)
            if isinstance(value, dict) and members is None:
                return self.record(name, value, where, world)
            if isinstance(value, str):
                return self._row(value, name, where)
            written = f"one of {', '.join(members)}" if members is not None else "a row name or a table"
            raise InputProblem(where, f"expected {with_article(name)} ({written}), found {_toml_kind(value)}")
        if name == "list":
            if not isinstance(value, list):
                raise InputProblem(where, f"expected a list of {type_.item}, found {_toml_kind(value)}")
            assert type_.item is not None
            problems: list[InputProblem] = []
            items = tuple(self._gathered(problems, self.structure, v, type_.item, f"{where}[{i}]", world)
                          for i, v in enumerate(value))
            told_together(problems)
            return items
        if name == "bool":
            if isinstance(value, bool):
                return value
        elif name == "text":
            if isinstance(value, str):
                return value
        elif name == "dice":
            if isinstance(value, int) and not isinstance(value, bool):
                return self._within_digits(value, where)  # a fixed number: a dice value with no dice
            if isinstance(value, str):
                longest = max(map(len, re.findall("[0-9]+", value)), default=0)
                if longest > self.rules.limits.digits:
                    raise self._too_long(where)
                found = parse_dice(value)
                if found is not None:
                    return found
            if isinstance(value, str):  # in quotes already: the dice are what is wrong
                raise InputProblem(where, f"'{value}' is no dice", 'write them as the rules do: "2d6 + 1", "1d6 - 3"')
            raise InputProblem(where, f"expected dice, found {_toml_kind(value)}",
                               'write dice as the rules do, in quotes: "2d6 + 1"')
        elif name in ("int", "number"):
            number = _number(value, where)
            if number is not None and (name == "number" or isinstance(number, int)):
                return self._within_digits(number, where)
            if number is not None:  # said as the scenario writes it: 8.5, not 17/2
                written = repr(value) if isinstance(value, float) else value.strip() if isinstance(value, str) \
                    else show(number)
                raise InputProblem(where, f"expected a whole number, found {written}")
        raise InputProblem(where, f"expected {type_}, found {_toml_kind(value)}")

    @staticmethod
    def _gathered(problems: list[InputProblem], make: Callable[..., Any], *args: Any) -> Any:
        """What make(*args) gives, or _UNMADE with its problems added to `problems`: the inputs after it are still
        read, so that a scenario's every problem is told at once."""
        try:
            return make(*args)
        except InputProblem as problem:
            problems.extend(each_problem(problem))
            return _UNMADE

    def _within_digits(self, number: int | Fraction, where: str) -> int | Fraction:
        """A number given, if it is written within the digits limit (a fraction: both its parts), as the rules'
        own numbers must be."""
        bits = max(number.numerator.bit_length(), number.denominator.bit_length())
        if bits > bits_limit(self.rules.limits.digits):
            raise self._too_long(where)
        return number

    def _too_long(self, where: str) -> InputProblem:
        limits = self.rules.limits
        return InputProblem(where, f"a number of more than {limits.digits} digits", limits.hint("digits"))

    def _structure_expr(self, expr: n.Expr, type_: Type, where: str, world: dict[str, Record]) -> Any:
        if isinstance(expr, n.RecordLit) and type_.is_kind and self.rules.members(type_.name) is None:
            return self.record(type_.name, {f.name: f.value for f in expr.fields}, where, world, at=expr.pos)
        if isinstance(expr, n.ListLit) and type_.name == "list" and type_.item is not None:
            return tuple(self.structure(item, type_.item, f"{where}[{i}]", world) for i, item in enumerate(expr.items))
        return self.program.constant(expr)

    def _things(self, value: Any, where: str, world: dict[str, Record]) -> Any:
        """A value that a default of the rules made, each record in it made a thing of the world, as a record the
        scenario gives is, so that the rules may change it; rows stay rows, and other values stay as they are."""
        if type(value) is tuple:
            return tuple(self._things(item, f"{where}[{i}]", world) for i, item in enumerate(value))
        if type(value) is not Record:
            return value
        record = Record(value.shape, tuple(self._things(item, _join(where, name), world) for name, item in value.items()))
        world[where] = record
        self._check_record(record, {}, where, world)
        return Ref(where)

    def _row(self, name: str, kind: str, where: str) -> RowRef:
        ref = self.program.row_ref(name)
        if ref is None or ref.kind != kind:
            rows = self.rules.rows_of(kind)
            hint = did_you_mean(name, rows) or (f"the {kind} rows are: {', '.join(rows)}" if rows else "")
            raise InputProblem(where, f"unknown {kind} '{name}'", hint)
        return ref

    def record(self, kind_name: str, data: dict[str, Any], where: str, world: dict[str, Record],
                constant: bool = False, at: n.Pos | None = None) -> Any:
        kind = self.rules.kinds[kind_name]
        problems: list[InputProblem] = []
        for key in data:
            if kind.field(key) is None:
                hint = did_you_mean(key, kind.field_names) or listed(f"the fields of {kind_name}", kind.field_names,
                                                                  f"{kind_name} has no fields")
                problems.append(InputProblem(_join(where, key), f"unknown field '{key}' of {kind_name}", hint))
        frame: dict[str, Any] = {}
        for info in kind.fields:
            if info.name in data and constant:  # a row: a record written inside it is a constant too, not an entity
                frame[info.name] = self.program.constant(data[info.name])
            elif info.name in data:
                frame[info.name] = self._gathered(problems, self.structure, data[info.name], info.type,
                                                  _join(where, info.name), world)
            elif info.default is not None and problems:
                continue  # a default may read the fields before it, one of which did not fit: the record is not made
            elif info.default is not None and constant:
                frame[info.name] = self.program.constant(info.default, frame, world)
            elif info.default is not None:  # a thing's record by default is a thing too, as one given would be
                frame[info.name] = self._things(self.program.constant(info.default, frame, world),
                                                _join(where, info.name), world)
            elif info.type.optional:
                frame[info.name] = None
            else:
                problems.append(InputProblem(where, f"a {kind_name} needs '{info.name}' ({info.type})"))
        told_together(problems)
        record = Record(self.program.shapes[kind_name], tuple(frame[f.name] for f in kind.fields))
        if constant:
            return record
        world[where] = record
        self._check_record(record, data, where, world, at)
        return Ref(where)

    def _elsewhere(self, key: str) -> str:
        """The hint for an input named as one of the rules' parameters or choices: where those are given."""
        for table, what in (("params", "a parameter"), ("choices", "a choice")):
            if key in getattr(self.rules, table):
                return (f"'{key}' is {what} of the rules, not an input: a scenario gives it under [{table}], "
                        f"sweep varies it as {table}.{key}")
        return ""

    def inputs(self, action: n.StepDecl, given: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Record]]:
        """The action's arguments and the world of entities they create."""
        names = [p.name for p in action.params]
        problems: list[InputProblem] = []
        for key in given:
            if key not in names:
                problems.append(InputProblem(key, f"action '{action.name}' has no input '{key}'",
                                             self._elsewhere(key) or did_you_mean(key, names)
                                             or _table_meant(key, given[key])
                                             or listed("its inputs", names, "it takes none")))
        world: dict[str, Record] = {}
        args: dict[str, Any] = {}
        for param in action.params:
            type_ = type_from(param.type, self.rules.kinds)
            if param.name in given:
                args[param.name] = self._gathered(problems, self.structure, given[param.name], type_, param.name, world)
            elif param.default is not None:
                args[param.name] = self._gathered(problems, self._structure_expr, param.default, type_, param.name,
                                                  world)
            elif type_.optional:
                args[param.name] = None
            else:
                kind = self.rules.kinds.get(type_.name)
                defaulted = kind is not None and kind.fields and all(f.default is not None for f in kind.fields)
                rows = self.rules.rows_of(type_.name)
                hint = (f"every field of {type_.name} has a default: give it as {param.name} = {{}}, or let the action "
                        f"make one, {param.name}: {type_} = {{}}" if defaulted
                        else f'give one of its rows, as {param.name} = "{rows[0]}" '
                             f'({listed(f"the {type_.name} rows", rows, "")})' if rows else "")
                problems.append(InputProblem(param.name, f"action '{action.name}' needs input '{param.name}' ({type_})",
                                             hint))
        if self.constrained:
            problems.extend(self._action_breaches(action, args, given, world, bool(problems)))
        told_together(problems)
        return args, world

    def _action_breaches(self, action: n.StepDecl, args: dict[str, Any], given: dict[str, Any],
                         world: dict[str, Record], others: bool) -> list[InputProblem]:
        """Every constraint of the action (its inputs' bounds, its `require`s) that the inputs made break, told
        with the problems of the inputs that were not (`others`: some were). A constraint that reads an input
        not made is not tested; nor, once some problem is told, one that cannot be evaluated (it may read what
        a broken one guards: `require n > 0` before `require 10 / n > 1`)."""
        made = {name: value for name, value in args.items() if value is not _UNMADE}
        state = _world_state(world)
        breaches: list[InputProblem] = []
        for constraint in self.rules.action_constraints.get(action.name, ()):
            if any(path[0] in args and path[0] not in made for path in constraint.reads):
                continue
            try:
                broken = first_broken(self.program, (constraint,), made, state)
            except RunError:
                if others or breaches:
                    continue
                raise
            if broken is not None:
                breaches.append(self._breach(broken, made, given, "", world, action.pos))
        return breaches

    # ---- constraints on what is built

    def check_constants(self, overrides: dict[str, Any], choices: dict[str, Any]) -> None:
        """The parameters and choices as set, then the rows, once every row is made (one may read another)."""
        broken = first_broken(self.program, self.rules.constraints, {}, EMPTY)
        if broken is not None:
            given = {**overrides, **choices}
            raise self._breach(broken, {}, given, "", {}, broken.pos,
                               lambda name: f"{'choices' if name in choices else 'params'}.{name}")
        for name, typed in [*self.rules.params.items(), *self.rules.choices.items()]:
            if name not in overrides and name not in choices:
                self._check_written(self.program.params[name], name, typed.value.pos)
        for name, decl in self.rules.rows.items():
            self._check_record(self.program.rows[name], {f.name: f.value for f in decl.fields}, name, {}, decl.pos)
            for field in decl.fields:
                self._check_written(self.program.rows[name].get(field.name), f"{name}.{field.name}", field.value.pos)

    def _check_written(self, value: Any, where: str, at: n.Pos) -> None:
        """The records a rules file writes as a value (a parameter's, a row field's), at that value."""
        for path, record, _ in records_in(where, value, self.rules):
            self._check_record(record, {}, path, {}, at)

    def _check_record(self, record: Record, data: dict[str, Any], where: str, world: dict[str, Record],
                      at: n.Pos | None = None) -> None:
        kind = self.rules.kinds[record.shape.kind]
        if not kind.constraints or not self.constrained:
            return
        frame = dict(record.items())
        broken = first_broken(self.program, kind.constraints, frame, _world_state(world))
        if broken is not None:
            raise self._breach(broken, frame, data, where, world, at)

    def _breach(self, broken: Constraint, frame: dict[str, Any], data: dict[str, Any], where: str,
                world: dict[str, Record], at: n.Pos | None,
                key_of: Callable[[str], str] | None = None) -> InputProblem:
        """The problem of a value that breaks a constraint, at the first key of the input it reads.

        A TOML key (named by `key_of` from the first name, or joined to `where`)
        when the input came from a file; the expression itself when it came
        from an example's `run` line or a row; `at`, or `where`, when nothing
        it reads was given.
        """
        state = _world_state(world)
        found = readings(self.program, broken, frame, state)
        shown = described(found, world)
        hint = f"the constraint is at {where_written(broken)}" + (f"; here {shown}" if shown else "")
        for path, value in found:
            keys, given = _given_at(data, path)
            if not keys:
                continue
            head = key_of(str(keys[0])) if key_of else _join(where, str(keys[0]))
            key = path_text((head, *keys[1:]))
            message = f"{show(value)} {breach(broken)}" if len(keys) == len(path) and plain(value) else breach(broken)
            if isinstance(given, n.Expr):
                return InputProblem(given.pos, f"{key}: {message}", hint)
            return InputProblem(key, message, hint)
        if key_of:  # nothing given breaks it: the rules' own values do
            return InputProblem(at or where, f"the parameters as written {breach(broken, 'break')}", hint)
        return InputProblem(at or where, f"{where or 'the inputs'}: {breach(broken)}" if at else breach(broken), hint)

def _world_state(world: dict[str, Record] | None) -> State:
    return EMPTY if not world else State((Frozen(),), Frozen(world), Frozen())


def _given_at(data: Any, path: Path) -> tuple[list[str | int], Any]:
    """How far down a path the given input goes: the keys (and list indices) written, and the value at the last."""
    keys: list[str | int] = []
    value = data
    for step in path:
        parts = _parts_given(value)
        if isinstance(parts, dict):
            written = step in parts
        else:
            written = parts is not None and isinstance(step, int) and 0 <= step < len(parts)
        if not written:
            break
        keys.append(step)
        value = parts[step]  # type: ignore[index]
    return keys, value


def _parts_given(value: Any) -> dict[str, Any] | list[Any] | None:
    """The fields of a table or record given as input, or the items of a list."""
    if isinstance(value, (dict, list)):
        return value
    if isinstance(value, n.RecordLit):
        return {f.name: f.value for f in value.fields}
    if isinstance(value, n.ListLit):
        return list(value.items)
    return None


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


# Numbers given as text: whole, decimal, a fraction or a percentage. No exponent: "1e99999999" would take minutes to make exact.
# Compiled by re when first used, as only a scenario that gives a number as text needs it.
_EXACT_TEXT = r"[+-]?(\d+/\d+|\d+\.?\d*|\.\d+)"


def _number(value: Any, where: str) -> int | Fraction | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, Fraction):
        return normalize(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InputProblem(where, f"{value} is not a number fracas can compute with exactly",
                               "TOML reads nan, inf and numbers past 1e308 as floats that are not numbers; "
                               'write a whole number, a decimal or a fraction in quotes ("1/3")')
        return normalize(Fraction(repr(value)))  # 0.05 in TOML means exactly 1/20
    text = value.strip() if isinstance(value, str) else ""
    percent = text.endswith("%")  # "60%", as the rules write it
    if percent:
        text = text[:-1]
    number = number_written(text) if not (percent and "/" in text) else None
    if number is None:
        return None
    return normalize(number / 100 if percent else number)


def number_written(text: str) -> Fraction | None:
    """The number a text writes, exactly: whole, decimal or a fraction, never an exponent; None for another text."""
    if not text or not re.fullmatch(_EXACT_TEXT, text):
        return None
    try:
        return Fraction(text)
    except (ValueError, ZeroDivisionError):  # a zero denominator, or past Python's limit of digits
        return None


def _toml_kind(value: Any) -> str:
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        return f'the text "{value}"'
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__


def _table_meant(key: str, value: Any) -> str:
    """The hint for a table of a scenario named like its parameters' or choices' (`[param]`, `[options]`)."""
    meant = closest(key.lower(), _TABLES) if isinstance(value, dict) else None
    if meant is None:
        return ""
    table = _TABLES[meant]
    return f"a scenario gives the rules' {'parameters' if table == 'params' else 'choices'} under [{table}]"


_TABLES = {"params": "params", "parameters": "params", "choices": "choices", "choose": "choices", "options": "choices"}
