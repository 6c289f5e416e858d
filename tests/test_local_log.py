"""A logged run says what each local was named and how it changed: the numbers a later roll or count was given."""

from __future__ import annotations

from fracas import dsl
from fracas.interpreter import Scenario, exact, forced, sample
from fracas.interpreter.core.codegen import generator_for
from fracas.interpreter.inputs import build_program

RULES = dsl.loads("""
outcome total: int = 0
fn halved(x: int): int {
    let half = x / 2
    return floor(half)
}
step bonus_of(base: int) {
    let bonus = base + 1
    total += bonus
}
action go(base: int = 4) {
    let dice = base - 1
    let odds = 1/2
    total = roll(dice, 6)
    dice += 2
    odds = 1/2
    for i in range(2) {
        dice -= 1
    }
    bonus_of(halved(base))
    let rolled = roll(1, 6) + 1
    dice = roll(1, 4)
}
""", "locals.rules")


def logged(run, kind: str) -> list[tuple[int, str]]:
    return [(event["line"], event["text"]) for event in run.events if event["kind"] == kind]


def test_a_let_is_logged_with_the_value_it_names():
    run = forced(RULES, Scenario("go", {}), [1, 2, 3, 5, 4])
    assert logged(run, "let")[:2] == [(12, "dice = 3"), (13, "odds = 1/2")]


def test_a_let_comes_before_the_roll_that_reads_it():
    run = forced(RULES, Scenario("go", {}), [1, 2, 3, 5, 4])
    kinds = [(event["kind"], event["line"]) for event in run.events]
    assert kinds.index(("let", 12)) < kinds.index(("roll", 14))


def test_a_local_changed_is_logged_from_its_old_value_to_its_new():
    run = forced(RULES, Scenario("go", {}), [1, 2, 3, 5, 4])
    changes = [text for line, text in logged(run, "change") if text.startswith("dice") and line < 20]
    assert changes == ["dice: 3 -> 5", "dice: 5 -> 4", "dice: 4 -> 3"]


def test_a_local_set_to_the_value_it_had_is_not_logged():
    run = forced(RULES, Scenario("go", {}), [1, 2, 3, 5, 4])
    assert not any(line == 16 for line, _ in logged(run, "change"))


def test_a_steps_let_is_logged_and_a_fns_is_not():
    run = forced(RULES, Scenario("go", {}), [1, 2, 3, 5, 4])
    lets = [text for _, text in logged(run, "let")]
    assert "bonus = 3" in lets
    assert not any(text.startswith("half") for text in lets)


def test_a_logged_change_of_a_local_carries_its_name_and_both_values():
    run = forced(RULES, Scenario("go", {}), [1, 2, 3, 5, 4])
    [first] = [event for event in run.events if event["kind"] == "change" and event["line"] == 15]
    assert (first["target"], first["before"], first["after"]) == ("dice", "3", "5")
    [let] = [event for event in run.events if event["kind"] == "let" and event["line"] == 12]
    assert (let["name"], let["value"]) == ("dice", "3")


def test_a_logged_run_rolls_what_the_same_seed_rolls_unlogged():
    for seed in range(10):
        with_log = sample(RULES, Scenario("go", {"base": 6}), seed=seed)
        bare = sample(RULES, Scenario("go", {"base": 6}), seed=seed, events=False)
        assert with_log.state.outcomes == bare.state.outcomes, seed


def test_the_log_keeps_no_old_value_alive_for_the_exact_engine():
    # The old value is read through the slot's number: no generated line reads the local's slot before
    # `x = ...` sets it, so states that differ only in its old value still merge.
    exact(RULES, Scenario("go", {}), outcomes_only=True)
    routine = generator_for(build_program(RULES).rules).routine("go")
    lines = [line for block in routine.blocks for line, _ in getattr(block, "lines", ())]
    befores = [line for line in lines if "local_before" in line]
    assert befores and not any("F[" in line for line in befores)


def test_a_local_drawn_straight_from_a_roll_is_logged_after_the_roll():
    run = forced(RULES, Scenario("go", {}), [1, 2, 3, 5, 4])
    texts = [(event["kind"], event["text"]) for event in run.events if event["line"] in (21, 22)]
    assert texts == [("roll", "1d6: 5"), ("let", "rolled = 6"), ("roll", "1d4: 4"), ("change", "dice = 4")]


