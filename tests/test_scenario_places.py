"""A problem in a scenario points at its own key: the third [[stations]], not the first.

tomllib keeps no positions, so fracas finds them in the text: tables and
arrays of tables, dotted keys, inline tables and the items of arrays.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import tomli_w
from hypothesis import given, settings
from hypothesis import strategies as st

from fracas.interpreter.tools.cli import main
from fracas.interpreter.toml_places import key_places

ROOT = Path(__file__).resolve().parent.parent
EPI = str(ROOT / "rules" / "epicinium.rules")
GILGAMESH = str(ROOT / "rules" / "gilgamesh.rules")
BROADSIDE = str(ROOT / "rules" / "gilgamesh" / "1-broadside.toml")


def errors(capsys, *args: str) -> str:
    assert main(list(args)) == 2
    return capsys.readouterr().err


def test_a_bad_row_in_the_second_array_table_is_shown_there(capsys, tmp_path):
    scenario = tmp_path / "s.toml"
    scenario.write_text('[[attackers]]\ntype = "gunner"\n\n[[attackers]]\ntype = "gunnr"\n\n'
                        '[target]\ntype = "rifleman"\n\n[space]\ntile = "city"\n')
    assert errors(capsys, "odds", EPI, str(scenario)) == (
        f"{scenario}:5:1: error: attackers[1].type: unknown unit_type 'gunnr'\n"
        '    5 | type = "gunnr"\n'
        "      | ^~~~\n"
        "  hint: did you mean 'gunner'?\n"
        "1 error\n")


def test_an_unknown_station_role_in_a_state_file_is_shown_at_its_station(capsys, tmp_path):
    sheet = tmp_path / "corvette.toml"
    text = (ROOT / "rules" / "gilgamesh" / "corvette.toml").read_text()
    sheet.write_text(text.replace('role = "shield_generator"', 'role = "shield_generater"'))
    line = text.splitlines().index('role = "shield_generator"') + 1
    assert errors(capsys, "run", GILGAMESH, str(sheet), BROADSIDE).startswith(
        f"{sheet}:{line}:1: error: ship.stations[3].role: unknown station_role 'shield_generater'\n"
        f'{line:>5} | role = "shield_generater"\n')


def test_a_number_in_an_inline_table_is_shown_at_its_key(capsys, tmp_path):
    action = tmp_path / "a.toml"
    action.write_text('action = "attack"\nweapon = { damage = 1e400, max_squares = 6 }\nsquares = 3\n'
                      'attack_value = 4\ntarget = "helm"\n')
    assert errors(capsys, "run", GILGAMESH, str(ROOT / "rules" / "gilgamesh" / "corvette.toml"), str(action)) == (
        f"{action}:2:12: error: weapon.damage: 1e400 is not a number fracas can compute with exactly\n"
        "    2 | weapon = { damage = 1e400, max_squares = 6 }\n"
        "      |            ^~~~~~\n"
        "  hint: TOML reads nan, inf and numbers past 1e308 as floats that are not numbers; "
        'write a whole number, a decimal or a fraction in quotes ("1/3")\n'
        "1 error\n")


def test_a_parameter_is_named_and_shown_in_its_params_table(capsys, tmp_path):
    scenario = tmp_path / "s.toml"
    scenario.write_text('action = "targeted_attack"\n[params]\nbonedrought_spares_air = 3\n'
                        '[[attackers]]\ntype = "gunner"\n[target]\ntype = "rifleman"\n[space]\ntile = "city"\n')
    assert errors(capsys, "odds", EPI, str(scenario)).startswith(
        f"{scenario}:3:1: error: params.bonedrought_spares_air: expected bool, found the number 3\n")


def test_places_of_nested_array_tables_inline_tables_and_items():
    text = """\
title = "x"  # a comment with [brackets] and = signs
note = '''
[[fleet]]
fake = 1
'''
[[fleet]]
name = "a"
[[fleet.ships]]
hull.size = 3
[[fleet]]
name = "b"
[[fleet.ships]]
crew = [1, { rank = 2 }]
[[fleet.ships]]
"quoted key" = { inner = [ "p",
    "q" ] }
