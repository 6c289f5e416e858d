"""Broken rules files give located messages: file:line:col, the line, a caret, a hint."""

from __future__ import annotations

import pytest

from fracas import dsl
from fracas.dsl.diagnostics import RulesError, printable

BASE = """\
rules "broken"
kind unit_type {
    figures: int
    hitpoints: int
}
unit_type rifleman { figures 3  hitpoints 2 }
kind unit { type: unit_type  figures: int = type.figures }
outcome lost: int = 0
param bonus = 1
"""


def problems(text: str) -> list[dsl.Diagnostic]:
    with pytest.raises(RulesError) as caught:
        dsl.loads(text, "broken.rules")
    return list(caught.value.diagnostics)


def only(text: str) -> dsl.Diagnostic:
    found = problems(text)
    assert len(found) == 1, [d.format() for d in found]
    return found[0]


def test_unknown_field_in_a_row_suggests_the_right_one():
    d = only(BASE + "unit_type gunner { figures 3  hitpoints 2  hitpoint 2 }\n")
    assert (d.line, d.column) == (10, 44)
    assert d.message == "unknown field 'hitpoint' of kind 'unit_type'"
    assert d.hint == "did you mean 'hitpoints'?"


def test_an_action_named_as_a_builtin_is_refused_once_not_again_at_each_example_that_runs_it():
    d = only(BASE + 'action volley() { lost = 1 }\nexample "V-01" { run volley() expect lost == 1 }\n'
             'example "V-02" { run volley() expect lost == 1 }\n')
    assert (d.line, d.message) == (10, "'volley' is the name of a builtin function")


def test_a_step_named_as_a_builtin_is_refused_once_not_again_at_each_call():
    found = problems(BASE + "step pick(): int { return 1 }\nstep join(n: int) { lost += n }\n"
                     "action go() {\n let at = pick()\n join(at)\n lost = pick()\n}\n")
    assert [(d.line, d.message) for d in found] == [(10, "'pick' is the name of a builtin function"),
                                                    (11, "'join' is the name of a builtin function")]


def test_an_outcome_named_as_a_builtin_is_refused_once_not_again_where_it_is_set_or_read():
    found = problems(BASE + "outcome successes: int = 0\naction go() {\n successes = 3\n lost = successes + 1\n}\n")
    assert [(d.line, d.message) for d in found] == [(10, "'successes' is the name of a builtin function")]


def test_the_arguments_of_a_call_to_a_refused_step_are_still_checked():
    found = problems(BASE + "step join(n: int) { lost += n }\naction go() { join(nothing) }\n")
    assert [d.message for d in found] == ["'join' is the name of a builtin function", "unknown name 'nothing'"]


def test_a_row_missing_a_required_field_names_it():
    d = only(BASE + "unit_type gunner { figures 3 }\n")
    assert (d.line, d.column) == (10, 11)
    assert d.message == "row 'gunner' does not give 'hitpoints'"


def test_unknown_kind_of_a_row_suggests_the_kind():
    d = only(BASE + "unit_typ gunner { figures 3 hitpoints 2 }\n")
    assert (d.line, d.column) == (10, 1)
    assert d.message == "unknown kind 'unit_typ' for row 'gunner'"
    assert d.hint == "did you mean 'unit_type'?"


def test_unknown_name_in_a_step_suggests_a_local():
    d = only(BASE + "action hit(target: unit) {\n    let shots = 3\n    lost = shot\n}\n")
    assert (d.line, d.column) == (12, 12)
    assert d.message == "unknown name 'shot'"
    assert d.hint == "did you mean 'shots'?"


def test_wrong_type_is_reported_with_both_types():
    d = only(BASE + "action hit(target: unit) {\n    lost = true\n}\n")
    assert (d.line, d.column) == (11, 12)
    assert d.message == "expected int, found bool"


def test_a_fraction_into_an_int_asks_for_explicit_rounding():
    d = only(BASE + "action hit(target: unit) {\n    lost = target.figures / 2\n}\n")
    assert d.message == "expected int, found number"
    assert "floor, ceil or round" in d.hint


