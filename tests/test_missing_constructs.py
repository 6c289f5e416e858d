"""A construct fracas does not have is named, with what to write instead today, not "unexpected name"."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fracas import dsl
from fracas.dsl import missing
from fracas.dsl.diagnostics import RulesError
from fracas.interpreter import Scenario, exact

GRAMMAR = Path(__file__).resolve().parent.parent / "grammars" / "fracas.lark"


def problem(text: str) -> tuple[int, int, str, str]:
    with pytest.raises(RulesError) as caught:
        dsl.loads(text, "m.rules")
    (found,) = caught.value.diagnostics
    return found.line, found.column, found.message, found.hint


def in_a_step(*lines: str) -> str:
    return "outcome r: int = 0\naction go(a: bool = true, hp: int = 3) {\n" + "\n".join(lines) + "\n}\n"


def test_continue_is_named_and_the_if_to_write_is_given():
    assert problem(in_a_step("    for i in range(3) {", "        continue", "    }")) == (
        4, 9, "fracas has no 'continue'", "guard the rest of the loop's body with an 'if'")


def test_break_outside_a_loop_says_what_leaves_a_step():
    line, column, message, hint = problem(in_a_step("    if a {", "        break", "    }"))
    assert (line, column, message) == (4, 9, "'break' leaves a loop, and there is no loop around it here")
    assert "'return'" in hint


def test_elif_is_told_to_be_else_if():
    assert problem(in_a_step("    if a { r = 1 } elif hp > 2 { r = 2 }")) == (
        3, 20, "fracas writes 'else if', not 'elif'",
        "} else if CONDITION { ... }, or in an expression: else if CONDITION then VALUE")


def test_return_at_the_top_level_says_where_it_belongs():
    assert problem("outcome r: int = 0\nreturn\n")[:3] == (
        2, 1, "'return' belongs inside a step or an action, where it ends the step")


def test_return_with_a_value_in_an_action_says_an_action_gives_none():
    line, column, message, hint = problem(in_a_step("    return hp * 2"))
    assert (line, column, message) == (3, 12, "action 'go' gives no value: 'return' only ends it")
    assert "outcomes" in hint


def test_a_statement_at_the_top_level_says_where_statements_belong():
    assert problem("let x = 3\n")[2] == "statements belong inside a step or an action"


def test_a_return_with_its_reason_is_still_fine():
    dsl.loads(in_a_step('    return "done"'), "m.rules")


@pytest.mark.parametrize("written, message", [
    ("r = 1 && 2", "fracas writes 'and', not '&&'"),
    ("r = 1 || 2", "fracas writes 'or', not '||'"),
    ("if !a { r = 1 }", "fracas writes 'not', not '!'"),
    ("r = 1;", "fracas needs no ';': a statement ends where the next begins"),
    ("r = 2 ^ 3", "fracas has no power operator '^'"),
])
def test_other_languages_operators_are_named(written, message):
    assert problem(in_a_step("    " + written))[2] == message


@pytest.mark.parametrize("written, column, message, hint", [
    ("r = 7 // 2", 11, "fracas has no '//': '/' divides exactly",
     "round the quotient as the rule says, floor(a / b); a comment starts with '#'"),
    ("r = 2 ** 3", 11, "fracas has no power operator '**'", "multiply the number by itself, as in x * x * x"),
])
def test_other_languages_operators_of_two_characters_are_named_at_both(written, column, message, hint):
    assert problem(in_a_step("    " + written)) == (3, column, message, hint)


@pytest.mark.parametrize("written", ["r = hp % 2", "r = 7 %2", "r = 7 % (hp + 1)"])
def test_a_remainder_is_told_how_to_write_it(written):
    line, column, message, hint = problem(in_a_step("    " + written))
    assert message == "fracas has no remainder operator '%'" and hint.startswith("a - floor(a / b) * b")


def test_a_percent_sign_after_a_space_and_nothing_else_is_still_told_as_a_percentage():
    assert problem(in_a_step("    r = 60 %"))[3].startswith("a percentage is written right after its number")


@pytest.mark.parametrize("text, line", [("// a comment\noutcome r: int = 0\n", 1),
                                        (in_a_step("    // say why", "    r = 1"), 3)])
def test_a_comment_written_after_two_slashes_is_told_to_start_with_a_hash(text, line):
    assert problem(text) == (line, 1 if line == 1 else 5, "a comment starts with '#', not '//'",
                             "# what this rule is for")


def test_a_percent_sign_after_a_space_at_the_end_of_a_line_is_still_told_as_a_percentage():
    assert problem(in_a_step("    let p = 60 %", "    r = p"))[3].startswith("a percentage is written right after")


def test_a_table_of_one_key_is_told_to_be_a_field_of_the_key_s_kind():
    line, column, message, hint = problem("enum dt { cutting impaling }\ntable wounding(dt): number {\n"
                                          "    cutting 1.5\n}\n")
    assert (line, column, message) == (2, 7, "a table has two keys: for one, give its kind a field, which each row sets")
    assert "ground rough { cost 1.5 }" in hint


def test_a_fn_s_value_after_two_equals_signs_is_told_to_follow_one():
    assert problem("fn f(x: int): bool == x > 1\n") == (1, 20, "a fn's value follows one '=', not '=='",
                                                        "fn f(x: int): bool = x > 1")


def test_a_table_of_one_number_key_is_told_to_index_a_list():
    line, column, message, hint = problem("enum inj { stunned out }\ntable chart(int): inj default stunned {\n"
                                          "    2: stunned\n}\n")
    assert (line, column, message) == (2, 7, "a table has two keys: for one number, index a list of the values")
    rules = dsl.loads("enum inj { stunned out }\noutcome o: inj = stunned\naction go(total: int = 8) {\n"
                      "    o = [stunned, stunned, out][total - 7]\n}\n", "m.rules")  # as the hint writes it
    assert {row.name: p for row, p in exact(rules, Scenario("go", {})).marginal("o").items()} == {"stunned": 1}


@pytest.mark.parametrize("text, line, column, hint", [
    (in_a_step("    if a", "        r = 1", "    }"), 3, 9, "end the line with it: if a {"),
    (in_a_step("    if hp > 2  # a note", "        r = 1", "    }"), 3, 14, "end the line with it: if hp > 2 {"),
    ("kind piece\n    size: int\n}\n", 1, 11, "end the line with it: kind piece {"),
])
def test_a_block_s_opening_brace_left_out_is_told_at_the_end_of_its_line(text, line, column, hint):
    assert problem(text) == (line, column, "the '{' that opens this block is missing", hint)


@pytest.mark.parametrize("written", ["    r = if hp > 1 2 else 3",
                                     "    r = if hp > 2 then 1\n        else if hp > 1 2\n        else 3"])
def test_an_expression_s_if_without_then_is_told_to_write_it(written):
    assert problem(in_a_step(written))[2:] == ("an 'if' in an expression needs 'then' between its condition and its "
                                               "value", "if a > b then 1 else 2")


@pytest.mark.parametrize("lines, message", [
    (("    r = if hp > 0", "        3 else 4"), "an 'if' in an expression needs 'then' between its condition and its value"),
    (("    r = if hp > 0 then 1", "        else if hp < 0", "        2 else 3"),
     "an 'if' in an expression needs 'then' between its condition and its value"),
    (("    r = hp", "    3 + 1"), "unexpected '3'"),
])
def test_a_line_that_starts_no_block_is_not_told_of_a_missing_brace(lines, message):
    assert problem(in_a_step(*lines))[2] == message


def test_a_block_after_a_colon_is_told_to_use_braces():
    assert problem(in_a_step("    if a:", "        r = 1"))[2] == "blocks are written in braces, not after ':'"


@pytest.mark.parametrize("written, hint", [("True", "write true"), ("null", "write none")])
def test_other_languages_constants_are_told_their_fracas_word(written, hint):
    assert problem(in_a_step(f"    let x = {written}"))[2:] == (f"unknown name '{written}'", hint)


def test_print_is_told_to_be_an_event():
    assert problem(in_a_step("    print(hp)"))[3].startswith("record what happened with an event")


def test_no_hint_names_a_construct_the_grammar_has():
    # When the language gains `while` or `break`, its entry in dsl/missing.py goes.
    code = "\n".join(line.split("//")[0] for line in GRAMMAR.read_text().splitlines())
    keywords = set(re.findall(r'"([a-z]+)"', code))
    assert not keywords & set(missing.WORDS)


def test_a_method_call_is_told_there_are_no_methods_and_what_to_call():
    line, column, message, hint = problem(in_a_step("    let xs = [3, 1]", "    r = xs.index(1)"))
    assert (line, column, message) == (4, 12, "fracas has no methods: '.index(...)' calls nothing")
    assert "sort(xs)" in hint and "language.md lists the builtins" in hint


@pytest.mark.parametrize("head", ["if a > 1: {", "if a.b: {", "while a < 3 and f(a): {", "for i in range(2): {",
                                  "if not a: {"])
def test_a_colon_after_any_condition_or_loop_head_is_told_to_use_braces(head):
    line, column, message = problem(in_a_step(f"    {head}", "        r = 1", "    }"))[:3]
    assert message == "blocks are written in braces, not after ':'"
    assert column == 5 + head.index(":")  # at the colon itself


def test_a_colon_after_an_if_expression_is_not_told_as_a_block():
    assert problem(in_a_step("    r = if a then 3: 4"))[2] == "unexpected ':'"


def test_an_else_followed_by_a_colon_is_told_to_use_braces_though_a_name_and_colon_may_start_a_table_row():
    assert problem(in_a_step("    if a {", "        r = 1", "    } else: {", "        r = 2", "    }"))[2] == (
        "blocks are written in braces, not after ':'")


def test_a_name_and_a_colon_out_of_place_are_told_as_the_name():
    assert problem("param p x: int = 1\n")[:3] == (1, 9, "unexpected name 'x'")


def test_a_range_as_a_loop_s_list_is_told_to_use_range_and_where_a_range_goes():
    line, column, message, hint = problem(in_a_step("    for i in 1..3 {", "        r += i", "    }"))
    assert (line, column) == (3, 15)
    assert message == "a loop runs over a list, and 'a..b' is none: it bounds a test, as in x in 1..3"
    assert hint.startswith("for i in range(3) runs i over 0, 1, 2")


def test_a_range_in_a_test_is_still_fine():
    assert "go" in dsl.loads(in_a_step("    if hp in 1..3 { r = 1 }"), "m.rules").actions


@pytest.mark.parametrize("written", ["r = if 1 < hp < 5 then 1 else 0", "if 2 <= hp == true { r = 1 }",
                                     "let ok = (hp > 1) and 1 < hp < 5"])
def test_comparisons_written_in_a_chain_are_told_to_be_written_as_two(written):
    line, column, message, _ = problem(in_a_step("    " + written))
    assert message == "comparisons do not chain: 'a < b < c' is written as two"
    assert column == 5 + written.rindex("<" if "< 5" in written else "==")


def test_two_comparisons_apart_are_not_a_chain():
    assert "go" in dsl.loads(in_a_step("    if (hp < 5) == a and 1 < hp { r = 1 }"), "m.rules").actions


def test_a_comparison_on_the_line_before_is_no_chain():
    message = problem(in_a_step("    let x = 1 < 2", "    a == true"))[2]
    assert message != "comparisons do not chain: 'a < b < c' is written as two"


def test_a_range_after_a_comprehension_s_for_is_no_loop_s_list():
    message = problem(in_a_step("    let xs = [i for i in range(3)]", "    r = 1..3"))[2]
    assert not message.startswith("a loop runs over a list")


def test_a_range_in_a_loop_s_head_is_told_however_its_bounds_are_written():
    assert problem(in_a_step("    for i in 1..hp + 1 {", "        r += i", "    }"))[2].startswith(
        "a loop runs over a list")


@pytest.mark.parametrize("op", ["+", "-"])
def test_a_step_by_one_of_another_language_is_told_its_fracas_form(op):
    line, column, message, hint = problem(in_a_step(f"rounds{op}{op}"))
    assert (message, hint) == (f"fracas has no '{op}{op}'", f"write rounds {op}= 1")


def test_a_closing_brace_out_of_line_that_leaves_a_statement_outside_every_block_is_shown():
    text = ("outcome rounds: int = 0\noutcome won: bool = false\naction fight() {\n    while rounds < 3 {\n"
            "        rounds += 1\n        }\n        won = true\n    }\n    won = rounds > 2\n}\n")
    line, column, message, hint = problem(text)
    assert (line, column) == (6, 9)
    assert message == "this '}' closes the block opened at line 4, out of line with it"
    assert hint == "line 9 is then outside every block: take this '}' out if it is one too many"
