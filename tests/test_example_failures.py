"""An example fails loudly and at its place, never passes by accident.

Forced rolls the run never asks for mean the example fixes other dice than
it thinks; two examples of one title would be one pytest id; a rule that
cannot be carried out names its file, line and column.
"""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest

from fracas import dsl
from fracas.dsl.diagnostics import RulesError
from fracas.interpreter.tools.cli import main
from fracas.interpreter.api import Scenario, forced
from fracas.interpreter.core.errors import ScenarioError
from fracas.interpreter.tools.examples import run_examples
from fracas.interpreter.tools.failures import shown_value

ONE_DIE = """outcome result: int = 0
action go() { result = 1d6 }
"""


def results(text: str) -> list[tuple[bool, str]]:
    return [(r.passed, r.message) for r in run_examples(dsl.loads(text, "t.rules"))]


UNUSED_HINT = (" (hint: the run asked for fewer rolls than these; remove the"
               " extra ones, or check that it runs what the rolls are meant for)")


def test_forced_rolls_left_unused_fail_the_example_and_are_named():
    text = ONE_DIE + 'example "U-01 one die" {\n    run go()\n    rolls [6, 4, 5, 6]\n    expect result == 6\n}\n'
    assert results(text) == [(False, "t.rules:5:15: 3 forced rolls were not used: 4, 5, 6" + UNUSED_HINT)]


def test_one_forced_roll_left_unused_is_said_in_the_singular():
    text = ONE_DIE + 'example "U-02 one die" { run go() rolls [6, 1] expect result == 6 }\n'
    assert results(text) == [(False, "t.rules:3:45: 1 forced roll was not used: 1" + UNUSED_HINT)]


def test_forced_rolls_all_used_pass():
    text = ONE_DIE + 'example "U-03 one die" { run go() rolls [6] expect result == 6 }\n'
    assert results(text) == [(True, "")]


def test_two_examples_with_one_title_are_a_located_error_pointing_to_the_first(capsys, tmp_path):
    rules = tmp_path / "twice.rules"
    rules.write_text(ONE_DIE + 'example "D-01 a die" { run go() expect result >= 1 }\n'
                     + 'example "D-01 a die" { run go() expect result <= 6 }\n')
    assert main(["check", str(rules)]) == 2
    assert capsys.readouterr().err == (
        f'{rules}:4:9: error: a second example titled "D-01 a die"\n'
        '    4 | example "D-01 a die" { run go() expect result <= 6 }\n'
        "      |         ^~~~~~~~~~~~\n"
        "  hint: the first is at line 3; give each example its own title\n"
        "1 error\n")


@pytest.mark.parametrize("title", ["", "   "], ids=["empty", "blank"])
def test_an_example_without_a_name_is_a_checker_error(title):
    with pytest.raises(RulesError) as caught:
        dsl.loads(ONE_DIE + f'example "{title}" {{ run go() expect result >= 1 }}\n', "t.rules")
    assert caught.value.diagnostics[0].message == "an example needs a name"


