"""`while` and `break`: loops that run until something happens, sampled and solved exactly."""

from __future__ import annotations

from fractions import Fraction

import pytest

from fracas import dsl
from fracas.dsl.diagnostics import RulesError
from fracas.interpreter import Scenario, ScenarioError, exact, forced, sample
from fracas.interpreter.core import dist as D
from fracas.interpreter.core import engines, loops

HEADER = 'rules "loops"\noutcome x: int = 0\noutcome y: int = 0\n'


def rules_of(body: str, extra: str = "") -> dsl.Ruleset:
    return dsl.loads(HEADER + extra + "action go() {\n" + body + "\n}\n", "loops.rules")


def odds(body: str, name: str = "x", extra: str = "") -> dict[object, Fraction]:
    return exact(rules_of(body, extra), Scenario("go", {})).marginal(name)


def refused(body: str, engine: str = "exact") -> tuple[int, str, str]:
    rules = rules_of(body)
    with pytest.raises(ScenarioError) as caught:
        if engine == "exact":
            exact(rules, Scenario("go", {}))
        else:
            sample(rules, Scenario("go", {}), seed=1)
    found = caught.value.diagnostics[0]
    return found.line, found.message, found.hint


def test_a_while_loop_runs_while_its_condition_holds():
    assert odds("while x < 5 { x += 2 }") == {6: 1}


def test_a_loop_whose_condition_fails_at_once_runs_no_pass():
    assert odds("while x > 0 { y = 1 }", "y") == {0: 1}


def test_break_leaves_a_while_loop_at_once():
    assert odds("while x < 10 {\n  x += 1\n  if x == 3 { break }\n  y = x\n}", "y") == {2: 1}


def test_break_leaves_only_the_innermost_loop():
    body = "for i in range(3) {\n  for j in range(3) {\n    if j == 1 { break }\n    x += 1\n  }\n  y += 1\n}"
    assert odds(body, "x") == {3: 1} and odds(body, "y") == {3: 1}


def test_rerolling_until_another_face_shows_is_solved_exactly():
    assert odds("x = 1d6\nwhile x == 1 { x = 1d6 }") == {face: Fraction(1, 5) for face in range(2, 7)}


def test_a_condition_that_rolls_is_rolled_again_before_each_pass():
    # Passes made before the first 6: 0 with 1/6, 1 with 5/36, ... capped here at 2 by a break.
    body = "while 1d6 != 6 {\n  x += 1\n  if x == 2 { break }\n}"
    assert odds(body) == {0: Fraction(1, 6), 1: Fraction(5, 36), 2: Fraction(25, 36)}


def test_states_that_come_round_again_are_solved_together():
    # A walk from 2 that goes up with 1/3 and down with 2/3 until it reaches 0 or 4: it reaches 4 with
    # probability (2^2 - 1) / (2^4 - 1) = 1/5 (the gambler's ruin).
    body = "x = 2\nwhile x > 0 and x < 4 {\n  if chance(1/3) { x += 1 } else { x -= 1 }\n}"
    assert odds(body) == {0: Fraction(4, 5), 4: Fraction(1, 5)}


def test_a_loop_inside_a_loop_is_solved_for_each_pass_of_the_outer_one():
    # Each pass rerolls a die until it shows 5 or more: 5 and 6 are equally likely.
    body = "while y < 2 {\n  let face = 1d6\n  while face < 5 { face = 1d6 }\n  x += face\n  y += 1\n}"
    assert odds(body) == {10: Fraction(1, 4), 11: Fraction(1, 2), 12: Fraction(1, 4)}


def test_a_loop_that_comes_round_inside_another_loop_is_solved_for_each_of_its_passes():
    # The inner walk comes back to b = 0 from states no pass of the outer loop starts in: its elimination
    # clears a share of none with the shares of some (it failed with a TypeError).
    body = ("while x < 2 {\n  x += 1\n  y = 0\n"
            "  while y < 2 { if chance(1/2) { y += 1 } else { y = 0 } }\n}")
    assert odds(body) == {2: 1} and odds(body, "y") == {2: 1}


