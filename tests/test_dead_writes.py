"""A field a rule changes that no later rule reads: the exact engine leaves the world as it was, and nothing else differs."""

from __future__ import annotations

import pytest

from fracas import dsl
from fracas.interpreter import Scenario, ScenarioError, exact
from fracas.interpreter.core.interned import Interned

RULES = '''rules "A note no rule reads"
kind target {
    hits: int = 0
    note: text = ""
}
outcome total: int = 0
action strike(t: target, divisor: int = 1) {
    t.hits += roll(1, 6)
    total = t.hits
    t.note = "struck " + "once"
    t.hits = floor(t.hits / divisor)
}
'''


def fields_changed(monkeypatch: pytest.MonkeyPatch) -> set[str]:
    """The names of the fields the exact engine changes in its worlds, from now on."""
    names: set[str] = set()
    real = Interned.changed

    def watched(self, record, name, value):
        names.add(name)
        return real(self, record, name, value)

    monkeypatch.setattr(Interned, "changed", watched)
    return names


def test_a_field_no_later_rule_reads_is_left_as_it_was_when_only_outcomes_are_asked(monkeypatch):
    changed = fields_changed(monkeypatch)
    odds = exact(dsl.loads(RULES), Scenario("strike", {"t": {}}), outcomes_only=True)
    assert "note" not in changed and "hits" in changed
    assert odds.marginal("total") == {face: pytest.approx(1 / 6) for face in range(1, 7)}


def test_every_field_is_changed_when_the_whole_state_is_asked(monkeypatch):
    changed = fields_changed(monkeypatch)
    odds = exact(dsl.loads(RULES), Scenario("strike", {"t": {}}))
    assert {"note", "hits"} <= changed
    assert {state.world["t"].get("note") for state in odds.states} == {"struck once"}


def test_a_change_left_out_is_still_evaluated_and_its_errors_reported():
    broken = RULES.replace('t.note = "struck " + "once"', 't.note = if 1 / (divisor - 1) > 0 then "struck" else ""')
    with pytest.raises(ScenarioError, match="division by zero"):
        exact(dsl.loads(broken), Scenario("strike", {"t": {}, "divisor": 1}), outcomes_only=True)


ONLY_A_NOTE = '''rules "A block whose one change to the world no rule reads"
kind target {
    note: text = ""
}
outcome total: int = 0
action strike(t: target) {
    total = roll(1, 6)
    t.note = "struck"
    total += 1
}
'''


def test_a_block_whose_only_change_is_left_out_keeps_its_world_without_hashing_it_again(monkeypatch):
    worlds: list[object] = []
    real = Interned.id

    def watched(self, frozen):
        if "t" in frozen:  # a world, not the outcomes
            worlds.append(frozen)
        return real(self, frozen)

    monkeypatch.setattr(Interned, "id", watched)
    odds = exact(dsl.loads(ONLY_A_NOTE), Scenario("strike", {"t": {}}), outcomes_only=True)
    assert odds.marginal("total") == {face: pytest.approx(1 / 6) for face in range(2, 8)}
    # The world the action starts in, interned once: on its way to the block after the draw it is given back as
    # it came, and keeps its number; the six states after the note keep it too, none of their copies hashed.
    assert len(worlds) == 1
