"""Writing files safely: to a temporary file beside the target, then renamed into place.

An error leaves the old file untouched and no half-written file behind. Only
a regular file (or a new name) is ever replaced: renaming over /dev/null or a
named pipe would swap the device for a file. A replaced file keeps its
permissions (and, where the system allows, its owner); a new one gets those
an ordinary write would give it. A symbolic link stays a link: the file it
names is what gets replaced.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable
from pathlib import Path

_NOT_REGULAR = [(stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"),
                (stat.S_ISFIFO, "a named pipe"), (stat.S_ISSOCK, "a socket")]


def not_a_regular_file(path: str | Path) -> str | None:
    """What path names if it exists and is not a regular file ("a device", "a named pipe"...); else None."""
    try:
        mode = os.stat(path).st_mode  # through a symbolic link: the file it names is what would be replaced
    except OSError:  # nothing there yet (or unreachable: the write itself will say why)
        return None
    if stat.S_ISREG(mode):
        return None
    return next((what for test, what in _NOT_REGULAR if test(mode)), "not a regular file")


def write_atomically(path: str | Path, write: Callable[[str], None]) -> None:
    """Call write(temporary_path) and move the result onto path."""
    target = Path(os.path.realpath(path))
    refused = not_a_regular_file(target)
    if refused is not None:
        raise OSError(f"{path} is {refused}, not a regular file")
    try:
        old: os.stat_result | None = os.stat(target)
    except OSError:
        old = None
    import tempfile  # slow to import: only when a file is written

    handle, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    os.close(handle)
    try:
        write(temp)
        if old is None:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temp, 0o666 & ~umask)
        else:
            os.chmod(temp, stat.S_IMODE(old.st_mode) & 0o777)
            if hasattr(os, "chown") and (old.st_uid, old.st_gid) != (os.geteuid(), os.getegid()):
                with contextlib.suppress(OSError):  # only root may give a file away; others keep their own
                    os.chown(temp, old.st_uid, old.st_gid)
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def write_text_atomically(path: str | Path, text: str) -> None:
    write_atomically(path, lambda temp: Path(temp).write_text(text, encoding="utf-8"))