def test_missing_closing_brace_points_at_the_brace_left_open():
    d = only(BASE + "action hit(target: unit) {\n    lost = 1\n")
    assert (d.line, d.column) == (10, 26)
    assert d.message == "the block opened here is not closed"
    assert d.hint == "the file ends inside it; add the '}' that ends it"


def test_bad_number_is_a_syntax_error_at_its_column():
    d = only(BASE + "param chance_to_hit = 0.5.5\n")
    assert (d.line, d.column) == (10, 27)
    assert d.message == "unexpected '5'"
    assert d.hint == "expected a name"


def test_single_quotes_get_a_hint_about_double_quotes():
    d = only("rules 'broken'\n")
    assert (d.line, d.column) == (1, 7)
    assert "double quotes" in d.hint


def test_unknown_field_on_a_value_of_a_kind():
    d = only(BASE + "action hit(target: unit) {\n    lost = target.figurs\n}\n")
    assert (d.line, d.column) == (11, 12)
    assert d.message == "unknown field 'figurs' of kind 'unit'"
    assert d.hint == "did you mean 'figures'?"


def test_assigning_a_parameter_is_refused():
    d = only(BASE + "action hit(target: unit) {\n    bonus = 2\n}\n")
    assert d.message == "'bonus' is a parameter: it cannot change during a resolution"


def test_chance_in_a_constant_is_refused():
    d = only(BASE + "param roll_it = 1d6\n")
    assert (d.line, d.column) == (10, 17)
    assert d.message == "a constant cannot depend on chance"


SMALL = "fn bonus() = 1d6\nfn tally_of(): int = total\nkind piece { hp: int = 3 }\noutcome total: int = 0\n"


@pytest.mark.parametrize("text, place", [
    ("kind token { hp: int = 1d6 }\naction go() { total = 1 }\n", (5, 24)),
    ("outcome other: int = 1d6\naction go() { total = 1 }\n", (5, 22)),
    ("kind token { hp: int = bonus() }\naction go() { total = 1 }\n", (5, 24)),
    ("action go(k: int = bonus()) { total = k }\n", (5, 20)),
])
def test_a_default_that_rolls_is_refused_by_the_checker_even_through_a_fn(text, place):
    d = only(SMALL + text)
    assert ((d.line, d.column), d.message) == (place, "a constant cannot depend on chance")


def test_a_require_that_rolls_through_a_fn_is_refused_naming_the_fn():
    d = only(SMALL + "action go(p: piece = {}) require p.hp < bonus() { total = p.hp }\n")
    assert d.message == "a constraint cannot depend on chance" and d.hint.endswith("; 'bonus' may roll dice")


@pytest.mark.parametrize("text, place, message", [
    ("kind token { hp: int = total }\naction go() { total = 1 }\n", (5, 24),
     "a constant cannot read the outcome 'total'"),
    ("outcome twice: int = total * 2\naction go() { total = 1 }\n", (5, 22),
     "a constant cannot read the outcome 'total'"),
    ("action go(k: int = tally_of()) { total = k }\n", (5, 20),
     "a constant cannot read the outcome 'total' (through 'tally_of', which reads it)"),
    ("action go(p: piece = {}) require p.hp < tally_of() { total = 1 }\n", (5, 41),
     "a constraint cannot read the outcome 'total' (through 'tally_of', which reads it)"),
])
def test_a_default_or_require_that_reads_an_outcome_is_refused_by_the_checker(text, place, message):
    d = only(SMALL + text)
    assert ((d.line, d.column), d.message) == (place, message)


def test_unknown_builtin_suggests_a_close_one():
    d = only(BASE + "action hit(target: unit) {\n    lost = lethel(bodies(1, 1))\n}\n")
    assert d.message == "unknown function 'lethel'"
    assert d.hint == "did you mean 'lethal'?"


def test_distribution_functions_belong_in_examples():
    d = only(BASE + "action hit(target: unit) {\n    lost = mean(1)\n}\n")
    assert "belongs in an example's 'expect'" in d.message


def test_a_distribution_function_inside_another_is_refused_at_the_inner_one():
    d = only(BASE + 'action hit(target: unit) { lost = 1 }\nexample "X-02 nested" {\n'
                    '    run hit(target: {type: rifleman})\n    expect prob(lost > 0 and always(lost > 0)) == 1\n}\n')
    assert (d.line, d.column) == (13, 30) and d.message.startswith("'always' inside 'prob': each reads a whole")


