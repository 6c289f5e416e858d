"""What the exact engine keeps of a state waiting for a block: the live slots of its frame, the live fields of its world."""

from __future__ import annotations

from pathlib import Path

from fracas import dsl
from fracas.interpreter import Scenario, exact, load_scenario
from fracas.interpreter.core import liveness
from fracas.interpreter.core.codegen import generator_for
from fracas.interpreter.core.liveness import ANY, Live, Projection, _expander
from fracas.interpreter.core.state import Frozen
from fracas.interpreter.core.values import Record, Shape

ROOT = Path(__file__).resolve().parent.parent
THING = Shape("thing", ["x", "y", "z"])


def one_block(live_fields: set, touched: set | None) -> Projection:
    """A projection of one block, where these fields are live and these may have been changed."""
    live = Live(frozenset(), frozenset(live_fields))
    return Projection([live], 0, Live(frozenset(), frozenset()), [touched])


def test_a_kept_frame_expands_to_the_whole_frame_with_none_in_the_slots_not_kept():
    assert _expander((1, 3), 5)(("b", "d")) == [None, "b", None, "d", None]


def test_a_kept_frame_of_a_few_of_many_slots_expands_to_the_whole_frame_too():
    frame = _expander((3, 40), 74)(("d", "z"))
    assert len(frame) == 74 and frame[3] == "d" and frame[40] == "z" and frame.count(None) == 72


def test_a_frame_with_every_slot_kept_expands_to_itself():
    assert _expander((0, 1), 2)(("a", "b")) == ["a", "b"]


def test_a_field_touched_and_read_by_no_later_block_is_forgotten():
    world = Frozen({"a": Record(THING, (1, 2, 3))})
    kept = one_block({(ANY, "x")}, {"x", "y"}).world(0, world)
    assert kept["a"].values == (1, None, 3)


def test_a_field_live_for_one_entity_only_is_forgotten_in_the_others():
    world = Frozen({"a": Record(THING, (1, 2, 3)), "b": Record(THING, (4, 5, 6))})
    kept = one_block({("a", "y")}, {"y"}).world(0, world)
    assert kept["a"].values == (1, 2, 3) and kept["b"].values == (4, None, 6)


def test_a_world_where_every_field_touched_is_live_is_given_back_as_it_is():
    world = Frozen({"a": Record(THING, (1, 2, 3))})
    assert one_block({(ANY, "x"), (ANY, "y")}, {"x", "y"}).world(0, world) is world


def test_a_world_with_its_dead_fields_none_already_is_given_back_as_it_is():
    world = Frozen({"a": Record(THING, (1, None, 3))})
    assert one_block({(ANY, "x")}, {"x", "y"}).world(0, world) is world


def test_a_block_remembers_a_bounded_number_of_the_worlds_it_kept_parts_of(monkeypatch):
    # Runs of many scenarios in one process (a sweep's values, the language server's) would otherwise pile up
    # the worlds of every one of them in the rules' routines.
    monkeypatch.setattr(liveness, "_MOST_WORLDS", 4)
    rules = dsl.load(ROOT / "rules" / "exalted-war.rules")
    shipped = load_scenario(ROOT / "rules" / "scenarios" / "exalted-commander-attack.toml")
    for wits in range(2, 7):
        inputs = {**shipped.inputs, "attacker": {**shipped.inputs["attacker"], "wits": wits}}
        exact(rules, Scenario(shipped.action, inputs, choices=shipped.choices), outcomes_only=True)
    remembered = [len(seen) for routine in generator_for(rules).routines.values()
                  for projection in routine.projections.values() for seen in projection._worlds]
    assert 1 <= max(remembered) <= 4
