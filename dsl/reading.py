"""Reading an input file within the size limit, checked while reading.

A device or a pipe (/dev/zero, `yes | fracas check /dev/stdin`) has no size
to look at first, so the limit is enforced on the bytes as they come: one
byte past it stops the reading. A rules file is read as text here too, so that
loading rules from the cache, which reads every file again, imports nothing
of the front end that parses them.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path
from typing import BinaryIO

from fracas.dsl.diagnostics import Diagnostic, RulesError
from fracas.dsl.limits import DEFAULT, Limits


class TooLarge(Exception):
    """The file has more bytes than the limit allows; the message says so and how to raise it."""


def read_bytes(path: Path | BinaryIO, limits: Limits) -> bytes:
    """The bytes of path (or of a stream already open: standard input), or TooLarge past limits.file_bytes;
    OSError as open() raises it."""
    with path.open("rb") if isinstance(path, Path) else contextlib.nullcontext(path) as stream:
        data = stream.read(limits.file_bytes + 1)
        if len(data) <= limits.file_bytes:
            return data
        size = os.fstat(stream.fileno())
    how_big = f"{size.st_size} bytes, over" if stat.S_ISREG(size.st_mode) else "over"
    raise TooLarge(f"the file is {how_big} the limit of {limits.file_bytes} bytes ({limits.hint('file_bytes')})")


def read_text(path: Path | BinaryIO, shown: str, at: Diagnostic | None = None, limits: Limits = DEFAULT) -> str:
    """A rules file's text, its newlines as Python reads them; any failure a RulesError, located at `at` if given."""
    def fail(message: str) -> RulesError:
        if at is not None:
            return RulesError([Diagnostic(at.path, at.line, at.column, f"{message}: {shown}", at.hint,
                                          at.source_line, at.width)])
        return RulesError([Diagnostic(shown, 0, 0, message)])

    try:
        text = read_bytes(path, limits).decode("utf-8-sig")  # an editor's byte-order mark is not text
        return text.replace("\r\n", "\n").replace("\r", "\n")  # newlines as Python's text files read them
    except TooLarge as error:
        raise fail(str(error)) from None
    except FileNotFoundError:
        raise fail("no such file") from None
    except IsADirectoryError:
        raise fail("this is a folder, not a rules file") from None
    except UnicodeDecodeError as error:
        raise fail(f"not UTF-8 text ({error.reason} at byte {error.start})") from None
    except OSError as error:
        raise fail(f"cannot read ({error.strerror})") from None
