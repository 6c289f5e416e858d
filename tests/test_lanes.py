"""Past the last draw, a tail whose lines fall apart into lanes runs each lane once for each value it reads."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import pytest

from fracas import dsl
from fracas.dsl.limits import Limits
from fracas.interpreter import Scenario, ScenarioError, exact, load_scenario
from fracas.interpreter.core import lanes, tails
from fracas.interpreter.core.codegen import generator_for
from fracas.interpreter.core.interned import Interned
from shortcuts import block_calls, without_grouping_tail_rows, without_running_tails_in_lanes

ROOT = Path(__file__).resolve().parent.parent

# Two losses drawn, a splash on others around (none here), then each loss landing on its own side: two lanes,
# each reading one loss, past the last draw.
EXCHANGE = """rules "lanes"
kind side {
    health: int = 30
    require health >= 0
}
outcome dealt: int = 0
outcome taken: int = 0
outcome splash: int = 0
action exchange(a: side, b: side, others: list of side = []) {
    dealt = roll(1, 20)
    taken = roll(1, 20)
    for other in others {
        splash += roll(1, 2)
    }
    LANDING
}
"""
APART = "b.health -= dealt\n    a.health -= taken"
SIDES = {"a": {}, "b": {}}


def rules_of(landing: str = APART) -> dsl.Ruleset:
    return dsl.loads(EXCHANGE.replace("LANDING", landing), "lanes.rules")


def odds_without_lanes(rules: dsl.Ruleset, scenario: Scenario, monkeypatch: pytest.MonkeyPatch) -> dict:
    with monkeypatch.context() as patched:
        without_running_tails_in_lanes(patched)
        return exact(dsl.loads(rules.sources[rules.path].text, rules.path), scenario, outcomes_only=True).states


def tail_block_calls(rules: dsl.Ruleset, scenario: Scenario, monkeypatch: pytest.MonkeyPatch) -> int:
    """How many times the code of the blocks past the last draw runs, in an outcomes-only run."""
    exact(rules, scenario, outcomes_only=True)  # the code made
    calls = block_calls(rules, scenario.action, monkeypatch)
    exact(rules, scenario, outcomes_only=True)
    routine = generator_for(rules).routines[scenario.action]
    [projection] = [found for (whole, _), found in routine.projections.items() if not whole]
    return sum(calls[pc] for pc in tails.tail_of(routine, projection))


def refusal(rules: dsl.Ruleset, scenario: Scenario) -> str:
    with pytest.raises(ScenarioError) as caught:
        exact(rules, scenario, outcomes_only=True)
    return caught.value.diagnostics[0].format()


def refusal_as_without_lanes(made: Callable[[], dsl.Ruleset], scenario: Scenario,
                             monkeypatch: pytest.MonkeyPatch) -> str:
    """The refusal of a run in lanes of the rules `made` gives, which a run of each combination gives word for word."""
    found = refusal(made(), scenario)
    with monkeypatch.context() as patched:
        without_running_tails_in_lanes(patched)
        assert refusal(made(), scenario) == found
    return found


def test_each_loss_lands_once_for_each_of_its_values_not_once_for_each_pair(monkeypatch):
    rules, scenario = rules_of(), Scenario("exchange", SIDES)
    assert tail_block_calls(rules, scenario, monkeypatch) == 1  # the whole tail once; each lane 20 times on its own
    odds = exact(rules, scenario, outcomes_only=True)
    assert len(odds.states) == 400 and set(odds.states.values()) == {Fraction(1, 400)}
    assert odds.states == odds_without_lanes(rules, scenario, monkeypatch)


def test_lines_that_read_both_losses_run_for_each_pair(monkeypatch):
    rules, scenario = rules_of("b.health -= dealt + taken"), Scenario("exchange", {"a": {}, "b": {"health": 50}})
    assert tail_block_calls(rules, scenario, monkeypatch) == 400
    assert exact(rules, scenario, outcomes_only=True).states == odds_without_lanes(rules, scenario, monkeypatch)


def test_a_step_called_for_each_side_lands_each_loss_in_a_lane_of_its_own(monkeypatch):
    # The step's parameters name the sides in slots of their own: lines every lane runs.
    step = "step land(on: side, loss: int) {\n    on.health -= loss\n}\n"
    rules = dsl.loads(EXCHANGE.replace("action exchange", step + "action exchange")
                      .replace("LANDING", "land(b, dealt)\n    land(a, taken)"), "lanes.rules")
    scenario = Scenario("exchange", SIDES)
    assert tail_block_calls(rules, scenario, monkeypatch) < 400
    assert exact(rules, scenario, outcomes_only=True).states == odds_without_lanes(rules, scenario, monkeypatch)


def test_a_loss_that_breaks_a_constraint_is_refused_as_without_lanes(monkeypatch):
    scenario = Scenario("exchange", {"a": {"health": 10}, "b": {"health": 15}})
    assert "it breaks the constraint 'health >= 0'" in refusal_as_without_lanes(rules_of, scenario, monkeypatch)


def test_a_line_that_fails_for_one_value_fails_as_without_lanes(monkeypatch):
    landing = "b.health -= floor(60 / (dealt - 3))\n    a.health -= taken"
    scenario = Scenario("exchange", SIDES)
    assert "division by zero" in refusal_as_without_lanes(lambda: rules_of(landing), scenario, monkeypatch)


def test_the_weewar_exchange_lands_each_side_s_loss_in_a_lane_of_its_own(monkeypatch):
    """Six draws per health point each way at health 20: 441 pairs of losses, 21 of each, landing at the end."""
    rules = dsl.load(ROOT / "rules" / "weewar.rules")
    scenario = load_scenario(ROOT / "rules" / "scenarios" / "weewar-tank-ganging-up.toml")
    for side in ("attacker", "defender"):
        scenario.inputs[side]["health"] = 20
    scenario = Scenario(scenario.action, scenario.inputs, params={"full_health": 20}, choices=scenario.choices)
    assert tail_block_calls(rules, scenario, monkeypatch) == 1
    odds = exact(rules, scenario, outcomes_only=True)
    assert len(odds.states) == 21 * 21
    assert odds.states == odds_without_lanes(rules, scenario, monkeypatch)


# A tail that counts a list of 100 things (work of its own, as its comprehension runs) beside its lanes.
COUNTING = """rules "counting"
kind side {
    health: int = 300
}
outcome d1: int = 0
outcome o9: int = 0
outcome splash: int = 0
action go(a: side, b: side, others: list of side = [], mates: list of side = []) {
    o9 = roll(1, 20)
    d1 = roll(1, 10)
    for m in mates {
        splash += roll(1, 2)
    }
    LANDING
}
"""
CROWD = {"a": {}, "b": {}, "others": [{} for _ in range(100)], "mates": [{}]}


def counting(landing: str, work: int) -> dsl.Ruleset:
    return dsl.loads(COUNTING.replace("LANDING", landing), "counting.rules", Limits(work=work))


# As EXCHANGE, with each side's hit drawn into a field of the side it lands on, and the loss it makes capped by
# the health that side has: twenty hits each way, five losses.
CAPPED = """rules "capped losses"
kind side {
    health: int = 5
    incoming: int = 0
    require health >= 0
}
outcome lost: int = 0
outcome suffered: int = 0
outcome splash: int = 0
action exchange(a: side, b: side, others: list of side = []) {
    b.incoming = roll(1, 20)
    a.incoming = roll(1, 20)
    for other in others {
        splash += roll(1, 2)
    }
    lost = min(b.health, b.incoming)
    suffered = min(a.health, a.incoming)
    b.health -= lost
    a.health -= suffered
}
"""


def test_rows_whose_lanes_give_the_same_outcomes_make_their_outcomes_once(monkeypatch):
    rules, scenario = dsl.loads(CAPPED, "capped.rules"), Scenario("exchange", SIDES)
    assert tail_block_calls(rules, scenario, monkeypatch) == 1  # in lanes: 400 pairs of hits, 5 losses each way
    made: list[object] = []
    real = Interned.id
    monkeypatch.setattr(Interned, "id", lambda self, frozen: made.append(frozen) or real(self, frozen))
    odds = exact(rules, scenario, outcomes_only=True)
    assert len(odds.states) == 25 and odds.marginal("lost") == {1: Fraction(1, 20), 2: Fraction(1, 20),
                                                                3: Fraction(1, 20), 4: Fraction(1, 20),
                                                                5: Fraction(16, 20)}
    assert len([frozen for frozen in made if frozen.get("lost")]) == 25  # one a final state, not one a pair of hits
    assert odds.states == odds_without_lanes(rules, scenario, monkeypatch)



def test_rows_of_other_draws_that_give_the_same_outcomes_add_up_as_without_lanes(monkeypatch):
    """b's hit from one of two rolls: rows over three denominators, some of them making the same losses."""
    two_rolls = "if roll(1, 3) == 1 {\n        b.incoming = roll(1, 20) + 2\n    } else {\n        b.incoming = roll(1, 6)\n    }"
    rules = dsl.loads(CAPPED.replace("b.incoming = roll(1, 20)", two_rolls), "capped.rules")
    scenario = Scenario("exchange", SIDES)
    assert tail_block_calls(rules, scenario, monkeypatch) == 1
    odds = exact(rules, scenario, outcomes_only=True)
    assert odds.marginal("lost")[5] == Fraction(1, 3) * Fraction(18, 20) + Fraction(2, 3) * Fraction(2, 6)
    assert odds.states == odds_without_lanes(rules, scenario, monkeypatch)

