"""A reserved word that starts no statement may be a name: read as one wherever the parser wants a name."""

from __future__ import annotations

from fractions import Fraction

import pytest

from fracas import dsl
from fracas.dsl.format import format_text
from fracas.dsl.syntax import NAMEABLE, keywords
from fracas.interpreter import Scenario, exact

ROLLS = "outcome rolls: int = 0\naction go() {\n    let n = 1d6\n    rolls = n\n}\n"


def test_an_outcome_named_rolls_is_set_at_a_statement_s_start_after_another_statement():
    rules = dsl.loads(ROLLS, "words.rules")
    assert exact(rules, Scenario("go", {})).marginal("rolls") == {face: Fraction(1, 6) for face in range(1, 7)}


def test_a_local_named_set_is_changed_after_a_statement():
    rules = dsl.loads("outcome o: int = 0\naction go() {\n    let set = 1d2\n    set += 1\n    o = set\n}\n",
                      "words.rules")
    assert exact(rules, Scenario("go", {})).marginal("o") == {2: Fraction(1, 2), 3: Fraction(1, 2)}


def test_a_field_named_at_follows_a_field_s_default():
    rules = dsl.loads("outcome o: int = 0\nkind piece {\n    size: int = 1\n    at: int = 4\n}\n"
                      "action go(p: piece = {}) { o = p.at + p.size }\n", "words.rules")
    assert exact(rules, Scenario("go", {})).marginal("o") == {5: 1}


@pytest.mark.parametrize("word", ["modifier", "step", "kind", "then", "if"])
def test_any_reserved_word_followed_by_a_colon_names_a_field_after_another_field_s_default(word):
    # As the first field it always did: the parser's tables take a declaration after a default, not before.
    rules = dsl.loads(f"outcome o: int = 0\nkind piece {{\n    size: int = 1\n    {word}: int = 4\n}}\n"
                      f"action go(p: piece = {{}}) {{ o = p.{word} + p.size }}\n", "words.rules")
    assert exact(rules, Scenario("go", {})).marginal("o") == {5: 1}


def test_a_reserved_word_named_as_a_field_leaves_a_later_error_its_own_message():
    with pytest.raises(dsl.RulesError) as caught:
        dsl.loads("kind w { a: int = 0  modifier: int = 0 }\noutcome o: int = 0\naction go() { o = 1 +  }\n",
                  "words.rules")
    [told] = caught.value.diagnostics
    assert (told.line, told.message) == (3, "unexpected '}'")


def test_fmt_reads_a_file_that_names_an_outcome_rolls():
    assert format_text(ROLLS, "words.rules") == ROLLS


def test_a_word_read_as_a_name_in_the_middle_of_a_line_is_told_as_the_word_where_the_file_fails():
    with pytest.raises(dsl.RulesError) as caught:
        dsl.loads("outcome o: int = 0\naction go(c: bool = true) {\n    o += 1 when c\n}\n", "words.rules")
    [told] = caught.value.diagnostics
    assert (told.line, told.column) == (3, 12)
    assert told.message == "'when' is a reserved word of the language and cannot be a name here"


def test_every_word_that_may_be_a_name_is_a_word_of_the_grammar():
    assert NAMEABLE <= keywords()
