"""Rules files on disk built on others: what a rename reads besides the files the editor has open.

A name that other rules files may read (a step, a fn, a kind) is renamed in
every file that reads it. The open ones are analysed already; the others are
found in the workspace's folders and in those of the files in question, by
their `extends` lines, at any depth.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path

_EXTENDS = re.compile(r'^[ \t]*extends[ \t]+"([^"\n]*)"', re.M)
_SKIPPED = {"node_modules", "__pycache__", "venv", "site-packages"}  # and every hidden folder
MOST_FILES = 2000  # rules files looked at, at most: a workspace of a whole disk is not read


def rules_files(folders: Iterable[Path]) -> list[Path]:
    """The .rules files under the folders (resolved, each once), at most MOST_FILES."""
    found: dict[Path, None] = {}
    for folder in folders:
        for root, subfolders, files in os.walk(folder):
            subfolders[:] = [name for name in subfolders if not name.startswith(".") and name not in _SKIPPED]
            for name in files:
                if name.endswith(".rules"):
                    found[(Path(root) / name).resolve()] = None
                    if len(found) >= MOST_FILES:
                        return list(found)
    return list(found)


def built_on(bases: Iterable[Path], candidates: Iterable[Path], read: Callable[[Path], str | None]) -> list[Path]:
    """The candidates that extend one of the bases, or a candidate that does, at any depth."""
    extended: dict[Path, set[Path]] = {}
    for path in candidates:
        text = read(path)
        if text is not None:
            extended[path] = {(path.parent / written).resolve() for written in _EXTENDS.findall(text)}
    known, found = set(bases), []
    growing = True
    while growing:
        growing = False
        for path, parents in extended.items():
            if path not in known and parents & known:
                known.add(path)
                found.append(path)
                growing = True
    return found


def read_text(path: Path) -> str | None:
    """A file's text as fracas reads it, or None where it cannot be read."""
    try:
        return path.read_text(encoding="utf-8").replace("\r\n", "\n").replace("\r", "\n")
    except (OSError, UnicodeDecodeError):
        return None
