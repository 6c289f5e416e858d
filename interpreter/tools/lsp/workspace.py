"""Rules files on disk built on others: what a rename reads besides the files the editor has open.

A name that other rules files may read (a step, a fn, a kind) is renamed in
every file that reads it. The open ones are analysed already; the others are
found in the workspace's folders and in those of the files in question, by
their `extends` lines, at any depth.
"""

from __future__ import annotations

import os
import re
from collections import deque
from collections.abc import Callable, Iterable
from pathlib import Path

_EXTENDS = re.compile(r'^[ \t]*extends[ \t]+"([^"\n]*)"', re.M)
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
