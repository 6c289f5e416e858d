"""Tables of an enum's values: a combat results chart, a die down the side and the odds across the top."""

from __future__ import annotations

from fractions import Fraction

import pytest

from fracas import dsl
from fracas.dsl.format import format_text
from fracas.interpreter import Scenario, exact, forced, sample

CHART = """
enum result { attacker_out exchange defender_back defender_out }
enum side { attacker defender }
# The die down the side, the odds column across the top.
table crt(int, int): result default exchange {
        [1              2              3]
    1:  attacker_out   exchange       defender_back
    2:  exchange       defender_back  defender_out
    3:  defender_back  defender_out   defender_out
}
table first_blow(side, int): result {
                [1              2]
    attacker:   exchange       defender_back
    defender:   attacker_out   exchange
}
outcome combat: result = exchange
"""

ATTACK = "action attack(odds: int) { combat = crt[roll(1, 3), odds] }\n"


def rules_with(action: str, more: str = "") -> dsl.Ruleset:
    return dsl.loads(CHART + more + action, "chart.rules")


def refusal(text: str):
    """The first diagnostic of rules that do not load."""
    with pytest.raises(dsl.RulesError) as caught:
        dsl.loads(text, "bad.rules")
    return caught.value.diagnostics[0]


def test_a_cell_gives_the_enum_value_it_names():
    run = forced(rules_with(ATTACK), Scenario("attack", {"odds": 3}), [2])
    assert str(run.outcomes["combat"]) == "defender_out"


def test_the_exact_odds_of_a_roll_looked_up_are_those_of_the_values_in_its_column():
    odds = exact(rules_with(ATTACK), Scenario("attack", {"odds": 2}))
    assert {str(value): p for value, p in odds.marginal("combat").items()} == {
        "exchange": Fraction(1, 3), "defender_back": Fraction(1, 3), "defender_out": Fraction(1, 3)}


def test_a_pair_the_chart_lacks_gives_its_default_value():
    run = forced(rules_with(ATTACK), Scenario("attack", {"odds": 9}), [1])
    assert str(run.outcomes["combat"]) == "exchange"


def test_rows_named_by_a_kind_end_their_names_with_a_colon_and_are_looked_up_by_them():
    rules = rules_with("action strike(who: side, odds: int) { combat = first_blow[who, odds] }\n")
    run = sample(rules, Scenario("strike", {"who": "defender", "odds": 1}), seed=1)
    assert str(run.outcomes["combat"]) == "attacker_out"


def test_a_value_looked_up_compares_with_the_enums_values():
    rules = rules_with("outcome won: bool = false\n"
                       "action attack(odds: int) { won = crt[roll(1, 3), odds] == defender_out }\n")
    assert exact(rules, Scenario("attack", {"odds": 3})).marginal("won") == {False: Fraction(1, 3),
                                                                            True: Fraction(2, 3)}


def test_a_row_of_names_without_its_colon_is_told_to_end_its_key_with_one():
    bad = refusal("enum r { hit miss }\nenum s { a b }\ntable t(s, int): r {\n    [1 2]\n    a hit miss\n}\n")
    assert bad.message == "unexpected name 'hit'"
    assert "ends its key with a colon (a: hit ...)" in bad.hint


def test_a_numbered_row_without_its_colon_is_told_to_write_one():
    found = refusal("enum r { hit miss }\ntable t(int, int): r {\n    [1 2]\n    1 hit miss\n}\n")
    assert (found.message, found.hint) == ("unexpected '1'", "a table's row starts with its number and a colon: 1: ...")


def test_a_name_negated_in_a_cell_is_told_only_numbers_are():
    found = refusal("enum r { hit miss }\ntable t(int, int): r { [1 2] 1: -hit miss }\n")
    assert (found.message, found.hint) == ("unexpected name 'hit'", "only a number may be negated in a table's cell")


def test_a_row_that_runs_into_the_next_for_want_of_a_colon_names_the_key_it_swallowed():
    found = refusal("enum r { hit miss }\nenum s { a b }\ntable t(s, int): r {\n    [1 2]\n"
                    "    a: hit miss\n    b hit miss\n}\n")
    assert found.message == "row 'a' has 5 values for 2 columns"
    assert found.hint.startswith("'b' reads as one more cell")
    numbered = refusal("enum r { hit miss }\ntable t(int, int): r {\n    [1 2]\n    1: hit miss\n    2 miss hit\n}\n")
    assert numbered.hint.startswith("'2' reads as one more cell")


def test_a_parameter_named_in_a_cell_is_refused_for_the_value_it_would_not_follow():
    found = refusal("enum r { hit miss }\nparam fallback: r = hit\ntable t(int, int): r default fallback {\n"
                    "    [1]\n    1: hit\n}\n")
    assert found.message == "'fallback' is not a value of r: a cell names one as written"
    assert found.hint == "the values of r are: hit, miss"


def test_a_cell_that_is_not_a_value_of_the_tables_type_is_refused():
    assert refusal("enum r { hit miss }\ntable t(int, int): r {\n    [1]\n    1: 3\n}\n").message == \
        "expected r, found int"
    assert refusal("enum r { hit miss }\ntable t(int, int): int {\n    [1]\n    1: hit\n}\n").message == \
        "expected int, found r"
    assert refusal("enum r { hit miss }\ntable t(int, int): r {\n    [1]\n    1: hot\n}\n").message == \
        "unknown name 'hot'"


def test_a_default_may_name_a_value_too():
    rules = dsl.loads("enum r { hit miss }\noutcome got: r = hit\ntable t(int, int): r default miss {\n"
                      "    [1]\n    1: hit\n}\naction go() { got = t[2, 1] }\n", "d.rules")
    assert {str(v) for v in exact(rules, Scenario("go", {})).marginal("got")} == {"miss"}


def test_the_formatter_keeps_each_rows_colon_and_lines_the_names_up():
    messy = "enum r { hit miss }\nenum s { a bb }\ntable t(s, int): r {\n [1 2]\n a: hit miss\n bb:miss  hit\n}\n"
    formatted = format_text(messy, "t.rules")
    assert formatted == format_text(formatted, "t.rules")
    rows = formatted.splitlines()[3:6]
    assert [row.split() for row in rows] == [["[1", "2]"], ["a:", "hit", "miss"], ["bb:", "miss", "hit"]]
    assert rows[1].index("miss") + len("miss") == rows[2].index("hit") + len("hit")  # cells end in a column
    assert rows[1].startswith("    a:  ")  # a name to the left, as a number is set to the right
