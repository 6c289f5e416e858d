"""A logged run says what each roll was and what it gave: a sum of dice with each face, a pool of dice (kept,
counted, tallied, exploding or rerolled) with each die it rolled."""

from __future__ import annotations

from fracas import dsl
from fracas.interpreter import Scenario, forced, sample

RULES = dsl.loads("""
outcome total: int = 0
outcome hits: int = 0
outcome lucky: bool = false
action go() {
    total = roll(3, 6)
    hits = successes(4, 10, at_least: 7)
    lucky = chance(1/2)
    total += roll(1, 20)
}
""", "log.rules")


def rolls(run) -> list[dict]:
    return [event for event in run.events if event["kind"] == "roll"]


def test_a_sampled_run_logs_each_roll_before_the_change_it_makes():
    run = sample(RULES, Scenario("go", {}), seed=4)
    assert [(event["kind"], event["line"]) for event in run.events][:2] == [("roll", 6), ("change", 6)]
    assert [event["line"] for event in rolls(run)] == [6, 7, 8, 9]


def test_a_sum_of_dice_shows_each_face_and_the_faces_add_up_to_the_value():
    first = rolls(sample(RULES, Scenario("go", {}), seed=4))[0]
    assert first["rolled"] == "3d6" and len(first["faces"]) == 3
    assert int(first["value"]) == sum(first["faces"])
    assert first["text"] == f"3d6: {first['value']} ({' + '.join(map(str, first['faces']))})"


def test_a_single_die_and_other_chance_show_their_value_alone():
    logged = rolls(sample(RULES, Scenario("go", {}), seed=4))
    assert logged[2]["text"] in ("chance 1/2: true", "chance 1/2: false")
    assert logged[3]["text"] == f"1d20: {logged[3]['value']}"


def test_a_logged_run_rolls_what_the_same_seed_rolls_unlogged():
    for seed in range(20):
        logged = sample(RULES, Scenario("go", {}), seed=seed)
        bare = sample(RULES, Scenario("go", {}), seed=seed, events=False)
        assert logged.state.outcomes == bare.state.outcomes, seed


def test_a_forced_run_logs_the_faces_it_was_given():
    run = forced(RULES, Scenario("go", {}), [6, 1, 3, 7, 7, 2, 10, 1, 20])
    assert [event["text"] for event in rolls(run)] == [
        "3d6: 10 (6 + 1 + 3)", "4d10 counting 7+: 3 (rolled 7, 7, 2, 10)", "chance 1/2: true", "1d20: 20"]


POOLS = dsl.loads("""
outcome total: int = 0
outcome hits: int = 0
outcome ones: int = 0
action go() {
    total = keep_highest(4, 6, 3)
    hits = successes(4, 10, at_least: 7, reroll: [1])
    ones = tally(3, 8, [[1]])[0]
    total += explode(1, 6, 3) + roll(2, 6, reroll: [1]) + custom_dice(2, [-1, 0, 1])
}
""", "pools.rules")


def test_a_pool_of_dice_shows_each_die_it_rolled_in_order():
    run = forced(POOLS, Scenario("go", {}), [6, 1, 5, 2, 1, 7, 7, 2, 10, 1, 8, 1, 6, 6, 2, 1, 4, 5, 0, 2])
    assert [event["text"] for event in rolls(run)] == [
        "4d6 keeping the 3 highest: 13 (rolled 6, 1, 5, 2)",
        "4d10 counting 7+: 3 (rolled 1, 7, 7, 2, 10)",  # the 1 rolled again: a 7
        "3d8 tallied in 1 group: [2] (rolled 1, 8, 1)",
        "1d6 exploding at most 3 times: 14 (rolled 6, 6, 2)",
        "2d6 rerolling 1 once: 9 (rolled 1, 4, 5)",
        "2 dice of faces -1, 0, 1: 0 (rolled -1, 1)",  # forced by each face's place in the list, from 0
    ]
    assert rolls(run)[0]["faces"] == [6, 1, 5, 2]


def test_a_dice_value_and_dice_of_faces_listed_show_each_die_sampled():
    rules = dsl.loads("kind weapon { damage: dice = 1d3 }\nweapon axe { damage 2d6 + 1d4 + 1 }\n"
                      "outcome total: int = 0\naction go(w: weapon) {\n"
                      "    total = roll(w.damage) + custom_dice(3, [-1, 0, 5])\n}\n", "values.rules")
    for seed in range(10):
        dice_value, listed = rolls(sample(rules, Scenario("go", {"w": "axe"}), seed=seed))
        assert len(dice_value["faces"]) == 3 and int(dice_value["value"]) == sum(dice_value["faces"]) + 1
        assert all(face in (-1, 0, 5) for face in listed["faces"]) and int(listed["value"]) == sum(listed["faces"])


def test_a_logged_run_of_pools_rolls_what_the_same_seed_rolls_unlogged():
    for seed in range(30):
        logged = sample(POOLS, Scenario("go", {}), seed=seed)
        bare = sample(POOLS, Scenario("go", {}), seed=seed, events=False)
        assert logged.state.outcomes == bare.state.outcomes, seed
        kept = rolls(logged)[0]
        assert int(kept["value"]) == sum(sorted(kept["faces"])[1:]), seed


def test_a_sum_of_many_dice_shows_its_first_20_faces_and_counts_the_rest():
    rules = dsl.loads("outcome total: int = 0\naction go() { total = roll(25, 6) + roll(20, 6) }\n", "many.rules")
    many, twenty = rolls(sample(rules, Scenario("go", {}), seed=3))
    assert len(many["faces"]) == 25  # the event holds every face
    assert many["text"] == f"25d6: {many['value']} ({' + '.join(map(str, many['faces'][:20]))} + ... 5 more)"
    assert twenty["text"].endswith(f"{twenty['faces'][-1]})") and "more" not in twenty["text"]
