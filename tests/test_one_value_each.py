"""Rows, entities and record layouts are one object each, wherever they are made: compared by identity, they are
equal wherever they are equal by name."""

from __future__ import annotations

import copy
import pickle

from fracas import dsl
from fracas.interpreter import Scenario, exact
from fracas.interpreter.core.values import Record, Ref, RowRef, Shape


def test_a_row_named_twice_is_one_reference():
    assert RowRef("tile_type", "city") is RowRef("tile_type", "city")
    assert RowRef("tile_type", "city") != RowRef("tile_type", "town")


def test_an_entity_named_twice_is_one_reference():
    assert Ref("attackers[0]") is Ref("attackers[0]")
    assert Ref("attackers[0]") != Ref("attackers[1]")


def test_a_layout_written_twice_is_one_shape():
    assert Shape("unit", ["type", "figures"]) is Shape("unit", ("type", "figures"))
    assert Shape("unit", ["type", "figures"]) != Shape("unit", ["figures", "type"])


def test_a_reference_read_back_from_a_pickle_or_copied_is_the_same_object():
    row, entity, shape = RowRef("unit_type", "gunner"), Ref("target"), Shape("unit", ["type", "figures"])
    for value in (row, entity, shape):
        assert pickle.loads(pickle.dumps(value)) is value
        assert copy.deepcopy(value) is value


def test_records_read_back_from_a_pickle_equal_the_records_they_were():
    shape = Shape("unit", ["type", "figures"])
    record = Record(shape, (RowRef("unit_type", "gunner"), 3))
    again = pickle.loads(pickle.dumps(record))
    assert again == record and hash(again) == hash(record) and again.shape is shape


def test_rows_written_in_rules_and_read_back_from_their_kept_code_meet_as_equal(tmp_path, monkeypatch):
    # The rules' program (its rows) and its generated code (a row named in a rule) are kept apart and read
    # back apart: a row compared with the row a rule names is the same row.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    path = tmp_path / "rows.rules"
    path.write_text('kind weapon { damage: int }\nweapon sword { damage 2 }\nweapon club { damage 1 }\n'
                    'outcome with_sword: bool = false\n'
                    'action wield(held: weapon) {\n    with_sword = held == sword\n}\n')
    for _ in range(2):  # the second run reads back what the first kept
        rules = dsl.load(path)
        odds = exact(rules, Scenario("wield", {"held": "sword"}), outcomes_only=True)
        assert odds.marginal("with_sword") == {True: 1}