def test_distribution_functions_side_by_side_in_one_expect_are_one_expectation():
    dsl.loads(BASE + 'action hit(target: unit) { lost = 1 }\nexample "X-02 side by side" {\n'
                '    run hit(target: {type: rifleman})\n    expect prob(lost > 0) == 1 and always(lost > 0)\n}\n',
              "t.rules")


def test_an_example_without_expectations_is_an_error():
    d = only(BASE + 'action hit(target: unit) { lost = 1 }\nexample "X-01 nothing" { run hit(target: {type: rifleman}) }\n')
    assert d.message == "example 'X-01 nothing' expects nothing"


def test_every_problem_is_reported_not_just_the_first():
    found = problems(BASE + "unit_type a { figures x hitpoints 1 }\nunit_type b { figures 1 hitpoints true }\n")
    assert [d.line for d in found] == [10, 11]


def test_declaring_a_name_twice_points_at_the_first():
    d = only(BASE + "param bonus = 2\n")
    assert d.message == "'bonus' is declared twice"
    assert d.hint == "the first is at line 9"


def test_formatted_diagnostic_shows_line_and_caret():
    d = only(BASE + "unit_type gunner { figures 3  hitpoints 2  firerate 3 }\n")
    text = d.format()
    assert text.splitlines()[0] == "broken.rules:10:44: error: unknown field 'firerate' of kind 'unit_type'"
    assert text.splitlines()[1].endswith("unit_type gunner { figures 3  hitpoints 2  firerate 3 }")
    caret = text.splitlines()[2]
    assert caret.index("^") == text.splitlines()[1].index("firerate")
    assert caret.count("~") == len("firerate") - 1


def test_missing_file_is_a_diagnostic_not_a_traceback(tmp_path):
    with pytest.raises(RulesError) as caught:
        dsl.load(tmp_path / "nothing.rules")
    assert caught.value.diagnostics[0].message == "no such file"


def test_binary_file_is_a_diagnostic(tmp_path):
    path = tmp_path / "x.rules"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(RulesError) as caught:
        dsl.load(path)
    assert caught.value.diagnostics[0].message.startswith("not UTF-8 text")


def test_a_parameter_that_reads_a_later_one_is_told_to_declare_it_first():
    d = only(BASE + "param first: int = second + 1\nparam second: int = 2\n")
    assert (d.line, d.column) == (10, 20)
    assert d.message == "'first' reads 'second', which is set after it"
    assert d.hint == "parameters, then choices, are set in the order written: declare 'second' first"


def test_a_parameter_that_reads_a_choice_is_told_that_parameters_come_first():
    d = only(BASE + "choice early: bool = false \"early\"\nparam first: int = if early then 1 else 2\n")
    assert d.message == "'first' reads 'early', which is set after it"
    assert d.hint == "every parameter is set before the choices: read 'early' where 'first' is used, in a step or fn"


def test_a_parameter_that_reads_itself_is_an_error():
    d = only(BASE + "param loop: int = loop + 1\n")
    assert (d.line, d.column) == (10, 19)
    assert d.message == "'loop' reads itself"


def test_a_parameter_may_read_an_earlier_one_and_a_comprehension_its_own_names():
    rules = dsl.loads(BASE + "param twice = bonus * 2\nparam items = [later for later in [1, 2]]\nparam later = 3\n",
                      "fine.rules")
    assert {"twice", "items", "later"} <= set(rules.params)


def test_an_outcome_may_not_take_the_name_every_resolution_uses_for_why_it_stopped():
    found = problems(BASE + 'outcome stopped: text = ""\n')
    assert (found[0].line, found[0].message) == (
        10, "'stopped' is kept for why a resolution stopped, which every resolution reports")


def test_an_action_s_input_or_local_may_not_take_that_name_but_a_step_s_local_may():
    found = problems(BASE + "outcome r: int = 0\naction go(stopped: int) { r = stopped }\n"
                     "action again() { let stopped = 3 r = stopped }\nstep s() { let stopped = 1 r = stopped }\n")
    kept = "'stopped' is kept for why a resolution stopped, which every resolution reports"
    assert [(d.line, d.message) for d in found] == [(11, kept), (12, kept)]


