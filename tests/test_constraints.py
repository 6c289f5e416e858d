"""A rules file says what a valid state is: impossible scenarios are refused, and broken invariants caught.

Each case of issue 16 runs the real rules file through the command line and
reads the located message: the scenario's file, line and key, the value,
and the line of the constraint in the rules.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from fracas import dsl
from fracas.dsl.diagnostics import RulesError
from fracas.interpreter import Scenario, ScenarioError, exact, prepare
from fracas.interpreter.tools.cli import main
from fracas.interpreter.api import _find_key
from shortcuts import without_any

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "rules"
EPI = str(RULES / "epicinium.rules")
CLASSIC = str(RULES / "epicinium-classic.rules")
GIL = str(RULES / "gilgamesh.rules")
WEEWAR = str(RULES / "weewar.rules")
EXALTED = str(RULES / "exalted-war.rules")
CORVETTE = RULES / "gilgamesh" / "corvette.toml"


def line_of(path: str | Path, text: str) -> int:
    """The line where a text first appears: the tests need not change when the rules move."""
    return next(number for number, line in enumerate(Path(path).read_text().splitlines(), 1) if text in line)


def refused(capsys, *argv: str) -> str:
    """Run fracas, expect exit code 2, and return what it printed on stderr."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code == 2, out + err
    assert "Traceback" not in err
    return err


def scenario(tmp_path: Path, text: str, name: str = "s.toml") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


ATTACK = 'action = "targeted_attack"\n[[attackers]]\ntype = "rifleman"\n'


def attack_on(space: str, target: str = 'type = "militia"') -> str:
    return ATTACK + f"[target]\n{target}\n[space]\n{space}\n"


# ---- the cases of the issue, refused by the Epicinium rules ----------------------------------


def test_a_forest_with_7_trees_is_refused_at_its_key(capsys, tmp_path):
    path = scenario(tmp_path, attack_on('tile = "forest"\nstacks = 7'))
    err = refused(capsys, "odds", EPI, path)
    assert f"{path}:8:1: error: space.stacks: 7 breaks the constraint 'stacks in 0..tile.stacks'" in err
    assert "    8 | stacks = 7" in err
    bound = line_of(EPI, "stacks: int in 0..tile.stacks")
    assert f"hint: the constraint is at {EPI}:{bound}; here stacks is 7 and tile.stacks is 5" in err


def test_3_stacks_on_grass_are_refused(capsys, tmp_path):
    path = scenario(tmp_path, attack_on('tile = "grass"\nstacks = 3'))
    err = refused(capsys, "odds", EPI, path)
    assert f"{path}:8:1: error: space.stacks: 3 breaks the constraint 'stacks in 0..tile.stacks'" in err
    assert "here stacks is 3 and tile.stacks is 0" in err


def test_power_above_the_number_of_buildings_is_refused(capsys, tmp_path):
    path = scenario(tmp_path, attack_on('tile = "city"\nstacks = 2\npower = 3'))
    err = refused(capsys, "odds", EPI, path)
    assert f"{path}:9:1: error: space.power: 3 breaks the constraint 'power in 0..stacks'" in err
    assert f"{EPI}:{line_of(EPI, 'power: int in 0..stacks')}; here power is 3 and stacks is 2" in err


def test_power_on_a_tile_without_buildings_is_refused(capsys, tmp_path):
    path = scenario(tmp_path, attack_on('tile = "forest"\nstacks = 3\npower = 1'))
    err = refused(capsys, "odds", EPI, path)
    assert "space.power: 1 breaks the constraint 'power <= tile.power': no more power than the tile's" in err


def test_a_settler_with_3_figures_is_refused(capsys, tmp_path):
    path = scenario(tmp_path, 'action = "targeted_attack"\nattackers = [{ type = "rifleman" }]\n'
                              'target = { type = "settler", figures = 3 }\nspace = { tile = "dirt" }\n')
    err = refused(capsys, "odds", EPI, path)
    assert f"{path}:3:30: error: target.figures: 3 breaks the constraint 'figures in 0..type.figures'" in err
    assert f"{EPI}:{line_of(EPI, 'figures: int in 0..type.figures')}; here figures is 3 and type.figures is 1" in err


def test_a_target_with_0_figures_is_refused_by_the_attack(capsys, tmp_path):
    path = scenario(tmp_path, attack_on('tile = "dirt"', 'type = "militia"\nfigures = 0'))
    err = refused(capsys, "odds", EPI, path)
    assert (f"{path}:6:1: error: target.figures: 0 breaks the constraint 'target.figures > 0': "
            "a killed unit cannot be attacked") in err
    assert f"{EPI}:{line_of(EPI, 'require target.figures > 0')}; here target.figures is 0" in err


def test_an_attacker_with_0_figures_is_refused_too(capsys, tmp_path):
    path = scenario(tmp_path, 'action = "targeted_attack"\n[[attackers]]\ntype = "gunner"\nfigures = 0\n'
                              '[target]\ntype = "militia"\n[space]\ntile = "dirt"\n')
    err = refused(capsys, "odds", EPI, path)
    assert (f"{path}:4:1: error: attackers[0].figures: 0 breaks the constraint "
            "'all([a.figures > 0 for a in attackers])': a killed unit cannot attack") in err
    assert "here attackers[0].figures is 0" in err


