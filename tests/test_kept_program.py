"""The program of the rules as written, and those of the first few parameters set, are kept with them between runs,
never trusted past a change, and shared by the calls of one process."""

from __future__ import annotations

import textwrap

import pytest

from fracas import dsl
from fracas.interpreter import inputs
from fracas.interpreter.core import program as program_module

RULES = textwrap.dedent("""\
    param bonus: int = 2 - 1
    kind Weapon {
        damage: int
        require damage >= 0
    }
    kind Fighter {
        skill: int
        wounds: int = bonus + 1
        weapon: Weapon = sword
    }
    Weapon sword { damage bonus * 3 }
    Fighter champion { skill 4 }
    choice careful: bool = false
    outcome hits: int = 0
    action strike(attacker: Fighter) {
        if 1d6 + attacker.skill + bonus >= 7 { hits += 1 }
    }
    """)


@pytest.fixture
def evaluations(monkeypatch):
    """Counts the constants a program evaluates as it is built."""
    calls: list[object] = []
    real = program_module.Program.constant

    def counting(self, expr, frame=None, world=None):
        calls.append(expr)
        return real(self, expr, frame, world)

    monkeypatch.setattr(program_module.Program, "constant", counting)
    return calls


def rules_file(tmp_path, text: str = RULES) -> dsl.Ruleset:
    path = tmp_path / "strike.rules"
    path.write_text(text)
    return dsl.load(path)


def test_the_next_run_reads_the_program_back_instead_of_building_it(tmp_path, cache_folder, evaluations):
    first = inputs.build_program(rules_file(tmp_path))
    assert evaluations  # built: its parameters and rows evaluated
    evaluations.clear()
    again = inputs.build_program(rules_file(tmp_path))  # read from the cache folder, as a new process would
    assert evaluations == []
    assert again.params == first.params and again.rows == first.rows
    assert again.rows["champion"].get("wounds") == 2 and again.rows["sword"].get("damage") == 3


def test_a_program_read_back_holds_rows_of_its_own_shapes(tmp_path, cache_folder):
    inputs.build_program(rules_file(tmp_path))
    again = inputs.build_program(rules_file(tmp_path))
    assert again.rows["champion"].shape is again.shapes["Fighter"]


def test_parameters_set_or_choices_made_build_a_program_of_their_own(tmp_path, cache_folder, evaluations):
    inputs.build_program(rules_file(tmp_path))
    evaluations.clear()
    changed = inputs.build_program(rules_file(tmp_path), {"bonus": 2})
    assert evaluations and changed.rows["sword"].get("damage") == 6
    evaluations.clear()
    chosen = inputs.build_program(rules_file(tmp_path), choices={"careful": True})
    assert evaluations and chosen.params["careful"] is True


def test_a_program_with_parameters_set_is_read_back_by_the_next_run(tmp_path, cache_folder, evaluations):
    inputs.build_program(rules_file(tmp_path), {"bonus": 2}, {"careful": True})
    evaluations.clear()
    again = inputs.build_program(rules_file(tmp_path), {"bonus": 2}, {"careful": True})
    assert evaluations == []
    assert again.rows["sword"].get("damage") == 6 and again.params["careful"] is True


def test_a_program_kept_for_other_parameters_is_not_read_back(tmp_path, cache_folder, evaluations):
    inputs.build_program(rules_file(tmp_path), {"bonus": 2})
    evaluations.clear()
    other = inputs.build_program(rules_file(tmp_path), {"bonus": 3})
    assert evaluations and other.rows["sword"].get("damage") == 9
    evaluations.clear()
    chosen = inputs.build_program(rules_file(tmp_path), {"bonus": 2}, {"careful": True})
    assert evaluations and chosen.params["careful"] is True


def test_a_sweep_keeps_only_the_first_few_programs_of_its_values(tmp_path, cache_folder, evaluations):
    for bonus in range(2, 12):
        inputs.build_program(rules_file(tmp_path), {"bonus": bonus})
    kept = rules_file(tmp_path).kept[inputs._SET_PROGRAMS]
    assert len(kept) == inputs._MOST_SET_PROGRAMS
    evaluations.clear()
    inputs.build_program(rules_file(tmp_path), {"bonus": 2})
    assert evaluations == []
    inputs.build_program(rules_file(tmp_path), {"bonus": 11})
    assert evaluations


def test_only_values_written_as_a_scenario_or_the_rules_write_them_key_a_kept_program():
    """A runtime value's text may not tell it apart from another's: its program is not looked up nor kept."""
    assert inputs._program_key({"bonus": 2}, {"careful": True}) == inputs._program_key({"bonus": 2}, {"careful": True})
    assert inputs._program_key({"bonus": 2}, {}) != inputs._program_key({"bonus": "2"}, {})
    assert inputs._program_key({"bonus": [1, {"a": 2.5}]}, {}) is not None
    assert inputs._program_key({"bonus": object()}, {}) is None


def test_a_program_that_breaks_a_constraint_is_not_kept(tmp_path, cache_folder):
    broken = RULES.replace("param bonus: int = 2 - 1", "param bonus: int = 0 - 1")
    for _ in range(2):
        with pytest.raises(inputs.InputProblem):
            inputs.build_program(rules_file(tmp_path, broken))
        with pytest.raises(inputs.InputProblem):
            inputs.build_program(rules_file(tmp_path, broken), {"bonus": -2})
    assert "default program" not in rules_file(tmp_path, broken).kept
    assert inputs._SET_PROGRAMS not in rules_file(tmp_path, broken).kept


def test_a_program_kept_by_another_version_of_fracas_is_built_again(tmp_path, cache_folder, evaluations, monkeypatch):
    inputs.build_program(rules_file(tmp_path))
    monkeypatch.setattr(inputs, "_program_digest", lambda: b"another version")
    evaluations.clear()
    again = inputs.build_program(rules_file(tmp_path))
    assert evaluations and again.rows["champion"].get("wounds") == 2


def test_rules_text_given_once_keeps_no_program(cache_folder):
    rules = dsl.loads(RULES, "strike.rules")
    inputs.build_program(rules)
    inputs.build_program(rules, {"bonus": 2})
    assert "default program" not in rules.kept and inputs._SET_PROGRAMS not in rules.kept


def test_rules_text_given_again_keeps_its_program(cache_folder):
    dsl.loads(RULES, "strike.rules")
    again = dsl.loads(RULES, "strike.rules")  # read back from the cache
    inputs.build_program(again)
    assert "default program" in dsl.loads(RULES, "strike.rules").kept


def test_the_calls_of_one_process_share_the_program_of_the_same_parameters(tmp_path, cache_folder):
    rules = rules_file(tmp_path)
    first = inputs.build_program(rules, {"bonus": 2}, {"careful": True})
    assert inputs.build_program(rules, {"bonus": 2}, {"careful": True}) is first
    assert inputs.build_program(rules, {"bonus": 3}, {"careful": True}) is not first
    assert inputs.build_program(rules) is inputs.build_program(rules)


def test_a_process_keeps_the_last_programs_it_made_and_lets_older_ones_go(tmp_path, cache_folder):
    rules = rules_file(tmp_path)
    first = inputs.build_program(rules, {"bonus": 2})
    for bonus in range(3, 3 + inputs._MOST_PROGRAMS_MADE):
        inputs.build_program(rules, {"bonus": bonus})
    assert len(rules.runtime_cache["programs"]) == inputs._MOST_PROGRAMS_MADE
    assert inputs.build_program(rules, {"bonus": 2}) is not first
