"""A pytest plugin: the `example` blocks of `*.rules` files are test items.

Registered through the `pytest11` entry point, so a modder runs `pytest my_mod/`
and sees each example pass or fail with its location; a file that does not
load is one failing item showing its diagnostics.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fracas import dsl
from fracas.dsl import nodes as n
from fracas.dsl.diagnostics import RulesError, printable
from fracas.interpreter.api import kept_once
from fracas.interpreter.tools.examples import run_example


def pytest_collect_file(parent: pytest.Collector, file_path: Path) -> pytest.File | None:
    if file_path.suffix == ".rules":
        return RulesFile.from_parent(parent, path=file_path)
    return None


class RulesFile(pytest.File):
    rules: dsl.Ruleset | None = None
    _kept: Any = None

    def collect(self) -> Iterator[pytest.Item]:
        try:
            rules = dsl.load(self.path)
        except RulesError as error:
            yield BrokenRules.from_parent(self, name="check", error=error)
            return
        self.rules = rules
        for example in rules.examples:
            yield ExampleItem.from_parent(self, name=item_name(example), rules=rules, example=example)

    # What the file's examples derive is written to the cache once, after the last (as `fracas test` does).
    def setup(self) -> None:
        if self.rules is not None:
            self._kept = kept_once(self.rules)
            self._kept.__enter__()

    def teardown(self) -> None:
        kept, self._kept = self._kept, None
        if kept is not None:
            kept.__exit__(None, None, None)


def item_name(example: n.ExampleDecl) -> str:
    """An example's title as its item's name: `::` parts pytest's node IDs, so it is written `:` there, and the
    item can be picked on pytest's command line (its failure shows the title as written)."""
    return re.sub(":{2,}", ":", example.name)


class ExampleFailed(Exception):
    pass


class ExampleItem(pytest.Item):
    def __init__(self, *, rules: dsl.Ruleset, example: n.ExampleDecl, **kwargs: Any):
        super().__init__(**kwargs)
        self.rules = rules
        self.example = example
        # An example takes no fixtures. Other plugins' hooks read funcargs from every item, and
        # pytest-lsp's (1.0) stops the run of an item that has none, so it has an empty one.
        self.funcargs: dict[str, Any] = {}

    def runtest(self) -> None:
        result = run_example(self.rules, self.example)
        if not result.passed:
            raise ExampleFailed(result.message)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, ExampleFailed):
            why = textwrap.indent(str(excinfo.value), "  ")
            return printable(f"{self.path}:{self.example.pos.line}: example {self.example.name!r} failed\n{why}")
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.example.pos.line - 1, f"example {self.example.name}"


class BrokenRules(pytest.Item):
    def __init__(self, *, error: RulesError, **kwargs: Any):
        super().__init__(**kwargs)
        self.error = error

    def runtest(self) -> None:
        raise self.error

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        return self.error.format()

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, "rules file"
