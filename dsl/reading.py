"""Reading an input file within the size limit, checked while reading.

A device or a pipe (/dev/zero, `yes | fracas check /dev/stdin`) has no size
to look at first, so the limit is enforced on the bytes as they come: one
byte past it stops the reading.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from fracas.dsl.limits import Limits


class TooLarge(Exception):
    """The file has more bytes than the limit allows; the message says so and how to raise it."""


def read_bytes(path: Path, limits: Limits) -> bytes:
    """The bytes of path, or TooLarge past limits.file_bytes; OSError as open() raises it."""
    with path.open("rb") as stream:
        data = stream.read(limits.file_bytes + 1)
        if len(data) <= limits.file_bytes:
            return data
        size = os.fstat(stream.fileno())
    how_big = f"{size.st_size} bytes, over" if stat.S_ISREG(size.st_mode) else "over"
    raise TooLarge(f"the file is {how_big} the limit of {limits.file_bytes} bytes ({limits.hint('file_bytes')})")
