"""Every limit stops with a located error that names it, and can be raised."""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from fracas import dsl
from fracas.dsl.diagnostics import RulesError
from fracas.dsl.limits import Limits
from fracas.interpreter import Scenario, ScenarioError, exact, sample
from fracas.interpreter.tools.cli import main
from fracas.interpreter.tools.scenario import _NESTING, load_scenario, parse_scenario

ROOT = Path(__file__).resolve().parent.parent
HEADER = "outcome x: int = 0\n"


def deep_sum(terms: int) -> str:
    return HEADER + "action go() { x = " + " + ".join(["1"] * terms) + " }\n"


def test_deep_nesting_stops_at_the_limit_not_at_pythons():
    with pytest.raises(RulesError) as caught:
        dsl.loads(deep_sum(3000), "deep.rules")
    d = caught.value.diagnostics[0]
    assert d.line == 2 and "nest more than 150 deep" in d.message and "--limit nesting=N" in d.hint


def test_rules_nested_too_deep_are_refused_at_the_first_place_too_deep():
    deep_then_shallow = (HEADER + "action go() {\n if x == 0 {\n  if x == 0 {\n   if x == 0 {\n    x = 1\n   }\n  }\n }\n"
                         " if x == 0 {\n  x = 2\n }\n}\n")
    with pytest.raises(RulesError) as caught:
        dsl.loads(deep_then_shallow, "deep.rules", Limits(nesting=5))
    assert caught.value.diagnostics[0].line == 4  # the second if, not the last one, which is as deep


def test_a_raised_nesting_limit_lets_deep_rules_run():
    rules = dsl.loads(deep_sum(290), "deep.rules", Limits(nesting=300))
    assert exact(rules, Scenario("go", {})).marginal("x") == {290: 1}


def test_lists_nested_up_to_the_highest_nesting_limit_run():
    rules = dsl.loads(HEADER + "action go() { x = len(" + "[" * 290 + "1" + "]" * 290 + ") }\n", "deep.rules",
                      Limits(nesting=300))
    assert exact(rules, Scenario("go", {})).marginal("x") == {1: 1}


def test_a_fn_within_the_nesting_limit_that_python_cannot_compile_is_a_located_error(tmp_path, capsys):
    # 120 brackets around a call of the fn itself, under an 'if': within the limit of 150, but each is a few
    # levels of the Python fracas writes, past what Python's compiler follows.
    body = "if k == 0 then 0 else " + "0 + (" * 120 + "deep(k - 1)" + ")" * 120
    rules = tmp_path / "deep.rules"
    rules.write_text(f"param n = 1\noutcome r: int = 0\nfn deep(k: int): int = {body}\naction go() {{ r = deep(n) }}\n")
    (tmp_path / "go.toml").write_text('action = "go"\n')
    for flags in ([], ["--samples", "10"]):
        assert main(["odds", str(rules), str(tmp_path / "go.toml"), *flags]) == 2
        err = capsys.readouterr().err
        # At the fn's line: its name where fracas's writing of the code stops, the line where Python's compiler does.
        where, _, message = err.partition(" error: ")
        assert where.startswith(f"{rules}:3:") and message.startswith("an expression here nests too deeply"), err


def test_a_list_doubled_in_a_loop_stops_at_the_loop_items_limit():
    rules = dsl.loads(HEADER + "action go() {\n  let xs = range(5000)\n  for i in range(30) { xs = xs + xs }\n"
                      "  x = len(xs)\n}\n", "grow.rules")
    with pytest.raises(ScenarioError) as caught:
        exact(rules, Scenario("go", {}))
    found = caught.value.diagnostics[0]
    assert (found.line, found.message) == (4, "a list grew past the limit of 10000 items")
    assert "--limit loop_items=N" in found.hint
    raised = dsl.loads(rules.sources["grow.rules"].text.replace("range(30)", "range(2)"), "grow.rules",
                       Limits(loop_items=20000))
    assert exact(raised, Scenario("go", {})).marginal("x") == {20000: 1}


