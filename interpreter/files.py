"""Writing files safely: to a temporary file beside the target, then renamed into place.

An error leaves the old file untouched and no half-written file behind; the
new file gets the permissions an ordinary write would give it.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path


def write_atomically(path: str | Path, write: Callable[[str], None]) -> None:
    """Call write(temporary_path) and move the result onto path."""
    target = Path(path)
    handle, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    os.close(handle)
    try:
        write(temp)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temp, 0o666 & ~umask)
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def write_text_atomically(path: str | Path, text: str) -> None:
    write_atomically(path, lambda temp: Path(temp).write_text(text, encoding="utf-8"))