def test_an_example_named_by_its_id_alone_is_shown_without_a_trailing_space(capsys, tmp_path):
    rules = tmp_path / "id.rules"
    rules.write_text(ONE_DIE + 'example "D-01" { run go() expect result >= 1 }\n')
    assert main(["test", str(rules)]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "PASS D-01"


def test_examples_of_one_id_with_their_own_titles_are_fine():
    text = ONE_DIE + ('example "D-01 a die" { run go() expect result >= 1 }\n'
                      'example "D-01 a die, again" { run go() expect result <= 6 }\n')
    assert [passed for passed, _ in results(text)] == [True, True]


@pytest.mark.parametrize("body, message", [
    ("let xs = [1, 2]\n    result = xs[5]", "t.rules:4:17: index 5 is outside a list of 2"),
    ("result = pick([])", "t.rules:3:14: cannot pick from an empty list"),
])
def test_an_example_whose_run_fails_says_where(body, message):
    text = f'outcome result: int = 0\naction go() {{\n    {body}\n}}\nexample "R-01 runs" {{ run go() expect result == 1 }}\n'
    assert results(text) == [(False, message)]


def test_a_failing_run_is_located_in_the_test_command_too(capsys, tmp_path):
    rules = tmp_path / "r.rules"
    rules.write_text('outcome result: int = 0\naction go() { result = pick([]) }\n'
                     'example "R-02 an empty pick" { run go() expect result == 1 }\n')
    assert main(["test", str(rules)]) == 1
    assert capsys.readouterr().out == (f"FAIL R-02 an empty pick: {rules}:2:24: cannot pick from an empty list\n"
                                       "0 passed, 1 failed\n")


def test_the_checker_still_reports_other_problems_beside_a_duplicate_title():
    with pytest.raises(RulesError) as caught:
        dsl.loads(ONE_DIE + 'example "D-01 a" { run go() expect result >= 1 }\n'
                  + 'example "D-01 a" { run go() expect reslt <= 6 }\n', "t.rules")
    assert [d.message for d in caught.value.diagnostics] == ['a second example titled "D-01 a"',
                                                            "unknown name 'reslt'"]


def test_the_api_refuses_forced_rolls_left_unused_too():
    with pytest.raises(ScenarioError) as caught:
        forced(dsl.loads(ONE_DIE, "t.rules"), Scenario("go", {}), [6, 1])
    assert [d.brief() for d in caught.value.diagnostics] == ["t.rules: 1 forced roll was not used: 1"]


# ---- why an expectation failed: every part and its value, as pytest shows an assert ----

DICE_AND_TRIALS = """outcome lost: int = 0
outcome hits: int = 0
action go() { lost = 1d2  hits = trials(3, 1/2) }
"""


def why(expectation: str, rolls: str = "") -> str:
    text = DICE_AND_TRIALS + f'example "W-01 why" {{\n    run go()\n    {rolls}\n    expect {expectation}\n}}\n'
    (result,) = run_examples(dsl.loads(text, "w.rules"))
    assert not result.passed
    return result.message


def test_a_failed_expectation_shows_how_likely_it_fails_and_its_parts_in_the_likeliest_outcome():
    assert why("lost == 2 or hits > 2") == (
        "expect lost == 2 or hits > 2 (line 7) is false with probability 7/16 (0.4375); "
        "the likeliest outcome where it is false:\n"
        "  lost == 2    false\n"
        "    lost       1\n"
        "  hits > 2     false\n"
        "    hits       1")


def test_an_always_found_false_shows_how_likely_its_condition_fails_and_the_likeliest_outcome_where_it_does():
    assert why("always(hits < 3)") == (
        "expect always(hits < 3) (line 7) is false:\n"
        "  always(hits < 3)    false\n"
        "  hits < 3 is false with probability 1/8 (0.125); the likeliest outcome where it is false:\n"
        "    hits    3")


def test_a_never_found_false_shows_how_likely_its_condition_holds_and_the_likeliest_outcome_where_it_does():
    assert why("never(hits == 0 and lost == 2)") == (
        "expect never(hits == 0 and lost == 2) (line 7) is false:\n"
        "  never(hits == 0 and lost == 2)    false\n"
        "  hits == 0 and lost == 2 is true with probability 1/16 (0.0625); the likeliest outcome where it is true:\n"
        "    hits == 0    true\n"
        "      hits       0\n"
        "    lost == 2    true\n"
        "      lost       2")


def test_each_always_found_false_of_an_or_shows_where_its_condition_fails():
    message = why("always(hits < 3) or always(lost == 2)")
    assert "hits < 3 is false with probability 1/8 (0.125)" in message
    assert "lost == 2 is false with probability 1/2 (0.5)" in message


def test_an_always_or_never_the_expectation_wants_false_shows_no_counterexample():
    assert why("not (always(hits < 3) or always(hits < 4))") == (
        "expect not (always(hits < 3) or always(hits < 4)) (line 7) is false:\n"
        "  always(hits < 3) or always(hits < 4)    true\n"
        "    always(hits < 3)                      false\n"
        "    always(hits < 4)                      true")


def test_an_always_of_a_condition_reading_no_outcome_shows_no_counterexample():
    assert why("always(1 == 2)") == "expect always(1 == 2) (line 7) is false:\n  always(1 == 2)    false"


def test_an_always_under_forced_rolls_shows_its_condition_in_the_one_outcome():
    assert why("always(lost == 2)", rolls="rolls [1, 3]") == (
        "expect always(lost == 2) (line 7) is false:\n  always(lost == 2)    false\n  lost == 2 is false:\n    lost    1")


def test_under_forced_rolls_there_is_one_outcome_and_no_probability_to_give():
    assert why("lost == 2", rolls="rolls [1, 3]") == "expect lost == 2 (line 7) is false:\n  lost    1"


def test_the_right_of_an_and_whose_left_is_false_was_never_read_and_is_not_shown():
    assert why("lost == 2 and hits == 3", rolls="rolls [1, 3]") == (
        "expect lost == 2 and hits == 3 (line 7) is false:\n  lost == 2    false\n    lost       1")


def test_only_the_branch_taken_is_shown():
    assert why("(if lost == 1 then hits else lost) == 0", rolls="rolls [1, 3]") == (
        "expect (if lost == 1 then hits else lost) == 0 (line 7) is false:\n"
        "  if lost == 1 then hits else lost    3\n"
        "    lost == 1                         true\n"
        "      lost                            1\n"
        "    hits                              3")


def test_a_probability_is_shown_as_a_fraction_and_a_decimal_on_both_sides():
    assert why("prob(hits == 3) == 1/6 * 1/4") == (
        "expect prob(hits == 3) == 1/6 * 1/4 (line 7) is false:\n"
        "  prob(hits == 3)    1/8 (0.125)\n"
        "  1/6 * 1/4          1/24 (0.0416667)")


def test_an_expectation_written_on_several_lines_is_shown_whole_without_its_comments():
    message = why("lost >= 1 and   # every die shows at least 1\n        hits < 3", rolls="rolls [1, 3]")
    assert message.splitlines()[0] == "expect lost >= 1 and hits < 3 (line 7) is false:"
    assert "..." not in message


def test_what_a_comprehension_reads_item_by_item_is_not_shown():
    assert why("sum([h * 2 for h in [hits, lost]]) == 0", rolls="rolls [1, 3]") == (
        "expect sum([h * 2 for h in [hits, lost]]) == 0 (line 7) is false:\n"
        "  sum([h * 2 for h in [hits, lost]])    8\n"
        "    [h * 2 for h in [hits, lost]]       [6, 2]\n"
        "      [hits, lost]                      [3, 1]\n"
        "        hits                            3\n"
        "        lost                            1")


def test_each_failed_expectation_of_an_example_is_explained():
    text = DICE_AND_TRIALS + 'example "W-02 two" { run go() rolls [1, 3] expect lost == 2 expect hits == 0 }\n'
    (result,) = run_examples(dsl.loads(text, "w.rules"))
    assert result.line == ("FAIL W-02 two\n"
                           "  expect lost == 2 (line 4) is false:\n    lost    1\n"
                           "  expect hits == 0 (line 4) is false:\n    hits    3")


@pytest.mark.parametrize("value, shown", [(Fraction(1, 3), "1/3 (0.333333)"), (Fraction(1, 10**7), "1/10000000 (0.0000001)")])
def test_a_fraction_is_shown_with_its_decimal_form(value, shown):
    assert shown_value(value) == shown


def test_the_failure_the_language_reference_shows_is_what_fracas_prints():
    reference = (Path(__file__).resolve().parent.parent / "grammars" / "language.md").read_text()
    shown = re.search(r"```\n(FAIL X-02 .*?)\n```", reference, flags=re.S).group(1)
    rules = re.search(r"```fracas\n(outcome hits: int = 0\naction shoot\(\) \{ hits = trials.*?)```", reference,
                      flags=re.S).group(1)
    rules += 'example "X-02 three hits" { run shoot() expect hits == 3 or hits == 0 }\n'
    results = run_examples(dsl.loads(rules, "x.rules"))
    assert [r.line for r in results if not r.passed] == [shown]


def test_a_table_is_looked_up_not_read_and_a_row_reads_as_its_name():
    text = ("enum a { x y }\nenum b { u v }\ntable t(a, b): int default 0 { [u v] x 1 2 }\n"
            "kind thing { kind_of: a = x }\noutcome r: int = 0\naction go(th: thing = {}) { r = t[th.kind_of, v] }\n"
            'example "G-01 table" { run go() expect r == t[th.kind_of, u] + 5 }\n')
    (result,) = run_examples(dsl.loads(text, "g.rules"))
    assert result.message == ("expect r == t[th.kind_of, u] + 5 (line 7) is false:\n"
                              "  r                       2\n"
                              "  t[th.kind_of, u] + 5    6\n"
                              "    t[th.kind_of, u]      1\n"
                              "      th.kind_of          x")


def test_an_expect_mixing_a_distribution_function_with_an_outcome_must_hold_in_every_outcome():
    text = ("outcome x: int = 0\naction go() { x = 1d2 }\n"
            'example "M-01" { run go()  expect mean(x) > 0 and x == 1 }\n'
            'example "M-02" { run go()  expect mean(x) > 0 and x == 2 }\n'
            'example "M-03" { run go()  expect mean(x) > 0 and x >= 1 }\n')
    assert [passed for passed, _ in results(text)] == [False, False, True]
    assert "is false with probability 1/2 (0.5)" in results(text)[0][1]


def test_an_expect_of_rows_alone_that_fails_says_so_rather_than_crashing():
    text = ('enum color { red blue }\noutcome x: int = 0\naction go() { x = 1 }\n'
            'example "CR-01" { run go()  expect red == blue }\n')
    [(passed, message)] = results(text)
    assert not passed and message.endswith("is false:\n  red == blue    false")


def test_the_likeliest_outcome_shown_counts_together_the_states_the_expect_cannot_tell_apart():
    # x is 1 on four faces of six, each in a state of its own (r differs); x is 2 on two faces, in one state.
    text = ("outcome x: int = 0\naction go(k: int) {\n  let r = 1d6\n  if r <= 4 {\n    x = 1\n  } else {\n"
            "    x = 2\n    r = 0\n  }\n}\n"
            'example "L-01" { run go(k: 5)  expect x == 0 and k == 5 }\n')
    [(passed, message)] = results(text)
    assert not passed and message.splitlines()[-1].split() == ["x", "1"]


def test_an_action_input_named_like_a_declaration_is_refused():
    with pytest.raises(RulesError) as caught:
        dsl.loads("param n = 1\noutcome x: int = 0\naction go(n: int) { x = n }\n", "t.rules")
    assert caught.value.diagnostics[0].message == "input 'n' would hide a parameter declared at line 1"


def test_an_input_that_would_hide_a_declaration_of_a_base_file_names_the_file(tmp_path):
    (tmp_path / "base.rules").write_text("kind move { power: int }\nmove tackle { power 40 }\noutcome o: int = 0\n"
                                         "action go() { o = 1 }\n")
    (tmp_path / "variant.rules").write_text('extends "base.rules"\naction go2(tackle: int) { o = tackle }\n')
    with pytest.raises(RulesError) as caught:
        dsl.load(tmp_path / "variant.rules")
    assert caught.value.diagnostics[0].message == (
        f"input 'tackle' would hide a row of move declared at {tmp_path / 'base.rules'}:2")


def test_an_input_of_a_base_file_that_a_variant_s_declaration_would_be_hidden_by_names_the_variant(tmp_path):
    (tmp_path / "base.rules").write_text("outcome n: int = 0\naction go(boost: int = 0) { n = boost }\n")
    (tmp_path / "variant.rules").write_text('extends "base.rules"\n# colours\nenum colour { boost setback }\n')
    with pytest.raises(RulesError) as caught:
        dsl.load(tmp_path / "variant.rules")
    found = caught.value.diagnostics[0]
    assert found.path.endswith("base.rules") and found.message == (
        f"input 'boost' would hide a value of colour declared at {tmp_path / 'variant.rules'}:3")


def test_a_local_named_like_an_enum_s_value_says_which_it_would_hide():
    with pytest.raises(RulesError) as caught:
        dsl.loads("enum side { attacker defender }\noutcome x: int = 0\naction go() {\n    let attacker = 1\n"
                  "    x = attacker\n}\n", "t.rules")
    assert caught.value.diagnostics[0].message == "'attacker' would hide a value of side declared at line 1"


def test_a_distribution_function_cannot_read_the_name_of_a_comprehension_around_it():
    with pytest.raises(RulesError) as caught:
        dsl.loads("outcome x: int = 0\naction go() { x = 1d6 }\n"
                  'example "CP" { run go()  expect all([prob(x == i) == 1/6 for i in [1, 2]]) }\n', "t.rules")
    assert caught.value.diagnostics[0].message == "'prob' cannot read 'i', the name of the comprehension around it"


@pytest.mark.parametrize("expect", ["1d6 > 0", "chance(1/2)"])
def test_an_expectation_that_rolls_dice_is_a_checker_error(expect):
    with pytest.raises(RulesError) as caught:
        dsl.loads(f'outcome x: int = 0\naction go() {{ x = 1 }}\nexample "R" {{ run go()  expect {expect} }}\n', "t.rules")
    assert caught.value.diagnostics[0].message == "an expectation cannot roll dice"


def test_an_expectation_that_rolls_dice_is_located_at_its_roll():
    example = 'example "R" { run go()  expect x == 1 and 1d6 > 0 }'
    with pytest.raises(RulesError) as caught:
        dsl.loads(f"outcome x: int = 0\naction go() {{ x = 1 }}\n{example}\n", "t.rules")
    found = caught.value.diagnostics[0]
    assert (found.line, found.column) == (3, example.index("1d6") + 1)


def test_an_expectation_comparing_a_dice_value_with_dice_written_describes_them_and_rolls_nothing():
    dsl.loads('param d: dice = 1d6 + 1\noutcome x: int = 0\naction go() { x = 1 }\n'
              'example "D" { run go()  expect d == 1d6 + 1 }\n', "t.rules")


def test_the_mean_of_a_local_a_stop_left_unset_fails_the_example_located_rather_than_crashing():
    text = ('outcome x: int = 0\naction go() {\n    let a = 1d6\n    if a == 1 { stop "one" }\n    let late = a + 10\n'
            '    x += late\n}\nexample "L3" { run go()  expect mean(late) == 14 }\n')
    [(passed, message)] = results(text)
    assert not passed and "'mean' of a value that is none in some outcomes (hint: " in message


def test_two_numbers_that_differ_past_six_digits_are_shown_with_the_digits_that_tell_them_apart():
    [(passed, message)] = results("outcome hits: int = 0\naction a() { hits = trials(1, 11/20) }\n"
                                  'example "X-01 close" {\n    run a()\n    expect prob(hits == 1) == 0.5500001\n}\n')
    assert not passed
    assert "11/20 (0.55)" in message and "5500001/10000000 (0.5500001)" in message


def test_numbers_apart_in_six_digits_keep_six():
    [(passed, message)] = results(ONE_DIE + 'example "X-01 far" {\n    run go()\n    expect prob(result == 1) == 1/5\n}\n')
    assert not passed and "1/6 (0.166667)" in message and "1/5 (0.2)" in message