def test_thousands_of_starts_that_meet_in_a_pass_keep_each_start_apart():
    # 20,000 starts at the loop, every pass ending in one of four states: a coin tossed before it is kept.
    body = ("let coin = roll(1, 2) - 1\nlet z = roll(1, 100) * 1000 + roll(1, 100)\n"
            "while z > 1 { z = roll(1, 2) - 1 + coin }\nx = coin + 2 * z")
    assert odds(body) == {0: Fraction(1, 4), 2: Fraction(1, 4), 3: Fraction(1, 2)}


@pytest.fixture
def solved(monkeypatch) -> list[int]:
    """The loops solved as Markov chains: the number of states of each."""
    found: list[int] = []
    real = loops.solve

    def counting(states, *args, **kwargs):
        found.append(len(states))
        return real(states, *args, **kwargs)

    monkeypatch.setattr(loops, "solve", counting)
    return found


def test_a_loop_that_only_goes_forward_runs_its_passes_forward_without_a_chain_to_solve(solved):
    # A duel to the end or for a few rounds: each pass counts one more, so none comes round to a state met before.
    body = "y = 3\nwhile y > 0 and x < 2 {\n  x += 1\n  y -= roll(1, 2)\n}"
    assert odds(body, "y") == {-1: Fraction(1, 4), 0: Fraction(1, 2), 1: Fraction(1, 4)}
    assert solved == []


def test_a_state_reached_again_by_a_longer_way_runs_again_with_what_that_way_brings(solved):
    # 3 comes to 1 in one pass or in two (by 2): the way through 2 arrives a round later, and is added.
    assert odds("x = 3\nwhile x > 1 { x -= roll(1, 2) }") == {0: Fraction(1, 4), 1: Fraction(3, 4)}
    assert solved == []


def test_a_loop_that_may_come_round_is_solved_as_a_chain(solved):
    assert odds("x = 1\nwhile x == 1 { x = roll(1, 3) }") == {2: Fraction(1, 2), 3: Fraction(1, 2)}
    assert solved


def test_a_state_that_comes_round_to_itself_after_a_round_alone_is_solved_as_a_chain_at_once(monkeypatch, solved):
    # A round that may change nothing (a duel's two strikes both failing): run forward, every state would run
    # again at every round until the states come round more than they are met.
    forward: list[int] = []
    real = engines._passes

    def passes(routine, head, waiting, *rest):
        if not any(type(p) is loops.ByStart for p in waiting.values()):  # the chain's passes carry their starts
            forward.append(len(waiting))
        return real(routine, head, waiting, *rest)

    monkeypatch.setattr(engines, "_passes", passes)
    ends = {0: {0: Fraction(1)}, -1: {-1: Fraction(1)}}  # by hand: x ends at 0 or -1, as a third takes away 0, 1 or 2
    for x in range(1, 6):
        ends[x] = {end: (ends[x - 1].get(end, 0) + ends[x - 2].get(end, 0)) / 2 for end in (0, -1)}
    assert odds("x = 5\nwhile x > 0 { x -= roll(1, 3) - 1 }") == ends[5]
    assert forward == [1] and solved


def test_a_chain_that_only_goes_forward_is_solved_in_whole_numbers():
    # From a, a pass stays with 1 in 6 and goes to b with 3 in 6; from b, it stays with 2 in 6. The passes begun
    # in a, over its bottom: (1/2) / (6 - 1); b is entered with 3 of those and stays with 2 of its 6.
    rows = {"a": (6, {"a": 1, "b": 3}), "b": (6, {"b": 2})}
    shares, endless = loops.solve(["a", "b"], rows, {"a": D.Scaled(1, 2)}, {"a": True, "b": True})
    assert all(type(share) is D.Scaled for share in shares.values())  # products and sums of whole numbers, no gcd
    assert {state: share.fraction() for state, share in shares.items()} == {"a": Fraction(1, 10), "b": Fraction(3, 40)}
    assert endless == []