@pytest.mark.parametrize("key", ["stacks", "gas"])
def test_negative_stacks_or_gas_are_refused(capsys, tmp_path, key):
    path = scenario(tmp_path, attack_on(f'tile = "city"\n{key} = -1'))
    err = refused(capsys, "odds", EPI, path)
    assert f"{path}:8:1: error: space.{key}: -1 breaks the constraint" in err


def test_a_negative_shot_damage_of_a_unit_type_is_refused(capsys, tmp_path):
    path = scenario(tmp_path, 'action = "targeted_attack"\n[[attackers]]\n'
                              'type = { figures = 1, hitpoints = 1, shots = 1, damage = -2 }\n'
                              '[target]\ntype = "militia"\n[space]\ntile = "dirt"\n')
    err = refused(capsys, "odds", EPI, path)
    assert (f"{path}:3:49: error: attackers[0].type.damage: -2 breaks the constraint 'damage >= 0': "
            "a shot's damage is never negative") in err
    assert f"{EPI}:{line_of(EPI, 'require damage >= 0')}; here damage is -2" in err


def test_a_negative_shot_damage_of_an_effect_is_refused(capsys, tmp_path):
    path = scenario(tmp_path, 'action = "indiscriminate"\neffect = { shots = 3, damage = -1 }\n'
                              '[space]\ntile = "dirt"\n')
    err = refused(capsys, "odds", EPI, path)
    assert f"{path}:2:23: error: effect.damage: -1 breaks the constraint 'damage >= 0'" in err


def test_the_variant_inherits_every_constraint(capsys, tmp_path):
    path = scenario(tmp_path, attack_on('tile = "forest"\nstacks = 7'))
    err = refused(capsys, "odds", CLASSIC, path)
    assert "space.stacks: 7 breaks the constraint 'stacks in 0..tile.stacks'" in err
    assert f"the constraint is at {RULES / 'epicinium.rules'}:" in err


# ---- Gilgamesh --------------------------------------------------------------------------------


@pytest.mark.parametrize("damage", [99, -5])
def test_hull_damage_outside_the_track_is_refused_in_a_ship_sheet(capsys, tmp_path, damage):
    sheet = scenario(tmp_path, CORVETTE.read_text().replace("capacity = 12\n", f"capacity = 12\ndamage = {damage}\n"),
                     "sheet.toml")
    err = refused(capsys, "run", GIL, sheet, str(RULES / "gilgamesh" / "1-broadside.toml"))
    assert f"{sheet}:10:1: error: ship.hull.damage: {damage} breaks the constraint 'damage in 0..capacity'" in err
    assert f"{GIL}:{line_of(GIL, 'damage: int in 0..capacity')}; here damage is {damage} and capacity is 12" in err


def test_a_weapon_of_negative_damage_is_refused(capsys, tmp_path):
    action = scenario(tmp_path, (RULES / "gilgamesh" / "1-broadside.toml").read_text().replace(
        "damage = 6", "damage = -5"), "broadside.toml")
    err = refused(capsys, "run", GIL, str(CORVETTE), action)
    assert f"{action}:4:12: error: weapon.damage: -5 breaks the constraint 'damage >= 0'" in err


def test_two_stations_of_one_name_are_refused(capsys, tmp_path):
    sheet = scenario(tmp_path, CORVETTE.read_text().replace('name = "helm"', 'name = "weapons"'), "sheet.toml")
    err = refused(capsys, "run", GIL, sheet, str(RULES / "gilgamesh" / "2-repair-shields.toml"))
    assert f'{sheet}:13:1: error: ship.stations[0].name: "weapons" breaks the constraint' in err
    assert "no two may share a name" in err


# ---- Weewar and Exalted -----------------------------------------------------------------------


@pytest.mark.parametrize("health, message", [(11, "health in 0..full_health"), (0, "a destroyed unit cannot be attacked")])
def test_weewar_health_runs_from_1_to_10_in_an_exchange(capsys, tmp_path, health, message):
    path = scenario(tmp_path, 'action = "exchange"\n[attacker]\ntype = "tank"\nplace = { q = 1, r = 0 }\n'
                              f'[defender]\ntype = "trooper"\nhealth = {health}\nplace = {{ q = 0, r = 0 }}\n')
    err = refused(capsys, "odds", WEEWAR, path)
    assert f"{path}:7:1: error: defender.health: {health} breaks the constraint" in err and message in err


def test_exalted_magnitudes_and_health_are_never_negative(capsys, tmp_path):
    text = (RULES / "scenarios" / "exalted-commander-attack.toml").read_text()
    path = scenario(tmp_path, text.replace("magnitude = 2", "magnitude = -1"))
    err = refused(capsys, "odds", EXALTED, path)
    assert "defender.magnitude: -1 breaks the constraint 'magnitude >= 0'" in err
    path = scenario(tmp_path, text.replace("[defender]\n", "[defender]\nhealth = 0\n"), "dead.toml")
    assert "a destroyed unit cannot be attacked" in refused(capsys, "odds", EXALTED, path)


