"""Source text -> AST, with the syntax trees of rules files kept between runs.

Parsing is most of what loading costs, so, as Python keeps .pyc files, the
tree parsed from a rules file is pickled in the user's cache folder, keyed
by the file's text and path, the nesting limit, and the grammar and code
that made it. Any change to one of those parses afresh; a cache that cannot
be read or written is passed over silently.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
from pathlib import Path

from fracas.dsl import cache as kept
from fracas.dsl import nodes as n
from fracas.dsl.limits import DEFAULT, Limits
from fracas.dsl.resources import grammar_path


def parse(text: str, path: str = "<rules>", limits: Limits = DEFAULT, cache: bool = False) -> n.Module:
    """Parse rules text into a Module; raise RulesError with a located message.

    cache=True keeps the tree for the next run: meant for files, not for
    generated texts, which would only fill the folder.
    """
    where = _cache_name(text, path, limits) if cache else None
    if where is not None:
        with _recent_lock:
            module = _recent.get(where)
        module = module or kept.load_object(where, n.Module)
        if module is not None:
            _remember(where, module)
            return module
    from fracas.dsl import syntax  # Lark is imported only when something must be parsed

    module = syntax.parse(text, path, limits)
    if where is not None:
        kept.store_object(where, module)
        _remember(where, module)
    return module


# A long-lived process (a language server checking a variant at each keystroke) keeps the trees
# of the files it read last in memory too, rather than reading them from the cache folder again.
_recent: dict[Path, n.Module] = {}
# The language server reads files in two threads (analysis, and formatting made ready): it keeps
# trees in memory, and then they are read and kept one thread at a time.
_recent_lock: contextlib.AbstractContextManager = contextlib.nullcontext()
_keep_in_memory = 0


def keep_in_memory(count: int) -> None:
    """Keep the trees of the last `count` files parsed with cache=True in memory (0: none)."""
    import threading

    global _keep_in_memory, _recent_lock
    if count and isinstance(_recent_lock, contextlib.nullcontext):
        _recent_lock = threading.Lock()
    with _recent_lock:
        _keep_in_memory = count
        _recent.clear()


def _remember(where: Path, module: n.Module) -> None:
    if not _keep_in_memory:
        return
    with _recent_lock:
        _recent.pop(where, None)
        _recent[where] = module
        while len(_recent) > _keep_in_memory:
            del _recent[next(iter(_recent))]


def parse_expression(text: str, path: str = "<expression>", limits: Limits = DEFAULT) -> n.Expr:
    """Parse one expression (a metric on the command line, say); raise RulesError with a located message."""
    from fracas.dsl import syntax

    return syntax.parse_expression(text, path, limits)


@functools.cache
def code_digest() -> bytes:
    """What the trees depend on besides the text: the grammar, the code that builds nodes, Lark itself."""
    # A pickle names the module of each class: a tree kept under other names (dsl.nodes, before
    # fracas.dsl.nodes) would import a second copy of them, so the names are part of the key.
    here = os.path.dirname(os.path.abspath(__file__))
    # Lark's version is in its __init__.py, found without importing Lark.
    lark = importlib.util.find_spec("lark")
    if lark is None or lark.origin is None:
        raise OSError("Lark is not installed")
    files = [str(grammar_path()), os.path.join(here, "syntax.py"), os.path.join(here, "nodes.py"),
             lark.origin]
    return kept.files_digest(files, n.__name__)


def _cache_name(text: str, path: str, limits: Limits) -> str | None:
    try:
        code = code_digest()
    except OSError:
        return None
    return kept.name_for("tree", code, f"{path}\0{limits.nesting}\0{text}")
