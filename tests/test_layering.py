"""The layout shows the architecture, and the imports keep to it.

Everything installs under `fracas`: dsl/ is fracas.dsl (the front end),
interpreter/ fracas.interpreter. Inside it, from the bottom up:

    dsl/records.py the records every layer's classes are made as, and dsl/cache.py the user's
                   cache folder: beneath every layer, importing nothing of fracas but each other
    runtime/       bodies, pools, chance, dice, weights: stands alone (but for the records)
    core/          the program's tables, code generation, engines, states, values, constraints
    api.py         the application layer, with inputs.py, plain.py and toml_places.py:
                   structures scenarios, resolves them, writes states back
    tools/         the CLI, reports, plots, sweeps, scenario files, examples, the pytest
                   plugin, the formatter, the language server: through api.py alone

Every import counts, one inside a function too (it would only hide a circle).
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = {"dsl": "fracas.dsl", "interpreter": "fracas.interpreter"}
APPLICATION = {f"fracas.interpreter.{name}" for name in ("api", "inputs", "plain", "toml_places")}
PACKAGE_ROOT = "fracas.interpreter"  # the public face: the API's names and the scenario file readers
FOUNDATION = {"fracas.dsl.records", "fracas.dsl.cache"}  # beneath every layer


def module_name(path: Path) -> str:
    """fracas.interpreter.tools.cli for interpreter/tools/cli.py; a package by its folder."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([FOLDERS[parts[0]], *parts[1:]])


def our_modules() -> dict[str, Path]:
    found = {}
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "__pycache__" not in path.parts:
                found[module_name(path)] = path
    return found


MODULES = our_modules()


def imported(tree: ast.AST, known: set[str] | dict[str, Path]) -> Iterator[tuple[str, int]]:
    """Every module an import names, with its line: `from a import b` is a.b when a.b is a module."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom) and node.module is not None and node.level == 0:
            for alias in node.names:
                inner = f"{node.module}.{alias.name}"
                yield (inner if inner in known else node.module), node.lineno


def imports_of(name: str) -> list[tuple[str, int]]:
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    return list(imported(tree, MODULES))


def layer_of(name: str) -> str:
    if name in FOUNDATION:
        return "foundation"
    if name == "fracas.dsl" or name.startswith("fracas.dsl."):
        return "dsl"
    if name == PACKAGE_ROOT:
        return "package"
    if name in APPLICATION:
        return "application"
    for layer in ("runtime", "core", "tools"):
        prefix = f"fracas.interpreter.{layer}"
        if name == prefix or name.startswith(prefix + "."):
            return layer
    return "unplaced"


# What each layer may import of fracas (besides itself).
ALLOWED = {
    "foundation": {"foundation"},
    "dsl": {"foundation", "dsl"},
    "runtime": {"foundation", "runtime"},
    "core": {"foundation", "dsl", "runtime", "core"},
    "application": {"foundation", "dsl", "runtime", "core", "application"},
    "tools": {"foundation", "dsl", "tools"},  # and fracas.interpreter.api, below
    "package": {"application", "tools"},
}


def breaches() -> list[str]:
    found = []
    for name in MODULES:
        layer = layer_of(name)
        for target, line in imports_of(name):
            if not target.startswith("fracas."):
                continue
            allowed = layer_of(target) in ALLOWED.get(layer, set()) or (layer == "tools" and target == "fracas.interpreter.api")
            if not allowed:
                found.append(f"{MODULES[name].relative_to(ROOT)}:{line}: {layer} imports {target}")
    return found


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module, or of one importing itself (Tarjan's)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1 or node in graph.get(node, ()):
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def import_graph() -> dict[str, set[str]]:
    return {name: {target for target, _ in imports_of(name) if target in MODULES and target != name}
            for name in MODULES}


def test_every_module_has_a_place_in_the_layers() -> None:
    unplaced = [name for name in MODULES if layer_of(name) == "unplaced"]
    assert not unplaced, f"put these in interpreter/core, tools or runtime, or name them part of the API: {unplaced}"


def test_each_layer_imports_only_the_layers_below_it() -> None:
    """dsl knows nothing of the interpreter; the runtime stands alone; the core knows
    neither the API nor the tools; the tools reach the engine through api.py alone."""
    found = breaches()
    assert not found, "imports across the layers:\n" + "\n".join(found)


def test_no_module_imports_itself_through_a_circle() -> None:
    found = circles(import_graph())
    assert not found, f"import circles: {found}"


def test_what_runs_checked_rules_never_calls_back_into_the_checker() -> None:
    """The core and the API read the checked tree (fracas.dsl.reads, statements, walk, types); only tools
    that check what a user writes (a sweep's metric, the language server) run the checker."""
    found = [f"{MODULES[name].relative_to(ROOT)}:{line}" for name in MODULES
             if layer_of(name) in ("runtime", "core", "application")
             for target, line in imports_of(name) if target == "fracas.dsl.check"]
    assert not found, f"the runtime imports the checker: {found}"


def test_nothing_imports_the_old_top_level_names() -> None:
    """`import dsl` would load a second copy of every class from the checkout's folder."""
    found = []
    for folder in ("dsl", "interpreter", "tests"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for target, line in imported(tree, set()):
                if target.split(".")[0] in FOLDERS:
                    found.append(f"{path.relative_to(ROOT)}:{line}: {target}")
    assert not found, "old import names (fracas.dsl, fracas.interpreter now):\n" + "\n".join(found)


def test_every_package_of_the_checkout_is_installed() -> None:
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"])
    packages = {module_name(path.parent / "__init__.py") for path in (ROOT / "dsl").rglob("__init__.py")}
    packages |= {module_name(path.parent / "__init__.py") for path in (ROOT / "interpreter").rglob("__init__.py")}
    for folder, package in (("grammars", "fracas.grammars"), ("rules", "fracas.rules")):
        packages |= {".".join([package, *d.relative_to(ROOT / folder).parts]).rstrip(".")
                     for d in [ROOT / folder, *(ROOT / folder).rglob("*")]
                     if d.is_dir() and "__pycache__" not in d.parts and any(f.is_file() for f in d.iterdir())}
    assert packages <= listed, f"pyproject.toml leaves out {sorted(packages - listed)}"


# ---- the checks themselves find what they look for


def test_the_circle_finder_finds_a_circle_and_passes_a_tree() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []


@pytest.mark.parametrize(("source", "expected"), [
    ("def f():\n    from fracas.interpreter.core import rt\n", "fracas.interpreter.core.rt"),
    ("from fracas.interpreter.api import Scenario\n", "fracas.interpreter.api"),
    ("import fracas.interpreter.runtime.keys as k\n", "fracas.interpreter.runtime.keys"),
])
def test_an_import_is_found_wherever_it_is_written(source: str, expected: str) -> None:
    assert [target for target, _ in imported(ast.parse(source), MODULES)] == [expected]


def test_a_tool_reaching_into_the_core_breaks_the_layers() -> None:
    tool, core = layer_of("fracas.interpreter.tools.cli"), layer_of("fracas.interpreter.core.program")
    assert (tool, core) == ("tools", "core") and core not in ALLOWED[tool]
