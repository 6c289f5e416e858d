"""Locals drawn for one test are drawn as the test's value: `let a = roll; let d = roll; if a > d`.

Written inline, an opposed roll made every pair of its two dice a state of the
exact engine, for every state that came to it: a duel fought to the end met
the work limit where the same duel, its check written as a step that gives a
bool, took a fifth of a second. The lets that only an `if`'s test (or a `let`
of what they come to) reads are now worked out as that step's are
(interpreter/core/tested.py), and nothing a run shows changes: the odds, the
sampled runs, the forced rolls, the log.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from fracas import dsl
from fracas.interpreter import Scenario, ScenarioError, estimate, exact, forced
from fracas.interpreter.core import tested
from fracas.interpreter.core.codegen import Generator

FIGHTERS = """
outcome a_left: int = 0
outcome b_left: int = 0
outcome exchanges: int = 0

kind fighter {
    health: int = 20
    attack: int = 2
    defence: int = 1
}
"""

INLINE = FIGHTERS + """
action duel(a: fighter = {}, b: fighter = {health: 24}) {
    while a.health > 0 and b.health > 0 {
        let x = roll(1, 20)
        let y = roll(1, 20)
        if a.attack + x > b.defence + y {
            b.health -= 1
        }
        let u = roll(1, 20)
        let v = roll(1, 20)
        if b.attack + u > a.defence + v {
            a.health -= 1
        }
    }
    a_left = a.health
    b_left = b.health
}
"""


def rounds(name: str, count: int, test: str, then: str) -> str:
    """Rules of an action of `count` rounds, each two d6 (x and y) and a test of them."""
    return FIGHTERS + f"""
