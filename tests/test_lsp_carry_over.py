"""The names of the last analysis carried over to a newer text, until that text is analysed (no client)."""

from __future__ import annotations

import pytest

from fracas.dsl.limits import Limits
from fracas.interpreter.tools.lsp.analysis import Analysis, analyze, carry_over

RULES = 'outcome lost: int = 0\nparam armies = 3\naction go() {\n    lost = armies + 1\n}\n'
LINE = "    lost = armies + 1"


def analysed() -> Analysis:
    return analyze(RULES, "war.rules", Limits())


def names_at(carried: Analysis, line: int) -> dict[str, int]:
    """Each name carried to a line, by the text it names there, with its column."""
    text = carried.text.split("\n")[line - 1]
    return {text[o.place.column - 1 : o.place.end_column - 1]: o.place.column
            for o in carried.occurrences if o.place.line == line}


def edited(line: str) -> Analysis:
    return carry_over(analysed(), RULES.replace(LINE, line), 2)


def test_a_name_no_edit_touched_is_carried_where_it_is():
    assert names_at(edited(LINE + "  "), 4) == {"lost": 5, "armies": 12}


@pytest.mark.parametrize("line, armies", [("    lost =  armies + 1", 13), ("    lost = armies  + 1", 12),
                                          ("     lost = armies + 1", 13)])
def test_a_blank_typed_beside_a_name_leaves_it_the_same_name(line, armies):
    assert names_at(edited(line), 4)["armies"] == armies


@pytest.mark.parametrize("line", ["    lost = xarmies + 1", "    lost = armiesx + 1"])
def test_a_letter_typed_against_a_name_makes_another_name(line):
    assert "armies" not in names_at(edited(line), 4)


@pytest.mark.parametrize("line", ["    # lost = armies + 1", "    lost = # armies + 1", '    lost = " armies + 1'])
def test_a_name_a_comment_or_a_text_now_holds_is_not_carried(line):
    assert "armies" not in names_at(edited(line), 4)


def test_a_line_split_in_two_keeps_the_names_on_either_side_of_the_break():
    carried = edited("    lost =\n        armies + 1")
    assert names_at(carried, 4) == {"lost": 5} and names_at(carried, 5) == {"armies": 9}


def test_two_lines_joined_keep_their_names():
    text = RULES.replace("    lost = armies + 1\n}", "    lost = armies + 1 }")
    carried = carry_over(analysed(), text, 2)
    assert names_at(carried, 4) == {"lost": 5, "armies": 12}


def test_a_selection_re_indented_keeps_each_line_s_names():
    rules = RULES.replace(LINE, LINE + "\n    lost += armies")
    text = rules.replace(LINE + "\n    lost += armies", "  " + LINE + "\n      lost += armies")
    carried = carry_over(analyze(rules, "war.rules", Limits()), text, 2)
    assert names_at(carried, 4) == {"lost": 7, "armies": 14} and names_at(carried, 5) == {"lost": 7, "armies": 15}
