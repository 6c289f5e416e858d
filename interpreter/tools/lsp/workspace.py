"""Rules files on disk: those built on others, which a rename reads besides the files the editor has open, and
every one in the workspace, for its symbols.

A name that other rules files may read (a step, a fn, a kind) is renamed in
every file that reads it. The open ones are analysed already; the others are
found beside and above the files in question, by their `extends`, at any depth.
"""

from __future__ import annotations

import os
import re
from collections import deque
from collections.abc import Callable, Iterable
from pathlib import Path

from fracas.dsl import reading
from fracas.dsl.diagnostics import RulesError
from fracas.dsl.ruleset import comment_start

_EXTENDS = re.compile(r'(?<![A-Za-z0-9_])extends\s+"([^"\n]*)"')
_SKIPPED = {"node_modules", "__pycache__", "venv", "site-packages"}  # and every hidden folder
# At most, of a workspace that is a whole home folder: the folders looked in, and the rules files found.
MOST_FOLDERS = 5000
MOST_FILES = 2000


def rules_files(folders: Iterable[Path]) -> list[Path]:
    """The .rules files under the folders (resolved, each once), the nearest first: looking in at most MOST_FOLDERS
    folders, level by level, and finding at most MOST_FILES."""
    found: dict[Path, None] = {}
    waiting = deque(folders)
    seen: set[Path] = set()
    while waiting and len(seen) < MOST_FOLDERS:
        folder = waiting.popleft()
        if folder in seen:
            continue
        seen.add(folder)
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    if not entry.name.startswith(".") and entry.name not in _SKIPPED:
                        waiting.append(Path(entry.path))
                elif entry.name.endswith(".rules") and entry.is_file():
                    found[Path(entry.path).resolve()] = None
                    if len(found) >= MOST_FILES:
                        return list(found)
            except OSError:
                continue
    return list(found)


def built_on(bases: Iterable[Path], read: Callable[[Path], str | None]) -> dict[Path, set[Path]]:
    """The rules files on disk built on the bases, at any depth of `extends`, each with the bases it is built on.

    A file extends only files in its own folder or below it, so what is built on a file is in its folder or in
    one above it: those are read, for each base and each file found, and nothing else.
    """
    known: dict[Path, set[Path]] = {base: set() for base in bases}
    found: dict[Path, set[Path]] = {}
    looked: set[Path] = set()
    extended: dict[Path, set[Path]] = {}
    growing = True
    while growing:
        growing = False
        for folder in {folder for path in known for folder in path.parents} - looked:
            looked.add(folder)
            for path in _rules_in(folder):
                if path not in known and path not in extended:
                    text = read(path)
                    extended[path] = set() if text is None else {
                        (path.parent / written).resolve() for written in extended_paths(text)}
        for path, parents in extended.items():
            if path not in known and parents & known.keys():
                below = {base for parent in parents & known.keys() for base in (parent, *known[parent])}
                known[path] = found[path] = below
                growing = True
    return found


def extended_paths(text: str) -> list[str]:
    """The paths a rules text's `extends` name, wherever they are written (not in a comment)."""
    code = "\n".join(line[: comment_start(line)] for line in text.split("\n"))
    return _EXTENDS.findall(code)


def _rules_in(folder: Path) -> list[Path]:
    try:
        return sorted(Path(entry.path).resolve() for entry in os.scandir(folder)
                      if entry.name.endswith(".rules") and entry.is_file())
    except OSError:
        return []


def read_text(path: Path) -> str | None:
    """A rules file's text as fracas reads it (within the size limit, a byte-order mark dropped, its newlines as
    Python reads them), or None where it cannot be read."""
    try:
        return reading.read_text(path, str(path))
    except RulesError:
        return None