def test_every_shipped_scenario_meets_the_constraints():
    systems = {"epicinium": EPI, "exalted": EXALTED, "gilgamesh": GIL, "weewar": WEEWAR,
               "risk": str(RULES / "risk.rules"), "miniatures": str(RULES / "miniatures.rules")}
    from fracas.interpreter.tools.scenario import load_scenario

    for path in sorted((RULES / "scenarios").glob("*.toml")):
        rules = dsl.load(systems[path.name.split("-")[0]])
        prepare(rules, load_scenario(path))


# ---- the other ways a value comes in --------------------------------------------------------------


def test_set_is_checked_and_named_as_the_flag(capsys):
    err = refused(capsys, "odds", EPI, str(RULES / "scenarios" / "epicinium-trenches.toml"),
                  "--set", "gas_from_destruction=-1")
    assert ("--set gas_from_destruction=-1: error: params.gas_from_destruction: -1 breaks the constraint "
            "'gas_from_destruction >= 0'") in err
    assert f"{EPI}:{line_of(EPI, 'require gas_from_destruction >= 0')}" in err


def test_the_variant_names_its_own_parameter_given_by_set(capsys):
    err = refused(capsys, "odds", CLASSIC, str(RULES / "scenarios" / "epicinium-bombard-town.toml"),
                  "--set", "firestorm_damage=-1")
    assert "--set firestorm_damage=-1: error: params.firestorm_damage: -1 breaks the constraint" in err


def test_a_params_table_is_checked_at_its_key(capsys, tmp_path):
    text = (RULES / "scenarios" / "weewar-troopers-on-plains.toml").read_text()
    path = scenario(tmp_path, text + "\n[params]\nwound_opposite = -3\n")
    err = refused(capsys, "odds", WEEWAR, path)
    line = len(text.splitlines()) + 3
    assert f"{path}:{line}:1: error: params.wound_opposite: -3 breaks the constraint" in err
    assert "a wound bonus never lowers the chance to hit" in err


def test_a_unit_killed_by_an_attack_is_written_to_the_state_and_refused_by_the_next(capsys, tmp_path):
    # Nine shots kill a single Militia figure: the state holds it with 0 figures, which
    # a unit may have (it is dead), and the next attack refuses to target it.
    first = scenario(tmp_path, ATTACK.replace('"rifleman"', '"gunner"\nfigures = 3')
                     + '[target]\ntype = "militia"\nfigures = 1\n[space]\ntile = "dirt"\n')
    after = tmp_path / "after.toml"
    assert main(["run", EPI, first, "--write-state", str(after)]) == 0
    capsys.readouterr()
    assert "figures = 0" in after.read_text()
    err = refused(capsys, "run", EPI, str(after))
    assert f"{after}:{line_of(after, 'figures = 0')}:1: error: target.figures: 0 breaks the constraint 'target.figures > 0'" in err


def test_an_example_run_line_that_breaks_a_constraint_fails_at_its_place(capsys, tmp_path):
    rules = tmp_path / "r.rules"
    rules.write_text('kind unit { figures: int in 1..3 = 3 }\noutcome lost: int = 0\n'
                     'action hit(target: unit) { lost = 1 }\n'
                     'example "T-01 a unit of 4" {\n    run hit(target: {figures: 4})\n    expect lost == 1\n}\n')
    assert main(["test", str(rules)]) == 1
    out = capsys.readouterr().out
    assert (f"FAIL T-01 a unit of 4: {rules}:5:31: target.figures: 4 breaks the constraint 'figures in 1..3' "
            f"(hint: the constraint is at {rules}:1; here figures is 4)\n") in out  # the hint check gives it too
    err = refused(capsys, "check", str(rules))
    assert f"{rules}:5:31: error: target.figures: 4 breaks the constraint 'figures in 1..3'" in err


def test_an_example_set_that_breaks_a_constraint_is_located(capsys, tmp_path):
    rules = tmp_path / "r.rules"
    rules.write_text('param bonus in 0..3 = 1\noutcome o: int = 0\naction go() { o = bonus }\n'
                     'example "T-01 too much" {\n    set bonus = 5\n    run go()\n    expect o == 5\n}\n')
    err = refused(capsys, "check", str(rules))
    assert f"{rules}:5:17: error: params.bonus: 5 breaks the constraint 'bonus in 0..3'" in err


def test_a_row_that_breaks_its_kind_is_found_by_check(capsys, tmp_path):
    rules = tmp_path / "r.rules"
    rules.write_text('kind unit_type { figures: int  require figures >= 1 "a unit has figures" }\n'
                     'unit_type ghost { figures 0 }\noutcome o: int = 0\naction go() { o = 1 }\n')
    err = refused(capsys, "check", str(rules))
    assert f"{rules}:2:27: error: ghost.figures: 0 breaks the constraint 'figures >= 1': a unit has figures" in err