def test_a_statement_after_one_that_always_leaves_its_block_is_warned_of_as_never_run():
    rules = dsl.loads(BASE + 'outcome r: int = 0\nstep s(): int {\n    return 3\n    r += 5\n}\n'
                      'action go() {\n    let v = s()\n    if v > 1 { stop "done" } else { return }\n    r = 2\n}\n',
                      "dead.rules")
    found = [(d.line, d.severity, d.message) for d in rules.warnings if "is never set" not in d.message]
    never = "this never runs: the statement before it leaves the block on every way through it"
    assert found == [(13, "warning", never), (18, "warning", never)]


def test_a_byte_order_mark_at_the_start_of_a_file_is_not_read_as_text(tmp_path):
    path = tmp_path / "bom.rules"
    path.write_bytes(b"\xef\xbb\xbf" + BASE.encode())
    assert "lost" in dsl.load(path).outcomes


# ---- each mistake reported once, where it was made

def test_a_number_with_an_exponent_is_shown_where_written_not_on_the_next_line():
    d = only(BASE + "param big = 1e400\noutcome won: bool = false\n")
    assert (d.line, d.column, d.width) == (10, 13, 5)
    assert d.message == "'1e400': numbers are not written with an exponent"
    assert d.hint == "write the number in full, or as a fraction (1/1000)"  # 401 digits: not shown


@pytest.mark.parametrize("written, shown", [("2.5e-3", "0.0025"), ("1e3", "1000"), ("1.5E+2", "150")])
def test_a_number_with_an_exponent_is_marked_whole_and_the_hint_writes_it_in_full(written, shown):
    d = only(f"param small = {written}\n")
    assert (d.column, d.width, d.message) == (15, len(written), f"'{written}': numbers are not written with an exponent")
    assert d.hint == f"write it in full: {shown}"


def test_a_number_run_into_a_name_is_shown_where_written():
    d = only(BASE + "action hit(target: unit) {\n    lost = 3target\n}\n")
    assert (d.line, d.column) == (11, 12)
    assert d.message == "the number 3 runs into the name 'target'"


@pytest.mark.parametrize("declared, column, message, example", [
    ("outcome lost: int", 18, "an outcome starts from the value it has where no rule sets it", "outcome lost: int = 0"),
    ("outcome seen: list of text", 27, "an outcome starts from the value it has where no rule sets it",
     "outcome seen: list of text = []"),
    ("param bonus: int", 17, "a parameter is given its value where it is declared (a scenario or --set may change it)",
     "param bonus: int = 0"),
    ("choice charge: bool", 20, "a choice is given the option taken where none is made", "choice charge: bool = false"),
    ("choice mood: ground", 20, "a choice is given the option taken where none is made", "choice mood: ground = OPTION"),
    ("outcome left: int?", 19, "an outcome starts from the value it has where no rule sets it",
     "outcome left: int? = none"),
])
def test_a_declaration_without_its_value_is_shown_at_its_end_not_at_the_next_one(declared, column, message, example):
    d = only(f"enum ground {{ open rough }}\n{declared}\naction go() {{ }}\n")
    name = declared.split()[1].rstrip(":")
    assert (d.line, d.column, d.message) == (2, column, f"'{name}' has no value: {message}")
    assert d.hint == f"write '= value' after it, as in {example}"


def test_a_declaration_without_its_value_at_the_end_of_the_file_is_shown_there_too():
    d = only("outcome lost: int")
    assert (d.line, d.column, d.message[:20]) == (1, 18, "'lost' has no value:")


@pytest.mark.parametrize("index", ["1:", "i:j", "1:2"])
def test_a_slice_is_told_that_lists_have_none(index):
    d = only(f"outcome n: int = 0\naction go() {{\n    let xs = [1, 2, 3]\n    n = len(xs[{index}])\n}}\n")
    assert (d.line, d.column) == (4, 16 + index.index(":"))
    assert d.message == "fracas has no slices: a list is indexed by one number"