@pytest.mark.parametrize("joined", ["t = t + t", "t += t"])
def test_a_text_doubled_in_a_loop_stops_at_the_text_length_limit(joined):
    text = f'outcome t: text = ""\naction go() {{\n  t = "ab"\n  for i in range(40) {{ {joined} }}\n}}\n'
    rules = dsl.loads(text, "grow.rules")
    for run in (lambda: exact(rules, Scenario("go", {})), lambda: sample(rules, Scenario("go", {}), seed=1)):
        with pytest.raises(ScenarioError) as caught:
            run()
        found = caught.value.diagnostics[0]
        assert (found.line, found.message) == (4, "a text grew past the limit of 100000 characters")
        assert "--limit text_length=N" in found.hint
    raised = dsl.loads(text.replace("range(40)", "range(17)"), "grow.rules", Limits(text_length=2**18))
    assert exact(raised, Scenario("go", {})).marginal("t") == {"ab" * 2**17: 1}


def test_the_nesting_limit_cannot_be_raised_past_what_python_can_follow():
    with pytest.raises(ValueError, match="'nesting' can be at most 300"):
        Limits(nesting=301)


def test_a_long_line_is_shown_as_a_window_around_the_caret():
    with pytest.raises(RulesError) as caught:
        dsl.loads(deep_sum(3000), "deep.rules")
    shown = caught.value.diagnostics[0].format().splitlines()
    assert len(shown[1]) < 130 and shown[1].rstrip().endswith("...")
    assert shown[2].index("^") < 130


def test_too_many_dice_in_one_call_is_a_located_error_naming_the_limit():
    rules = dsl.loads(HEADER + "action go() {\n x = roll(20000, 6)\n}\n", "t.rules")
    with pytest.raises(ScenarioError) as caught:
        exact(rules, Scenario("go", {}))
    d = caught.value.diagnostics[0]
    assert d.line == 3 and "'count' is 20000, over the limit of 10000" in d.message and "--limit count=N" in d.hint


def test_an_exploding_die_of_millions_of_outcomes_is_a_located_error_naming_the_states_limit():
    rules = dsl.loads(HEADER + "action go() {\n x = explode(1, 2000, 2000)\n}\n", "t.rules")
    with pytest.raises(ScenarioError) as caught:
        exact(rules, Scenario("go", {}))
    d = caught.value.diagnostics[0]
    assert d.line == 3 and "4000000 distinct states, over the limit of 200000" in d.message


def test_an_exploding_die_is_charged_before_its_outcomes_are_made(monkeypatch):
    from fracas.interpreter.runtime import dice
    from fracas.interpreter.runtime.weights import Allowance, LimitError

    def made(*args, **kwargs):
        raise AssertionError("the outcomes were made before the limit was looked at")

    monkeypatch.setattr(dice.Weights, "of", made)
    with pytest.raises(LimitError):
        dice.Exploding(2000, 2000).weights(Allowance(), "explode(1, 2000, 2000)")


DICE_GIVEN = "param b: dice = 0\nparam n: number = 0\noutcome x: number = 0\naction go() { x = roll(b) + n }\n"


@pytest.mark.parametrize("name, written", [
    ("b", "1d6 + " + "1" * 4301),  # past what Python reads: an internal error before
    ("b", "1d6 + " + "1" * 1001),
    ("b", "1" * 1001 + "d6"),
    ("n", "1" * 1001),
    ("n", "1/" + "3" * 1001),
])
def test_a_number_given_past_the_digits_limit_is_refused_naming_it(name, written):
    with pytest.raises(ScenarioError) as caught:
        exact(dsl.loads(DICE_GIVEN, "t.rules"), Scenario("go", {}, params={name: written}))
    d = caught.value.diagnostics[0]
    assert d.message == f"params.{name}: a number of more than 1000 digits" and "--limit digits=N" in d.hint


def test_a_number_given_within_the_digits_limit_is_read():
    rules = dsl.loads(DICE_GIVEN, "t.rules")
    assert exact(rules, Scenario("go", {}, params={"b": "1d2 + " + "1" * 999})).marginal("x") == {
        int("1" * 999) + 1: Fraction(1, 2), int("1" * 999) + 2: Fraction(1, 2)}


