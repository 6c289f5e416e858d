"""`fracas diff` tells each change of a variant by what it changes, however the source is laid out.

A statement, a require or a term is compared by its syntax, all of it, not
by the first line of its text: a change on a second line is a change, a
change of spaces is none, and a statement moved into a block is a change
even where its text is the same.
"""

from __future__ import annotations

import json

from fracas.interpreter.tools.cli import main


def details(tmp_path, capsys, base: str, variant: str) -> dict[tuple[str, str, str], list[str]]:
    (tmp_path / "base.rules").write_text(base)
    (tmp_path / "variant.rules").write_text('extends "base.rules"\n' + variant)
    assert main(["diff", str(tmp_path / "base.rules"), str(tmp_path / "variant.rules"), "--json"]) == 0
    return {(c["change"], c["category"], c["name"]): c["details"] for c in json.loads(capsys.readouterr().out)}


ACTION = ("outcome result: int = 0\naction go(n: int = 2) {\n    result = max(1,\n                 2)\n"
          "    result += n\n}\n")


def test_a_change_on_the_second_line_of_a_statement_is_told_and_a_change_of_spaces_is_not(tmp_path, capsys):
    variant = "override action go(n: int = 2) {\n    result = max(1,\n                 5)\n    result  +=  n\n}\n"
    assert details(tmp_path, capsys, ACTION, variant) == {
        ("changed", "action", "go"): ["line 3: result = max(1, 2) -> result = max(1, 5)"]}


def test_a_layout_changed_alone_is_no_change(tmp_path, capsys):
    variant = "override action go(n: int = 2) { result = max(1, 2)\n result += n }\n"
    assert details(tmp_path, capsys, ACTION, variant) == {}


def test_a_statement_moved_into_a_block_is_told_as_moved(tmp_path, capsys):
    base = ("outcome result: int = 0\naction go(n: int = 0) {\n    if n > 1 {\n        result += 1\n    }\n"
            "    result += 10\n}\n")
    variant = "override action go(n: int = 0) {\n    if n > 1 {\n        result += 1\n        result += 10\n    }\n}\n"
    assert details(tmp_path, capsys, base, variant) == {
        ("changed", "action", "go"): ["line 5: result += 10 (moved into a block)"]}


def test_an_input_s_default_and_bounds_are_told(tmp_path, capsys):
    variant = "override action go(n: int in 0..3 = 3) {\n    result = max(1,\n                 2)\n    result += n\n}\n"
    assert details(tmp_path, capsys, ACTION, variant) == {
        ("changed", "action", "go"): ["input n: int = 2 -> int in 0..3 = 3"]}


def test_a_parameter_added_to_a_fn_and_its_value_changed_are_told(tmp_path, capsys):
    base = "outcome o: int = 0\nfn f(a: int) = a + 1\naction go() { o = f(1) }\n"
    variant = "override fn f(a: int, b: int = 2) = a + b\n"
    assert details(tmp_path, capsys, base, variant) == {
        ("changed", "fn", "f"): ["parameter b: (added) -> int = 2", "value: a + 1 -> a + b"]}


def test_a_require_added_whose_first_line_is_another_s_is_added_not_reworded(tmp_path, capsys):
    base = "param p = 1\nparam q = 2\nrequire p >= 0 and\n        q >= 0 \"both non-negative\"\noutcome o: int = 0\n" \
           "action go() { o = p + q }\n"
    variant = "require p >= 0 and\n        q <= 10 \"q at most 10\"\n"
    assert details(tmp_path, capsys, base, variant) == {("added", "require", "p >= 0 and q <= 10"): []}


def test_a_fire_whose_damage_and_allocation_change_tells_both(tmp_path, capsys):
    base = "outcome lost: int = 0\naction go() {\n    lost = lethal(fire(volley(3, damage: 1), bodies(2, 2)))\n}\n"
    variant = ('override action go() {\n'
               '    lost = lethal(fire(volley(3, damage: 2), bodies(2, 2), allocate: "focused"))\n}\n')
    found = details(tmp_path, capsys, base, variant)[("changed", "action", "go")]
    assert found[0].startswith("line 3: lost = lethal(fire(volley(3, damage: 1)") and "damage: 2" in found[0]
    assert found[1] == 'fire at line 3: allocate (unwritten: "random") -> "focused"'


def test_a_modifier_s_term_changed_is_told_by_its_line(tmp_path, capsys):
    base = "modifier m(v: int) { add 1\n multiply 2 }\noutcome o: int = 0\naction go() { o = m(1) }\n"
    variant = "override modifier m(v: int) { add 1\n multiply 3 }\n"
    assert details(tmp_path, capsys, base, variant) == {
        ("changed", "modifier", "m"): ["line 3: multiply 2 -> multiply 3"]}


KIND = 'kind piece { health: int = 3  require health >= 0 "not negative" }\noutcome o: int = 0\naction go(p: piece) { o = 1 }\n'


def test_a_require_an_overridden_kind_adds_on_what_its_base_requires_is_added_not_a_rewording(tmp_path, capsys):
    variant = 'override kind piece { require health >= 0 "nonneg" }\n'
    assert details(tmp_path, capsys, KIND, variant) == {("changed", "kind", "piece"): ["require health >= 0: (added)"]}


def test_a_require_an_overridden_kind_writes_again_word_for_word_is_added_too(tmp_path, capsys):
    variant = 'override kind piece { require health >= 0 "not negative" }\n'
    assert details(tmp_path, capsys, KIND, variant) == {("changed", "kind", "piece"): ["require health >= 0: (added)"]}


def test_an_overridden_action_s_require_in_other_words_is_reworded(tmp_path, capsys):
    base = 'outcome o: int = 0\naction go(n: int = 1) require n > 0 "positive" { o = n }\n'
    variant = 'override action go(n: int = 1) require n > 0 "more than none" { o = n }\n'
    assert details(tmp_path, capsys, base, variant) == {
        ("changed", "action", "go"): ['require n > 0: "positive" -> "more than none"']}


TABLE = """enum ground { open forest hill }
enum role { foot horse }
table cover(ground, role): int default 0 {
            [foot  horse]
    forest      1      0
    hill        2      1
}
outcome r: int = 0
action go() { r = cover[forest, foot] }
"""


def test_a_table_overridden_tells_each_cell_changed_by_its_row_and_column(tmp_path, capsys):
    variant = ("override table cover(ground, role): int default 1 {\n            [foot  horse]\n"
               "    forest      2      0\n    open        1      1\n}\n")
    assert details(tmp_path, capsys, TABLE, variant) == {("changed", "table", "cover"): [
        "default: 0 -> 1", "forest, foot: 1 -> 2", "hill, foot: 2 -> (unwritten)", "hill, horse: 1 -> (unwritten)",
        "open, foot: (unwritten) -> 1", "open, horse: (unwritten) -> 1"]}


def test_a_table_laid_out_anew_with_the_same_cells_is_no_change(tmp_path, capsys):
    variant = ("override table cover(ground, role): int default 0 {\n  [foot horse]\n"
               "    forest 1 0\n    hill   2 1\n}\n")
    assert details(tmp_path, capsys, TABLE, variant) == {}
