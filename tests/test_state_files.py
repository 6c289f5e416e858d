"""State files: what `fracas run --write-state` writes reads back as the same state.

A state file is a scenario file. A none is written "none" (or left out where
the field's default gives none again); what a state file cannot hold is
refused before anything is written. Numbers are exact or refused at their place.
"""

from __future__ import annotations

import tomllib
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fracas import dsl
from fracas.interpreter.api import Scenario, prepare, sample
from fracas.interpreter.tools.cli import main
from fracas.interpreter.core.errors import ScenarioError
from fracas.interpreter.tools.scenario import dump_state, parse_assignment, parse_scenario
from fracas.interpreter.core.values import Record, Ref
from fracas.interpreter.plain import plain

SHEET_RULES = """
enum col { red blue }
kind gear { name: text = "sword"  weight: number = 1 }
gear sword { name "sword" }
gear shield { name "shield"  weight 3/2 }
kind part { level: int? = 1  tint: col? = red }
kind sheet {
    count: int? = 3
    share: number? = 1/2
    ready: bool? = true
    tint: col? = blue
    gear: gear? = sword
    label: text? = none
    note: text = "plain"
    marks: list of int? = [1]
    tints: list of col? = []
    part: part?
    parts: list of part = []
}
outcome r: int = 0
action change(s: sheet, wipe: bool = false) {
    if wipe {
        s.count = none  s.share = none  s.ready = none  s.tint = none  s.gear = none
        s.label = none  s.marks = [none, 2]  s.tints = [none]  s.part = none
        for p in s.parts { p.level = none  p.tint = none }
    }
    r = 1
}
action refit(s: sheet) { s.part = {level: 5}  s.gear = shield  s.share = 7/3 }
"""
SHEET = dsl.loads(SHEET_RULES, "sheet.rules")


def resolved(value: Any, world: Any) -> Any:
    """A value with every entity replaced by its fields: what the rules can read of it."""
    if isinstance(value, Ref):
        value = world[value.id]
    if isinstance(value, Record):
        return (value.shape.kind, tuple(resolved(v, world) for v in value.values))
    if isinstance(value, tuple):
        return tuple(resolved(v, world) for v in value)
    return value


def written_and_read_back(rules: dsl.Ruleset, scenario: Scenario, name: str) -> tuple[Any, Any]:
    """The input `name` after one run, and the same input read back from the state file written."""
    run = sample(rules, scenario, seed=1)
    text = dump_state(run.new_state())
    again = prepare(rules, parse_scenario(text, "state.toml")).start
    return (resolved(run.state.frames[0][name], run.state.world),
            resolved(again.frames[0][name], again.world))


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(list(args))
    return code, capsys.readouterr().err


