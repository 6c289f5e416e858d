"""A checked ruleset is kept between runs, and never trusted past a change to any file it was made of."""

from __future__ import annotations

import pytest

from fracas import dsl
from fracas.dsl import check as checker
from fracas.dsl.limits import Limits

BASE = "param bonus: int = 1\noutcome x: int = 0\naction go() { x = bonus + 2 }\n"
VARIANT = 'extends "base.rules"\noverride param bonus: int = 5\n'


@pytest.fixture
def checks(monkeypatch):
    """Counts the modules that really go through the checker."""
    calls: list[str] = []
    real = checker.check

    def counting(module, source, bases=None):
        calls.append(source.path)
        return real(module, source, bases)

    monkeypatch.setattr(checker, "check", counting)
    return calls


def bonus(rules: dsl.Ruleset) -> str:
    return rules.text_of(rules.params["bonus"].value)


def test_an_unchanged_file_is_not_checked_again(tmp_path, cache_folder, checks):
    path = tmp_path / "base.rules"
    path.write_text(BASE)
    first = dsl.load(path)
    second = dsl.load(path)
    assert checks == [str(path)]
    assert bonus(second) == bonus(first) == "1"
    assert len(list(cache_folder.glob("checked-*.pickle"))) == 1


def test_an_edited_file_is_checked_again(tmp_path, cache_folder, checks):
    path = tmp_path / "base.rules"
    path.write_text(BASE)
    dsl.load(path)
    path.write_text(BASE.replace("= 1", "= 2"))
    assert bonus(dsl.load(path)) == "2"
    assert len(checks) == 2


def test_an_edited_base_checks_the_variant_again(tmp_path, cache_folder, checks):
    (tmp_path / "base.rules").write_text(BASE)
    variant = tmp_path / "variant.rules"
    variant.write_text(VARIANT)
    assert dsl.load(variant).params["bonus"].decl.override
    (tmp_path / "base.rules").write_text(BASE.replace("bonus + 2", "bonus + 3"))
    rules = dsl.load(variant)
    assert len(checks) == 2
    assert "bonus + 3" in rules.sources[str(tmp_path / "base.rules")].text


def test_a_base_that_is_gone_is_reported_not_served_from_the_cache(tmp_path, cache_folder, checks):
    (tmp_path / "base.rules").write_text(BASE)
    variant = tmp_path / "variant.rules"
    variant.write_text(VARIANT)
    dsl.load(variant)
    (tmp_path / "base.rules").unlink()
    with pytest.raises(dsl.RulesError, match="no such file"):
        dsl.load(variant)


def test_other_limits_check_again(tmp_path, cache_folder, checks):
    path = tmp_path / "base.rules"
    path.write_text(BASE)
    dsl.load(path)
    rules = dsl.load(path, Limits(states=1000))
    assert rules.limits.states == 1000
    assert len(checks) == 2


def test_warnings_are_kept_with_the_ruleset(tmp_path, cache_folder, checks):
    path = tmp_path / "empty.rules"
    path.write_text("# nothing yet\n")
    dsl.load(path)
    kept = dsl.load(path)
    assert len(checks) == 1
    assert [w.message for w in kept.warnings] == ["this rules file declares nothing"]


def test_an_unusable_cache_folder_still_loads(tmp_path, monkeypatch, checks):
    blocked = tmp_path / "blocked"
    blocked.write_text("a file, not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    path = tmp_path / "base.rules"
    path.write_text(BASE)
    assert bonus(dsl.load(path)) == "1"
    assert bonus(dsl.load(path)) == "1"
    assert len(checks) == 2


def test_the_same_text_given_again_is_not_checked_again(cache_folder, checks):
    first = dsl.loads(BASE)
    second = dsl.loads(BASE)
    assert checks == ["<rules>"]
    assert bonus(second) == bonus(first) == "1"
    assert len(list(cache_folder.glob("checked-*.pickle"))) == 1


def test_another_text_is_checked_afresh(cache_folder, checks):
    dsl.loads(BASE)
    assert bonus(dsl.loads(BASE.replace("= 1", "= 2"))) == "2"
    assert len(checks) == 2


def test_a_text_with_an_error_is_reported_again_not_kept(cache_folder, checks):
    wrong = BASE.replace("bonus + 2", "bonus + true")
    for _ in range(2):
        with pytest.raises(dsl.RulesError, match="bool"):
            dsl.loads(wrong)
    assert len(checks) == 2
    assert not list(cache_folder.glob("checked-*"))


def test_a_text_that_does_not_parse_is_reported_again(cache_folder):
    for _ in range(2):
        with pytest.raises(dsl.RulesError):
            dsl.loads("param bonus: int =\n")
    assert not list(cache_folder.glob("checked-*"))


def test_a_text_and_the_file_that_holds_it_are_checked_once(tmp_path, cache_folder, checks):
    path = tmp_path / "base.rules"
    path.write_text(BASE)
    dsl.loads(BASE, str(path))
    assert bonus(dsl.load(path)) == "1"
    assert checks == [str(path)]


def test_a_text_whose_base_is_edited_is_checked_again(tmp_path, cache_folder, checks):
    (tmp_path / "base.rules").write_text(BASE)
    shown = str(tmp_path / "variant.rules")
    assert bonus(dsl.loads(VARIANT, shown)) == "5"
    (tmp_path / "base.rules").write_text(BASE.replace("bonus + 2", "bonus + 3"))
    rules = dsl.loads(VARIANT, shown)
    assert len(checks) == 2
    assert "bonus + 3" in rules.sources[str(tmp_path / "base.rules")].text


def test_a_text_with_an_editors_unsaved_bases_is_checked_every_time(tmp_path, cache_folder, checks):
    (tmp_path / "base.rules").write_text(BASE)
    shown = str(tmp_path / "variant.rules")
    for _ in range(2):
        assert bonus(dsl.loads(VARIANT, shown, open_texts=lambda path: None)) == "5"
    assert len(checks) == 2
    assert not list(cache_folder.glob("checked-*"))