def test_a_pool_named_is_not_logged_again_after_its_bodies():
    pools = dsl.loads("""
outcome lost: int = 0
action go() {
    let pool = bodies(2, 1)
    pool += bodies(1, 2)
    lost = lethal(pool)
}
""", "pools.rules")
    run = forced(pools, Scenario("go", {}), [])
    assert [event["kind"] for event in run.events if event["line"] in (4, 5)] == ["bodies", "bodies"]


LONG = dsl.loads("""
kind holder { xs: list of int = [] }
outcome n: int = 0
action go() {
    let xs: list of int = []
    let words = ""
    for i in range(100) {
        xs += [i]
        words = words + "0123456789"
    }
    xs[50] = 999
    let nested = [xs, xs]
    let h: holder = {xs: xs}
    event gathered(xs)
    event held(h)
    n = len(xs)
}
""", "long.rules")
FIRST_20 = "0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19"


def long_run():
    return sample(LONG, Scenario("go", {}), seed=1)


def test_a_long_list_is_logged_with_its_first_items_and_the_rest_counted():
    [(_, nested)] = [(line, text) for line, text in logged(long_run(), "let") if text.startswith("nested")]
    assert nested.startswith(f"nested = [[{FIRST_20}, ... 80 more], ")


def test_a_list_of_more_than_20_items_is_cut_short_however_short_they_are():
    from fracas.interpreter.core.values import show_brief
    assert show_brief(tuple(range(21))) == f"[{FIRST_20}, ... 1 more]"
    assert show_brief(tuple(range(20))) == f"[{FIRST_20}]"


def test_a_long_list_grown_is_shown_at_its_end():
    changes = [text for _, text in logged(long_run(), "change") if text.startswith("xs")]
    assert changes[-2] == "xs: [... 97 before, 97, 98] -> [... 97 before, 97, 98, 99]"


def test_a_change_past_the_items_shown_is_shown_where_the_lists_differ():
    last = [text for _, text in logged(long_run(), "change") if text.startswith("xs")][-1]
    before, after = last.removeprefix("xs: ").split(" -> ")
    assert before.startswith("[... 48 before, 48, 49, 50, 51") and after.startswith("[... 48 before, 48, 49, 999, 51")


def test_a_long_text_is_logged_cut_short_with_the_rest_counted():
    [let] = [text for _, text in logged(long_run(), "let") if text.startswith("words")]
    assert let == 'words = ""'
    last = [text for _, text in logged(long_run(), "change") if text.startswith("words")][-1]
    assert last == ('words: (970 characters before) ..."' + "0123456789" * 2 + '" -> (970 characters before) ..."'
                    + "0123456789" * 3 + '"')


def test_a_long_list_within_a_list_or_a_record_is_cut_short_too():
    run = long_run()
    [(_, nested)] = [(line, text) for line, text in logged(run, "let") if text.startswith("nested")]
    assert nested == f"nested = [[{FIRST_20}, ... 80 more], [{FIRST_20}, ... 80 more]]"
    [_, (_, held)] = logged(run, "event")
    assert held == f"held(holder{{xs: [{FIRST_20}, ... 80 more]}})"


def test_an_events_long_list_is_shown_cut_short():
    [(_, gathered), _] = logged(long_run(), "event")
    assert gathered == f"gathered([{FIRST_20}, ... 80 more])"


def test_the_logs_fields_hold_what_its_text_shows():
    run = long_run()
    change = [event for event in run.events if event["kind"] == "change" and event["target"] == "xs"][-1]
    assert change["text"] == f"xs: {change['before']} -> {change['after']}"
    [gathered, _] = [event for event in run.events if event["kind"] == "event"]
    assert gathered["args"] == [f"[{FIRST_20}, ... 80 more]"]


def test_a_change_within_what_is_cut_short_is_said_to_be_one():
    rules = dsl.loads("""
outcome n: int = 0
action go() {
    let xs: list of int = []
    for i in range(30) {
        xs += [i]
    }
    let nested = [xs]
    xs[25] = 99
    nested = [xs]
    n = len(nested)
}
""", "deep.rules")
    last = [text for _, text in logged(sample(rules, Scenario("go", {}), seed=1), "change")
            if text.startswith("nested")][-1]
    assert last == f"nested: [[{FIRST_20}, ... 10 more]] -> [[{FIRST_20}, ... 10 more]] (changed within what is cut short)"


def test_one_character_past_the_cut_is_counted_as_one():
    from fracas.interpreter.core.values import show_brief
    assert show_brief("a" * 201) == '"' + "a" * 200 + '"... (1 character more)'
