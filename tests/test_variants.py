"""Variants extend a base rules file and override what differs, by name."""

from __future__ import annotations

import json
import os
from fractions import Fraction
from pathlib import Path

import pytest

from fracas import dsl
from fracas.dsl.diagnostics import RulesError
from fracas.interpreter import Scenario, exact
from fracas.interpreter.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent
BASE = ROOT / "rules" / "epicinium.rules"
CLASSIC = ROOT / "rules" / "epicinium-classic.rules"
SCENARIO = ROOT / "rules" / "scenarios" / "epicinium-riflemen-vs-city.toml"

MINI = """rules "mini"
kind thing { size: int  heavy: bool = false }
thing rock { size 3 }
param bonus = 1
outcome total: int = 0
fn weight(t: thing) = t.size + bonus
action weigh(t: thing) { total = weight(t) }
"""


def write(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def only_problem(path: Path) -> dsl.Diagnostic:
    with pytest.raises(RulesError) as caught:
        dsl.load(path)
    assert len(caught.value.diagnostics) == 1, caught.value.format()
    return caught.value.diagnostics[0]


def test_the_classic_variant_is_a_fraction_of_its_base():
    assert len(CLASSIC.read_text().splitlines()) * 2 < len(BASE.read_text().splitlines())


def test_a_variant_overrides_a_parameter_a_row_field_and_a_function(tmp_path):
    write(tmp_path, {"base.rules": MINI, "mod.rules": 'extends "base.rules"\n'
                     "override param bonus = 10\noverride thing rock { size 5 }\n"
                     "override fn weight(t: thing) = t.size * bonus\n"})
    rules = dsl.load(tmp_path / "mod.rules")
    result = exact(rules, Scenario("weigh", {"t": "rock"}))
    assert result.marginal("total") == {50: 1}


def test_a_row_override_keeps_the_fields_it_does_not_name(tmp_path):
    write(tmp_path, {"base.rules": MINI.replace("thing rock { size 3 }", "thing rock { size 3 heavy true }"),
                     "mod.rules": 'extends "base.rules"\noverride thing rock { size 4 }\n'
                                  "override fn weight(t: thing) = if t.heavy then 100 else 0\n"})
    assert exact(dsl.load(tmp_path / "mod.rules"), Scenario("weigh", {"t": "rock"})).marginal("total") == {100: 1}


def test_a_kind_override_adds_a_field_with_a_default(tmp_path):
    write(tmp_path, {"base.rules": MINI, "mod.rules": 'extends "base.rules"\n'
                     "override kind thing { hollow: bool = true }\n"
                     "override fn weight(t: thing) = if t.hollow then 0 else t.size\n"})
    assert exact(dsl.load(tmp_path / "mod.rules"), Scenario("weigh", {"t": "rock"})).marginal("total") == {0: 1}


def test_an_override_that_names_nothing_is_an_error_at_its_line(tmp_path):
    write(tmp_path, {"base.rules": MINI, "mod.rules": 'extends "base.rules"\n\noverride param bonsu = 2\n'})
    d = only_problem(tmp_path / "mod.rules")
    assert (d.path, d.line, d.column) == (str(tmp_path / "mod.rules"), 3, 16)
    assert d.message.startswith("override of param 'bonsu' names nothing in")
    assert d.hint == "did you mean 'bonus'?"


def test_shadowing_a_base_declaration_without_override_is_an_error(tmp_path):
    write(tmp_path, {"base.rules": MINI, "mod.rules": 'extends "base.rules"\nparam bonus = 2\n'})
    d = only_problem(tmp_path / "mod.rules")
    assert d.line == 2
    assert d.message == f"'bonus' is already declared in {tmp_path / 'base.rules'}:4"
    assert d.hint == "write 'override param bonus ...' to change it"


def test_overriding_with_the_wrong_kind_of_declaration_is_an_error(tmp_path):
    write(tmp_path, {"base.rules": MINI, "mod.rules": 'extends "base.rules"\noverride fn bonus() = 3\n'})
    assert only_problem(tmp_path / "mod.rules").message == f"'bonus' is a param in {tmp_path / 'base.rules'}, not a fn"


def test_a_missing_base_file_is_an_error_at_the_extends_line(tmp_path):
    write(tmp_path, {"mod.rules": 'rules "m"\nextends "nowhere.rules"\n'})
    d = only_problem(tmp_path / "mod.rules")
    assert (d.line, d.column) == (2, 9)
    assert d.message.startswith("no such file")


@pytest.mark.parametrize("written, message", [
    ("/etc/passwd.rules", "extends takes a path relative to this file"),
    ("../outside.rules", "is outside the rules tree"),
    ("base.txt", "extends names a .rules file"),
])
def test_extends_refuses_paths_outside_the_rules_tree(tmp_path, written, message):
    write(tmp_path, {"tree/mod.rules": f'extends "{written}"\n', "outside.rules": MINI})
    d = only_problem(tmp_path / "tree" / "mod.rules")
    assert d.line == 1 and message in d.message


def test_extends_refuses_a_link_that_leads_out_of_the_tree(tmp_path):
    write(tmp_path, {"outside.rules": MINI, "tree/mod.rules": 'extends "sneaky.rules"\n'})
    os.symlink(tmp_path / "outside.rules", tmp_path / "tree" / "sneaky.rules")
    assert "is outside the rules tree" in only_problem(tmp_path / "tree" / "mod.rules").message


def test_a_base_in_a_subfolder_is_allowed(tmp_path):
    write(tmp_path, {"lib/base.rules": MINI, "mod.rules": 'extends "lib/base.rules"\noverride param bonus = 0\n'})
    assert exact(dsl.load(tmp_path / "mod.rules"), Scenario("weigh", {"t": "rock"})).marginal("total") == {3: 1}


def test_a_base_extended_twice_is_said_so(tmp_path):
    write(tmp_path, {"lib/base.rules": MINI, "mod.rules": 'extends "lib/base.rules"\nextends "lib/base.rules"\n'})
    d = only_problem(tmp_path / "mod.rules")
    assert (d.line, d.message) == (2, f"{tmp_path / 'lib' / 'base.rules'} is extended twice")


def test_extends_after_a_declaration_is_told_to_come_first(tmp_path):
    write(tmp_path, {"base.rules": MINI, "mod.rules": 'param extra = 1\nextends "base.rules"\n'})
    d = only_problem(tmp_path / "mod.rules")
    assert (d.line, d.column, d.message) == (2, 1, "extends comes before the file's declarations")


def test_extends_cycles_are_reported(tmp_path):
    write(tmp_path, {"a.rules": 'extends "b.rules"\n', "b.rules": 'extends "a.rules"\n'})
    d = only_problem(tmp_path / "a.rules")
    assert d.message == "extends makes a cycle: a.rules -> b.rules -> a.rules"


def test_errors_in_the_base_are_reported_in_the_base(tmp_path):
    write(tmp_path, {"base.rules": MINI.replace("size 3", "sise 3"), "mod.rules": 'extends "base.rules"\n'})
    with pytest.raises(RulesError) as caught:
        dsl.load(tmp_path / "mod.rules")
    assert {d.path for d in caught.value.diagnostics} == {str(tmp_path / "base.rules")}


def test_examples_of_the_base_are_not_inherited():
    assert all(e.name.startswith("EPF") for e in dsl.load(CLASSIC).examples)


def test_diff_lists_what_the_variant_changes_with_lines(capsys):
    assert main(["diff", str(BASE), str(CLASSIC)]) == 0
    out = capsys.readouterr().out
    city_line = 1 + Path(CLASSIC).read_text().splitlines().index("override tile_type city { hitpoints 3 }")
    assert "changed  row city" in out and f"{CLASSIC}:{city_line}" in out and "hitpoints: 2 -> 3" in out
    assert "added    param firestorm_damage" in out
    assert "changed  fn collateral_bodies" in out


def test_diff_json_is_machine_readable(capsys):
    assert main(["diff", str(BASE), str(CLASSIC), "--json"]) == 0
    changes = json.loads(capsys.readouterr().out)
    assert {"change": "changed", "category": "row", "name": "city"}.items() <= changes[0].items()


def test_diff_of_a_file_with_itself_is_empty(capsys):
    assert main(["diff", str(BASE), str(BASE)]) == 0
    assert capsys.readouterr().out.startswith(f"{BASE} against {BASE}: 0 changes")


def test_diff_shows_kind_fields_removed_and_added_and_changed_types(capsys, tmp_path):
    (tmp_path / "a.rules").write_text("kind k { a: int = 1  b: int = 2 }\noutcome o: int = 0\n")
    (tmp_path / "b.rules").write_text("kind k { a: int = 1  c: int = 3 }\noutcome o: bool = false\n")
    assert main(["diff", str(tmp_path / "a.rules"), str(tmp_path / "b.rules")]) == 0
    out = capsys.readouterr().out
    assert "b: int = 2 -> (removed)" in out and "c: (added) -> int = 3" in out
    assert "type: int -> bool" in out and "value: 0 -> false" in out
    assert "a: " not in out  # unchanged fields are not listed


def test_odds_side_by_side_shows_both_and_the_change_in_mean(capsys):
    assert main(["odds", str(BASE), str(CLASSIC), str(SCENARIO)]) == 0
    out = capsys.readouterr().out
    assert "epicinium-classic" in out and "change" in out


def test_odds_side_by_side_json_gives_exact_differences(capsys):
    assert main(["odds", str(BASE), str(CLASSIC), str(SCENARIO), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    before, after = (Fraction(d["outcomes"]["stacks_lost"]["mean"]) for d in data["compare"])
    assert Fraction(data["mean_difference"]["stacks_lost"]) == after - before != 0


def test_check_and_test_work_on_the_variant(capsys):
    assert main(["check", str(CLASSIC)]) == 0
    assert main(["test", str(CLASSIC)]) == 0
    assert capsys.readouterr().out.splitlines()[-1].endswith(" passed, 0 failed")


def test_bad_extends_exits_2_from_the_cli(capsys, tmp_path):
    write(tmp_path, {"mod.rules": 'extends "../../etc/x.rules"\n'})
    assert main(["check", str(tmp_path / "mod.rules")]) == 2
    assert "outside the rules tree" in capsys.readouterr().err


def test_an_override_in_a_file_that_extends_nothing_names_nothing():
    with pytest.raises(RulesError) as caught:
        dsl.loads("kind k { a: int }\noverride k r { a 1 }\noverride param p = 2\n", "alone.rules")
    assert [(d.line, d.message) for d in caught.value.diagnostics] == [
        (2, "override of row 'r' names nothing: this file extends no other"),
        (3, "override of param 'p' names nothing: this file extends no other")]
