"""The syntax tree of a rules file is kept between runs, and never trusted past a change."""

from __future__ import annotations

import pytest

from fracas import dsl
from fracas.dsl import cache as cache_folder_files
from fracas.dsl import checked
from fracas.dsl import parse as cached_parse
from fracas.dsl import syntax
from fracas.dsl.limits import Limits
from fracas.dsl.ruleset import Ruleset

RULES = "outcome x: int = 0\naction go() { x = 1 + 2 }\n"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(folder))
    # Checked rulesets are kept too (tests/test_checked_cache.py); these tests are about the trees under them.
    monkeypatch.setattr(checked, "_read", lambda name, path, limits: None)
    return folder / "fracas"


@pytest.fixture
def parses(monkeypatch):
    """Counts the texts that really go through the parser."""
    calls: list[str] = []
    real = syntax.parse

    def counting(text, path, limits):
        calls.append(path)
        return real(text, path, limits)

    monkeypatch.setattr(syntax, "parse", counting)
    return calls


def decls(rules: Ruleset) -> list[str]:
    return [*rules.outcomes, *rules.actions]


def test_a_file_loaded_again_is_read_from_the_cache(tmp_path, cache, parses):
    path = tmp_path / "game.rules"
    path.write_text(RULES)
    first = dsl.load(path)
    second = dsl.load(path)
    assert parses == [str(path)]
    assert decls(second) == decls(first) == ["x", "go"]
    assert len(list(cache.glob("tree-*.pickle"))) == 1


def test_an_edited_file_is_parsed_again(tmp_path, cache, parses):
    path = tmp_path / "game.rules"
    path.write_text(RULES)
    dsl.load(path)
    path.write_text(RULES.replace("1 + 2", "1 + 3"))
    dsl.load(path)
    assert parses == [str(path), str(path)]


def test_a_damaged_cache_file_is_passed_over(tmp_path, cache, parses):
    path = tmp_path / "game.rules"
    path.write_text(RULES)
    dsl.load(path)
    for tree in cache.glob("tree-*.pickle"):
        tree.write_bytes(b"not a pickle")
    assert decls(dsl.load(path)) == ["x", "go"]
    assert len(parses) == 2


def test_a_text_that_is_no_file_leaves_nothing_in_the_cache(cache, parses):
    dsl.loads(RULES, "scratch.rules")
    dsl.loads(RULES, "scratch.rules")
    assert len(parses) == 2 and not list(cache.glob("tree-*.pickle"))


def test_a_lower_nesting_limit_is_not_served_a_tree_parsed_under_a_higher_one(tmp_path, cache):
    path = tmp_path / "deep.rules"
    path.write_text("outcome x: int = 0\naction go() { x = " + " + ".join(["1"] * 200) + " }\n")
    dsl.load(path, Limits(nesting=300))
    with pytest.raises(dsl.RulesError, match="nest more than 150 deep"):
        dsl.load(path)


def test_a_tree_that_cannot_be_kept_still_loads(tmp_path, cache, monkeypatch):
    def too_deep(*args, **kwargs):
        raise RecursionError("maximum recursion depth exceeded while pickling an object")

    monkeypatch.setattr(cache_folder_files, "dumps", too_deep)
    path = tmp_path / "game.rules"
    path.write_text(RULES)
    for _ in range(2):
        assert decls(dsl.load(path)) == ["x", "go"]
    assert not list(cache.glob("*tree-*"))


def test_the_oldest_trees_go_when_the_cache_is_full(tmp_path, cache, monkeypatch):
    monkeypatch.setattr(cache_folder_files, "KEEP", 4)
    for i in range(6):
        path = tmp_path / f"game{i}.rules"
        path.write_text(RULES)
        dsl.load(path)
    assert 2 <= len(list(cache.glob("tree-*.pickle"))) <= 4


def test_a_cache_folder_others_may_write_in_is_not_used(tmp_path, cache, parses):
    cache.mkdir(parents=True)
    cache.chmod(0o777)  # anyone could plant a pickle here
    path = tmp_path / "game.rules"
    path.write_text(RULES)
    dsl.load(path)
    dsl.load(path)
    assert len(parses) == 2 and not list(cache.glob("tree-*.pickle"))


def test_a_file_name_that_is_not_utf8_is_cached_like_any_other(tmp_path, cache, parses):
    path = tmp_path / b"bad\xff.rules".decode("utf-8", "surrogateescape")
    path.write_text(RULES)
    for _ in range(2):
        assert decls(dsl.load(path)) == ["x", "go"]
    assert len(parses) == 1


def test_another_version_of_lark_parses_afresh(tmp_path, cache, parses, monkeypatch):
    path = tmp_path / "game.rules"
    path.write_text(RULES)
    dsl.load(path)
    other_lark = tmp_path / "lark" / "__init__.py"
    other_lark.parent.mkdir()
    other_lark.write_text('__version__ = "0.0.1"\n')
    monkeypatch.setattr(cached_parse.importlib.util, "find_spec",
                        lambda name: type("Spec", (), {"origin": str(other_lark)})())
    monkeypatch.setattr(cached_parse, "code_digest", cached_parse.code_digest.__wrapped__)
    dsl.load(path)
    assert len(parses) == 2


def test_a_tree_kept_under_other_module_names_is_parsed_afresh(tmp_path, cache, parses, monkeypatch):
    """A pickle names its classes' module: one kept before the packages moved under
    fracas. (dsl.nodes) would load a second copy of them, so it is never served."""
    path = tmp_path / "game.rules"
    path.write_text(RULES)
    dsl.load(path)
    monkeypatch.setattr(cached_parse.n, "__name__", "dsl.nodes")
    monkeypatch.setattr(cached_parse, "code_digest", cached_parse.code_digest.__wrapped__)
    dsl.load(path)
    assert len(parses) == 2
