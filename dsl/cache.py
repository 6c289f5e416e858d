"""The user's cache folder, where fracas keeps what is slow to make and safe to remake."""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path
from collections.abc import Iterable
from typing import TypeVar

# BLAKE2b from the module hashlib itself takes it from, as the standard library's random.py takes
# SHA-512 from its own: importing hashlib loads OpenSSL, about 2 ms of every process's start. Without
# OpenSSL, BLAKE2b hashes the front end's sources (every run does) three times as fast as SHA-256.
try:
    from _blake2 import blake2b as fingerprint
except ImportError:  # a Python built without it (some FIPS builds): hashlib's, or else SHA-256, which every build has
    try:
        from hashlib import blake2b as fingerprint
    except ImportError:
        from hashlib import sha256 as fingerprint

# The pickler in C, without the module pickle.py wraps it in: that module's pure-Python pickler,
# which fracas never uses, is more than a millisecond of every process's start.
try:
    from _pickle import dumps, loads
except ImportError:  # a Python without the accelerator
    from pickle import dumps, loads

PROTOCOL = 5  # pickle.HIGHEST_PROTOCOL from Python 3.8 on

T = TypeVar("T")

KEEP = 1000  # files of one kind kept; past that the oldest half goes, so scratch files cannot fill the folder


def cache_folder(make: bool = True) -> Path | None:
    """~/.cache/fracas (or under $XDG_CACHE_HOME), made private; None if it cannot be used.

    Never a shared temporary folder: the files hold pickles and code, so the
    folder must belong to the user running fracas and nobody else may write in
    it. make=False: None if it is not there yet, rather than made (a reader has
    nothing to read in a folder just made).
    """
    try:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "fracas"
        if make:
            base.mkdir(mode=0o700, parents=True, exist_ok=True)
        getuid = getattr(os, "getuid", None)  # absent on Windows, where the profile folder is private already
        status = base.stat()
        if getuid is not None and (status.st_uid != getuid() or status.st_mode & (stat.S_IWGRP | stat.S_IWOTH)):
            return None
    except (OSError, RuntimeError):  # RuntimeError: no home folder to be found
        return None
    return base


def load(name: str) -> bytes | None:
    """What `store` kept under this name, if it is there and readable."""
    folder = cache_folder(make=False)
    if folder is None:
        return None
    try:
        return (folder / name).read_bytes()
    except OSError:
        return None


def store(name: str, data: bytes) -> None:
    """Keep data under a name (its kind is the part before the first '-'), whole or not at all."""
    folder = cache_folder()
    if folder is None:
        return
    import tempfile  # only when something is stored: a run that reads the cache never needs it

    kind = name.split("-", 1)[0]
    _prune(folder, kind)
    try:
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{kind}-")
    except OSError:
        return
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(temporary, folder / name)  # whole or not at all, even with two runs at once
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)


def stamp(path: str) -> str:
    """A file as a digest of code knows it: its path, size, times of change and inode.

    Python knows its .pyc files are current by size and time of change: reading
    and hashing the sources instead cost every process's first run more than
    all it reads back. The inode and the time of the last change of status
    tell apart a file copied in place with its old time kept (`cp -p`, `rsync
    -a`), which a time counted in whole seconds could not.
    """
    found = os.stat(path)
    return f"{path}\0{found.st_size}\0{found.st_mtime_ns}\0{found.st_ctime_ns}\0{found.st_ino}"


def files_digest(paths: Iterable[str], *also: str) -> bytes:
    """A digest of these files, by their stamps (in any order given), and of these other texts."""
    return fingerprint("\0".join([*also, *sorted(map(stamp, paths))]).encode()).digest()


def modules_in(folder: str) -> list[str]:
    """The paths of the Python modules in this folder."""
    return [entry.path for entry in os.scandir(folder) if entry.name.endswith(".py")]


def name_for(kind: str, code: bytes, given: str) -> str:
    """The file name of what `given` makes with this code: any change to either is another name."""
    # surrogatepass: a file name or text that is not valid UTF-8 still makes a key.
    digest = fingerprint(code + given.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return f"{kind}-{digest}.pickle"


def load_object(name: str, expected: type[T]) -> T | None:
    """The object `store_object` kept under this name, if it is there, readable and of the type expected."""
    data = load(name)
    if data is None:
        return None
    try:
        found = loads(data)
    except Exception:  # unreadable or from another version: made afresh instead
        return None
    return found if isinstance(found, expected) else None


def store_object(name: str, value: object) -> None:
    try:
        data = dumps(value, protocol=PROTOCOL)
    except Exception:  # too deep to pickle: it is made again next time
        return
    store(name, data)


def _prune(folder: Path, kind: str) -> None:
    try:
        kept = list(folder.glob(f"{kind}-*"))
        if len(kept) < KEEP:
            return
        kept.sort(key=lambda path: path.stat().st_mtime)
        for path in kept[: len(kept) // 2]:
            path.unlink()
    except OSError:  # another run pruning at the same time
        pass