def test_a_long_loop_is_a_located_error_naming_the_limit():
    rules = dsl.loads(HEADER + "action go() {\n for i in range(9000) { for j in range(2) { x += 1 } }\n"
                      " for k in range(20000) { x += 1 }\n}\n", "t.rules", Limits(count=30000))
    with pytest.raises(ScenarioError) as caught:
        exact(rules, Scenario("go", {}))
    assert caught.value.diagnostics[0].line == 4 and "loop_items" in caught.value.diagnostics[0].hint


def test_the_exact_engine_state_limit_names_how_to_raise_it():
    rules = dsl.loads(HEADER + "action go() { x = 1d6 + 1d6 * 10 }\n", "t.rules", Limits(states=5))
    with pytest.raises(ScenarioError) as caught:
        exact(rules, Scenario("go", {}))
    assert "--limit states=N" in caught.value.diagnostics[0].hint


def test_a_file_over_the_size_limit_is_refused(tmp_path):
    big = tmp_path / "big.rules"
    big.write_text(HEADER + "# " + "x" * 5000 + "\n")
    with pytest.raises(RulesError) as caught:
        dsl.load(big, Limits(file_bytes=1000))
    assert "over the limit of 1000" in caught.value.diagnostics[0].message


def test_extends_chains_stop_at_their_limit(tmp_path):
    for i in range(5):
        (tmp_path / f"f{i}.rules").write_text(f'extends "f{i + 1}.rules"\n')
    (tmp_path / "f5.rules").write_text(HEADER)
    with pytest.raises(RulesError) as caught:
        dsl.load(tmp_path / "f0.rules", Limits(extends_depth=3))
    assert "extends nests deeper than 3 files" in caught.value.diagnostics[0].message
    assert dsl.load(tmp_path / "f0.rules", Limits(extends_depth=6))


def test_the_cli_raises_a_limit(capsys, tmp_path):
    rules = tmp_path / "deep.rules"
    rules.write_text(deep_sum(200))
    assert main(["check", str(rules)]) == 2
    assert main(["check", str(rules), "--limit", "nesting=300"]) == 0


@pytest.mark.parametrize("flag, message", [("nestin=3", "unknown limit 'nestin'"), ("nesting=-2", "positive whole number"),
                                           ("nesting=5000", "'nesting' can be at most 300")])
def test_a_bad_limit_flag_exits_2(capsys, flag, message):
    rules = Path(__file__).resolve().parent.parent / "rules" / "epicinium.rules"
    assert main(["check", str(rules), "--limit", flag]) == 2
    assert message in capsys.readouterr().err


def test_a_limit_may_be_written_as_a_whole_number_in_exponent_form():
    rules = Path(__file__).resolve().parent.parent / "rules" / "epicinium.rules"
    assert main(["check", str(rules), "--limit", "work=2e6"]) == 0
    assert main(["check", str(rules), "--limit", "work=1.5"]) == 2


def run_error(body: str, limits: Limits = Limits()):
    rules = dsl.loads(HEADER + "outcome f: number = 0\naction go() {\n" + body + "\n}\n", "t.rules", limits)
    with pytest.raises(ScenarioError) as caught:
        exact(rules, Scenario("go", {}))
    return caught.value.diagnostics[0]


def test_a_number_squared_in_a_loop_stops_at_the_digits_limit():
    d = run_error("let a = 3\nfor i in range(40) { a = a * a }")
    assert (d.line, d.column) == (5, 26)
    assert d.message == "a number grew past the limit of 1000 digits" and "--limit digits=N" in d.hint


def test_a_fraction_whose_denominator_grows_stops_at_the_digits_limit():
    d = run_error("f = 1\nfor i in range(5000) { f = f / 3 }")
    assert d.source_line.endswith("f = f / 3 }") and "past the limit of 1000 digits" in d.message


def test_a_compound_assignment_stops_at_the_digits_limit():
    d = run_error("x = 2\nfor i in range(20) { x *= x }")
    assert d.source_line.endswith("x *= x }") and "past the limit of 1000 digits" in d.message