def test_states_that_come_round_to_each_other_are_eliminated_over_fractions_from_whole_number_starts():
    # a and b pass to each other with 1 in 2, and leave otherwise. From a start at a, a is begun 4/3 times on
    # average and b 2/3 times: over their bottom of 2, 2/3 and 1/3.
    rows = {"a": (2, {"b": 1}), "b": (2, {"a": 1})}
    shares, _ = loops.solve(["a", "b"], rows, {"a": D.Scaled(1, 1)}, {"a": True, "b": True})
    assert {state: Fraction(share) for state, share in shares.items()} == {"a": Fraction(2, 3), "b": Fraction(1, 3)}


def test_a_sum_of_loop_starts_takes_later_additions_in_place_and_leaves_its_terms_alone():
    # Merging thousands of starts one at a time copied every part before them each time: quadratic.
    first, second, third = (loops.ByStart({start: Fraction(1, start + 1)}) for start in range(3))
    both = first + second
    assert both + third is both
    assert both.parts == {0: 1, 1: Fraction(1, 2), 2: Fraction(1, 3)}
    assert first.parts == {0: 1} and second.parts == {1: Fraction(1, 2)} and third.parts == {2: Fraction(1, 3)}


def test_a_draw_of_loop_starts_scales_them_and_shares_their_parts():
    # A state of many starts (a duel's every health, its passes batched) branches on each value drawn: one
    # product a value, not one for each start; the states of one draw that meet add their scales.
    starts = loops.ByStart({0: 1, 1: 1, 2: 1})
    low, high = starts.times(1, 6), starts.times(5, 6)
    assert low.parts is starts.parts and high.parts is starts.parts
    assert dict(low.each()) == {0: Fraction(1, 6), 1: Fraction(1, 6), 2: Fraction(1, 6)}
    both = low + high
    assert both.parts is starts.parts and dict(both.each()) == {0: 1, 1: 1, 2: 1}


def test_loop_starts_of_other_draws_add_over_a_common_bottom_and_leave_their_terms_alone():
    quarter, sixth = loops.ByStart({0: 1}).times(1, 4), loops.ByStart({0: 1, 1: 1}).times(1, 6)
    assert dict((quarter + sixth).each()) == {0: Fraction(5, 12), 1: Fraction(1, 6)}
    assert dict(quarter.each()) == {0: Fraction(1, 4)} and dict(sixth.each()) == {0: Fraction(1, 6), 1: Fraction(1, 6)}


def test_a_draw_of_many_loop_starts_costs_the_work_of_one_state():
    # Its parts are shared, not multiplied at each value: a duel's batched starts were charged a step for every
    # start at every value drawn, and a margin duel at health 30 met the work limit.
    drawn = D.Dist({value: 1 for value in range(10)}, 10)
    many = loops.ByStart({start: 1 for start in range(50)}).times(1, 6)
    assert engines._branching_work(many, drawn) == engines._branching_work(D.Scaled(1, 6), drawn)


def test_loop_starts_of_other_draws_are_charged_for_the_parts_they_add():
    two, three = loops.ByStart({0: 1, 1: 1}).times(1, 2), loops.ByStart({2: 1, 3: 1, 4: 1}).times(1, 2)
    assert loops.added_work(two, three) == 3 + 2  # three's parts, and two's copied into a sum of its own
    total = two + three
    assert loops.added_work(total, loops.ByStart({5: 1}).times(1, 2)) == 1  # added in place, over one bottom
    assert loops.added_work(two, two.times(1, 1)) == 0  # states of one draw: their scales added


def test_a_sum_of_loop_starts_added_to_itself_is_not_changed_by_what_is_added_to_it_later():
    # The sum shares its parts with its double: later additions to it are made in a copy of its own.
    total = loops.ByStart({0: 1}) + loops.ByStart({1: 1})
    double = total + total
    total + loops.ByStart({2: 1})
    assert dict(double.each()) == {0: 2, 1: 2}