def test_an_if_left_open_is_shown_at_its_brace_not_at_the_next_declaration():
    d = only(BASE + "action hit(target: unit) {\n    if target.figures > 1 {\n        lost = 2\n\n"
                    "    lost = 3\n}\n\nfn double(x: int) = x * 2\n")
    assert (d.line, d.column) == (11, 27)
    assert d.message == "the block opened here is not closed"
    assert d.hint == "'fn' at line 17 is still inside it; add the '}' that ends it"


def test_of_two_blocks_left_open_the_one_whose_closing_brace_is_out_of_line_is_shown():
    d = only(BASE + "action hit(target: unit) {\n    if true {\n        if false {\n            lost = 1\n"
                    "    }\n}\naction again() { lost = 2 }\n")
    assert (d.line, d.column) == (12, 18)
    assert d.hint == "'action' at line 16 is still inside it; add the '}' that ends it"


def test_a_reserved_word_in_a_block_that_is_closed_is_still_said_to_be_reserved():
    d = only(BASE + "kind piece {\n    size: int = 1\n    then int\n}\n")
    assert (d.line, d.column) == (12, 5)
    assert d.message == "'then' is a reserved word of the language and cannot be a name here"


@pytest.mark.parametrize("body", ["if true { lost = 1 } else { lost = 2 } else { lost = 3 }",
                                  "lost = 1 else { lost = 2 }"], ids=["a second else", "an else after a statement"])
def test_an_else_with_no_if_before_it_is_said_so(body):
    d = only(BASE + f"action hit() {{ {body} }}\n")
    assert d.message == "an 'else' with no 'if' before it" and "if c { ... } else { ... }" in d.hint
    assert d.source_line[d.column - 1:].startswith("else")


def test_a_single_equals_where_a_comparison_belongs_hints_at_double_equals():
    d = only(BASE + 'action hit() { lost = 1 }\nexample "E" { run hit()  expect lost = 1 }\n')
    assert d.message == "unexpected '='" and "write '=='" in d.hint


def test_a_text_left_open_is_said_so_at_its_quote():
    d = only(BASE + 'action hit() { lost = 1 }\nexample "never closed { run hit()  expect lost == 1 }\n')
    assert d.message == "this text is not closed" and d.source_line[d.column - 1] == '"'


@pytest.mark.parametrize("statement", [
    "lost = frobnicate(3) / 2",
    "lost = max(frobnicate(3), 1)",
    "let x = frobnicate(3) / 2\n    lost = x + 1",
    "if frobnicate(3) > 1 { lost = 1 }",
    "lost = frobnicate(3).figures * 2",
])
def test_an_unknown_function_is_one_error_not_a_cascade(statement):
    d = only(BASE + "action hit(target: unit) {\n    " + statement + "\n}\n")
    assert (d.line, d.message) == (11, "unknown function 'frobnicate'")


def test_an_unknown_name_is_one_error_not_a_cascade():
    d = only(BASE + "action hit(target: unit) {\n    lost = bonuss / 2\n}\n")
    assert (d.line, d.column, d.message, d.hint) == (11, 12, "unknown name 'bonuss'", "did you mean 'bonus'?")


def test_a_type_error_beside_an_unknown_function_is_still_reported():
    found = problems(BASE + "action hit(target: unit) {\n    lost = frobnicate(3)\n    lost = 1 / 2\n}\n")
    assert [(d.line, d.message) for d in found] == [(11, "unknown function 'frobnicate'"),
                                                     (12, "expected int, found number")]


def test_control_characters_are_escaped_and_the_caret_still_points_at_its_column():
    d = dsl.Diagnostic("s.toml", 2, 10, "unknown row '\x1b[31m'", "", 'type = "\x00\x1b[31m"', 5)
    assert d.format() == ("s.toml:2:10: error: unknown row '\\x1b[31m'\n"
                          '    2 | type = "\\x00\\x1b[31m"\n'
                          "      |             ^~~~~~~~\n")[:-1]


def test_printable_keeps_tabs_and_newlines_unless_asked_for_one_line():
    assert printable("a\tb\nc\rd\u202ee\x7f") == "a\tb\nc\\x0dd\\u202ee\\x7f"
    assert printable("a\nb", lines=False) == "a\\x0ab"