def test_a_raised_digits_limit_lets_bigger_numbers_through():
    rules = dsl.loads(HEADER + "action go() { let a = 10  for i in range(10) { a = a * a }  x = a - a }\n",
                      "t.rules", Limits(digits=1100))
    assert exact(rules, Scenario("go", {})).marginal("x") == {0: 1}


def test_steps_may_call_each_other_as_deep_as_the_highest_call_depth():
    rules = dsl.loads(HEADER + "step deeper(n: int) { if n > 0 { x += 1  deeper(n - 1) } }\n"
                      "action go() { deeper(98) }\n", "t.rules", Limits(call_depth=100))
    assert exact(rules, Scenario("go", {})).marginal("x") == {98: 1}


def test_the_call_depth_cannot_be_raised_past_what_python_can_follow():
    with pytest.raises(ValueError, match="'call_depth' can be at most 100"):
        Limits(call_depth=101)


def test_the_digits_limit_stays_where_numbers_can_still_be_printed():
    with pytest.raises(ValueError, match="'digits' can be at most 4000"):
        Limits(digits=4001)


def test_a_number_written_with_too_many_digits_is_a_located_error():
    with pytest.raises(RulesError) as caught:
        dsl.loads(HEADER + "action go() { x = " + "9" * 1200 + " }\n", "t.rules")
    d = caught.value.diagnostics[0]
    assert (d.line, d.column) == (2, 19) and d.message == "a number of 1200 digits is over the limit of 1000"


@pytest.mark.parametrize("dice, message", [
    ("10001d6", "10001 dice are over the limit of 10000"),
    ("1d99999999", "a die of 99999999 sides is over the limit of 10000"),
])
def test_written_dice_obey_the_count_limit(dice, message):
    d = run_error(f"x = {dice}")
    assert (d.line, d.message) == (4, message) and "--limit count=N" in d.hint


# ---- files are read within their size limit, whatever they are

SMALL = Limits(file_bytes=1000)
OVER_SMALL = ("the file is over the limit of 1000 bytes "
              "(the limit 'file_bytes' is 1000; raise it with --limit file_bytes=N if more is needed)")


def test_an_endless_device_as_rules_stops_at_the_size_limit():
    with pytest.raises(RulesError) as caught:
        dsl.load("/dev/zero", SMALL)
    (d,) = caught.value.diagnostics
    assert (d.path, d.line, d.message) == ("/dev/zero", 0, OVER_SMALL)


def test_an_endless_device_as_a_scenario_stops_at_the_size_limit():
    with pytest.raises(ScenarioError) as caught:
        load_scenario("/dev/zero", SMALL)
    (d,) = caught.value.diagnostics
    assert (d.path, d.line, d.message) == ("/dev/zero", 0, OVER_SMALL)


def test_a_regular_file_over_the_size_limit_says_its_size(tmp_path):
    big = tmp_path / "big.toml"
    big.write_text("# " + "x" * 2000 + "\n")
    with pytest.raises(ScenarioError) as caught:
        load_scenario(big, SMALL)
    assert caught.value.diagnostics[0].message.startswith("the file is 2003 bytes, over the limit of 1000 bytes")


def test_a_pipe_fed_more_than_the_limit_is_refused_with_exit_2():
    result = subprocess.run([sys.executable, "-m", "fracas.interpreter.tools.cli", "check", "/dev/stdin", "--limit", "file_bytes=1000"],
                            input=b"y\n" * 10_000, capture_output=True, cwd=ROOT)
    assert result.returncode == 2
    assert result.stderr.decode() == f"/dev/stdin: error: {OVER_SMALL}\n1 error\n"


# ---- scenarios nest no deeper than the nesting limit