def test_a_record_written_inside_a_row_is_checked_at_it(capsys, tmp_path):
    rules = scenario(tmp_path, "kind k { x: int = 0  require x > 0 }\nkind holder { inner: k }\n"
                               "holder h { inner {x: 0} }\noutcome o: int = 0\naction go() { o = h.inner.x }\n", "r.rules")
    assert f"{rules}:3:18: error: h.inner: breaks the constraint 'x > 0'" in refused(capsys, "check", rules)


def test_a_record_written_inside_a_row_is_a_constant_an_action_reads(tmp_path):
    rules = dsl.loads("kind k { x: int = 0 }\nkind holder { inner: k }\nholder h { inner {x: 2} }\n"
                      "outcome o: int = 0\naction go() { o = h.inner.x }\n")
    assert exact(rules, Scenario("go", {})).marginal("o") == {2: 1}


def test_a_parameter_that_is_a_record_is_checked_at_its_value(capsys, tmp_path):
    rules = scenario(tmp_path, "kind k { x: int = 0  require x > 0 }\nparam d: k = {}\n"
                               "outcome o: int = 0\naction go() { o = d.x }\n", "r.rules")
    assert f"{rules}:2:14: error: d: breaks the constraint 'x > 0'" in refused(capsys, "check", rules)


def test_parameters_that_break_a_require_as_written_are_found_by_check(capsys, tmp_path):
    rules = scenario(tmp_path, 'param a = -1\nrequire a >= 0 "a is a count"\noutcome o: int = 0\n'
                               "action go() { o = a }\n", "r.rules")
    err = refused(capsys, "check", rules)
    assert f"{rules}:2:1: error: the parameters as written break the constraint 'a >= 0': a is a count" in err


def test_a_volley_refuses_a_negative_damage_at_the_call(capsys, tmp_path):
    rules = scenario(tmp_path, "outcome n: int = 0\naction go(d: int) { n = len(volley(2, damage: d)) }\n", "r.rules")
    err = refused(capsys, "odds", rules, scenario(tmp_path, "d = -3\n"))
    assert f"{rules}:2:29: error: a shot's damage cannot be negative (-3)" in err


def test_the_api_refuses_an_impossible_scenario_with_a_scenario_error():
    rules = dsl.load(EPI)
    bad = Scenario("targeted_attack", {"attackers": [{"type": "gunner"}], "target": {"type": "settler", "figures": 2},
                                       "space": {"tile": "dirt"}})
    with pytest.raises(ScenarioError) as caught:
        exact(rules, bad)
    assert caught.value.diagnostics[0].message == "target.figures: 2 breaks the constraint 'figures in 0..type.figures'"


# ---- after every action ----------------------------------------------------------------------------

BREAKS = """kind unit { figures: int in 0..3 = 3 }
outcome lost: int = 0
action hit(target: unit) {
    lost = 1d4
    target.figures -= lost
}
"""


def test_a_rule_that_breaks_an_invariant_is_caught_with_its_probability(capsys, tmp_path):
    rules = scenario(tmp_path, BREAKS, "r.rules")
    path = scenario(tmp_path, 'action = "hit"\n[target]\nfigures = 3\n')
    err = refused(capsys, "odds", rules, path)
    assert (f"{rules}:1:26: error: after hit, target.figures is -1: it breaks the constraint 'figures in 0..3', "
            "with probability 1/4") in err
    assert "hint: a rule of hit left this unit so; in the final state where lost = 4" in err


def test_a_sampled_run_that_breaks_an_invariant_is_caught(capsys, tmp_path):
    rules = scenario(tmp_path, BREAKS.replace("1d4", "4"), "r.rules")
    path = scenario(tmp_path, 'action = "hit"\n[target]\nfigures = 3\n')
    err = refused(capsys, "run", rules, path)
    assert f"{rules}:1:26: error: after hit, target.figures is -1: it breaks the constraint 'figures in 0..3'\n" in err


def test_a_broken_invariant_in_every_outcome_says_so(capsys, tmp_path):
    rules = scenario(tmp_path, BREAKS.replace("1d4", "4"), "r.rules")
    path = scenario(tmp_path, 'action = "hit"\n[target]\nfigures = 3\n')
    assert "breaks the constraint 'figures in 0..3', in every outcome" in refused(capsys, "odds", rules, path)


def test_a_record_a_rule_writes_into_an_outcome_is_checked_too(capsys, tmp_path):
    rules = scenario(tmp_path, "kind box { size: int  require size >= 0 }\noutcome last: box? = none\n"
                               "action go() { last = {size: -1} }\n", "r.rules")
    path = scenario(tmp_path, 'action = "go"\n')
    assert "after go, last.size is -1: it breaks the constraint 'size >= 0'" in refused(capsys, "odds", rules, path)


TWO_WAYS = """kind unit { figures: int in 0..3 = 3 }
outcome lost: int = 0
action hit(a: unit, b: unit) {
    lost = 1d6
    a.figures -= lost
    b.figures -= 6 - lost
}
"""


def refusal(rules_text: str, inputs: dict, action: str = "hit", outcomes_only: bool = True) -> str:
    with pytest.raises(ScenarioError) as caught:
        exact(dsl.loads(rules_text), Scenario(action, inputs), outcomes_only=outcomes_only)
    return caught.value.diagnostics[0].format()


