"""Where the grammar and the shipped rules files are, installed or in a checkout.

Installed, they are the data packages `fracas.grammars` and `fracas.rules`,
which pyproject.toml maps from the top-level folders grammars/ and rules/, so
code never guesses a path relative to site-packages. An editable install maps
them onto the checkout's folders, beside dsl/.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

# The folder holding dsl/: a checkout's root, or site-packages/fracas once installed from a wheel.
_ROOT = Path(__file__).resolve().parent.parent


def _installed_dir(package: str, suffix: str) -> Path | None:
    """The directory of data package `package` that holds `*suffix` files, or None.

    The package's spec names its real directories: an installed package's
    folder, or an editable install's mapped one. importlib.resources, which
    imports tempfile and random (about 5 ms of every run), is asked only when
    none of them holds such a file (a package inside an archive, say); its
    files() raises NotADirectoryError on Python 3.11 for a namespace package
    of an editable install (setuptools puts a sentinel that is not a path in
    `__path__`), which the spec has answered by then.
    """
    try:
        spec = importlib.util.find_spec(package)
    except ModuleNotFoundError:
        return None
    if spec is None:
        return None
    for location in spec.submodule_search_locations or []:
        folder = Path(location)
        if folder.is_dir() and any(entry.name.endswith(suffix) and entry.is_file() for entry in folder.iterdir()):
            return folder
    from importlib import resources  # slow to import, and only a package not in folders needs it

    try:
        entries = list(resources.files(package).iterdir())
    except (ModuleNotFoundError, NotADirectoryError):
        return None
    for entry in entries:
        if isinstance(entry, Path) and entry.name.endswith(suffix) and entry.is_file():
            return entry.parent
    return None


def _data_dir(package: str, folder: str, suffix: str) -> Path:
    """The installed data package, unless this dsl runs from a checkout.

    A checkout's own folder wins there: an installed copy (say a wheel left in
    the same venv) may be older than the code beside it. An editable install
    maps the data packages onto those same folders, so both agree.
    """
    beside = _ROOT / folder
    if (_ROOT / "pyproject.toml").is_file() and beside.is_dir():
        return beside
    return _installed_dir(package, suffix) or beside


def grammars_dir() -> Path:
    """The folder of the Lark grammars (`*.lark`)."""
    return _data_dir("fracas.grammars", "grammars", ".lark")


def shipped_rules_dir() -> Path:
    """The folder of the shipped rules files (`*.rules`; scenarios in scenarios/)."""
    return _data_dir("fracas.rules", "rules", ".rules")


def grammar_path(name: str = "fracas.lark") -> Path:
    """Where grammar `name` is."""
    return grammars_dir() / name


def grammar_text(name: str = "fracas.lark") -> str:
    """The text of grammar `name`, read as UTF-8."""
    return grammar_path(name).read_text(encoding="utf-8")