def run_cli_out(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(list(args))
    return code, capsys.readouterr().out


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


# ---- none is written faithfully

def test_a_none_enum_field_with_a_default_reads_back_as_none():
    before, after = written_and_read_back(SHEET, Scenario("change", {"s": {}, "wipe": True}), "s")
    assert before == after
    assert after[1][3] is None  # tint


@pytest.mark.parametrize("field", ["count", "share", "ready", "tint", "gear", "label", "part"])
def test_none_in_each_optional_type_reads_back_as_none(field):
    before, after = written_and_read_back(SHEET, Scenario("change", {"s": {}, "wipe": True}), "s")
    index = SHEET.kinds["sheet"].field_names.index(field)
    assert before[1][index] is None and after[1][index] is None


def test_a_none_is_written_as_the_text_none():
    run = sample(SHEET, Scenario("change", {"s": {}, "wipe": True}))
    sheet = tomllib.loads(dump_state(run.new_state()))["s"]
    assert sheet["count"] == "none" and sheet["marks"] == ["none", 2]


def test_a_none_text_field_whose_default_is_none_is_left_out():
    run = sample(SHEET, Scenario("change", {"s": {"label": "x"}, "wipe": True}))
    assert "label" not in run.new_state()["s"]


def test_the_text_none_stays_a_text():
    before, after = written_and_read_back(SHEET, Scenario("change", {"s": {"label": "none"}}), "s")
    assert before == after and after[1][5] == "none"


def test_none_items_of_a_list_read_back_as_none():
    before, after = written_and_read_back(SHEET, Scenario("change", {"s": {}, "wipe": True}), "s")
    assert before == after and after[1][7] == (None, 2)


def test_a_record_made_by_the_rules_reads_back_with_the_same_fields():
    before, after = written_and_read_back(SHEET, Scenario("refit", {"s": {}}), "s")
    assert before == after


def refused_write(capsys, tmp_path, name: str, rules_text: str) -> str:
    """What `run --write-state` says on refusing a state, having checked it wrote nothing."""
    rules = write(tmp_path, name, rules_text)
    scenario = write(tmp_path, "s.toml", "[q]\n")
    target = tmp_path / "out.toml"
    code, err = run_cli(capsys, "run", rules, scenario, "--write-state", str(target))
    assert code == 2 and not target.exists()
    return err


def test_a_none_text_field_with_a_text_default_is_refused_and_nothing_is_written(capsys, tmp_path):
    err = refused_write(capsys, tmp_path, "t.rules", 'kind k { t: text? = "x" }\noutcome r: int = 0\n'
                                                     "action go(q: k) { q.t = none }\n")
    assert "q.t: " in err and "t.rules:1:10" in err


def test_scenario_files_may_give_none_for_an_optional_field():
    start = prepare(SHEET, parse_scenario('action = "change"\n[s]\ncount = "none"\ngear = "none"\n')).start
    sheet = start.world["s"]
    assert sheet.get("count") is None and sheet.get("gear") is None


# ---- what a state file cannot hold is refused

def test_a_pool_field_is_refused_at_its_declaration_and_nothing_is_written(capsys, tmp_path):
    err = refused_write(capsys, tmp_path, "p.rules", "kind k { p: pool = bodies(2, 1) }\noutcome r: int = 0\n"
                                                     "action go(q: k) { r = 1 }\n")
    assert "p.rules:1:10: error: q.p: a pool cannot be written to a state file" in err
    assert "hint:" in err


def test_a_thing_met_in_two_places_is_written_in_both_and_reads_back_equal():
    rules = dsl.loads("kind spot { x: int = 0 }\nkind mark { at: spot }\n"
                      "kind piece { place: spot  marks: list of mark = [] }\noutcome r: int = 0\n"
                      "action go(a: piece, b: piece) { b.marks += [{at: a.place}] }\n")
    before, after = written_and_read_back(rules, Scenario("go", {"a": {"place": {"x": 2}}, "b": {"place": {}}}), "b")
    assert before == after and after[1][1][0][1][0] == ("spot", (2,))


def test_a_none_in_a_list_given_directly_to_the_action_is_written_by_the_input_s_type(capsys, tmp_path):
    rules = write(tmp_path, "l.rules", "outcome r: int = 0\naction go(xs: list of int? = [1]) { xs = [none] }\n")
    written = str(tmp_path / "o.toml")
    assert run_cli(capsys, "run", rules, write(tmp_path, "s.toml", ""), "--write-state", written)[0] == 0
    assert tomllib.loads((tmp_path / "o.toml").read_text()) == {"action": "go", "xs": ["none"]}


def test_a_pool_held_by_an_input_is_refused_at_the_input_when_the_state_is_written(capsys, tmp_path):
    rules = write(tmp_path, "p.rules", "outcome r: int = 0\naction go(y: pool = bodies(1, 1)) {\n"
                                       "    r = lethal(fire(volley(1), y))\n}\n")
    code, err = run_cli(capsys, "run", rules, write(tmp_path, "s.toml", ""), "--write-state", str(tmp_path / "o.toml"))
    assert code == 2 and err.startswith(f"{rules}:2:11: error: y: a pool cannot be written to a state file")
    assert not (tmp_path / "o.toml").exists()


def test_a_run_whose_state_cannot_be_written_still_shows_its_outcomes_and_says_why(capsys, tmp_path):
    rules = write(tmp_path, "p.rules", "outcome r: int = 0\naction go(y: pool = bodies(1, 1)) {\n"
                                       "    r = lethal(fire(volley(1), y))\n}\n")
    code, out = run_cli_out(capsys, "run", rules, write(tmp_path, "s.toml", ""))
    assert code == 0 and "  r = 1" in out
    assert out.rstrip().endswith("state\n  (not writable as a state file; --write-state says why)\n"
                                 "  y: a pool cannot be written to a state file")


def test_a_text_field_whose_default_works_out_to_none_is_left_out_of_the_state(capsys, tmp_path):
    rules = write(tmp_path, "c.rules", 'kind k {\n    flag: bool = false\n    s: text? = if flag then "y" else none\n'
                                       "}\noutcome r: int = 0\n"
                                       "action probe(x: k = {}) { r = if x.s == none then 1 else 0 }\n")
    code, out = run_cli_out(capsys, "run", rules, write(tmp_path, "s.toml", ""), "--toml")
    assert code == 0 and tomllib.loads(out) == {"action": "probe", "x": {"flag": False}}


def test_a_number_too_long_to_write_is_refused_not_a_crash():
    # The limit 'digits' keeps runs below Python's own limit; the writer does not count on it.
    prepared = prepare(SHEET, Scenario("change", {"s": {}}))
    sheet = prepared.start.world["s"].replace("count", 10**5000)
    data = {"s": plain(prepared.rules, sheet, prepared.start.world)}
    with pytest.raises(ScenarioError, match="s.count: a number of too many digits"):
        dump_state(data)


# ---- written then read back: the same state

TEXTS = st.text(max_size=8)
NUMBERS = st.one_of(st.integers(-10**9, 10**9), st.fractions(max_denominator=1000).map(str),
                    st.sampled_from([0.05, -2.5, 1e20]))
PART = st.fixed_dictionaries({}, optional={"level": st.one_of(st.just("none"), st.integers(-5, 5)),
                                           "tint": st.sampled_from(["none", "red", "blue"])})
SHEETS = st.fixed_dictionaries({}, optional={
    "count": st.one_of(st.just("none"), st.integers(-10**6, 10**6)),
    "share": st.one_of(st.just("none"), NUMBERS),
    "ready": st.one_of(st.just("none"), st.booleans()),
    "tint": st.sampled_from(["none", "red", "blue"]),
    "gear": st.one_of(st.sampled_from(["none", "sword", "shield"]),
                      st.fixed_dictionaries({}, optional={"name": TEXTS, "weight": NUMBERS})),
    "label": TEXTS,
    "note": TEXTS,
    "marks": st.lists(st.one_of(st.just("none"), st.integers(-3, 3)), max_size=3),
    "tints": st.lists(st.sampled_from(["none", "red", "blue"]), max_size=3),
    "part": st.one_of(st.just("none"), PART),
    "parts": st.lists(PART, max_size=3),
})


@settings(max_examples=150, deadline=None)
@given(sheet=SHEETS, wipe=st.booleans(), action=st.sampled_from(["change", "refit"]))
def test_a_written_state_reads_back_as_the_same_state(sheet, wipe, action):
    inputs = {"s": sheet, "wipe": wipe} if action == "change" else {"s": sheet}
    before, after = written_and_read_back(SHEET, Scenario(action, inputs), "s")
    assert before == after


# ---- numbers fracas cannot compute with exactly

NUMBER_RULES = ("kind k { m: int = 3  f: number = 1/2 }\nparam p: number = 1\noutcome r: int = 0\n"
                "action go(q: k) { r = 1 }\n")


@pytest.mark.parametrize("written", ["nan", "inf", "-inf", "+inf", "1e400"])
@pytest.mark.parametrize("field", ["m", "f"])
def test_a_float_that_is_not_finite_is_a_located_scenario_error(capsys, tmp_path, written, field):
    rules = write(tmp_path, "n.rules", NUMBER_RULES)
    scenario = write(tmp_path, "s.toml", f"[q]\n{field} = {written}\n")
    code, err = run_cli(capsys, "run", rules, scenario)
    assert code == 2
    assert f"s.toml:2:1: error: q.{field}: {written} is not a number fracas can compute with exactly" in err


@pytest.mark.parametrize("written", ["nan", "inf", "-inf"])
def test_a_set_parameter_that_is_not_finite_is_an_error(capsys, tmp_path, written):
    rules = write(tmp_path, "n.rules", NUMBER_RULES)
    scenario = write(tmp_path, "s.toml", "[q]\n")
    code, err = run_cli(capsys, "run", rules, scenario, "--set", f"p={written}")
    assert code == 2 and f"p: {written} is not a number fracas can compute with exactly" in err


def test_a_whole_number_past_the_digit_limit_is_a_located_scenario_error(capsys, tmp_path):
    rules = write(tmp_path, "n.rules", NUMBER_RULES)
    scenario = write(tmp_path, "s.toml", f"[q]\nm = {'1' * 5000}\n")
    code, err = run_cli(capsys, "run", rules, scenario)
    assert code == 2 and "s.toml:2:5: error:" in err and "5000 digits, more than fracas reads" in err


def test_a_set_whole_number_past_the_digit_limit_is_a_usage_error():
    with pytest.raises(ValueError, match="5000 digits, more than fracas reads"):
        parse_assignment(f"p={'1' * 5000}")


def test_a_number_written_as_a_text_with_an_exponent_is_refused(capsys, tmp_path):
    rules = write(tmp_path, "n.rules", NUMBER_RULES)
    scenario = write(tmp_path, "s.toml", '[q]\nf = "1e99999999"\n')
    code, err = run_cli(capsys, "run", rules, scenario)
    assert code == 2 and "q.f: expected number" in err


def test_a_number_written_as_a_text_is_exact():
    start = prepare(dsl.loads(NUMBER_RULES), parse_scenario('[q]\nf = "-7/3"\n')).start
    assert start.world["q"].get("f") == Fraction(-7, 3)


# ---- the file itself

def test_a_scenario_file_may_start_with_a_byte_order_mark(capsys, tmp_path):
    rules = write(tmp_path, "n.rules", NUMBER_RULES)
    scenario = tmp_path / "bom.toml"
    scenario.write_bytes(b"\xef\xbb\xbf[q]\nm = 2\n")
    code, _ = run_cli(capsys, "run", rules, str(scenario))
    assert code == 0