def test_an_example_setting_an_unknown_name_is_shown_at_the_name():
    with pytest.raises(RulesError) as caught:
        dsl.loads('outcome r: int = 0\naction a() { r = 1 }\nexample "g" { set nosuch = 1 run a() expect r == 1 }\n',
                  "ex.rules")
    (d,) = caught.value.diagnostics
    assert (d.line, d.column, d.message) == (3, 19, "unknown parameter or choice 'nosuch'")


def test_the_line_shown_is_the_line_the_parser_counts_whatever_a_comment_holds():
    # A form feed, U+0085 and U+2028 end a line for str.splitlines, not for the parser.
    d = only('rules "x" # a\u2028b\x85c\x0cd\nparam a = 1\nparam b = c\n')
    assert (d.line, d.column, d.source_line) == (3, 11, "param b = c")


def test_the_line_shown_of_a_file_with_crlf_ends_has_no_carriage_return():
    d = only("param a = 1\r\nparam b = c\r\n")
    assert (d.line, d.source_line) == (2, "param b = c")


def test_an_unknown_escape_in_a_text_is_marked_at_its_backslash():
    d = only('outcome t: text = ""\naction go() { t = "a\\qb" }\n')
    assert (d.line, d.column, d.message) == (2, 21, "unknown escape '\\q' in a text")
    assert d.hint == 'a text knows \\n (a new line), \\t (a tab), \\" and \\\\ (a backslash)'


def test_a_custom_die_of_no_faces_is_a_checker_error_at_its_faces():
    d = only("outcome r: int = 0\naction go() { r = custom_dice(2, []) }\n")
    assert (d.line, d.column, d.message) == (2, 34, "a die needs at least one face")


def test_a_table_key_of_a_kind_that_has_no_rows_says_there_is_none():
    d = only("enum ground { open rough }\nkind piece_type { size: int }\n"
             "table speed(piece_type, ground): int default 0 {\n    [open rough]\n    knight 5 1\n}\n")
    assert d.message == "'knight' is not a piece_type" and d.hint == "there is no piece_type row"


@pytest.mark.parametrize("header, misspelt", [("unit_typ, ground", "unit_typ"), ("unit_type, grund", "grund")])
def test_an_unknown_kind_of_a_table_is_underlined_where_it_is_written(header, misspelt):
    text = ("kind unit_type { figures: int }\nenum ground { open rough }\nunit_type gunner { figures 1 }\n"
            f"table unit_types({header}): int default 0 {{\n         [open rough]\n  gunner   1    2\n}}\n")
    with pytest.raises(RulesError) as caught:
        dsl.loads(text, "t.rules")
    d = caught.value.diagnostics[0]
    assert d.message.startswith(f"unknown kind '{misspelt}'")
    assert d.source_line[d.column - 1:].startswith(misspelt + ")" if misspelt == "grund" else misspelt + ",")


@pytest.mark.parametrize("line, p, shown", [("lost = trials(3, 3/2)", "3/2", "3/2"),
                                            ("if chance(-0.5) { lost = 1 }", "-0.5", "-1/2"),
                                            ("if chance(1 - 1/6 + 1) { lost = 1 }", "1 - 1/6 + 1", "11/6")])
def test_a_probability_written_out_of_0_to_1_is_refused_by_check(line, p, shown):
    text = f"action go() {{ {line} }}"
    d = only(BASE + text + "\n")
    assert (d.line, d.column) == (10, text.index(p) + 1)
    assert d.message == f"a probability must be between 0 and 1, not {shown}"
    assert d.hint == "clamp it with clamp(p, 0, 1) if the rules say so"


def test_a_probability_written_within_0_to_1_or_read_from_a_parameter_passes_check():
    rules = dsl.loads(BASE + "action go() { lost = trials(3, 1/2) + trials(2, bonus / 2) + trials(1, 1) }\n")
    assert "go" in rules.actions


def test_the_mean_of_a_truth_is_told_to_be_its_prob():
    d = only(BASE + 'outcome hit: bool = false\naction go() { hit = chance(1/2) }\n'
                    'example "X-01 a mean of a truth" {\n    run go()\n    expect mean(hit) == 1/2\n}\n')
    assert (d.line, d.message) == (14, "expected number, found bool")
    assert d.hint == "a truth counts for no number: how often it holds is prob(hit)"