def test_a_step_called_in_a_loop_and_a_loop_in_a_step_run_alike():
    extra = "step reroll_low() {\n  while y < 3 { y = 1d6 }\n}\n"
    assert odds("while x < 2 {\n  reroll_low()\n  x += 1\n}", "y", extra) == {f: Fraction(1, 4) for f in range(3, 7)}


def test_sampling_and_forced_rolls_follow_the_same_loop():
    rules = rules_of("x = 1d6\nwhile x == 1 { x = 1d6 }")
    assert forced(rules, Scenario("go", {}), [1, 1, 4]).outcomes["x"] == 4
    assert all(sample(rules, Scenario("go", {}), seed=seed).outcomes["x"] != 1 for seed in range(30))


def test_an_exact_loop_that_may_never_end_is_reported_with_that_probability():
    line, message, hint = refused("let stuck = chance(1/3)\nwhile stuck { x = 1 - x }")
    assert (line, message) == (6, "this loop can run for ever: with probability 1/3 it never ends")
    assert "break" in hint


def test_a_loop_that_may_never_end_inside_another_loop_is_reported_with_the_whole_probability():
    # Each of three tries enters the endless loop on a 1 of 1d4: it is entered at last with 1 - (3/4)^3.
    for outer in ("for i in range(3) {", "while y < 3 {\n  y += 1"):
        line, message, _ = refused(outer + "\n  x = 1d4\n  if x == 1 {\n    while true { x = 1 }\n  }\n}")
        assert message == "this loop can run for ever: with probability 37/64 it never ends", outer


def test_a_loop_that_may_never_end_in_one_pass_of_another_is_weighed_by_that_pass():
    line, message, _ = refused("x = 1d4\nwhile y < 1 {\n  y += 1\n  if x == 1 {\n    while true { x = 1 }\n  }\n}")
    assert (line, message) == (9, "this loop can run for ever: with probability 1/4 it never ends")


def test_a_loop_that_may_never_end_is_reported_though_the_run_stops_at_a_limit_after_it():
    rules = rules_of("if chance(1/2) {\n  while true { x = 1 }\n}\ny = roll(4, 6)")
    with pytest.raises(ScenarioError) as caught:
        exact(rules, Scenario("go", {}), max_states=3)  # the four dice pass the limit once the loop is found
    found = caught.value.diagnostics[0]
    assert (found.line, found.message) == (6, "this loop can run for ever: some ways into it never leave it")
    with pytest.raises(ScenarioError, match="with probability 1/2 it never ends"):
        exact(rules, Scenario("go", {}))  # within the limit: how likely, said


def test_a_step_that_calls_itself_and_draws_runs_in_a_loop_s_passes():
    # Each pass stops with 1/2 * 1/3 and the loop ends with 1/2: it stops before it ends with (1/6) / (1/6 + 1/2).
    extra = 'step again() {\n  if x > 0 {\n    x += 1\n    again()\n  }\n  if chance(1/3) { stop "caught" }\n}\n'
    for outcomes_only in (True, False):
        found = exact(rules_of("while chance(1/2) { again() }", extra), Scenario("go", {}), outcomes_only=outcomes_only)
        assert found.marginal("stopped") == {"": Fraction(3, 4), "caught": Fraction(1, 4)}


def test_a_sampled_loop_that_never_ends_stops_at_the_loop_items_limit():
    line, message, hint = refused("while x < 1 { y += 1 }", "sampled")
    assert (line, message) == (5, "a while loop made more than 10000 passes")
    assert "--limit loop_items=N" in hint


def test_a_loop_of_as_many_passes_as_the_loop_items_limit_runs_and_one_more_stops():
    from fracas.dsl.limits import Limits

    text = HEADER + "action go() {\n  while x < 3 { x += 1 }\n}\n"
    for limit, runs in ((3, True), (2, False)):
        rules = dsl.loads(text, "loops.rules", Limits(loop_items=limit))
        for run in (lambda: sample(rules, Scenario("go", {}), seed=1).outcomes["x"],
                    lambda: exact(rules, Scenario("go", {})).marginal("x")):
            if runs:
                assert run() in (3, {3: 1})
            else:
                with pytest.raises(ScenarioError, match="more than 2 passes"):
                    run()


