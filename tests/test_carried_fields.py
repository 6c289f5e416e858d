"""The exact engine carries the fields a stretch of rules leaves alone, and every probability stays the same."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from fracas import dsl
from fracas.interpreter import Scenario, ScenarioError, exact, load_scenario
from fracas.interpreter.core import carry, engines, folds, loops
from fracas.interpreter.core.codegen import TRACED, generator_for
from fracas.interpreter.core.dist import Scaled
from shortcuts import SHORTCUTS, block_runs, without_carrying, without_folding

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = sorted((ROOT / "rules" / "scenarios").glob("*.toml"))


def rules_for(scenario_path: Path) -> dsl.Ruleset:
    system = scenario_path.stem.split("-")[0]
    name = {"exalted": "exalted-war"}.get(system, system)
    return dsl.load(ROOT / "rules" / f"{name}.rules")


@pytest.mark.parametrize("shortcut", SHORTCUTS)
@pytest.mark.parametrize("outcomes_only", [True, False], ids=["outcomes", "whole-states"])
@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_a_shortcut_of_the_exact_engine_changes_no_probability_of_a_shipped_scenario(path, outcomes_only, shortcut,
                                                                                     monkeypatch):
    """Carrying the fields a stretch leaves alone, going past blocks that only forget, and adding a value drawn
    into an outcome with the draw."""
    rules, scenario = rules_for(path), load_scenario(path)
    taken = exact(rules, scenario, outcomes_only=outcomes_only).states
    with monkeypatch.context() as patched:
        SHORTCUTS[shortcut](patched)
        plain = exact(dsl.load(rules.path), scenario, outcomes_only=outcomes_only).states
    assert taken == plain


def test_a_counterattack_runs_once_whatever_the_attack_dealt(monkeypatch):
    """The attack's damage waits, carried, while the counterattack is resolved: not once for each of its values."""
    path = ROOT / "rules" / "scenarios" / "exalted-commander-attack.toml"
    scenario = load_scenario(path)
    runs = block_runs(monkeypatch)
    exact(rules_for(path), scenario, outcomes_only=True)
    carrying = sum(runs.values())
    runs.clear()
    without_carrying(monkeypatch)
    exact(rules_for(path), scenario, outcomes_only=True)
    assert carrying * 3 < sum(runs.values())



def test_the_carried_values_shared_by_the_states_of_one_draw_are_split_once(monkeypatch):
    """The attack's results, carried through the counterattack, are shared by each state its draws made."""
    path = ROOT / "rules" / "scenarios" / "exalted-commander-attack.toml"
    split = carry._split
    parts_split: list[tuple[int, int]] = []

    def counted(parts, plan, after):
        parts_split.append((id(parts), id(plan)))  # a plan is one regrouping's, between two blocks
        return split(parts, plan, after)

    monkeypatch.setattr(carry, "_split", counted)
    # Every final state observed: with the outcomes alone, the states that reach the join run on straight.
    exact(rules_for(path), load_scenario(path), outcomes_only=False)
    assert parts_split and len(parts_split) == len(set(parts_split))