def test_lanes_do_no_more_work_than_a_run_of_each_combination(monkeypatch):
    # Both losses read the count: one lane, reading d1 (10 values) where a run of each combination would run
    # 10 times too (o9 is left alone): not run in lanes, and within the work a run of each combination does.
    landing = "let n = len([o for o in others])\n    b.health -= d1 + n\n    a.health -= 11 - d1 + n"
    scenario = Scenario("go", CROWD)
    odds = exact(counting(landing, 3000), scenario, outcomes_only=True)
    with monkeypatch.context() as patched:
        without_running_tails_in_lanes(patched)
        assert odds.states == exact(counting(landing, 3000), scenario, outcomes_only=True).states


def test_lanes_that_give_up_leave_the_work_counted_as_it_was(monkeypatch):
    # The lane that counts runs 20 times (2,000 items) before the other fails at d1 = 10; the run of each
    # combination that follows meets the division by zero after about 18,100 steps, not the work limit.
    landing = "let n = len([o for o in others])\n    b.health -= d1 + floor(1 / (d1 - 10))\n    a.health -= o9 + n"
    scenario = Scenario("go", CROWD)
    assert "division by zero" in refusal_as_without_lanes(lambda: counting(landing, 18_500), scenario, monkeypatch)


def exalted_at_20_dice() -> tuple[dsl.Ruleset, Scenario]:
    """The shipped commander attack with 20 dice each way."""
    path = ROOT / "rules" / "scenarios" / "exalted-commander-attack.toml"
    rules, shipped = dsl.load(ROOT / "rules" / "exalted-war.rules"), load_scenario(path)
    inputs = {role: {**values, "wits": 20 - values["war"] - values["accuracy"]} for role, values in
              ((role, shipped.inputs[role]) for role in ("attacker", "defender"))}
    return rules, Scenario(shipped.action, inputs, choices=shipped.choices)


