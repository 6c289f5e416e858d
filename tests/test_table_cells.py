"""A table's cells: none where a table of T? has no value, and a dash written for one told where it stands."""

from __future__ import annotations

import pytest

from fracas import dsl
from fracas.dsl.format import format_text
from fracas.interpreter import Scenario, exact

RANGES = """
outcome dv: int? = 0
# DVs by weapon down the side and range band across the top: a pistol reaches no farther than band 1.
table ranged(int, int): int? {
        [0     1     2]
    0:  13    15  none
    1:  15    13    15
}
table beyond(int, int): int? default none {
        [0]
    0:  10
}
action shoot(weapon: int = 0, band: int = 2) {
    dv = ranged[weapon, band]
}
action far() {
    dv = beyond[0, 5]
}
"""


def test_a_none_cell_of_a_table_of_an_optional_type_is_none():
    rules = dsl.loads(RANGES, "ranges.rules")
    assert exact(rules, Scenario("shoot", {"weapon": 0, "band": 2})).marginal("dv") == {None: 1}
    assert exact(rules, Scenario("shoot", {"weapon": 1, "band": 2})).marginal("dv") == {15: 1}


def test_a_table_of_an_optional_type_may_default_to_none():
    assert exact(dsl.loads(RANGES, "ranges.rules"), Scenario("far", {})).marginal("dv") == {None: 1}


def test_a_none_cell_of_a_table_of_numbers_is_refused_where_it_is():
    with pytest.raises(dsl.RulesError) as caught:
        dsl.loads(RANGES.replace("table ranged(int, int): int? {", "table ranged(int, int): int {"), "ranges.rules")
    [found] = caught.value.diagnostics
    assert (found.line, found.column, found.message) == (6, 19, "expected int, found none")
    assert found.hint == "only an optional type ('int?') accepts none"


@pytest.mark.parametrize("row", ["0:  13    15  -", "1:  15    13    -"])  # before the next row, or the '}'
def test_a_dash_written_for_a_cell_is_told_at_the_dash(row):
    text = RANGES.replace(row.replace("-", "none") if row.startswith("0") else row.replace("-", "15"), row)
    with pytest.raises(dsl.RulesError) as caught:
        dsl.loads(text, "ranges.rules")
    [found] = caught.value.diagnostics
    assert (found.line, found.column) == ((6, 19) if row.startswith("0") else (7, 21))
    assert found.message == "'-' is no value for a cell: a cell holds a number or a row's name"
    assert found.hint == "write none for a cell with no value"  # the table is of int? already


@pytest.mark.parametrize("table, hint", [
    ("table ranged(int, int): int {", "write the number; for a cell with no value, make the table's type optional "
                                      "(int?) and write none"),
    ("enum shot { hit miss }\ntable ranged(int, int): shot {", "write one of its rows; for a pair with no result, "
                                                               "give the kind a row that says so"),
])
def test_a_dash_for_a_cell_is_told_what_the_table_s_type_holds_instead(table, hint):
    text = RANGES.replace("table ranged(int, int): int? {", table).replace("15  none", "15  -")
    with pytest.raises(dsl.RulesError) as caught:
        dsl.loads(text, "ranges.rules")
    assert caught.value.diagnostics[0].hint == hint


def test_a_none_cell_is_laid_out_as_any_other():
    laid_out = format_text(RANGES, "ranges.rules")
    assert "    0:   13  15  none\n" in laid_out and "    1:   15  13    15\n" in laid_out


def test_a_dash_written_for_a_cell_within_a_row_is_told_it_reads_as_a_negative_number():
    with pytest.raises(dsl.RulesError) as caught:
        dsl.loads(RANGES.replace("0:  13    15  none", "0:  13    -  15"), "ranges.rules")
    [found] = caught.value.diagnostics
    assert found.message == "row '0' has 2 values for 3 columns"
    assert found.hint == "'-  15' reads as one number, -15: write none for a cell with no value"