def test_an_exact_loop_whose_states_never_repeat_stops_at_the_loop_items_limit():
    line, message, hint = refused("while 1d6 != 6 { x += 1 }")
    assert (line, message[:61]) == (5, "this loop keeps meeting new states for more than 10000 passes")
    assert "--limit loop_items=N" in hint and "--samples" in hint


def test_a_loop_past_its_limit_names_the_value_that_wanders():
    _, message, _ = refused("let passes = 0\nwhile 1d6 != 6 {\n passes += 1\n y = min(passes, 1)\n}\nx = passes")
    assert message.endswith(": 'passes' has taken 10002 values (0, 1, 2, ...)")


def test_an_outcome_or_a_field_that_wanders_is_named_as_the_rules_name_it():
    _, message, _ = refused("while 1d6 != 6 { x += 1 }")
    assert message.endswith(": the outcome 'x' has taken 10002 values (0, 1, 2, ...)")
    rules = dsl.loads(HEADER + "kind walker { steps: int = 0 }\naction go(w: walker) {\n"
                      "  while 1d6 != 6 { w.steps += 1 }\n  x = w.steps\n}\n", "loops.rules")
    with pytest.raises(ScenarioError) as caught:
        exact(rules, Scenario("go", {"w": {}}))
    assert caught.value.diagnostics[0].message.endswith(": 'w.steps' has taken 10002 values (0, 1, 2, ...)")


def test_a_loop_past_its_limit_with_no_value_taking_many_names_none():
    from fracas.dsl.limits import Limits

    rules = dsl.loads(HEADER + "action go() {\n  while x < 3 { x += 1 }\n}\n", "loops.rules", Limits(loop_items=2))
    with pytest.raises(ScenarioError) as caught:
        exact(rules, Scenario("go", {}))
    assert caught.value.diagnostics[0].message == "this loop keeps meeting new states for more than 2 passes"


def test_break_outside_a_loop_is_a_checker_error():
    with pytest.raises(RulesError) as caught:
        rules_of("if x == 0 { break }")
    assert caught.value.diagnostics[0].message == "'break' leaves a loop, and there is no loop around it here"


def test_break_inside_a_step_called_from_a_loop_is_still_outside_a_loop():
    with pytest.raises(RulesError):
        rules_of("while x < 2 { leave() }", "step leave() { break }\n")


def test_the_condition_must_be_true_or_false():
    with pytest.raises(RulesError) as caught:
        rules_of("while x { x += 1 }")
    assert "bool" in caught.value.diagnostics[0].message


def test_after_a_loop_without_break_its_condition_is_known_to_have_failed():
    extra = "kind thing { size: int? = none }\n"
    rules = dsl.loads(HEADER + extra + "action go(t: thing = {}) {\n  while t.size == none { t.size = 3 }\n"
                      "  x = t.size + 1\n}\n", "loops.rules")
    assert exact(rules, Scenario("go", {})).marginal("x") == {4: 1}


def test_a_diff_names_the_loop_whose_condition_changed_with_its_line():
    from fracas.dsl.diff import compare

    before = rules_of("while x < 5 {\n  x += 2\n  if x == 4 { break }\n}")
    after = dsl.loads(HEADER + "action go() {\nwhile x <= 5 {\n  x += 2\n}\n}\n", "after.rules")
    (change,) = compare(before, after)
    assert change.details == ("line 5: while x < 5 -> while x <= 5", "line 7: if x == 4 (removed)",
                              "line 7: break (removed)")


def test_a_fn_written_with_statements_may_loop_until_it_knows_its_value():
    extra = ("fn steps_to_one(n: int): int {\n  let at = n\n  let count = 0\n  while at != 1 {\n"
             "    if at - floor(at / 2) * 2 == 0 { at = floor(at / 2) } else { at = 3 * at + 1 }\n"
             "    count += 1\n    if count == 100 { break }\n  }\n  return count\n}\n")
    assert odds("x = steps_to_one(6)", extra=extra) == {8: 1}
    assert odds("x = steps_to_one(27)", extra=extra) == {100: 1}