def test_of_two_things_that_may_break_a_constraint_the_refusal_names_the_likelier():
    # b breaks it when 1 or 2 is rolled (1/3), a when 4, 5 or 6 is (1/2): the engine meets b's states first.
    found = refusal(TWO_WAYS, {"a": {}, "b": {}})
    assert "after hit, a.figures is -1: it breaks the constraint 'figures in 0..3', with probability 1/2" in found
    assert "in the final state where lost = 4" in found  # of three final states as likely, the first by value


def test_a_refusal_shows_the_likeliest_final_state_that_breaks_the_constraint():
    found = refusal(TWO_WAYS.replace("1d6", "2d4").replace("6 - lost", "0"), {"a": {}, "b": {}})
    assert "after hit, a.figures is -2: it breaks the constraint 'figures in 0..3', with probability 13/16" in found
    assert "in the final state where lost = 5" in found


SPLIT_BY_A_LOCAL = """kind unit { figures: int in 0..3 = 3 }
outcome lost: int = 0
action hit(a: unit) {
    let thrown = 1d6
    lost = if thrown <= 3 then 5 else if thrown == 4 then 4 else 0
    a.figures -= lost
}
"""


def test_a_refusal_shows_what_is_likeliest_to_be_seen_whatever_else_the_final_states_hold():
    # Whole final states hold the local `thrown` too: losing 5 is three states of 1/6 there, one of 1/2 when
    # outcomes alone are asked; the refusal shows it in both.
    alone = refusal(SPLIT_BY_A_LOCAL, {"a": {}})
    assert "after hit, a.figures is -2: it breaks the constraint 'figures in 0..3', with probability 2/3" in alone
    assert "in the final state where lost = 5" in alone
    assert refusal(SPLIT_BY_A_LOCAL, {"a": {}}, outcomes_only=False) == alone


def test_a_refusal_is_the_same_without_the_exact_engines_shortcuts(monkeypatch):
    with_them = refusal(TWO_WAYS, {"a": {}, "b": {}})
    without_any(monkeypatch)
    assert refusal(TWO_WAYS, {"a": {}, "b": {}}) == with_them


def odds_refused(capsys, tmp_path, rules_text: str, scenario_text: str) -> str:
    """What `fracas odds` printed on stderr, refusing these rules and this scenario."""
    return refused(capsys, "odds", scenario(tmp_path, rules_text, "r.rules"), scenario(tmp_path, scenario_text))


CRATE = "kind box { size: int  require size >= 0 }\nkind crate { inside: box? = none }\noutcome o: int = 0\n"


def test_a_record_a_rule_writes_into_a_thing_of_the_scenario_is_checked(capsys, tmp_path):
    err = odds_refused(capsys, tmp_path, CRATE + "action go(c: crate) { c.inside = {size: -2} }\n", 'action = "go"\n[c]\n')
    assert "after go, c.inside.size is -2: it breaks the constraint 'size >= 0'" in err


def test_a_record_written_into_a_thing_is_checked_after_the_rules_that_follow_it(capsys, tmp_path):
    # The field is read by nothing after it is written: the exact engine must keep it for the check all the same.
    body = "action go(c: crate) {\n    c.inside = {size: -2}\n    o = roll(1, 6)\n    o += 1\n}\n"
    err = odds_refused(capsys, tmp_path, CRATE + body, 'action = "go"\n[c]\n')
    assert "after go, c.inside.size is -2: it breaks the constraint 'size >= 0', in every outcome" in err


SQUAD = ("kind member { hp: int = 1 }\nfn alive(m: member) = m.hp > 0\n"
         "kind squad {\n    leader: member\n    members: list of member\n"
         "    require alive(leader) \"the leader lives\"\n"
         "    require all([m.hp > 0 for m in members]) \"everyone lives\"\n}\n"
         "outcome r: int = 0\n")
SQUAD_SCENARIO = 'action = "go"\n[s]\nleader = {hp = 2}\nmembers = [{hp = 2}]\n'


@pytest.mark.parametrize("command", [["odds"], ["run"]], ids=["exact", "sampled"])
def test_a_constraint_that_reads_another_thing_through_a_function_is_checked_when_that_thing_changes(
        capsys, tmp_path, command):
    rules = scenario(tmp_path, SQUAD + "action go(s: squad) {\n    r = 2\n    s.leader.hp -= r\n    r += roll(1, 2)\n}\n",
                     "r.rules")
    assert "breaks the constraint 'alive(leader)'" in refused(capsys, *command, rules, scenario(tmp_path, SQUAD_SCENARIO))


@pytest.mark.parametrize("command", [["odds"], ["run"]], ids=["exact", "sampled"])
def test_a_constraint_over_a_list_of_things_is_checked_when_one_of_them_changes(capsys, tmp_path, command):
    rules = scenario(tmp_path, SQUAD + "action go(s: squad) {\n    for m in s.members {\n        m.hp = 0\n    }\n"
                                       "    r = roll(1, 2)\n}\n", "r.rules")
    err = refused(capsys, *command, rules, scenario(tmp_path, SQUAD_SCENARIO))
    assert "s.members[0].hp is 0: it breaks the constraint 'all([m.hp > 0 for m in members])'" in err