def test_a_dotted_key_of_50000_parts_is_a_located_error_not_out_of_memory(capsys, tmp_path):
    scenario = tmp_path / "deep.toml"
    scenario.write_text('action = "go"\n' + "a." * 50_000 + "b = 1\n")
    rules = tmp_path / "r.rules"
    rules.write_text(HEADER + "action go() { x = 1 }\n")
    assert main(["run", str(rules), str(scenario)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{scenario}:2:1: error: a dotted key of 50001 parts nests tables more than 150 deep\n")
    assert "  hint: the limit 'nesting' is 150; raise it with --limit nesting=N if more is needed\n" in err


def test_a_dotted_key_inside_an_inline_table_counts_from_its_first_part():
    with pytest.raises(ScenarioError) as caught:
        parse_scenario('x = { y = 1, "a.b".' + "c." * 200 + "d = 2 }\n", "s.toml")
    (d,) = caught.value.diagnostics
    assert (d.line, d.column, d.message) == (1, 14, "a dotted key of 202 parts nests tables more than 150 deep")


def test_brackets_nested_past_the_limit_are_located_at_the_first_too_deep():
    with pytest.raises(ScenarioError) as caught:
        parse_scenario("x = 1\ny = " + "[" * 400 + "]" * 400 + "\n", "s.toml")
    (d,) = caught.value.diagnostics
    assert (d.line, d.column, d.message) == (2, 155, "values nest more than 150 deep")


def test_a_dotted_key_is_looked_for_only_where_a_word_starts():
    # Tried again from each character of a long word without a dot, the look took the square of its length:
    # 100,000 characters ran for minutes before tomllib read a thing.
    assert _NESTING.search("ab.c = 1", 1) is None
    assert _NESTING.search("ab.c = 1").group("key") == "ab.c"


def test_a_long_word_in_a_scenario_is_read_as_any_other():
    word = "x" * 100_000
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(f'x = {{ y = 1, {word} = 2 }}\nz = {"9" * 20_000}\n', "s.toml")
    (d,) = caught.value.diagnostics
    assert (d.line, d.column) == (2, 5) and d.message.startswith("a whole number of 20000 digits")


def test_dots_and_brackets_inside_texts_and_comments_are_not_nesting():
    text = 'a = "' + "x." * 300 + '" # ' + "[" * 300 + '\nb = """\n' + "{" * 300 + '\n"""\n'
    assert parse_scenario(text, "s.toml").inputs["a"] == "x." * 300


def test_a_raised_nesting_limit_lets_a_deeper_key_through():
    text = "a." * 200 + "b = 1\n"
    with pytest.raises(ScenarioError):
        parse_scenario(text, "s.toml")
    assert parse_scenario(text, "s.toml", Limits(nesting=300)).inputs["a"]


# ---- sampled runs asked for on the command line

EPI = str(ROOT / "rules" / "epicinium.rules")
GUNNERS = str(ROOT / "rules" / "scenarios" / "epicinium-gunners-vs-riflemen.toml")


@pytest.mark.parametrize("command", [["odds", EPI, GUNNERS], ["sweep", EPI, GUNNERS, "--vary", "target.type=rifleman"]])
def test_samples_past_their_limit_are_refused_before_any_run(capsys, command):
    assert main([*command, "--samples", str(10**12)]) == 2
    assert capsys.readouterr().err == (
        "fracas: error: --samples 1000000000000 is over the limit of 1000000 runs "
        "(the limit 'samples' is 1000000; raise it with --limit samples=N if more is needed)\n")


def test_the_samples_limit_is_raised_and_lowered_like_the_others(capsys):
    assert main(["odds", EPI, GUNNERS, "--samples", "20", "--limit", "samples=10"]) == 2
    assert "--samples 20 is over the limit of 10 runs" in capsys.readouterr().err
    assert main(["odds", EPI, GUNNERS, "--samples", "20", "--limit", "samples=20"]) == 0


def test_a_dice_value_of_thousands_of_terms_is_named_briefly_in_a_limit_message():
    rules = dsl.loads(HEADER + "action go() {\n let d: dice = 0\n for i in range(5000) { d = d + 1d6 + 1d4 }\n"
                      " x = roll(d)\n}\n", "t.rules")
    with pytest.raises(ScenarioError) as caught:
        exact(rules, Scenario("go", {}))
    message = caught.value.diagnostics[0].message
    assert len(message) < 300 and "1d6 + 1d4 + " in message and "terms more)" in message
