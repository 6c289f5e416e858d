"""Checked rulesets kept between runs, as the parse cache keeps syntax trees.

Checking is most of what loading an unchanged file costs once its tree is
cached, and a tool often loads the same file many times (every `fracas`
command, every test). The whole checked Ruleset is pickled in the user's cache
folder, keyed by the file's text and path, the limits, and the code of the
front end; the texts of the files it extends are kept with it and compared
with the files on every read, so an edited base checks afresh. Rules given as
text (`dsl.loads`) are kept the same way, keyed by the path they are shown as,
but the code generated for them is kept only when the text is a file's.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from fracas.dsl import cache as kept
from fracas.dsl import parse as parsing
from fracas.dsl.diagnostics import RulesError
from fracas.dsl.reading import read_text
from fracas.dsl.limits import Limits
from fracas.dsl.ruleset import Ruleset


def load_checked(text: str, path: str, limits: Limits, check: Callable[[], Ruleset], keep_derived: bool) -> Ruleset:
    """The ruleset `check()` makes of this text, from the cache when nothing it depends on changed.

    keep_derived: whether what a runtime derives from rules checked now (`keep_with`) goes to
    the cache too. Not for a text made by a program (a fuzzer's, a test's) when first given:
    each run that made more code would pickle the rules again, for a text that may never be
    loaded again. Rules read back from the cache were given before, and may well be again (a
    script's rules text, run after run): what runs derive from them is kept, as a file's is.
    """
    name = _cache_name(text, path, limits)
    if name is not None:
        kept_rules = _read(name, path, limits)
        if kept_rules is not None:
            kept_rules.cache_name = name
            return kept_rules
    rules = check()
    if name is not None:
        kept.store_object(name, rules)
        rules.cache_name = name if keep_derived else None
    return rules


def keep_with(rules: Ruleset, key: str, value: object) -> None:
    """Keep value with the rules (in `rules.kept`), and in the cache too if they came from there.

    A runtime keeps here what it derived from the rules and would rather not
    derive again in the next run (its generated code); pickled with them, it
    refers to their very nodes. Within `kept_at_end`, the cache is written when the block ends.
    """
    rules.kept[key] = value
    if rules.cache_name is None:
        return
    if held(rules):
        rules.runtime_cache[_PENDING] = True
        return
    kept.store_object(rules.cache_name, rules)


_HELD, _PENDING = "keeping held", "keeping pending"  # keys of rules.runtime_cache


def held(rules: Ruleset) -> int:
    """How many `kept_at_end` blocks the rules are in."""
    return rules.runtime_cache.get(_HELD, 0)  # type: ignore[no-any-return]


@contextmanager
def kept_at_end(rules: Ruleset) -> Iterator[None]:
    """What runs derive from the rules within the block (a file's examples, a sweep's cases) written to the cache
    once, when the block ends: written after each run, the whole ruleset was pickled again each time (a third of
    a file's first `fracas test`, after every edit)."""
    cache = rules.runtime_cache
    cache[_HELD] = held(rules) + 1
    try:
        yield
    finally:
        cache[_HELD] -= 1
        if not cache[_HELD] and cache.pop(_PENDING, False) and rules.cache_name is not None:
            kept.store_object(rules.cache_name, rules)


def _front_end_digest() -> bytes:
    # Every module of the front end shapes a checked ruleset, not only the parser's.
    return parsing.code_digest() + _modules_digest()


@functools.cache
def _modules_digest() -> bytes:
    return kept.files_digest(kept.modules_in(os.path.dirname(os.path.abspath(__file__))))


def _cache_name(text: str, path: str, limits: Limits) -> str | None:
    try:
        code = _front_end_digest()
    except OSError:
        return None
    return kept.name_for("checked", code, f"{path}\0{limits!r}\0{text}")


def _read(name: str, path: str, limits: Limits) -> Ruleset | None:
    rules = kept.load_object(name, Ruleset)
    return rules if rules is not None and _bases_unchanged(rules, path, limits) else None


def _bases_unchanged(rules: Ruleset, path: str, limits: Limits) -> bool:
    # A base is found from the extending file's place, so its shown path reads it again from here.
    for shown, source in rules.sources.items():
        if shown == path:
            continue
        try:
            if read_text(Path(shown), shown, limits=limits) != source.text:
                return False
        except RulesError:
            return False
    return True