action {name}() {{
    for round in range({count}) {{
        let x = roll(1, 6)
        let y = roll(1, 6)
        if {test} {{
            {then}
        }}
    }}
}}
"""


def hits(attack: int, defence: int, sides: int = 20) -> Fraction:
    """The chance that attack + one die beats defence + another."""
    wins = sum(1 for x in range(1, sides + 1) for y in range(1, sides + 1) if attack + x > defence + y)
    return Fraction(wins, sides * sides)


def duel_by_hand(a: int, b: int, p: Fraction, q: Fraction) -> dict[tuple[int, int], Fraction]:
    """Health left on each side when one falls: a strikes (p), then b strikes back (q), round after round."""
    ends: dict[tuple[int, int], Fraction] = {}
    states = {(a, b): Fraction(1)}
    moves = 1 - (1 - p) * (1 - q)  # a round where neither lands a blow changes nothing: the rounds that do
    while states:
        following: dict[tuple[int, int], Fraction] = {}
        for (ha, hb), w in states.items():
            for hb2, wb in ((hb - 1, p), (hb, 1 - p)):
                for ha2, wa in ((ha - 1, q), (ha, 1 - q)):
                    if (ha2, hb2) != (ha, hb):
                        into = ends if ha2 <= 0 or hb2 <= 0 else following
                        into[ha2, hb2] = into.get((ha2, hb2), 0) + w * wb * wa / moves
        states = following
    return ends


def left(rules_text: str, scenario: Scenario) -> dict[tuple[int, int], Fraction]:
    found: dict[tuple[int, int], Fraction] = {}
    for outcomes, p in exact(dsl.loads(rules_text, "duel.rules"), scenario, outcomes_only=True).joint():
        key = (outcomes["a_left"], outcomes["b_left"])
        found[key] = found.get(key, 0) + p
    return found


def test_an_opposed_roll_written_inline_finishes_a_duel_to_the_end_under_the_default_limits():
    found = left(INLINE, Scenario("duel", {}))
    assert found == duel_by_hand(20, 24, hits(2, 1), hits(2, 1))


def test_a_let_of_what_the_rolls_come_to_is_drawn_as_that_value():
    rules = INLINE.replace("        if a.attack + x > b.defence + y {",
                           "        let hit = a.attack + x > b.defence + y\n        if hit {")
    assert "let hit" in rules
    assert left(rules, Scenario("duel", {})) == duel_by_hand(20, 24, hits(2, 1), hits(2, 1))


def test_a_let_of_what_the_rolls_come_to_is_logged_after_them():
    rules = INLINE.replace("        if a.attack + x > b.defence + y {",
                           "        let margin = a.attack + x - (b.defence + y)\n        if margin > 0 {")
    result = forced(dsl.loads(rules, "duel.rules"), Scenario("duel", {"a": {"health": 1}, "b": {"health": 1}}),
                    [9, 5, 1, 3])
    lets = [event["text"] for event in result.events if event["kind"] == "let"]
    assert lets[:3] == ["x = 9", "y = 5", "margin = 5"]
    assert (result.outcomes["a_left"], result.outcomes["b_left"]) == (1, 0)


CHAIN = FIGHTERS + """
action bout(a: fighter = {health: 40}, b: fighter = {health: 44}) {
    while a.health > 0 and b.health > 0 {
        let x = roll(1, 20) + a.attack
        let y = roll(1, 20) + b.attack
        if x > y {
            b.health -= 1
        } else if y > x {
            a.health -= 1
        } else {
            exchanges += 0
        }
    }
    a_left = a.health
    b_left = b.health
}
"""


def test_an_if_and_its_else_ifs_on_the_same_rolls_branch_on_which_of_them_holds():
    # Each round one side lands a blow, or neither (a tie): no round waits for the one before to be settled.
    p, q = hits(2, 2), hits(2, 2)
    ends: dict[tuple[int, int], Fraction] = {}
    states = {(40, 44): Fraction(1)}
    while states:
        following: dict[tuple[int, int], Fraction] = {}
        for (ha, hb), w in states.items():
            for key, chance in (((ha, hb - 1), p / (p + q)), ((ha - 1, hb), q / (p + q))):
                into = ends if 0 in key else following
                into[key] = into.get(key, 0) + w * chance
        states = following
    assert left(CHAIN, Scenario("bout", {})) == ends


def test_an_else_if_on_the_same_rolls_takes_them_as_forced():
    rules = dsl.loads(CHAIN, "bout.rules")
    scenario = Scenario("bout", {"a": {"health": 1}, "b": {"health": 1}})
    assert forced(rules, scenario, [3, 9]).outcomes["a_left"] == 0  # 5 against 11: b lands it
    tie_then_a = forced(rules, scenario, [4, 4, 9, 3])  # a tie, then 11 against 5
    assert (tie_then_a.outcomes["a_left"], tie_then_a.outcomes["b_left"]) == (1, 0)


def test_fields_the_test_reads_are_read_where_it_is_made_each_round():
    # The sides' ratings differ, and the defender's defence changes as the duel goes: each test reads them anew.
    rules = INLINE.replace("            b.health -= 1\n", "            b.health -= 1\n            b.defence = 3\n")
    scenario = Scenario("duel", {"a": {"health": 3, "attack": 4}, "b": {"health": 3}})
    p_first, p_later, q = hits(4, 1), hits(4, 3), hits(2, 1)
    # Once a lands a blow, b's defence is 3 for the rest of the duel.
    by_hand: dict[tuple[int, int], Fraction] = {}
    states = {(3, 3, False): Fraction(1)}
    while states:
        following: dict[tuple[int, int, bool], Fraction] = {}
        for (ha, hb, hurt), w in states.items():
            p = p_later if hurt else p_first
            moves = 1 - (1 - p) * (1 - q)  # rounds that change nothing left out, as in duel_by_hand
            for hb2, wb, hurt2 in ((hb - 1, p, True), (hb, 1 - p, hurt)):
                for ha2, wa in ((ha - 1, q), (ha, 1 - q)):
                    if (ha2, hb2) == (ha, hb):
                        continue
                    if ha2 <= 0 or hb2 <= 0:
                        by_hand[ha2, hb2] = by_hand.get((ha2, hb2), 0) + w * wb * wa / moves
                    else:
                        following[ha2, hb2, hurt2] = following.get((ha2, hb2, hurt2), 0) + w * wb * wa / moves
        states = following
    assert left(rules, scenario) == by_hand


def test_an_outcome_the_test_reads_is_its_value_at_the_test():
    rules = rounds("pressing", 3, "x + exchanges > y", "exchanges += 1")
    odds = exact(dsl.loads(rules, "pressing.rules"), Scenario("pressing", {}), outcomes_only=True)
    # Each success makes the next easier: a Markov chain over the successes so far.
    chain = {0: Fraction(1)}
    for _ in range(3):
        following: dict[int, Fraction] = {}
        for count, w in chain.items():
            p = Fraction(sum(1 for x in range(1, 7) for y in range(1, 7) if x + count > y), 36)
            following[count + 1] = following.get(count + 1, 0) + w * p
            following[count] = following.get(count, 0) + w * (1 - p)
        chain = following
    assert odds.marginal("exchanges") == {count: p for count, p in sorted(chain.items())}


def test_a_local_read_after_the_test_keeps_its_value_there():
    rules = rounds("margin", 1, "x > y", "exchanges = x - y")
    odds = exact(dsl.loads(rules, "margin.rules"), Scenario("margin", {}), outcomes_only=True)
    assert odds.marginal("exchanges") == {0: Fraction(21, 36), **{m: Fraction(6 - m, 36) for m in range(1, 6)}}


def test_forced_rolls_go_to_the_lets_in_the_order_written():
    rules = dsl.loads(INLINE, "duel.rules")
    scenario = Scenario("duel", {"a": {"health": 1}, "b": {"health": 1}})
    # a's die 5 against b's 9: 7 > 10 fails; b's 3 against a's 2: 5 > 3 hits, and a falls.
    result = forced(rules, scenario, [5, 9, 3, 2])
    assert (result.outcomes["a_left"], result.outcomes["b_left"]) == (0, 1)
    swapped = forced(rules, scenario, [9, 5, 2, 3])  # a's 9 against 5: a hits first
    assert (swapped.outcomes["a_left"], swapped.outcomes["b_left"]) == (1, 0)


def test_a_sampled_run_logs_the_lets_and_nothing_of_a_step():
    rules = dsl.loads(INLINE, "duel.rules")
    result = forced(rules, Scenario("duel", {"a": {"health": 1}, "b": {"health": 1}}), [5, 9, 3, 2])
    texts = [event["text"] for event in result.events]
    assert [t for t in texts if t.split(" ")[0] in ("x", "y", "u", "v")] == ["x = 5", "y = 9", "u = 3", "v = 2"]
    assert not any(event["kind"] in ("step", "end", "return") for event in result.events)


def test_sampled_duels_match_the_exact_odds():
    rules = dsl.loads(INLINE, "duel.rules")
    scenario = Scenario("duel", {"a": {"health": 2}, "b": {"health": 2}})
    exact_a = exact(rules, scenario, outcomes_only=True).marginal("a_left")
    sampled = estimate(rules, scenario, 4000, seed=3, outcomes_only=True).marginal("a_left")
    for value, p in exact_a.items():
        assert abs(sampled.get(value, 0) - p) < 0.04


def test_an_error_in_the_test_is_told_where_the_test_is_written():
    rules = rounds("broken", 2, "x / (round - 1) > y", "exchanges += 1")
    with pytest.raises(ScenarioError, match="broken.rules:16:12: error: division by zero"):
        exact(dsl.loads(rules, "broken.rules"), Scenario("broken", {}))


def test_a_region_whose_kept_code_does_not_read_back_is_built_again(tmp_path, monkeypatch):
    path = tmp_path / "duel.rules"
    path.write_text(INLINE)
    scenario = Scenario("duel", {"a": {"health": 3}, "b": {"health": 4}})
    first = exact(dsl.load(path), scenario, outcomes_only=True).joint()  # its code kept with the rules
    refused = []
    reading_back = Generator._routine_read_back

    def damaged(gen: Generator, named, data):
        if tested.is_region(named.decl):
            refused.append(named.name)
            return None
        return reading_back(gen, named, data)

    monkeypatch.setattr(Generator, "_routine_read_back", damaged)
    assert exact(dsl.load(path), scenario, outcomes_only=True).joint() == first
    assert refused


def test_an_error_in_a_later_let_is_told_after_the_error_of_an_earlier_one_as_written():
    # Only reads of fields, outcomes and locals are read before the lets: a sum that fails stays where it is.
    rules = FIGHTERS + """
action shares(k: int = 0) {
    for round in range(2) {
        let x = roll(1, 6) / k
        let y = roll(1, 6) + 6 / k
        if x > y {
            exchanges += 1
        }
    }
}
"""
    with pytest.raises(ScenarioError, match="shares.rules:14:17: error: division by zero"):
        exact(dsl.loads(rules, "shares.rules"), Scenario("shares", {}))
