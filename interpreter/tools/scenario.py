"""Scenario files (TOML) in, states (TOML) out, and --set values.

A scenario file names the action (optional: the first action of the rules
is the default), overrides parameters in a [params] table, picks player
decisions in a [choices] table, and gives every other key as an input of the
action:

    action = "attack"
    [params]
    cover_bonus = 2
    [[attackers]]
    type = "archer"
    [target]
    type = "knight"
"""

from __future__ import annotations

import functools
import math
import re
import sys
import tomllib
from pathlib import Path
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import tomli_w

from fracas.dsl.diagnostics import Diagnostic, SourceFile, lines_of
from fracas.dsl.limits import DEFAULT, Limits
from fracas.dsl.reading import TooLarge, read_bytes
from fracas.dsl.records import field, record
from fracas.interpreter.api import Scenario, ScenarioError, Unwritable

if TYPE_CHECKING:
    import cattrs


@record
class Envelope:
    """The keys of a scenario file that are not inputs of the action."""

    action: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    choices: dict[str, Any] = field(default_factory=dict)


def _strict_str(value: Any, _: type) -> str:
    if not isinstance(value, str):
        raise ValueError(f"expected a text, found {value!r}")
    return value


def _strict_table(value: Any, _: type) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"expected a table, found {value!r}")
    return value


# What each key of the envelope takes, as the converter's hooks above take it (the action may be left out).
_FITS: dict[str, Callable[[Any], bool]] = {"action": lambda value: value is None or isinstance(value, str),
                                            "params": lambda value: isinstance(value, dict),
                                            "choices": lambda value: isinstance(value, dict)}


@functools.cache
def _converter() -> cattrs.Converter:
    """cattrs checks the envelope; the inputs are structured by the rules' own kinds (fracas.interpreter.inputs,
    behind the API). Made when a scenario is first read."""
    import cattrs

    converter = cattrs.Converter()
    converter.register_structure_hook(str, _strict_str)
    converter.register_structure_hook_func(lambda t: getattr(t, "__origin__", None) is dict, _strict_table)
    return converter


_TOML_POSITION = re.compile(r"\(at line (\d+), column (\d+)\)")


def _fail(path: str, message: str, line: int = 0, column: int = 0, text: str = "", hint: str = "") -> ScenarioError:
    source_line = SourceFile(path, text).line(line) if text else ""
    return ScenarioError([Diagnostic(path, line, column, message, hint, source_line)])


