"""`fracas fmt`: one canonical layout, reached by changing whitespace only."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import fracas.dsl.format
from fracas.dsl.diagnostics import RulesError
from fracas.dsl.format import format_text
from fracas.dsl.parse import parse
from fracas.interpreter.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted((ROOT / "rules").rglob("*.rules"))
LANGUAGE_BLOCKS = [block.split("\n", 1)[1] for block in
                   (ROOT / "grammars" / "language.md").read_text().split("```")[1::2] if block.startswith("fracas\n")]


def fmt(text: str) -> str:
    return format_text(text, "t.rules")


@pytest.mark.parametrize("path", SHIPPED, ids=[p.name for p in SHIPPED])
def test_every_shipped_rules_file_is_formatted(path):
    text = path.read_text()
    assert fmt(text) == text, f"run: fracas fmt {path.relative_to(ROOT)}"


@pytest.mark.parametrize("path", SHIPPED, ids=[p.name for p in SHIPPED])
def test_formatting_a_shipped_file_written_carelessly_gives_it_back(path):
    # Every run of spaces made wider, blank lines doubled, and the indentation lost.
    text = path.read_text()
    careless = "\n".join(re.sub(r"(?<=\S) (?=\S)", "   ", line.strip()) if not line.lstrip().startswith("#")
                         else line.strip() for line in text.splitlines()).replace("\n\n", "\n\n\n")
    careless = re.sub(r'"[^"\n]*"', lambda m: m.group(0).replace("   ", " "), careless)  # texts as they were
    careless = re.sub(r"#[^\n]*", lambda m: m.group(0).replace("   ", " "), careless)  # comments too
    # and forced rolls' gaps, which group them (a wider gap is kept, as three spaces)
    careless = re.sub(r"rolls +\[[^]]*\]", lambda m: re.sub(r", +", ", ", m.group(0)), careless)
    assert fmt(careless) == text


@pytest.mark.parametrize("text", LANGUAGE_BLOCKS, ids=range(len(LANGUAGE_BLOCKS)))
def test_formatting_keeps_the_meaning_of_every_language_reference_example(text):
    try:
        before = parse(text, "t.rules")
    except RulesError:
        pytest.skip("a block that shows an error")
    formatted = fmt(text)
    assert parse(formatted, "t.rules") == before
    assert fmt(formatted) == formatted


def test_forced_rolls_keep_their_groups_three_spaces_apart_and_single_spaces_single():
    text = 'outcome x: int = 0\naction a() { x = 1 }\nexample "E-1 x" {\n    run a()\n    rolls [1,2,    3,  4 ,5]\n}\n'
    assert "    rolls [1, 2,   3,   4, 5]\n" in fmt(text)


def test_a_gap_before_the_closing_bracket_of_forced_rolls_groups_nothing():
    text = 'outcome x: int = 0\naction a() { x = 1 }\nexample "E-1 x" {\n    run a()\n    rolls [1, 2,  ]\n}\n'
    assert "    rolls [1, 2,]\n" in fmt(text)


def test_a_wider_gap_in_any_other_list_is_one_space():
    assert "x = [1, 2, 3]" in fmt("outcome x: list of int = []\naction a() { x = [1,   2,    3] }\n")


@pytest.mark.parametrize("text", LANGUAGE_BLOCKS, ids=range(len(LANGUAGE_BLOCKS)))
def test_every_language_reference_example_is_laid_out_as_fmt_lays_it_out(text):
    # A designer who copies an example and runs fracas fmt sees no change.
    try:
        parse(text, "t.rules")
    except RulesError:
        pytest.skip("a block that shows an error")
    assert fmt(text) == text


def test_formatting_is_idempotent_on_a_file_written_every_which_way():
    text = ('rules "x"\nkind   u{a:int=1 b : list of u ?}\n  u  x{a 1,b[ ] }\nfn f( a:int ,b:int )= ( a+b )*-2\n'
            'step s(q:u){if q.a>1{stop "no"}\nelse{q.a-=1}}\n')
    once = fmt(text)
    assert fmt(once) == once


def test_spaces_between_tokens_are_canonical():
    assert fmt("fn f( a:int ,b:int )= ( a+b )*-2\n") == "fn f(a: int, b: int) = (a + b) * -2\n"
    assert fmt("fn f(x: list of int) = x [ 0 ] + len( [1,2] )\n") == "fn f(x: list of int) = x[0] + len([1, 2])\n"


def test_a_fraction_of_two_numbers_stays_tight_and_other_divisions_are_spaced():
    assert fmt("fn f(x: int) = 1 / 2 + x/2\n") == "fn f(x: int) = 1/2 + x / 2\n"


def test_a_block_over_several_lines_has_one_item_a_line_indented_four_spaces():
    text = "kind u { a: int\n  b: int }\nstep s(x: u) { x.a = 1  x.b = 2\n}\n"
    assert fmt(text) == "kind u {\n    a: int\n    b: int\n}\nstep s(x: u) {\n    x.a = 1\n    x.b = 2\n}\n"


def test_a_block_on_one_line_stays_on_one_line_its_items_two_spaces_apart():
    assert fmt("kind hex {q: int r: int}\n") == "kind hex { q: int  r: int }\n"


def test_else_shares_the_line_of_the_brace_it_follows():
    text = "step s(x: int) {\nif x > 1 {\nstop\n}\nelse\nif x > 0 {\nreturn\n}\n}\n"
    assert fmt(text) == "step s(x: int) {\n    if x > 1 {\n        stop\n    } else if x > 0 {\n        return\n    }\n}\n"


def test_a_continuation_lines_up_after_the_bracket_left_open():
    text = "fn f(a: int,\n b: int) = max(a,\n b)\n"
    assert fmt(text) == "fn f(a: int,\n     b: int) = max(a,\n                   b)\n"


def test_a_continuation_lines_up_with_the_value_after_an_equals_sign():
    text = "step s(x: int) {\n    let y = if x > 1 then 1\n  else 2\n}\n"
    assert fmt(text) == "step s(x: int) {\n    let y = if x > 1 then 1\n            else 2\n}\n"


def test_a_continuation_lines_up_with_the_value_after_return():
    text = "step s(x: int): int {\n    return if x > 1 then 1\n  else 2\n}\n"
    assert fmt(text) == "step s(x: int): int {\n    return if x > 1 then 1\n           else 2\n}\n"


def test_the_type_a_fn_or_step_gives_follows_its_parameters_after_a_colon():
    text = "fn f(x:int):int{\nreturn x}\nstep s( ) : list of int {\nreturn [1]}\n"
    assert fmt(text) == ("fn f(x: int): int {\n    return x\n}\nstep s(): list of int {\n    return [1]\n}\n")


def test_a_continuation_hangs_four_spaces_deeper_when_nothing_follows_what_opened_it():
    text = "fn f(a: int) =\nif a > 1\nthen 1\nelse [\n1,\n2]\n"
    assert fmt(text) == "fn f(a: int) =\n    if a > 1\n    then 1\n    else [\n        1,\n        2]\n"


def test_rows_of_a_kind_line_up_their_names_and_fields():
    text = ("kind t { s: int = 0  h: int = 1  p: int = 0 }\n"
            "t forest {s 5 h 1}\nt city {s 5 h 100 p 5}\nt dirt { }\nt x {p 1}\n")
    assert fmt(text) == ("kind t { s: int = 0  h: int = 1  p: int = 0 }\n"
                         "t forest { s 5  h 1 }\n"
                         "t city   { s 5  h 100  p 5 }\n"
                         "t dirt   { }\n"
                         "t x      { p 1 }\n")


def test_a_field_lines_up_only_under_rows_that_agree_on_the_fields_before_it():
    text = "kind t { a: int = 0  b: int = 0  c: int = 0 }\nt x { a 100 b 1 }\nt y { a 1 c 1 }\nt z { b 1 c 1 }\n"
    assert fmt(text) == ("kind t { a: int = 0  b: int = 0  c: int = 0 }\n"
                         "t x { a 100  b 1 }\n"
                         "t y { a 1    c 1 }\n"
                         "t z { b 1  c 1 }\n")


def test_a_table_lines_up_its_columns_numbers_to_the_right():
    text = "table t(a, b): int default 0 {\n[x yy]\nlong_name 1 -20\nr 300 4 # note\n}\n"
    assert fmt(text) == ("table t(a, b): int default 0 {\n"
                         "                 [x   yy]\n"
                         "    long_name     1  -20\n"
                         "    r           300    4  # note\n"
                         "}\n")


def test_comments_and_blank_line_groups_are_kept():
    text = "# head\n\n\n\nparam a = 1 # one\nparam bb = 2     # two\n# about c\n\nparam c = 3\n\n\n"
    assert fmt(text) == "# head\n\nparam a = 1   # one\nparam bb = 2  # two\n# about c\n\nparam c = 3\n"


def test_a_comment_alone_on_its_line_is_indented_as_the_code_after_it():
    text = "kind u {\n# first\na: int\n        # last\n}\n"
    assert fmt(text) == "kind u {\n    # first\n    a: int\n    # last\n}\n"


def test_a_comment_between_a_header_and_its_brace_keeps_them_apart():
    text = "kind u # why\n{ a: int }\n"
    once = fmt(text)
    assert "# why" in once and fmt(once) == once


def test_a_syntax_error_is_reported_where_it_is():
    with pytest.raises(RulesError) as caught:
        fmt("kind u { a: }\n")
    assert caught.value.diagnostics[0].line == 1 and caught.value.diagnostics[0].column == 13


def test_a_table_row_split_over_lines_is_joined_onto_its_keys_line():
    assert fmt("table t(a, b): int {\n[x y]\nr 1\n2\ns 3 4\n}\n") == (
        "table t(a, b): int {\n       [x  y]\n    r   1  2\n    s   3  4\n}\n")


def test_a_table_header_split_over_lines_is_joined():
    assert fmt("table t(int, int): int {\n[1\n2]\n1: 1 2\n}\n") == (
        "table t(int, int): int {\n        [1  2]\n    1:   1  2\n}\n")


def test_a_table_row_split_by_a_comment_is_refused_not_mangled():
    with pytest.raises(RulesError) as caught:
        fmt("table t(a, b): int {\n[x y]\nr 1  # first\n2\n}\n")
    found = caught.value.diagnostics[0]
    assert (found.line, found.column) == (4, 1)
    assert "a comment stands inside this table row" in found.message


def test_a_column_header_split_by_a_comment_is_refused_as_a_header():
    with pytest.raises(RulesError) as caught:
        fmt("table t(int, int): int {\n[1  # first\n2]\n1: 3 4\n}\n")
    assert "a comment stands inside this table column header" in caught.value.diagnostics[0].message


def test_a_row_key_of_a_table_on_one_line_loses_the_space_before_its_colon():
    assert fmt("table t(int, int): int { [1 2] 1 : 3 4 }\n") == "table t(int, int): int { [1 2]  1: 3 4 }\n"


def test_a_row_key_loses_the_space_before_its_colon():
    assert fmt("enum e { A }\ntable t(int, int): e {\n[1]\n1 :  A\n}\n") == (
        "enum e { A }\ntable t(int, int): e {\n        [1]\n    1:   A\n}\n")


def test_braces_of_a_construct_the_formatter_does_not_know_are_refused(monkeypatch):
    # What a new construct of the grammar looks like to a formatter not yet taught it.
    monkeypatch.setattr(fracas.dsl.format, "BLOCKS", fracas.dsl.format.BLOCKS - {"kind_decl"})
    with pytest.raises(RulesError) as caught:
        fmt("param a = 1\nkind u { a: int }\n")
    found = caught.value.diagnostics[0]
    assert (found.line, found.column) == (2, 8)
    assert "does not know how to lay out the braces of 'kind_decl'" in found.message


# ---- the command ---------------------------------------------------------------------


def test_fmt_rewrites_a_file_and_says_so(tmp_path, capsys):
    path = tmp_path / "a.rules"
    path.write_text("param   a=1\n")
    assert main(["fmt", str(path)]) == 0
    assert path.read_text() == "param a = 1\n"
    assert "1 file formatted, 0 files already formatted" in capsys.readouterr().err


def test_fmt_check_exits_1_with_a_diff_and_writes_nothing(tmp_path, capsys):
    path = tmp_path / "a.rules"
    path.write_text("param   a=1\n")
    assert main(["fmt", "--check", str(path)]) == 1
    out, err = capsys.readouterr()
    assert "-param   a=1\n+param a = 1\n" in out
    assert "1 file would be formatted" in err
    assert path.read_text() == "param   a=1\n"


def test_fmt_check_exits_0_on_formatted_files(capsys):
    assert main(["fmt", "--check", *map(str, SHIPPED)]) == 0
    assert capsys.readouterr().out == ""


def test_fmt_leaves_a_broken_file_as_it_is_and_exits_2(tmp_path, capsys):
    path = tmp_path / "a.rules"
    path.write_text("param a = \n")
    assert main(["fmt", str(path)]) == 2
    assert "a.rules:1:11: error: unexpected end of file" in capsys.readouterr().err
    assert path.read_text() == "param a = \n"


def test_fmt_formats_the_standard_input_to_the_standard_output(monkeypatch, capsys):
    import io

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"param   a=1\r\n")))
    assert main(["fmt", "-"]) == 0
    assert capsys.readouterr().out == "param a = 1\n"


def test_fmt_refuses_a_standard_input_that_is_not_utf_8_as_it_refuses_such_a_file(monkeypatch, capsys):
    import io

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"param a = \xff\n")))
    assert main(["fmt", "-"]) == 2
    assert capsys.readouterr().err.startswith("<stdin>: error: not UTF-8 text (invalid start byte at byte 10)\n")


@pytest.mark.parametrize("path", SHIPPED, ids=[p.name for p in SHIPPED])
def test_line_breaks_put_anywhere_between_tokens_are_laid_out_without_changing_the_meaning(path):
    import random

    rng = random.Random(path.name)
    text = path.read_text()
    # A newline or a few spaces after random commas, operators and brackets, a table's column header's
    # and its rows' keys too (a row over several lines is joined again).
    spots = [tok.end for tok in fracas.dsl.format._tokens(text, "t.rules", fracas.dsl.format.DEFAULT)
             if tok.text in (",", "(", "[", "+", "*", "=", "and", "or") or tok.text.endswith(":")]
    chosen = set(rng.sample(spots, min(40, len(spots))))
    broken = "".join(("\n" if rng.random() < 0.5 else "   ") + char if i in chosen else char
                     for i, char in enumerate(text))
    expected = parse(text, "t.rules")
    formatted = fmt(broken)
    assert parse(formatted, "t.rules") == expected
    assert fmt(formatted) == formatted