def test_a_lane_s_results_serve_every_state_that_reaches_the_tail_with_what_it_reads(monkeypatch):
    """The commander's attack at 20 dice each way: the attack's damage is carried through the counterattack, and
    39 states reach step 10 with its 40 values each. The lane that lands it on the defender reads it and the
    defender alone: it runs for each value once, not at each of the 39 states."""
    rules, scenario = exalted_at_20_dice()
    exact(rules, scenario, outcomes_only=True)  # the code made
    given = lanes._given
    runs: list[object] = []
    monkeypatch.setattr(lanes, "_given", lambda lane, S: runs.append(lane) or given(lane, S))
    odds = exact(rules, scenario, outcomes_only=True)
    assert len(runs) == 40  # not 39 * 40
    assert odds.states == odds_without_lanes(rules, scenario, monkeypatch)


def test_the_states_that_carry_one_attack_s_damage_put_its_values_together_once(monkeypatch):
    """The commander's attack at 20 dice each way: 38 of the states that reach step 10 carry the attack's 40
    values of damage alike, each at a scale of its own, and their counterattacks ran to the end (the 39th's
    missed). The second of them groups the values by the final states they make (the damage past the defender's
    10 health levels is one); the 36 after it make those 10 final states each, not one for each value."""
    rules, scenario = exalted_at_20_dice()
    exact(rules, scenario, outcomes_only=True)  # the code made
    grouped, again = [], []
    summed, put = lanes._parts_summed, lanes._groups_put_together
    monkeypatch.setattr(lanes, "_parts_summed", lambda carried, keys, sums: grouped.append(len(sums)) or summed(
        carried, keys, sums))
    monkeypatch.setattr(lanes, "_groups_put_together", lambda groups, *rest: again.append(len(groups)) or put(
        groups, *rest))
    odds = exact(rules, scenario, outcomes_only=True)
    assert grouped == [10] and again == [10] * 36
    assert odds.states == odds_without_lanes(rules, scenario, monkeypatch)
    with monkeypatch.context() as patched:
        without_grouping_tail_rows(patched)
        assert odds.states == exact(dsl.load(rules.path), scenario, outcomes_only=True).states