def test_a_state_in_the_middle_of_an_action_may_break_an_invariant(tmp_path):
    rules = dsl.loads(BREAKS.replace("    target.figures -= lost\n", "    target.figures -= 5\n    target.figures += 5\n"))
    assert exact(rules, Scenario("hit", {"target": {}})).marginal("lost") == {n: Fraction(1, 4) for n in range(1, 5)}


def test_the_shipped_rules_keep_their_invariants_over_a_whole_battle(capsys, tmp_path):
    sheet = CORVETTE
    for step in ("1-broadside", "2-repair-shields", "3-second-pass"):
        after = tmp_path / f"after-{step}.toml"
        assert main(["run", GIL, str(sheet), str(RULES / "gilgamesh" / f"{step}.toml"), "--seed", "3",
                     "--write-state", str(after)]) == 0
        sheet = after
    capsys.readouterr()


# ---- the language ------------------------------------------------------------------------------------


def test_a_range_is_a_condition_anywhere(tmp_path):
    rules = dsl.loads('outcome a: bool = false\noutcome b: bool = false\n'
                      'action go(x: int) { a = x in 1..6  b = x not in 1..6 }\n')
    dist = exact(rules, Scenario("go", {"x": 6}))
    assert dist.marginal("a") == {True: 1} and dist.marginal("b") == {False: 1}
    assert exact(rules, Scenario("go", {"x": 0})).marginal("a") == {False: 1}


def check_error(text: str) -> str:
    with pytest.raises(RulesError) as caught:
        dsl.loads(text)
    return caught.value.diagnostics[0].message


def test_a_constraint_cannot_depend_on_chance():
    assert check_error("kind k { x: int  require x > 1d6 }") == "a constraint cannot depend on chance"


def test_a_constraint_cannot_read_an_outcome():
    assert check_error("outcome o: int = 0\nkind k { x: int  require x > o }") == \
        "a constraint cannot read the outcome 'o'"


def test_a_require_is_a_condition():
    assert check_error("kind k { x: int  require x + 1 }") == "expected bool, found int"


def test_bounds_need_a_number():
    assert check_error("kind k { x: bool in 0..1 }") == "bounds need a number, and 'x' is a bool"


def test_only_an_action_takes_bounds_on_its_inputs():
    assert check_error("step s(x: int in 0..3) { }\naction go() { s(1) }") == "only an action's inputs take bounds"


def test_a_require_reads_the_fields_of_its_own_kind():
    assert check_error("kind k { x: int  require y > 0 }") == "unknown name 'y'"


def test_diff_lists_constraints_added_removed_and_reworded(capsys, tmp_path):
    (tmp_path / "a.rules").write_text('param p = 1\nrequire p >= 0 "old"\nkind k { x: int = 1  require x > 0 }\n'
                                      "action go(v: k) require v.x > 0 { }\n")
    (tmp_path / "b.rules").write_text('param p = 1\nrequire p >= 0 "new"\nrequire p <= 9\n'
                                      "kind k { x: int in 0..5 = 1 }\naction go(v: k) { }\n")
    assert main(["diff", str(tmp_path / "a.rules"), str(tmp_path / "b.rules"), "--json"]) == 0
    changes = {(c["change"], c["category"], c["name"]): c["details"] for c in json.loads(capsys.readouterr().out)}
    assert changes[("changed", "kind", "k")] == ["x: int = 1 -> int in 0..5 = 1", "require x > 0: (removed)"]
    assert changes[("changed", "action", "go")] == ["require v.x > 0: (removed)"]
    assert changes[("changed", "require", "p >= 0")] == ['message: "old" -> "new"']
    assert ("added", "require", "p <= 9") in changes


def test_an_overriding_kind_adds_its_requires_to_the_base(tmp_path):
    (tmp_path / "base.rules").write_text("kind k { x: int = 1  require x > 0 }\noutcome o: int = 0\n"
                                         "action go(v: k) { o = v.x }\n")
    (tmp_path / "mod.rules").write_text('extends "base.rules"\noverride kind k { require x < 5 }\n')
    rules = dsl.load(tmp_path / "mod.rules")
    assert [c.text for c in rules.kinds["k"].constraints] == ["x > 0", "x < 5"]


def test_the_language_reference_shows_what_fracas_prints_for_a_refused_value(capsys, tmp_path, monkeypatch):
    reference = (ROOT / "grammars" / "language.md").read_text()
    rules = next(block for block in reference.split("```fracas\n")[1:] if block.startswith('rules "Constraints"'))
    (tmp_path / "constraints.rules").write_text(rules.split("```")[0])
    shown = reference.split("$ cat strike.toml\n")[1].split("```")[0]
    toml, output = shown.split("$ fracas run constraints.rules strike.toml\n")
    (tmp_path / "strike.toml").write_text(toml)
    monkeypatch.chdir(tmp_path)
    assert refused(capsys, "run", "constraints.rules", "strike.toml") == output + "1 error\n"


