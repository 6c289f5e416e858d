"""A checked ruleset is kept between runs, and never trusted past a change to any file it was made of."""

from __future__ import annotations

import pytest

from fracas import dsl
from fracas.dsl.limits import Limits

BASE = "param bonus: int = 1\noutcome x: int = 0\naction go() { x = bonus + 2 }\n"
VARIANT = 'extends "base.rules"\noverride param bonus: int = 5\n'


@pytest.fixture
def checks(monkeypatch):
    """Counts the modules that really go through the checker."""
    calls: list[str] = []
    real = dsl.check

    def counting(module, source, bases=None):
        calls.append(source.path)
        return real(module, source, bases)

    monkeypatch.setattr(dsl, "check", counting)
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
