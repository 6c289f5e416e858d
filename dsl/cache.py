"""The user's cache folder, where fracas keeps what is slow to make and safe to remake."""

from __future__ import annotations

import os
import stat
from pathlib import Path


def cache_folder() -> Path | None:
    """~/.cache/fracas (or under $XDG_CACHE_HOME), made private; None if it cannot be used.

    Never a shared temporary folder: the files hold pickles, so the folder
    must belong to the user running fracas and nobody else may write in it.
    """
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "fracas"
    try:
        base.mkdir(mode=0o700, parents=True, exist_ok=True)
        getuid = getattr(os, "getuid", None)  # absent on Windows, where the profile folder is private already
        if getuid is not None:
            status = base.stat()
            if status.st_uid != getuid() or status.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
                return None
    except OSError:
        return None
    return base