def test_a_fn_whose_loop_never_ends_stops_at_the_loop_items_limit():
    extra = "fn spin(n: int): int {\n  let at = n\n  while at > 0 { at = at }\n  return at\n}\n"
    rules = rules_of("x = spin(1)", extra)
    with pytest.raises(ScenarioError) as caught:
        exact(rules, Scenario("go", {}))
    assert caught.value.diagnostics[0].message == "a while loop made more than 10000 passes"


def test_a_loop_meeting_more_states_than_the_limit_names_the_value_that_spreads():
    rules = rules_of("while 1d6 != 6 { y += 1 }")
    with pytest.raises(ScenarioError) as caught:
        exact(rules, Scenario("go", {}), max_states=30)
    assert caught.value.diagnostics[0].message == ("the exact engine meets more than 30 states at the start of this "
                                                   "loop: the outcome 'y' has taken 31 values (0, 1, 2, ...)")


def test_the_work_limit_met_inside_a_loop_says_what_wanders_there():
    from fracas.dsl.limits import Limits

    rules = dsl.loads(HEADER + "action go() {\n  while x < 3 {\n    y += roll(1, 6)\n    if chance(1/2) { x += 1 }\n"
                      "  }\n}\n", "loops.rules", Limits(work=3000))
    with pytest.raises(ScenarioError) as caught:
        exact(rules, Scenario("go", {}))
    found = caught.value.diagnostics[0]
    assert found.message == "this resolution did more than 3000 steps of work"
    assert "; in the loop at line 5: the outcome 'y' has taken " in found.hint
    assert found.hint.endswith(", ...): bound it with a cap, as min(n + 1, 20) caps a count")


COUNTS_THAT_ONLY_GO_DOWN = """rules "two sides wear down"
outcome rounds: int = 0
action go() {
  let a = 12
  let b = 12
  while a > 0 and b > 0 {
    rounds = min(rounds + 1, 10)
    a = max(0, a - trials(2, 1/6))
    b = max(0, b - trials(2, 1/6))
  }
}
"""


def work_limit_hint(text: str, work: int) -> str:
    from fracas.dsl.limits import Limits

    with pytest.raises(ScenarioError) as caught:
        exact(dsl.loads(text, "loops.rules", Limits(work=work)), Scenario("go", {}))
    found = caught.value.diagnostics[0]
    assert found.message == f"this resolution did more than {work} steps of work"
    return found.hint


def test_a_count_that_goes_down_is_named_but_not_told_to_be_capped():
    # At 3000 steps 'a' has taken 11 values, 12 down to 2, and goes on down: a cap on a count would not help.
    hint = work_limit_hint(COUNTS_THAT_ONLY_GO_DOWN, 3000)
    assert hint.endswith("in the loop at line 6: 'a' has taken 11 values (2, 3, 4, ...)")


def test_health_that_only_goes_down_is_not_told_to_be_capped_when_the_limit_comes_in_the_second_round():
    # Its values after one round (18 to 28) are all below where it started: a cap would not help.
    text = HEADER + ("action go() {\n  let a = 30\n  let b = 30\n  while a > 0 and b > 0 {\n"
                     "    a = max(0, a - roll(2, 6))\n    b = max(0, b - roll(2, 6))\n  }\n}\n")
    with pytest.raises(ScenarioError) as caught:
        exact(dsl.loads(text, "loops.rules"), Scenario("go", {}), max_states=200)
    assert caught.value.diagnostics[0].hint.endswith("in the loop at line 7: 'a' has taken 12 values (18, 19, 20, ...)")


def test_a_value_that_goes_down_without_end_is_named():
    _, message, _ = refused_with("while 1d6 != 6 { x -= 1 }", max_states=200)
    assert message.endswith(": the outcome 'x' has taken 201 values (-200, -199, -198, ...)")