def test_the_next_run_reads_back_how_the_tail_falls_apart_into_lanes(tmp_path, cache_folder, monkeypatch):
    path = tmp_path / "lanes.rules"
    path.write_text(EXCHANGE.replace("LANDING", APART))
    scenario = Scenario("exchange", SIDES)
    split: list[object] = []
    real = lanes._split
    monkeypatch.setattr(lanes, "_split", lambda *args: split.append(args) or real(*args))
    first = exact(dsl.load(path), scenario, outcomes_only=True).states
    assert len(split) == 1
    assert exact(dsl.load(path), scenario, outcomes_only=True).states == first  # as a new process would
    assert len(split) == 1


# As EXCHANGE, with a keeping a tally of the damage it dealt: two lanes change side a, each a field of its own.
# FLOOR is what a side's health may not fall below: 0, or a field of its own.
TALLIED_SIDE = """kind side {
    health: int = 30
    tally: int = 0
    floor: int = 0
    require health >= FLOOR
    require tally >= 0
}"""
TALLIED = "b.health -= dealt\n    a.tally += dealt\n    a.health -= taken"


def tally_rules(floor: str = "0") -> dsl.Ruleset:
    return sides_rules(TALLIED_SIDE.replace("FLOOR", floor), TALLIED)


def sides_rules(side: str, landing: str) -> dsl.Ruleset:
    """EXCHANGE with another kind of side and another landing."""
    text = EXCHANGE.replace(EXCHANGE[EXCHANGE.index("kind side"):EXCHANGE.index("}") + 1], side)
    return dsl.loads(text.replace("LANDING", landing), "tally.rules")


def worlds_made_apart(rules: dsl.Ruleset, scenario: Scenario, monkeypatch: pytest.MonkeyPatch) -> int:
    """How many final worlds an outcomes-only run makes one by one (lanes.py: one, where they share one)."""
    made: list[object] = []
    real = Interned.apart
    with monkeypatch.context() as patched:
        patched.setattr(Interned, "apart", lambda self, frozen: made.append(frozen) or real(self, frozen))
        exact(rules, scenario, outcomes_only=True)
    return len(made)


