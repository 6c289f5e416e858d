"""What the constraints read is worked out once and kept with the checked rules, never trusted past a change."""

from __future__ import annotations

import textwrap

import pytest

from fracas import dsl
from fracas.interpreter import Scenario, ScenarioError, exact
from fracas.interpreter.core import constraint_reads, kept_code

RULES = textwrap.dedent("""\
    kind Fighter {
        skill: int
        wounds: int = 3
        require wounds >= 0 "wounds never run below 0"
    }
    outcome hits: int = 0
    action strike(attacker: Fighter) {
        if 1d6 + attacker.skill >= 7 {
            hits += 1
            attacker.wounds -= 1
        }
    }
    action overdo(attacker: Fighter) { attacker.wounds -= 4 }
    """)


@pytest.fixture
def worked_out(monkeypatch):
    """Each time what the constraints read is worked out from the rules."""
    calls: list[str] = []
    real = constraint_reads._worked_out
    monkeypatch.setattr(constraint_reads, "_worked_out",
                        lambda rules, digest: calls.append(rules.path) or real(rules, digest))
    return calls


def odds(rules: dsl.Ruleset) -> dict:
    return exact(rules, Scenario("strike", {"attacker": {"skill": 3}}), outcomes_only=True).marginal("hits")


def test_the_next_run_reads_back_what_the_constraints_read(tmp_path, cache_folder, worked_out):
    path = tmp_path / "fighters.rules"
    path.write_text(RULES)
    first = odds(dsl.load(path))
    assert len(worked_out) == 1
    assert odds(dsl.load(path)) == first  # a fresh ruleset read back from the cache, as a new process reads it
    assert len(worked_out) == 1


def test_what_another_version_of_fracas_worked_out_is_worked_out_afresh(tmp_path, cache_folder, worked_out,
                                                                          monkeypatch):
    path = tmp_path / "fighters.rules"
    path.write_text(RULES)
    odds(dsl.load(path))
    monkeypatch.setattr(kept_code, "code_digest", lambda: b"another interpreter")
    odds(dsl.load(path))
    assert len(worked_out) == 2


def test_rules_text_given_once_keeps_nothing_of_what_its_constraints_read(cache_folder):
    rules = dsl.loads(RULES, "fighters.rules")
    odds(rules)
    assert constraint_reads.KEY not in rules.kept


def test_constraints_read_back_still_stop_a_rule_that_breaks_them(tmp_path, cache_folder):
    path = tmp_path / "fighters.rules"
    path.write_text(RULES)
    odds(dsl.load(path))
    with pytest.raises(ScenarioError) as caught:
        exact(dsl.load(path), Scenario("overdo", {"attacker": {"skill": 3}}))
    assert "wounds never run below 0" in str(caught.value)