def test_a_value_that_climbs_every_other_round_is_named_whichever_round_the_limit_is_met_in():
    body = "let flip = false\nwhile 1d6 != 6 {\n  flip = not flip\n  if flip { x += 1 }\n}"
    for states in (199, 200):
        _, message, _ = refused_with(body, max_states=states)
        assert message.endswith(": the outcome 'x' has taken 101 values (0, 1, 2, ...)")


def test_a_loop_solved_as_a_markov_chain_names_a_value_that_goes_down():
    from fracas.dsl.limits import Limits

    rules = dsl.loads(HEADER + "action go() {\n  while x > -5000 {\n    if chance(1/2) { x -= 1 }\n"
                      "    y = min(y + 1, 3)\n  }\n}\n", "loops.rules", Limits(loop_items=40))
    with pytest.raises(ScenarioError) as caught:
        exact(rules, Scenario("go", {}))
    assert caught.value.diagnostics[0].message.endswith(": the outcome 'x' has taken 42 values (-41, -40, -39, ...)")


def refused_with(body: str, **limits: int) -> tuple[int, str, str]:
    with pytest.raises(ScenarioError) as caught:
        exact(rules_of(body), Scenario("go", {}), **limits)
    found = caught.value.diagnostics[0]
    return found.line, found.message, found.hint


def test_a_count_already_at_its_cap_is_not_told_to_be_capped():
    # At 20000 steps the rounds stay at 10 and every count has met 0: nothing takes a new value.
    hint = work_limit_hint(COUNTS_THAT_ONLY_GO_DOWN, 20000)
    assert "in the loop at line" not in hint and "cap" not in hint


def test_a_wandering_text_is_named_with_its_first_values_in_order():
    rules = dsl.loads(HEADER + 'outcome t: text = ""\naction go() {\n  while 1d6 != 6 { t = t + "a" }\n}\n', "loops.rules")
    with pytest.raises(ScenarioError) as caught:
        exact(rules, Scenario("go", {}), max_states=20)
    assert caught.value.diagnostics[0].message.endswith(': the outcome \'t\' has taken 21 values ("", "a", "aa", ...)')


def test_a_loop_solved_as_a_markov_chain_names_what_wanders_past_its_pass_limit():
    from fracas.dsl.limits import Limits

    rules = dsl.loads('outcome x: int = 25\naction go() {\n    while x > 0 and x < 50 {\n'
                      '        if chance(1/2) { x += 1 } else { x -= 1 }\n    }\n}\n', "walk.rules", Limits(loop_items=10))
    with pytest.raises(ScenarioError) as caught:
        exact(rules, Scenario("go", {}))
    message = caught.value.diagnostics[0].message
    assert message.startswith("this loop keeps meeting new states for more than 10 passes: the outcome 'x' has taken")


def test_a_loop_within_a_loop_that_names_what_wanders_is_not_told_again_by_the_outer_one():
    rules = rules_of("while 1d4 != 4 {\n  x += 1\n  let j = 0\n  while 1d2 != 2 and j < 3 {\n    j += 1\n"
                     "    y += j\n  }\n}")
    with pytest.raises(ScenarioError) as caught:
        exact(rules, Scenario("go", {}), max_states=60)
    found = caught.value.diagnostics[0]
    assert ": the outcome 'y' has taken " in found.message and "in the loop at line" not in found.hint


def test_a_field_the_rules_bound_is_named_but_not_told_to_be_capped():
    from fracas.dsl.limits import Limits

    rules = dsl.loads(HEADER + "kind track { y: int in 0..1000 = 0 }\naction go(t: track) {\n  while x < 3 {\n"
                      "    t.y = min(t.y + roll(1, 6), 1000)\n    if chance(1/2) { x += 1 }\n  }\n}\n",
                      "loops.rules", Limits(work=3000))
    with pytest.raises(ScenarioError) as caught:
        exact(rules, Scenario("go", {"t": {}}))
    hint = caught.value.diagnostics[0].hint
    assert "; in the loop at line 6: 't.y' has taken " in hint and hint.endswith(", ...)")
