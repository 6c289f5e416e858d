"""Generated code kept with the checked rules between runs, as Python keeps .pyc files.

A first call in a fresh process would otherwise write and compile every
routine, function and lone expression it meets again. What the generator made
is pickled with the checked ruleset (dsl/checked.py), in the same pickle, so
that the constants the code binds (positions, nodes, primitives) are the
ruleset's own objects once read back; the code objects go in marshalled,
under the version of Python and of the interpreter's code that made them.
Anything that does not match is ignored and the code made afresh.
"""

from __future__ import annotations

import functools
import marshal
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from fracas.dsl.cache import files_digest, modules_in
from fracas.dsl.checked import held, keep_with, kept_at_end
from fracas.dsl.records import record
from fracas.dsl.ruleset import Ruleset

KEY = "generated code"


@record
class KeptCode:
    """What a generator made, as plain data; only codegen.Generator reads and writes its parts."""

    made_by: bytes  # code_digest() of the process that made it
    code: bytes  # the marshalled list of the code objects, in the order they were run
    parts: dict[str, Any]  # the generator's tables, with functions named instead of held


@functools.cache
def code_digest() -> bytes:
    """Python's version and the code of the interpreter's core and runtime: what generated code depends on
    beyond the ruleset (whose key covers the rules, the limits and the front end).

    The modules are known by their stamps (see `cache.stamp` for why not by their text).
    """
    core = os.path.dirname(os.path.abspath(__file__))
    modules = [*modules_in(core), *modules_in(os.path.join(os.path.dirname(core), "runtime"))]
    return files_digest(modules, sys.version, str(marshal.version))


def kept_for(rules: Ruleset) -> KeptCode | None:
    """What was kept with these rules, if this very interpreter made it."""
    found = rules.kept.get(KEY)
    if not isinstance(found, KeptCode):
        return None
    try:
        return found if found.made_by == code_digest() else None
    except OSError:
        return None


def code_of(found: KeptCode) -> list[Any] | None:
    try:
        code = marshal.loads(found.code)
    except Exception:  # unreadable: made afresh
        return None
    return code if isinstance(code, list) else None


def keep_if_grown(generator: Any) -> None:
    """Keep the generator's code with its rules (and so in the cache) if it made any since it was last kept.

    Called where a resolution ends: what a call made is kept before the next
    process needs it, within the call (and so within the cache folder) that made it. Within `kept_once`,
    when the block ends.
    """
    if held(generator.rules):
        return
    _keep(generator)


@contextmanager
def kept_once(rules: Ruleset) -> Iterator[None]:
    """Code made by many resolutions of these rules in a row (a file's examples, a sweep's cases) kept once, when
    they are done, as what they derive besides (see checked.kept_at_end)."""
    with kept_at_end(rules):
        try:
            yield
        finally:
            generator = rules.runtime_cache.get("generator")
            if generator is not None and held(rules) == 1:
                _keep(generator)  # written to the cache as the block ends


def _keep(generator: Any) -> None:
    if not generator.grown or generator.rules.cache_name is None:
        return
    generator.grown = False
    try:
        digest = code_digest()
    except OSError:
        return
    made = generator.kept(digest)
    if made is not None:
        keep_with(generator.rules, KEY, made)
