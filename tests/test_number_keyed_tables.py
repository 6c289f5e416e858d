"""Tables keyed by whole numbers: a roll's total down the side, a size across the top (a cluster-hits chart)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from fracas import dsl
from fracas.dsl.format import format_text
from fracas.interpreter import Scenario, ScenarioError, exact, forced

CHART = """
enum rack { small large }
outcome hits: int = 0
# Missiles that hit, by the 2d6 roll down the side and the rack's size across the top.
table cluster(int, int): int default 0 {
        [2   5  -1]
     2:  1   1   0
     7:  1   3   0
    12:  2   5   0
}
table by_rack(int, rack): int {
         [small  large]
    -1:      0      0
     7:      1      3
}
"""


def rules_with(action: str, more: str = "") -> dsl.Ruleset:
    return dsl.loads(CHART + more + action, "chart.rules")


def refusal(action: str, more: str = ""):
    """The first diagnostic of rules that do not load."""
    with pytest.raises(dsl.RulesError) as caught:
        rules_with(action, more)
    return caught.value.diagnostics[0]


def test_a_table_keyed_by_numbers_is_looked_up_by_numbers():
    rules = rules_with("action go() { hits = cluster[7, 5] * 10 + cluster[12, 2] }\n")
    assert exact(rules, Scenario("go", {})).marginal("hits") == {32: 1}


def test_a_negative_key_is_a_key_like_any_other():
    rules = rules_with("action go() { hits = by_rack[-1, large] + cluster[2, -1] }\n")
    assert exact(rules, Scenario("go", {})).marginal("hits") == {0: 1}


def test_a_number_and_a_row_key_one_table():
    rules = rules_with("action go(r: rack) { hits = by_rack[7, r] }\n")
    assert exact(rules, Scenario("go", {"r": "large"})).marginal("hits") == {3: 1}


def test_a_roll_looked_up_in_the_chart_gives_the_chart_s_odds():
    rules = rules_with("action go() { hits = cluster[roll(2, 6), 5] }\n")
    # 2 and 12 are 1/36 each, 7 is 6/36, and every other total takes the default.
    assert exact(rules, Scenario("go", {})).marginal("hits") == {
        1: Fraction(1, 36), 3: Fraction(6, 36), 5: Fraction(1, 36), 0: Fraction(28, 36)}


def test_a_sampled_run_reads_the_same_cell():
    rules = rules_with("action go() { hits = cluster[roll(2, 6), 5] }\n")
    assert forced(rules, Scenario("go", {}), [3, 4]).state.outcomes["hits"] == 3


def test_a_pair_the_table_lacks_without_a_default_is_a_located_error():
    rules = rules_with("action go() { hits = by_rack[8, small] }\n")
    with pytest.raises(ScenarioError) as caught:
        exact(rules, Scenario("go", {}))
    assert caught.value.diagnostics[0].message == "table 'by_rack' has no value for 8 and small"


def test_a_name_where_a_number_key_belongs_is_an_error():
    assert refusal("", "table bad(int, rack): int {\n [small]\n archer 1\n}\n").message == "'archer' is not a whole number, which table 'bad' is keyed by here"


def test_a_fraction_is_no_key():
    assert refusal("", "table bad(int, int): int {\n [1.5]\n}\n").message == "'1.5' is not a whole number, which table 'bad' is keyed by here"


def test_a_number_where_a_row_belongs_says_how_to_key_by_numbers():
    found = refusal("", "table bad(rack, rack): int {\n [small 4]\n}\n")
    assert found.message == "'4' is not a rack"
    assert "table bad(int, ...)" in found.hint


def test_a_row_s_number_needs_its_colon():
    assert refusal("", "table bad(int, int): int {\n [1 2]\n 3 4 5\n}\n").hint == "a table's row starts with its number and a colon: 3: ..."


def test_a_row_key_of_the_wrong_type_in_a_lookup_is_an_error():
    with pytest.raises(dsl.RulesError) as caught:
        rules_with("action go() { hits = by_rack[small, 7] }\n")
    assert [d.message for d in caught.value.diagnostics] == ["expected int, found rack", "expected rack, found int"]


def test_int_is_suggested_for_a_misspelt_key_kind():
    assert refusal("", "table bad(in, rack): int {\n [small]\n}\n").hint == "did you mean 'int'?"


def test_the_formatter_aligns_numbered_rows_to_the_right_and_keeps_negative_columns_whole():
    text = "table t(int, int): int {\n[2 -1]\n2: 1 0\n12: 5 0\n}\n"
    assert format_text(text, "t.rules") == ("table t(int, int): int {\n"
                                                "         [2  -1]\n"
                                                "     2:   1   0\n"
                                                "    12:   5   0\n"
                                                "}\n")


def test_a_table_of_anything_but_numbers_or_rows_is_refused_with_the_way_to_write_it():
    found = refusal("", "table crt(int, int): text {\n [1]\n}\n")
    assert found.message == "a table holds numbers or the rows of a kind, so its type is int, number or a kind, not text"
    assert "fn crt(row: int, column: int): text = [[...], [...]][row][column]" in found.hint