# ---- where a key is written ---------------------------------------------------------------------------


@pytest.mark.parametrize("where, position", [
    ("ship.hull.capacity", (9, 1)),
    ("ship.hull.red[1]", (10, 11)),
    ("ship.stations[2].track.capacity", (25, 11)),
    ("ship.stations[3].manned", (30, 1)),
    ("ship.stations[1].track.damage", (20, 1)),  # not written: its track is
    ("nothing", (0, 0)),
])
def test_a_key_is_found_in_tables_arrays_of_tables_and_inline_tables(where, position):
    assert _find_key(CORVETTE.read_text(), where)[:2] == position


@pytest.mark.parametrize("text", ['[b,[,.]bb[}{', 'a = "unterminated', "a = '''x", '[x', 'a = {b = 1'])
def test_a_text_that_is_not_toml_gives_no_position_rather_than_a_hang_or_a_crash(text):
    assert _find_key(text, "q.r")[:2] == (0, 0)


GROWS = """param cap: int = 4
kind unit {
    size: int = 3
    require size <= cap
}
outcome grown: int = 0
action grow(target: unit) {
    grown = 1d2
    target.size += grown
}
"""


def test_a_constraint_that_reads_a_parameter_is_tested_at_that_parameters_value():
    rules = dsl.loads(GROWS)
    with pytest.raises(ScenarioError, match="with probability 1/2"):
        exact(rules, Scenario("grow", {"target": {}}))
    assert exact(rules, Scenario("grow", {"target": {}}, params={"cap": 5})).marginal("grown") == {
        1: Fraction(1, 2), 2: Fraction(1, 2)}


WATCHES = """kind unit { hp: int = 2 }
fn alive(u: unit) = u.hp > 0
kind guard {
    watched: unit
    require alive(watched) "the watched unit lives"
}
outcome struck: int = 0
action strike(g: guard) {
    struck = 1d2
    g.watched.hp -= struck
}
"""


def test_a_constraint_that_reads_another_entity_through_a_function_sees_that_entity_in_every_state():
    # The guard's record is the same in both final states: only the unit it watches differs.
    rules = dsl.loads(WATCHES)
    with pytest.raises(ScenarioError, match="the watched unit lives, with probability 1/2"):
        exact(rules, Scenario("strike", {"g": {"watched": {}}}))


def test_states_that_differ_only_in_a_constrained_field_are_each_checked():
    # Many final states, one of them out of bounds: the quick test of a record by its values finds it.
    rules = dsl.loads(GROWS.replace("1d2", "1d6"))
    with pytest.raises(ScenarioError, match=r"target.size is 5: it breaks .*with probability 5/6"):
        exact(rules, Scenario("grow", {"target": {}}, params={"cap": 4}))


HOLDS = """kind box_type { cap: int }
box_type small { cap 2 }
kind box {
    type: box_type = small
    size: int = 0
    require size <= type.cap "no fuller than its type holds"
}
outcome added: int = 0
action fill(b: box) {
    added = 1d4
    b.size += added
}
"""


def test_a_constraint_read_through_a_row_is_tested_at_that_rows_values():
    with pytest.raises(ScenarioError, match="no fuller than its type holds, with probability 1/2"):
        exact(dsl.loads(HOLDS), Scenario("fill", {"b": {}}))


def test_a_constraint_read_through_a_type_the_scenario_writes_in_place_is_tested_at_its_values():
    # Written in place, the type is a thing of the scenario: what the constraint reads of it is not a row's.
    with pytest.raises(ScenarioError, match="no fuller than its type holds, with probability 1/4"):
        exact(dsl.loads(HOLDS), Scenario("fill", {"b": {"type": {"cap": 3}}}))


def test_a_constraint_on_two_fields_is_checked_by_both_values_after_an_action(capsys, tmp_path):
    err = odds_refused(capsys, tmp_path, "kind pair {\n    a: int\n    b: int\n    require a + b <= 5\n}\n"
                                         "outcome raised: int = 0\n"
                                         "action raise(p: pair) {\n    raised = 1d4\n    p.a += raised\n    p.b += 1\n}\n",
                       'action = "raise"\n[p]\na = 1\nb = 1\n')
    assert "after raise, p.a is 4: it breaks the constraint 'a + b <= 5', with probability 1/2" in err


BOTH_HURT = dsl.loads("""kind unit { hp: int in 0..20 = 5  atk: int = 1 }
outcome b: int = 0
action trade(x: unit, y: unit) {
    x.atk = 1d6
    y.atk = 1d6
    x.hp -= y.atk
    y.hp -= x.atk
    b = x.hp
}
""", "both.rules")


def test_the_probability_said_of_a_breach_counts_the_states_that_break_something_else_too():
    # y (4 hp) breaks its bounds when x rolls 5 or 6: 1/3, though in 1/18 of the states x (5 hp) breaks its own too.
    with pytest.raises(ScenarioError) as caught:
        exact(BOTH_HURT, Scenario("trade", {"x": {"hp": 5}, "y": {"hp": 4}}))
    assert caught.value.diagnostics[0].message.endswith("it breaks the constraint 'hp in 0..20', with probability 1/3")


