"""A step that gives a value and changes nothing is worked out as a distribution, once for each start.

A trait roll that keeps the better of two exploding dice, written as a step,
is an expression over chance: the exact engine runs it once for each distinct
set of arguments (and world or outcomes, where it reads them), then branches
each caller on the value it gives. Everything a run shows stays as it was:
the odds, the sampled runs, the log.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from fracas import dsl
from fracas.interpreter import Scenario, ScenarioError, estimate, exact, forced

TRAIT = """
step trait(sides: int, bonus: int): int {
    let t = explode(1, sides, depth)
    let w = explode(1, 6, depth)
    if t == 1 and w == 1 {
        return -1
    }
    return max(t, w) + bonus
}
"""

VOLLEY = """
param depth in 0..20 = 6
outcome hits: int = 0
outcome best: int = -1
kind fighter {
    skill: int = 8
    toughness: int = 6
    wounds: int = 0
}
""" + TRAIT + """
action turn(a: fighter, d: fighter, shots: int = 3) {
    for i in range(shots) {
        let total = trait(a.skill, 0 - i)
        if total >= d.toughness + d.wounds {
            hits += 1
            d.wounds += 1
        }
        best = max(best, total)
    }
}
"""

CHANGES_TOO = VOLLEY.replace("outcome hits: int = 0", "outcome hits: int = 0\noutcome calls: int = 0").replace(
    "    let t = explode(1, sides, depth)", "    calls += 1\n    let t = explode(1, sides, depth)")


def volley(shots: int = 3, depth: int = 6) -> Scenario:
    return Scenario("turn", {"a": {}, "d": {}, "shots": shots}, params={"depth": depth})


def joint(rules_text: str, scenario: Scenario, names: tuple[str, ...] = ("hits", "best")) -> dict[tuple, Fraction]:
    found: dict[tuple, Fraction] = {}
    for outcomes, p in exact(dsl.loads(rules_text, "value.rules"), scenario, outcomes_only=True).joint():
        key = tuple(outcomes[name] for name in names)
        found[key] = found.get(key, 0) + p
    return found


# ---- the same odds by hand ----------------------------------------------------------------------


def exploding(sides: int, depth: int) -> dict[int, Fraction]:
    """One die rolled again and added while it shows its highest face, `depth` times at most."""
    found: dict[int, Fraction] = {}
    for again in range(depth + 1):
        last = sides if again == depth else sides - 1
        for face in range(1, last + 1):
            found[sides * again + face] = Fraction(1, sides ** (again + 1))
    return found


def trait_by_hand(sides: int, bonus: int, depth: int) -> dict[int, Fraction]:
    found: dict[int, Fraction] = {}
    for t, p in exploding(sides, depth).items():
        for w, q in exploding(6, depth).items():
            value = -1 if t == 1 and w == 1 else max(t, w) + bonus
            found[value] = found.get(value, 0) + p * q
    return found


def volley_by_hand(shots: int, depth: int) -> dict[tuple, Fraction]:
    states = {(0, -1): Fraction(1)}  # (hits, which are the target's wounds too, best) -> probability
    for i in range(shots):
        rolled = trait_by_hand(8, -i, depth)
        after: dict[tuple, Fraction] = {}
        for (hits, best), p in states.items():
            for total, q in rolled.items():
                key = (hits + (total >= 6 + hits), max(best, total))
                after[key] = after.get(key, 0) + p * q
        states = after
    return states


# ---- the odds -------------------------------------------------------------------------------------


def test_a_step_that_gives_a_value_and_changes_nothing_gives_the_odds_worked_out_by_hand():
    assert joint(VOLLEY, volley(shots=2, depth=3)) == volley_by_hand(2, 3)


def test_four_trait_rolls_of_two_dice_exploding_six_times_fit_the_default_limits():
    # Inlined, each roll's 61 x 37 pairs of dice ran for every state of the turn: past the default work limit.
    assert joint(VOLLEY, volley(shots=4, depth=6)) == volley_by_hand(4, 6)


def test_the_odds_are_those_of_the_same_step_changing_an_outcome_too():
    assert joint(VOLLEY, volley(shots=2, depth=2)) == joint(CHANGES_TOO, volley(shots=2, depth=2))


def test_a_step_that_changes_an_outcome_still_changes_it():
    assert joint(CHANGES_TOO, volley(shots=2, depth=1), ("calls",)) == {(2,): 1}


def test_a_step_that_reads_a_field_gives_the_value_the_field_holds_when_called():
    reads_field = VOLLEY.replace("step trait(sides: int, bonus: int): int {", "step trait(f: fighter, bonus: int): int {\n"
                                 "    let sides = f.skill").replace("trait(a.skill, 0 - i)", "trait(a, 0 - i)")
    tiring = reads_field.replace("        best = max(best, total)\n", "        best = max(best, total)\n"
                                 "        a.skill -= 2\n")
    by_hand = joint(VOLLEY.replace("trait(a.skill, 0 - i)", "trait(a.skill - 2 * i, 0 - i)"), volley(3, 1))
    assert joint(tiring, volley(3, 1)) == by_hand
    assert by_hand != joint(VOLLEY, volley(3, 1))  # the skill read does change the odds


def test_a_step_that_reads_an_outcome_gives_the_value_for_the_outcome_it_reads():
    reads_outcome = VOLLEY.replace("    return max(t, w) + bonus", "    return max(t, w) + bonus + hits")
    inline = reads_outcome.replace("outcome hits: int = 0", "outcome hits: int = 0\noutcome calls: int = 0").replace(
        "    let t = explode(1, sides, depth)", "    calls += 1\n    let t = explode(1, sides, depth)")
    assert joint(reads_outcome, volley(3, 1)) == joint(inline, volley(3, 1))
    assert joint(reads_outcome, volley(3, 1)) != joint(VOLLEY, volley(3, 1))


def test_a_step_calling_another_that_changes_nothing_gives_the_odds_by_hand():
    nested = VOLLEY.replace("let total = trait(a.skill, 0 - i)", "let total = attack(a.skill, i)") + """