"""
    places = key_places(text)
    assert places["fleet[0].name"] == (7, 1)
    assert places["fleet[0].ships[0].hull.size"] == (9, 6)
    assert places["fleet[1].name"] == (11, 1)
    assert places["fleet[1].ships[0].crew[1].rank"] == (13, 14)
    assert places["fleet[1].ships[1].quoted key.inner[1]"] == (16, 5)
    assert "fake" not in places and "fleet[0].fake" not in places


_KEYS = st.sampled_from(["a", "b", "hull", "red", "x-1", "two words"])
_SCALARS = st.one_of(st.integers(-5, 5), st.booleans(), st.text("ab\n'\"#[]", max_size=5))
_TABLES = st.recursive(
    st.dictionaries(_KEYS, _SCALARS, min_size=1, max_size=3),
    lambda inner: st.dictionaries(_KEYS, st.one_of(_SCALARS, inner, st.lists(inner, min_size=1, max_size=3),
                                                   st.lists(_SCALARS, max_size=3)), min_size=1, max_size=3),
    max_leaves=12)


def _leaves(data: Any, path: str = "") -> list[str]:
    if isinstance(data, dict):
        return [leaf for key, value in data.items() for leaf in _leaves(value, f"{path}.{key}" if path else key)]
    if isinstance(data, list) and data:
        return [leaf for i, value in enumerate(data) for leaf in _leaves(value, f"{path}[{i}]")]
    return [path]


@settings(max_examples=200, deadline=None)
@given(_TABLES)
def test_every_key_tomli_w_writes_is_found_at_a_line_that_holds_it(data):
    text = tomli_w.dumps(data)
    places = key_places(text)
    lines = text.splitlines()
    for leaf in _leaves(data):
        assert leaf in places, (leaf, text)
        line, column = places[leaf]
        written = lines[line - 1][column - 1:]
        last = leaf.rsplit(".", 1)[-1]
        if not last.endswith("]"):
            assert written.startswith((last, f'"{last}"')), (leaf, text)


# ---- a value given by a flag: the problem names the flag, not the scenario file

SHEET = str(ROOT / "rules" / "gilgamesh" / "corvette.toml")


def test_a_bad_value_set_on_the_command_line_names_the_flag(capsys):
    assert errors(capsys, "run", GILGAMESH, SHEET, BROADSIDE, "--set", "station_half_rounds_up=3") == (
        "--set station_half_rounds_up=3: error: params.station_half_rounds_up: expected bool, found the number 3\n"
        "1 error\n")


def test_an_unknown_parameter_set_on_the_command_line_names_the_flag(capsys):
    assert errors(capsys, "run", GILGAMESH, SHEET, BROADSIDE, "--set", "station_half_round_up=true") == (
        "--set station_half_round_up=true: error: params.station_half_round_up: unknown parameter "
        "'station_half_round_up'\n"
        "  hint: did you mean 'station_half_rounds_up'?\n"
        "1 error\n")


def test_an_unknown_choice_made_on_the_command_line_names_the_flag(capsys):
    exalted = str(ROOT / "rules" / "exalted-war.rules")
    attack = str(ROOT / "rules" / "scenarios" / "exalted-commander-attack.toml")
    assert errors(capsys, "odds", exalted, attack, "--choose", "atacker_reroll=true") == (
        "--choose atacker_reroll=true: error: choices.atacker_reroll: unknown choice 'atacker_reroll'\n"
        "  hint: did you mean 'attacker_reroll'?\n"
        "1 error\n")


def test_a_quoted_key_is_placed_at_its_first_character_and_named_as_tomllib_reads_it():
    places = key_places('"foo" = 1\n"f\\u00f6o" = 2\nt = { \'lit\' = 3 }\n')
    assert places["foo"] == (1, 2) and places["föo"] == (2, 2) and places["t.lit"] == (3, 8)



def test_a_key_after_a_comment_holding_a_line_separator_is_shown_on_its_own_line(capsys, tmp_path):
    # U+2028 ends a line for str.splitlines, not for TOML: the key below it is on line 2, shown as written.
    scenario = tmp_path / "s.toml"
    scenario.write_text('# a\u2028b\n[[attackers]]\ntype = "gunnr"\n\n[target]\ntype = "rifleman"\n\n'
                        '[space]\ntile = "city"\n', encoding="utf-8")
    assert errors(capsys, "odds", EPI, str(scenario)).startswith(
        f"{scenario}:3:1: error: attackers[0].type: unknown unit_type 'gunnr'\n"
        '    3 | type = "gunnr"\n')