def test_a_constraint_that_reads_only_a_whole_thing_has_a_hint_with_its_fields_not_an_empty_list(tmp_path, capsys):
    # Through a fn, the constraint reads the piece, not its health: the hint once ended in "; here " and nothing.
    rules = tmp_path / "hit.rules"
    rules.write_text('kind piece { health: int = 1 }\nfn dead(p: piece) = p.health == 0\noutcome r: int = 0\n'
                     'action hit(p: piece)\n    require not dead(p) "a dead piece cannot be hit" {\n    r = 1\n}\n')
    scenario = tmp_path / "hit.toml"
    scenario.write_text('action = "hit"\n[p]\nhealth = 0\n')
    assert main(["odds", str(rules), str(scenario)]) == 2
    err = capsys.readouterr().err
    assert f"hint: the constraint is at {rules}:5; here p.health is 0\n" in err


HOSTS = """kind host { units: int  morale: int = 0 }
outcome ok: bool = false
action battle(attack: host, defence: host)
    require attack.units >= attack.morale and defence.units >= defence.morale "both hosts start unbroken" {
    ok = true
}
"""


def hosts_refused(capsys, tmp_path: Path, attack: tuple[int, int], defence: tuple[int, int]) -> str:
    rules = tmp_path / "hosts.rules"
    rules.write_text(HOSTS)
    return refused(capsys, "odds", str(rules), scenario(
        tmp_path, f'action = "battle"\n[attack]\nunits = {attack[0]}\nmorale = {attack[1]}\n'
                  f'[defence]\nunits = {defence[0]}\nmorale = {defence[1]}\n'))


def test_a_requirement_of_several_parts_blames_an_input_of_the_part_that_fails(capsys, tmp_path):
    err = hosts_refused(capsys, tmp_path, (9, 6), (3, 4))
    assert ":6:1: error: defence.units: 3 breaks the constraint" in err
    assert "here defence.units is 3, defence.morale is 4, attack.units is 9 and attack.morale is 6" in err


def test_a_requirement_whose_first_part_fails_blames_that_part(capsys, tmp_path):
    assert ":3:1: error: attack.units: 1 breaks the constraint" in hosts_refused(capsys, tmp_path, (1, 6), (3, 4))


def test_a_requirement_read_through_a_fn_shows_the_fields_of_the_thing_it_reads(capsys, tmp_path):
    rules = tmp_path / "units.rules"
    rules.write_text('kind unit { health: int = 3  routed: bool = false  name: text = "u" }\n'
                     "fn out(u: unit) = u.health == 0 or u.routed\noutcome r: int = 0\n"
                     'action hit(u: unit)\n    require not out(u) "a broken unit cannot be attacked" {\n'
                     "    r = 1d2\n}\n")
    err = refused(capsys, "odds", str(rules), scenario(tmp_path, 'action = "hit"\n[u]\nhealth = 2\nrouted = true\n'))
    assert ":2:2: error: u: breaks the constraint 'not out(u)'" in err
    assert 'here u.health is 2, u.routed is true and u.name is "u"' in err


def test_a_failing_part_that_reads_a_field_twice_names_it_once(capsys, tmp_path):
    rules = tmp_path / "skills.rules"
    rules.write_text("enum skill { block dodge }\nkind unit { n: int = 1  k: skill? = none\n"
                     "    require n >= 0 and (k == none or k == block) }\noutcome r: int = 0\n"
                     "action go(a: unit) { r = a.n }\n")
    err = refused(capsys, "odds", str(rules), scenario(tmp_path, 'action = "go"\na = {n = 1, k = "dodge"}\n'))
    assert "here k is dodge and n is 1\n" in err


def test_a_field_s_default_written_outside_its_bounds_is_one_error_at_the_default():
    with pytest.raises(RulesError) as caught:
        dsl.loads("kind fighter {\n    hp: int in 1..100 = 0\n}\noutcome o: int = 0\naction go(a: fighter = {}) { o = a.hp }\n"
                  'example "F-01 one" { run go() expect o == 0 }\nexample "F-02 two" { run go(a: {}) expect o == 0 }\n',
                  "bounds.rules")
    [told] = caught.value.diagnostics
    assert (told.line, told.column, told.message) == (2, 25, "the default 0 of 'hp' is outside its bounds 1..100")


@pytest.mark.parametrize("bounds, hint", [("1..top = 0", "give it a default within them, or widen them"),
                                          ("10..1 = 5", "these bounds hold no number: write the lower first")])
def test_a_field_s_default_outside_a_bound_written_out_is_refused_whatever_the_other_bound(bounds, hint):
    with pytest.raises(RulesError) as caught:
        dsl.loads(f"param top = 10\nkind f {{ hp: int in {bounds} }}\noutcome o: int = 0\n"
                  "action go(a: f = {}) { o = a.hp }\n", "bounds.rules")
    [told] = caught.value.diagnostics
    assert told.message.startswith("the default") and told.hint == hint