def carried_in(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[object, list]:
    """The action's routine of a shipped scenario, and what each of its blocks carries in an outcomes-only run."""
    found = []
    carried_at = carry.carried_at

    def watched(routine, projection, *folds):
        carried = carried_at(routine, projection, *folds)
        found.append((routine, carried))
        return carried

    monkeypatch.setattr(carry, "carried_at", watched)
    exact(rules_for(path), load_scenario(path), outcomes_only=True)
    return found[0]


def test_the_blocks_of_a_for_loops_passes_carry_the_same_values(monkeypatch):
    """A value carried by some blocks of a loop and not by others would be put back and taken out on every pass:
    the miniatures' loop of damage carries the outcomes it leaves alone, in each of its blocks."""
    routine, carried = carried_in(ROOT / "rules" / "scenarios" / "miniatures-guns-at-brutes.toml", monkeypatch)
    flow = {pc: [nxt for nxt in following if nxt >= 0] for pc, following in enumerate(routine.successors)}
    cycles = [group for group in loops.groups_in_flow_order(list(flow), flow) if len(group) > 1]
    assert cycles
    for group in cycles:
        assert len({carried[pc] for pc in group}) == 1
    assert any((carry.OUTCOME, "hits") in carried[pc] for group in cycles for pc in group)


def test_a_slot_that_holds_an_input_entity_is_never_carried(monkeypatch):
    """A step's parameter naming the attacker holds the same entity in every state: carried, it would only be
    taken out and put back at each block of the stretch, splitting nothing and merging nothing."""
    routine, carried = carried_in(ROOT / "rules" / "scenarios" / "exalted-commander-attack.toml", monkeypatch)
    slots = {name for values in carried for kind, name in values if kind == carry.SLOT}
    assert slots and routine.statics  # some slots are carried, and many hold entities
    assert not slots & set(routine.statics)


WAITING = '''rules "A roll that waits while others are made"
kind thing {
    kept: int = 0
    other: int = 0
}
outcome total: int = 0
outcome stopped_early: bool = false
action wait(a: thing, b: thing) {
    a.kept = roll(1, 6)
    b.other = roll(1, 4)
    b.other += roll(1, 4)
    if b.other == 8 {
        stopped_early = true
        stop "double four"
    }
    b.other += 1
    b.other += roll(1, 2)
    b.other = b.other * 2
    b.other -= 1
    b.other += roll(1, 2)
    b.other += 3
    total = a.kept + b.other
}
'''


def test_a_field_carried_through_a_stretch_of_draws_comes_back_where_it_is_read(monkeypatch):
    scenario = Scenario("wait", {"a": {}, "b": {}})
    runs = block_runs(monkeypatch)
    odds = exact(dsl.loads(WAITING), scenario)
    carrying = sum(runs.values())
    runs.clear()
    without_carrying(monkeypatch)
    assert odds.states == exact(dsl.loads(WAITING), scenario).states
    assert carrying < sum(runs.values())
    assert odds.marginal("stopped_early")[True] == Fraction(1, 16)
    assert sum(odds.marginal("total").values()) == 1


def test_a_run_stopped_inside_the_stretch_gives_back_its_carried_field():
    odds = exact(dsl.loads(WAITING), Scenario("wait", {"a": {}, "b": {}}))
    stopped = [state for state in odds.states if state.stopped]
    assert sorted(state.world["a"].get("kept") for state in stopped) == [1, 2, 3, 4, 5, 6]


def test_carried_probabilities_that_met_the_same_draws_add_their_scales():
    parts = {(1,): Scaled(1, 2), (2,): Scaled(1, 2)}
    first = carry.Carried((("a", "x"),), parts).times(1, 3)
    second = carry.Carried((("a", "x"),), parts)
    second = second.times(2, 3)
    both = first + second
    assert both.parts is parts
    assert {values: p.fraction() for values, p in both.items()} == {(1,): Fraction(1, 2), (2,): Fraction(1, 2)}


def test_a_field_fixed_to_different_values_varies_in_their_sum():
    first = carry.Carried((), {(): Scaled(1, 4)}, ((("a", "x"), 1),))
    second = carry.Carried((), {(): Scaled(3, 4)}, ((("a", "x"), 2),))
    both = first + second
    assert both.names == (("a", "x"),) and both.fixed == ()
    assert {values: p.fraction() for values, p in both.items()} == {(1,): Fraction(1, 4), (2,): Fraction(3, 4)}


def test_a_sum_keeps_what_it_owns_and_leaves_what_it_shares():
    shared = carry.Carried((("a", "x"),), {(1,): Scaled(1, 2)})
    other = carry.Carried((("a", "x"),), {(2,): Scaled(1, 2)})
    total = shared + other
    assert total is not shared and set(shared.parts) == {(1,)}
    again = total + carry.Carried((("a", "x"),), {(3,): Scaled(1, 4)})
    assert again is total and set(total.parts) == {(1,), (2,), (3,)}


def test_a_sum_added_to_itself_is_not_changed_by_what_is_added_to_it_later():
    # The sum shares its parts with its double: later additions to it are made in a copy of its own.
    total = carry.Carried((("a", "x"),), {(1,): Scaled(1, 2)}) + carry.Carried((("a", "x"),), {(2,): Scaled(1, 2)})
    double = total + total
    total + carry.Carried((("a", "x"),), {(3,): Scaled(1, 4)})
    assert {values: p.fraction() for values, p in double.items()} == {(1,): 1, (2,): 1}


def waiting_for(first: str) -> str:
    """Rules in which the first roll is kept in `first` while seven more are made, and read at the end."""
    return f'''rules "A roll that waits"
outcome early: int = 0
outcome total: int = 0
action wait() {{
    {first} = roll(1, 6)
    let other = roll(1, 4)
    other += roll(1, 4)
    other += roll(1, 4)
    other = other * 2
    other += roll(1, 2)
    other -= 1
    other += roll(1, 2)
    other += 3
    total = {"kept" if first.startswith("let") else "early"} + other
}}
'''


@pytest.mark.parametrize("first", ["let kept", "early"], ids=["local", "outcome"])
def test_a_local_or_an_outcome_is_carried_as_a_field_is(first, monkeypatch):
    scenario = Scenario("wait", {})
    runs = block_runs(monkeypatch)
    odds = exact(dsl.loads(waiting_for(first)), scenario)
    carrying = sum(runs.values())
    runs.clear()
    without_carrying(monkeypatch)
    assert odds.states == exact(dsl.loads(waiting_for(first)), scenario).states
    assert carrying < sum(runs.values())
    assert min(odds.marginal("total")) == 1 + (3 * 1 * 2 + 1 - 1 + 1 + 3)


def test_a_scaled_sum_takes_an_addition_at_its_scale():
    halved = carry.Carried((("a", "x"),), {(1,): Scaled(1, 2)}, top=1, bottom=2, owned=True)
    total = halved + carry.Carried((("a", "x"),), {(2,): Scaled(1, 4)})
    assert {values: p.fraction() for values, p in total.items()} == {(1,): Fraction(1, 4), (2,): Fraction(1, 4)}


TWO_WAITING = '''rules "Two rolls that wait"
outcome total: int = 0
action wait() {
    let a = roll(1, 6)
    let b = roll(1, 6)
    let other = roll(1, 4)
    other += roll(1, 4)
    other += roll(1, 4)
    other = other * 2
    other += roll(1, 2)
    total = a * 100 + b * 10 + other
}
'''


def test_the_states_a_carried_value_stands_for_count_against_the_limit():
    """a and b are carried past the other rolls: 36 combinations in one state are 36 states to the limit."""
    with pytest.raises(ScenarioError, match=r"<rules>:5:13: error: the exact engine holds more than 30 states here"):
        exact(dsl.loads(TWO_WAITING), Scenario("wait", {}), max_states=30)


def test_a_last_block_that_only_forgets_names_is_never_run(monkeypatch):
    """The states of an attack's last step go straight to the end: forgetting its names changes nothing there."""
    path = ROOT / "rules" / "scenarios" / "exalted-commander-attack.toml"
    rules = rules_for(path)
    runs = block_runs(monkeypatch)
    exact(rules, load_scenario(path), outcomes_only=True)
    routine = generator_for(rules).routine("war_attack")
    forgetting = [pc for pc, block in enumerate(routine.blocks)
                  if isinstance(block, engines.Block) and block.successors == [engines.END] and block.lines
                  and all(line.startswith(("return ", TRACED)) or line.endswith("= None") for line, _ in block.lines)]
    assert forgetting and all(runs[pc] == 0 for pc in forgetting)


FOUR_ROLLS = """outcome total: int = 0
action four_rolls() {
    for i in range(4) {
        total += roll(10, 6)
    }
    total -= roll(1, 4)
}
"""


def test_a_value_drawn_and_added_into_an_outcome_makes_a_state_for_each_sum_not_each_pair(monkeypatch):
    rules = dsl.loads(FOUR_ROLLS)
    runs = block_runs(monkeypatch)
    folded = exact(rules, Scenario("four_rolls", {}))
    folding = sum(runs.values())
    runs.clear()
    without_folding(monkeypatch)
    plain = exact(dsl.loads(FOUR_ROLLS), Scenario("four_rolls", {}))
    assert folded.states == plain.states and folding * 10 < sum(runs.values())
    assert list(folded.states) == list(plain.states)  # in the same order, too
    assert folded.mean("total") == 4 * 35 - Fraction(5, 2)



HALVES = """outcome total: number = 0
action halves() {
    for i in range(2) {
        total += roll(1, 3) / 2
    }
}
"""


def test_a_total_carried_through_a_loop_of_draws_holds_one_part_per_sum(monkeypatch):
    made: list[int] = []
    summed_into = carry.summed_into

    def counted(*given):
        found = summed_into(*given)
        made.append(len(found.parts))
        return found

    monkeypatch.setattr(carry, "summed_into", counted)
    runs = block_runs(monkeypatch)
    exact(dsl.loads(HALVES), Scenario("halves", {}))
    assert made == [3, 5]  # the second pass: 3 totals and 3 halves added make 5 sums, not 9 pairs
    assert max(runs.values()) == 3  # one state a pass through the loop (and one leaving it), not one a total


CARRIED_FOLDS = {
    "set": ("outcome last: int = 0\naction go() {\n for i in range(3) {\n  last = roll(1, 6)\n }\n}\n", True),
    "taken away": ("outcome total: int = 0\naction go() {\n for i in range(3) {\n  total -= roll(2, 4)\n }\n}\n",
                   True),
    "halves": ("outcome total: number = 1/3\naction go() {\n for i in range(3) {\n  total += roll(1, 3) / 2\n }\n}\n",
               True),
    "certain": ("outcome total: int = 0\naction go() {\n for i in range(3) {\n  total += roll(1, 1)\n"
                "  total += roll(0, 6)\n }\n}\n", True),
    "stopped": ("outcome total: int = 0\naction go() {\n for i in range(4) {\n  total += roll(1, 6)\n"
                "  if roll(1, 6) == 6 {\n   stop \"six\"\n  }\n }\n}\n", True),
    "beside another": ("outcome a: int = 0\noutcome b: int = 0\naction go() {\n b = roll(1, 10)\n"
                       " for i in range(3) {\n  a += roll(1, 6)\n }\n}\n", False),
}


@pytest.mark.parametrize("outcomes_only", [True, False], ids=["outcomes", "whole-states"])
@pytest.mark.parametrize("name", CARRIED_FOLDS)
def test_an_outcome_carried_through_a_loop_of_draws_changes_no_probability(name, outcomes_only, monkeypatch):
    """Carried where its draw carries nothing else; beside another value that varies, each total keeps a
    state of its own (sharing the other's parts), as without folding."""
    text, carried = CARRIED_FOLDS[name]
    summed: list[int] = []
    summed_into = carry.summed_into
    monkeypatch.setattr(carry, "summed_into", lambda *given: summed.append(1) or summed_into(*given))
    taken = exact(dsl.loads(text), Scenario("go", {}), outcomes_only=outcomes_only).states
    assert bool(summed) is carried
    without_folding(monkeypatch)
    assert taken == exact(dsl.loads(text), Scenario("go", {}), outcomes_only=outcomes_only).states


def test_a_total_carried_through_a_loop_stops_at_the_state_limit_as_its_sums_grow():
    text = "outcome total: int = 0\naction go() {\n for i in range(3) {\n  total += roll(1, 100)\n }\n}\n"
    with pytest.raises(ScenarioError) as caught:
        exact(dsl.loads(text), Scenario("go", {}), max_states=150)
    d = caught.value.diagnostics[0]
    assert d.line == 4 and d.message == "the exact engine holds more than 150 states here"


HALVES_ONCE = """outcome total: number = 0
action halves() {
    total += roll(1, 3) / 2
    total += roll(1, 3) / 2
}
"""


def test_states_that_differ_only_in_the_outcome_a_draw_adds_into_are_summed_one_state_per_new_value(monkeypatch):
    made: list[int] = []
    states = folds.Sums.states

    def counted(sums):
        found = list(states(sums))
        made.append(len(found))
        return iter(found)

    monkeypatch.setattr(folds.Sums, "states", counted)
    exact(dsl.loads(HALVES_ONCE), Scenario("halves", {}))
    assert made == [3, 5]  # the second draw: 3 totals and 3 halves added make 5 sums, not 9 pairs


SUMMED = """outcome total: number = 0
action summed() {
    if roll(1, 3) == 1 {
        total = 1/2
    } else {
        if roll(1, 2) == 1 {
            total = 1
        }
    }
    for i in range(2) {
        total += roll(1, 3) / 2
    }
    total -= roll(1, 2)
}
"""


def test_summing_states_over_different_denominators_changes_no_probability(monkeypatch):
    summed = exact(dsl.loads(SUMMED), Scenario("summed", {}))
    without_folding(monkeypatch)
    assert summed.states == exact(dsl.loads(SUMMED), Scenario("summed", {})).states


MIXED = """outcome total: number = 0
action mixed() {
    total += (roll(1, 2) + 1) / 2
    total += roll(2, 6)
}
"""


def test_whole_numbers_and_halves_drawn_into_in_one_group_change_no_probability(monkeypatch):
    summed = exact(dsl.loads(MIXED), Scenario("mixed", {}))
    without_folding(monkeypatch)
    plain = exact(dsl.loads(MIXED), Scenario("mixed", {}))
    assert summed.states == plain.states and list(summed.states) == list(plain.states)


ORDERED = """outcome a: int = 0
outcome c: int = 0
action go() {
    c = roll(1, 4)
    let t = 0
    while t < 2 {
        t += 1
        a += roll(1, 2)
    }
    c += pick([1, 2, 2, 5])
}
"""


def test_summed_states_come_in_the_order_their_pairs_would_have(monkeypatch):
    # A failed example explains the first of its likeliest failing states: the order is seen.
    summed = exact(dsl.loads(ORDERED), Scenario("go", {}), outcomes_only=True)
    without_folding(monkeypatch)
    plain = exact(dsl.loads(ORDERED), Scenario("go", {}), outcomes_only=True)
    assert list(summed.states.items()) == list(plain.states.items())


def add_a_d4(p: carry.Carried) -> dict[tuple, Fraction]:
    """A d4 summed into the carried field of p, pair by pair: each combination with its probability."""
    d4 = {face: 1 for face in range(1, 5)}

    def sums(olds: list[tuple[int, int]]) -> list[tuple[int, int]]:
        table: dict[int, int] = {}
        for old, top in olds:
            for face, weight in d4.items():
                table[old + face] = table.get(old + face, 0) + top * weight
        return list(table.items())
    summed = carry.summed_into(p, ("#outcome", "total"), sums, 4)
    return {values: p.fraction() for values, p in summed.items()}


def test_a_draw_summed_into_a_carried_value_beside_one_other_keeps_them_apart():
    names = (("#outcome", "total"), ("a", "x"))
    p = carry.Carried(names, {(0, 1): Scaled(1, 2), (1, 2): Scaled(1, 2)})
    assert add_a_d4(p) == {(total, x): Fraction(1, 8) for x in (1, 2) for total in range(x, x + 4)}


def test_a_draw_summed_into_parts_over_two_denominators_merges_equal_sums():
    # The third part is over another denominator: the sums 3 to 6 are met from both.
    p = carry.Carried((("#outcome", "total"),), {(0,): Scaled(1, 2), (1,): Scaled(1, 2), (2,): Scaled(1, 3)})
    found = add_a_d4(p)
    assert found[(1,)] == Fraction(1, 8) and found[(3,)] == Fraction(1, 8) * 2 + Fraction(1, 12)
    assert sum(found.values()) == Fraction(1, 2) + Fraction(1, 2) + Fraction(1, 3)


def test_a_draw_summed_into_a_carried_value_alone_gives_each_sum_once():
    p = carry.Carried((("#outcome", "total"),), {(0,): Scaled(1, 2), (1,): Scaled(1, 2)})
    assert add_a_d4(p) == {(1,): Fraction(1, 8), (2,): Fraction(1, 4), (3,): Fraction(1, 4), (4,): Fraction(1, 4),
                           (5,): Fraction(1, 8)}