@pytest.mark.parametrize("test, hint", [
    ("tackel in skills", "did you mean 'tackle'?"),
    ("skills[0] == tackel", "did you mean 'tackle'?"),
    ("dodje != skills[0]", "did you mean 'dodge'?"),
])
def test_an_unknown_name_compared_with_an_enum_s_value_is_told_the_values_it_may_mean(test, hint):
    d = only("enum skill { block dodge tackle }\noutcome ok: bool = false\n"
             f"action go(skills: list of skill = [block]) {{ ok = {test} }}\n")
    assert d.message.startswith("unknown name '") and d.hint == hint


def test_an_unknown_name_no_enum_value_is_close_to_is_told_every_value():
    d = only("enum skill { block dodge }\noutcome ok: bool = false\n"
             "action go(skills: list of skill = []) { ok = tackel in skills }\n")
    assert (d.message, d.hint) == ("unknown name 'tackel'", "the values of skill are: block, dodge")


@pytest.mark.parametrize("written, hint", [("None", "write none"), ("wantd", "did you mean 'wanted'?")])
def test_an_unknown_name_compared_with_an_enum_keeps_the_hint_its_name_gives(written, hint):
    d = only("enum skill { block dodge }\nkind c { k: skill? = none }\noutcome r: bool = false\n"
             f"action go(x: c, wanted: skill) {{ r = x.k == {written} }}\n")
    assert (d.message, d.hint) == (f"unknown name '{written}'", hint)


def test_an_outcome_named_as_an_enum_s_value_is_told_once_with_what_the_first_is():
    d = only(BASE + "enum hand { seventeen bust }\noutcome bust: bool = false\noutcome final: hand = seventeen\n"
                    "action deal() {\n    bust = true\n    final = if bust then bust else seventeen\n}\n")
    assert d.message == "'bust' is declared twice"
    assert d.hint == "the first, at line 10, is a value of hand: one of the two needs another name"


def test_a_name_declared_twice_as_the_same_thing_keeps_its_short_hint():
    d = only(BASE + "outcome lost: int = 0\n")
    assert (d.message, d.hint) == ("'lost' is declared twice", "the first is at line 8")


def test_a_length_read_as_a_field_of_a_list_is_told_len():
    d = only(BASE + "fn count_of(xs: list of int) = xs.length\n")
    assert (d.message, d.hint) == ("a list of int has no field 'length'", "len(...) counts the items")


@pytest.mark.parametrize("line", ['    result = "retreat"', '    result = if true then "retreat" else hold',
                                  '    flag = result == "retreat"'])
def test_an_enum_value_written_in_quotes_is_told_to_lose_them(line):
    d = only(BASE + "enum stance { hold retreat }\noutcome result: stance = hold\noutcome flag: bool = false\n"
                    f"action go() {{\n{line}\n}}\n")
    assert d.hint == "'retreat' is a value of stance: write it without quotes, retreat"


def test_a_text_added_to_the_value_of_a_fn_that_calls_itself_is_refused_by_check():
    d = only(BASE + 'fn f(n: int) = if n <= 0 then 0 else f(n - 1) + "a"\naction go() { lost = f(1) }\n')
    assert d.message == "cannot add any and text"


def test_what_is_written_to_a_name_declared_twice_is_still_checked():
    found = problems(BASE + "enum colour { red blue }\noutcome red: int = 0\naction go() {\n    red = nosuch + 1\n}\n")
    assert [d.message for d in found] == ["'red' is declared twice", "unknown name 'nosuch'"]


def test_a_call_of_a_step_named_as_an_enum_s_value_is_told_once():
    found = problems(BASE + "enum pace { slow fast }\nstep fast(n: int): int { return n + 1 }\n"
                            "action go() {\n    let f = fast(1)\n    fast(2)\n}\n")
    assert [d.message for d in found] == ["'fast' is declared twice"]


def test_values_of_an_enum_compared_for_order_are_told_to_rank_them_by_a_field():
    d = only(BASE + "enum level { failure hard }\naction rank_them(a: level = hard) { lost = if a > failure then 1 else 0 }\n")
    assert d.message == "'>' compares numbers, not level and level"
    assert d.hint.startswith("the values of level have no order: give the kind a number to compare")
    assert d.hint.endswith("and compare a.rank > failure.rank")
