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

import os
import re
import tempfile
import tomllib
from pathlib import Path
from typing import Any

import tomli_w

from dsl.diagnostics import Diagnostic
from interpreter.api import Scenario
from interpreter.errors import ScenarioError

MAX_SCENARIO_BYTES = 1_000_000
_TOML_POSITION = re.compile(r"\(at line (\d+), column (\d+)\)")


def _fail(path: str, message: str, line: int = 0, column: int = 0, text: str = "", hint: str = "") -> ScenarioError:
    source_line = text.splitlines()[line - 1] if text and 0 < line <= len(text.splitlines()) else ""
    return ScenarioError([Diagnostic(path, line, column, message, hint, source_line)])


def load_scenario(path: str | Path) -> Scenario:
    shown = str(path)
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise _fail(shown, "no such scenario file") from None
    except IsADirectoryError:
        raise _fail(shown, "this is a folder, not a scenario file") from None
    except OSError as error:
        raise _fail(shown, f"cannot read: {error.strerror}") from None
    if len(raw) > MAX_SCENARIO_BYTES:
        raise _fail(shown, f"the file is {len(raw)} bytes, over the limit of {MAX_SCENARIO_BYTES}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise _fail(shown, f"not UTF-8 text ({error.reason} at byte {error.start})") from None
    return parse_scenario(text, shown)


def parse_scenario(text: str, path: str = "<scenario>") -> Scenario:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        message = str(error)
        found = _TOML_POSITION.search(message)
        line, column = (int(found.group(1)), int(found.group(2))) if found else (0, 0)
        raise _fail(path, f"not valid TOML: {_TOML_POSITION.sub('', message).strip()}", line, column, text) from None
    action = data.pop("action", None)
    if action is not None and not isinstance(action, str):
        raise _fail(path, "'action' must be the name of an action, in quotes", *_line_of(text, "action"), text)
    params = data.pop("params", {})
    if not isinstance(params, dict):
        raise _fail(path, "'params' must be a table: [params]", *_line_of(text, "params"), text)
    choices = data.pop("choices", {})
    if not isinstance(choices, dict):
        raise _fail(path, "'choices' must be a table: [choices]", *_line_of(text, "choices"), text)
    return Scenario(action, data, params, path, text, choices)


def combine(scenarios: list[Scenario]) -> Scenario:
    """A state file and the files that act on it, read as one scenario.

    The first file is the state (a ship sheet, say); the others add the action
    and its inputs. A key given twice is an error at its second place.
    """
    first, *others = scenarios
    inputs, params, choices = dict(first.inputs), dict(first.params), dict(first.choices)
    action = first.action
    elsewhere: dict[str, tuple[str, str]] = {}
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
        return name, tomllib.loads(f"v = {value.strip()}")["v"]
    except tomllib.TOMLDecodeError:
        return name, value.strip()


def _line_of(text: str, key: str) -> tuple[int, int]:
    """The line of a top-level key, written as `key = ...` or as a [key] / [[key]] table."""
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.lstrip().lstrip("[")
        if stripped.startswith(key) and stripped[len(key):].lstrip()[:1] in ("=", "]", "."):
            return number, line.index(key) + 1
    return 0, 0


def dump_state(data: dict[str, Any]) -> str:
    return tomli_w.dumps(data)


def write_atomically(path: str | Path, text: str) -> None:
    """Write through a temporary file and rename it into place, so no file is ever half-written."""
    target = Path(path)
    handle, temp = tempfile.mkstemp(dir=target.parent or Path("."), prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