def test_records_two_lanes_change_share_a_world_where_each_field_meets_its_own_constraints(monkeypatch):
    rules, scenario = tally_rules(), Scenario("exchange", SIDES)
    assert tail_block_calls(rules, scenario, monkeypatch) == 1
    assert worlds_made_apart(rules, scenario, monkeypatch) == 1  # not one for each of the 400 pairs
    assert exact(rules, scenario, outcomes_only=True).states == odds_without_lanes(rules, scenario, monkeypatch)


def test_a_field_that_breaks_its_own_constraint_in_a_record_two_lanes_change_is_refused_as_without_lanes(monkeypatch):
    scenario = Scenario("exchange", {"a": {"health": 12}, "b": {}})
    found = refusal_as_without_lanes(tally_rules, scenario, monkeypatch)
    assert "a.health is -1: it breaks the constraint 'health >= 0'" in found


def test_a_constraint_that_reads_two_fields_is_checked_on_the_whole_record(monkeypatch):
    # health >= floor is not told by the health alone: each final state gets its world, and the check finds a
    # breach in a's, whose floor no lane changes.
    assert worlds_made_apart(tally_rules("floor"), Scenario("exchange", SIDES), monkeypatch) == 400
    scenario = Scenario("exchange", {"a": {"floor": 12}, "b": {}})
    found = refusal_as_without_lanes(lambda: tally_rules("floor"), scenario, monkeypatch)
    assert "it breaks the constraint 'health >= floor'" in found


def test_the_records_a_lane_makes_are_checked_field_by_field_once_for_every_state_that_reaches_the_tail(monkeypatch):
    """Exalted at 20 dice: each of the 39 states at step 10 lands the attack's 40 damages on the defender. Each
    field that lands meets its constraints (health >= 0, dealt >= 0) by its own value: no world is made to
    check a record, where each state made one for each damage (1,560)."""
    rules, scenario = exalted_at_20_dice()
    exact(rules, scenario, outcomes_only=True)  # the code made
    made: list[object] = []
    real = lanes._with_fields
    monkeypatch.setattr(lanes, "_with_fields", lambda *args: made.append(args) or real(*args))
    odds = exact(rules, scenario, outcomes_only=True)
    assert made == []
    assert odds.states == odds_without_lanes(rules, scenario, monkeypatch)


def test_a_constraint_that_cannot_be_evaluated_for_a_lane_s_value_is_reported_as_without_lanes(monkeypatch):
    """The health a lands at 10 divides by zero in its second constraint, but the tally of those states breaks the
    first: the final states' check, record by record, reports the breach, as it does without lanes."""
    side = TALLIED_SIDE.replace("require health >= FLOOR", "require tally != 20\n    require 60 / (health - 10) != 7")
    landing = "a.health -= taken\n    a.tally = taken\n    b.tally = dealt"
    found = refusal_as_without_lanes(lambda: sides_rules(side, landing), Scenario("exchange", SIDES), monkeypatch)
    assert "a.tally is 20: it breaks the constraint 'tally != 20'" in found


@pytest.mark.parametrize("landing", [TALLIED.replace("+=", "-="), "a.health -= taken\n    b.tally -= dealt"],
                         ids=["two-lanes-on-a", "a-lane-a-side"])
def test_constraints_that_cannot_be_evaluated_fail_where_they_would_without_lanes(landing, monkeypatch):
    """Both constraints divide by zero for some lane's value (a health of 10, a tally of -2): the run fails at
    the one the final states' check meets first, as without lanes, not at the one the lanes' order meets."""
    side = TALLIED_SIDE.replace("require health >= FLOOR", "require 60 / (health - 10) != 7").replace(
        "require tally >= 0", "require 60 / (tally + 2) != 7")
    found = refusal_as_without_lanes(lambda: sides_rules(side, landing), Scenario("exchange", SIDES), monkeypatch)
    assert "division by zero" in found