step attack(skill: int, i: int): int {
    let rolled = trait(skill, 0 - i)
    return rolled
}
"""
    assert joint(nested, volley(shots=2, depth=2)) == volley_by_hand(2, 2)


def test_an_error_in_such_a_step_is_told_at_its_line():
    dividing = VOLLEY.replace("    return max(t, w) + bonus", "    return max(t, w) + floor(12 / (t - 3))")
    line = dividing.splitlines().index("    return max(t, w) + floor(12 / (t - 3))") + 1
    with pytest.raises(ScenarioError, match=f"value.rules:{line}:30: error: division by zero"):
        exact(dsl.loads(dividing, "value.rules"), volley(1, 1))


# ---- runs one at a time -----------------------------------------------------------------------------


def test_sampled_runs_draw_what_the_step_changing_an_outcome_draws():
    def frequencies(rules_text: str) -> dict:
        found = estimate(dsl.loads(rules_text, "value.rules"), volley(3, 6), 2000, seed=11, outcomes_only=True)
        return {(outcomes["hits"], outcomes["best"]): p for outcomes, p in found.joint()}

    assert frequencies(VOLLEY) == frequencies(CHANGES_TOO)


def test_a_run_logs_the_step_with_its_arguments_and_the_dice_it_rolled():
    run = forced(dsl.loads(VOLLEY, "value.rules"), volley(1, 6), [3, 5])
    texts = [event["text"] for event in run.events]
    assert texts[:4] == ["step trait(sides: 8, bonus: 0)", "1d8 exploding at most 6 times: 3 (rolled 3)", "t = 3",
                         "1d6 exploding at most 6 times: 5 (rolled 5)"]
    assert run.outcomes["best"] == 5


def test_a_loop_in_such_a_step_that_may_never_end_is_told_at_the_loop():
    spinning = ("outcome r: int = 0\nstep spin(k: int): int {\n    let i = roll(1, 2)\n    while i > k {\n"
                "        i = roll(1, 2)\n    }\n    return i\n}\naction go() {\n    r = spin(0)\n}\n")
    with pytest.raises(ScenarioError, match="value.rules:4:5: error: this loop can run for ever"):
        exact(dsl.loads(spinning, "value.rules"), Scenario("go", {}))


def test_such_a_step_is_no_level_of_the_call_depth_as_the_same_step_inlined_is_none():
    from fracas.dsl.limits import Limits

    text = VOLLEY + ("step down(n: int): int {\n    if n == 0 {\n        let t = trait(6, 0)\n        return t\n    }\n"
                     "    let below = down(n - 1)\n    return below\n}\n"
                     "action deep() {\n    best = down(3)\n}\n")
    for rules_text in (text, CHANGES_TOO + text[len(VOLLEY):]):
        rules = dsl.loads(rules_text, "value.rules", limits=Limits(call_depth=5))
        assert sum(exact(rules, Scenario("deep", {}, params={"depth": 1})).marginal("best").values()) == 1