def load_scenario(path: str | Path, limits: Limits = DEFAULT) -> Scenario:
    shown = str(path)
    try:
        raw = read_bytes(Path(path), limits)
    except TooLarge as error:
        raise _fail(shown, str(error)) from None
    except FileNotFoundError:
        raise _fail(shown, "no such scenario file") from None
    except IsADirectoryError:
        raise _fail(shown, "this is a folder, not a scenario file") from None
    except OSError as error:
        raise _fail(shown, f"cannot read: {error.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise _fail(shown, f"not UTF-8 text ({error.reason} at byte {error.start})") from None
    return parse_scenario(text, shown, limits)


def parse_scenario(text: str, path: str = "<scenario>", limits: Limits = DEFAULT) -> Scenario:
    text = text.removeprefix("\ufeff")  # a byte order mark, as some editors on Windows write
    too_deep = _too_deep(text, limits.nesting)
    if too_deep is not None:
        line, column, message = too_deep
        raise _fail(path, message, line, column, text, limits.hint("nesting"))
    try:
        data = tomllib.loads(text, parse_float=_toml_float)
    except tomllib.TOMLDecodeError as error:
        message = str(error)
        found = _TOML_POSITION.search(message)
        line, column = (int(found.group(1)), int(found.group(2))) if found else (0, 0)
        raise _fail(path, f"not valid TOML: {_TOML_POSITION.sub('', message).strip()}", line, column, text) from None
    except ValueError as error:  # tomllib's only other error: a whole number past Python's limit of digits
        line, column, digits = _too_long_number(text)
        if not line:
            raise _fail(path, f"not valid TOML: {error}") from None
        raise _fail(path, _too_many_digits(digits), line, column, text,
                    "fracas computes exactly, and a number this long cannot be read") from None
    envelope = _envelope({key: data.pop(key) for key in ("action", "params", "choices") if key in data}, path, text)
    return Scenario(envelope.action, data, envelope.params, path, text, envelope.choices)


def _envelope(given: dict[str, Any], path: str, text: str) -> Envelope:
    """The keys of a scenario file that are not inputs, checked; located where one does not fit."""
    if all(_FITS[key](value) for key, value in given.items()):
        # What the converter would make of them. cattrs takes some 45 ms to import, a quarter of a `fracas odds`
        # call: it is imported to tell what does not fit.
        return Envelope(**given)
    import cattrs

    try:
        return _converter().structure(given, Envelope)
    except cattrs.BaseValidationError as error:
        key = next((k for k in ("action", "params", "choices") if f"$.{k}" in "".join(cattrs.transform_error(error))),
                   "action")
        message = {"action": "'action' must be the name of an action, in quotes",
                   "params": "'params' must be a table: [params]",
                   "choices": "'choices' must be a table: [choices]"}[key]
        raise _fail(path, message, *_line_of(text, key), text) from None


# TOML read only as far as nesting goes: dotted keys, brackets and braces, and the texts and
# comments that may hold anything. A key part is bare, or a quoted text. A key starts where no bare
# part goes on, and a bare part is taken whole (possessive): a long word or number without a dot is
# passed over once, not tried again from each of its characters (time the square of its length).
_PART = r"""(?:[A-Za-z0-9_-]++|"(?:[^"\\\n]|\\.)*"|'[^'\n]*')"""
_NESTING = re.compile(
    rf"(?P<key>(?<![A-Za-z0-9_-]){_PART}(?:[ \t]*\.[ \t]*{_PART})+)"
    r'''|"""(?:[^\\]|\\.)*?"""|\'\'\'.*?\'\'\'|"(?:[^"\\\n]|\\.)*"|'[^'\n]*'|#[^\n]*'''
    r"|(?P<open>[\[{])|(?P<close>[\]}])",
    re.DOTALL,
)


def _too_deep(text: str, limit: int) -> tuple[int, int, str] | None:
    """Line, column and message of the first key or value nesting deeper than limit; None if none does.

    tomllib's time and memory grow with the square of a dotted key's length
    (a 50,000-part key exhausts the memory), so depth is checked before it reads.
    """
    depth = 0
    for found in _NESTING.finditer(text):
        if found.lastgroup == "open":
            depth += 1
            if depth > limit:
                return (*_line_and_column(text, found.start()), f"values nest more than {limit} deep")
        elif found.lastgroup == "close":
            depth = max(0, depth - 1)
        elif found.lastgroup == "key" and found.group().count(".") >= limit:
            parts = len(re.findall(_PART, found.group()))
            if parts > limit:
                return (*_line_and_column(text, found.start()),
                        f"a dotted key of {parts} parts nests tables more than {limit} deep")
    return None


def _line_and_column(text: str, offset: int) -> tuple[int, int]:
    return text.count("\n", 0, offset) + 1, offset - (text.rfind("\n", 0, offset) + 1) + 1


def combine(scenarios: list[Scenario]) -> Scenario:
    """A state file and the files that act on it, read as one scenario.

    The first file is the state (a ship sheet, say); the others add the action
    and its inputs. A key given twice (an input, the action, a parameter or a
    choice) is an error at its second place.
    """
    first, *others = scenarios
    inputs, params, choices = dict(first.inputs), dict(first.params), dict(first.choices)
    action = first.action
    elsewhere: dict[str, tuple[str, str]] = {}
    given: dict[str, str] = {}  # an action, a parameter or a choice -> the file that gave it
    for scenario in scenarios:
        keys = [*(["action"] if scenario.action is not None else []), *(f"params.{k}" for k in scenario.params),
                *(f"choices.{k}" for k in scenario.choices)]
        for key in keys:
            if key in given:  # the later file would win without a word: one of them is a mistake
                line, column = _line_of(scenario.text, key.rpartition(".")[2])
                raise _fail(scenario.path, f"'{key}' is already given in {given[key]}", line, column, scenario.text,
                            "give the action, and each parameter and choice, in one file only")
            given[key] = scenario.path
    for other in others:
        for key in other.inputs:
            if key in inputs:
                where = elsewhere.get(key, (first.path, ""))[0]
                line, column = _line_of(other.text, key)
                raise _fail(other.path, f"'{key}' is already given in {where}", line, column, other.text,
                            "give each input in one file only")
            elsewhere[key] = (other.path, other.text)
        inputs.update(other.inputs)
        params.update(other.params)
        choices.update(other.choices)
        if other.action is not None:
            action = other.action
            elsewhere["action"] = (other.path, other.text)
        if other.params:
            elsewhere["params"] = (other.path, other.text)
        if other.choices:
            elsewhere["choices"] = (other.path, other.text)
    return Scenario(action, inputs, params, first.path, first.text, choices, elsewhere)


def parse_assignment(text: str) -> tuple[str, Any]:
    """NAME=VALUE from the command line; VALUE is read as TOML (3, 0.05, true, "x") or else as a bare name."""
    name, sep, value = text.partition("=")
    name = name.strip()
    if not sep or not name:
        raise ValueError(f"expected NAME=VALUE, got {text!r}")
    try:
        return name, tomllib.loads(f"v = {value.strip()}", parse_float=_toml_float)["v"]
    except tomllib.TOMLDecodeError:
        return name, value.strip()
    except ValueError:  # a whole number past Python's limit of digits
        raise ValueError(f"{name}: {_too_many_digits(_too_long_number(value)[2])}") from None


class WrittenFloat(float):
    """A TOML float that is not finite, keeping how it was written (1e400 reads as inf) for the message."""

    __slots__ = ("text",)

    def __new__(cls, text: str) -> WrittenFloat:
        number = super().__new__(cls, text)
        number.text = text
        return number

    def __str__(self) -> str:
        return self.text

    __repr__ = __str__


def _toml_float(text: str) -> float:
    """A TOML float; one that is not finite keeps its text, so the message refusing it can quote 1e400."""
    number = float(text)
    return number if math.isfinite(number) else WrittenFloat(text)


_DIGITS = re.compile(r"[0-9][0-9_]*")


def _too_long_number(text: str) -> tuple[int, int, int]:
    """Line, column and digit count of the first whole number too long for Python to read; zeros if none."""
    limit = sys.get_int_max_str_digits()
    for number, line in enumerate(lines_of(text), 1):
        for found in _DIGITS.finditer(line):
            digits = len(found.group().replace("_", ""))
            if limit and digits > limit:
                return number, found.start() + 1, digits
    return 0, 0, 0


def _too_many_digits(digits: int) -> str:
    return f"a whole number of {digits} digits, more than fracas reads ({sys.get_int_max_str_digits()} at most)"


def _line_of(text: str, key: str) -> tuple[int, int]:
    """The line of a top-level key, written as `key = ...` or as a [key] / [[key]] table."""
    for number, line in enumerate(lines_of(text), 1):
        stripped = line.lstrip().lstrip("[")
        if stripped.startswith(key) and stripped[len(key):].lstrip()[:1] in ("=", "]", "."):
            return number, line.index(key) + 1
    return 0, 0


def dump_state(data: dict[str, Any], path: str = "<new state>") -> str:
    """A state (Run.new_state) as TOML that reads back as the same state, or a ScenarioError saying why not.

    TOML has no null: a none is the text "none", which reads back as none in
    any optional field but a text? one (`none` is a keyword: no row, enum value
    or number is called so); a text? field is left out when its default is
    none, and refused when not. Pools, volleys and numbers past Python's
    limit of digits are refused too, each named by its TOML path, before
    anything is written.
    """
    problems = _unwritable(data, "", path)
    if problems:
        raise ScenarioError(problems)
    return tomli_w.dumps(data)


def _unwritable(value: Any, where: str, path: str) -> list[Diagnostic]:
    """What in plain data cannot be written, each named by its TOML path."""
    if isinstance(value, Unwritable):
        return [value.at_path(where, path)]
    problems: list[Diagnostic] = []
    if isinstance(value, dict):
        for key, item in value.items():
            problems += _unwritable(item, f"{where}.{key}" if where else key, path)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            problems += _unwritable(item, f"{where}[{index}]", path)
    return problems
