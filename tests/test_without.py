"""`without(items, item)`: a list with one item taken out, as a card drawn from a deck is."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from fracas import dsl
from fracas.interpreter import Scenario, ScenarioError, exact, forced, sample

from shortcuts import block_runs

DECK = """
kind deck { cards: list of int = [1, 1, 2] }
outcome drawn: list of int = []
step draw(d: deck): int {
    let card = pick(d.cards)
    d.cards = without(d.cards, card)
    return card
}
action deal(d: deck, n: int = 2) {
    for k in range(n) {
        let card = draw(d)
        drawn = drawn + [card]
    }
}
"""


def load(text: str = DECK) -> dsl.Ruleset:
    return dsl.loads(text, "deck.rules")


def refusals(text: str) -> list[str]:
    with pytest.raises(dsl.RulesError) as caught:
        load(text)
    return [d.message for d in caught.value.diagnostics]


def test_cards_drawn_without_replacement_have_exact_odds():
    odds = exact(load(), Scenario("deal", {"d": {}})).marginal("drawn")
    # 1 then 1: 2/3 * 1/2; 1 then 2: 2/3 * 1/2; 2 then 1: 1/3.
    assert odds == {(1, 1): Fraction(1, 3), (1, 2): Fraction(1, 3), (2, 1): Fraction(1, 3)}


def test_the_deck_keeps_the_cards_not_drawn():
    odds = exact(load(), Scenario("deal", {"d": {}, "n": 1}))
    left = {}
    for state, p in odds.states.items():
        cards = state.world["d"].get("cards")
        left[cards] = left.get(cards, 0) + p
    assert left == {(1, 2): Fraction(2, 3), (1, 1): Fraction(1, 3)}


def test_the_first_equal_item_is_taken_out_and_the_order_kept():
    rules = load("outcome left: list of int = []\naction go() { left = without([3, 1, 2, 1], 1) }\n")
    assert exact(rules, Scenario("go", {})).marginal("left") == {(3, 2, 1): 1}


BY_INDEX = """    let i = pick(range(len(d.cards)))
    let card = d.cards[i]
    d.cards = [d.cards[j] for j in range(len(d.cards)) if j != i]
"""


def test_a_draw_branches_on_the_distinct_cards_not_on_every_card(monkeypatch):
    twenty = DECK.replace("[1, 1, 2]", "[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7]")
    by_index = twenty.replace("    let card = pick(d.cards)\n    d.cards = without(d.cards, card)\n", BY_INDEX)
    most = {}
    for name, text in (("without", twenty), ("by index", by_index)):
        runs = block_runs(monkeypatch)
        odds = exact(load(text), Scenario("deal", {"d": {}, "n": 1}))
        assert odds.marginal("drawn") == {(0,): Fraction(19, 20), (7,): Fraction(1, 20)}
        most[name] = max(runs.values())
    assert most["by index"] >= 20 and most["without"] <= 3  # a state for each card, or for each value


def test_a_sampled_deck_never_deals_a_card_twice():
    rules = load(DECK.replace("[1, 1, 2]", "[1, 2, 3, 4, 5]").replace("n: int = 2", "n: int = 5"))
    for seed in range(20):
        assert sorted(sample(rules, Scenario("deal", {"d": {}}), seed=seed).outcomes["drawn"]) == [1, 2, 3, 4, 5]


def test_forced_picks_name_the_cards_left():
    run = forced(load(), Scenario("deal", {"d": {"cards": [5, 6, 7]}}), [2, 0])
    assert run.outcomes["drawn"] == (7, 5)
    assert run.state.world["d"].get("cards") == (6,)


def test_taking_out_an_item_the_list_does_not_hold_is_refused_where_it_is_written():
    rules = load("outcome left: list of int = []\naction go(x: int) { left = without([1, 2], x) }\n")
    with pytest.raises(ScenarioError) as caught:
        exact(rules, Scenario("go", {"x": 3}))
    [told] = caught.value.diagnostics
    assert told.message == "3 is not in the list, so it cannot be taken out of it"
    assert (told.line, told.column) == (2, 28)


def test_an_item_of_another_type_than_the_list_s_is_refused_by_check():
    found = refusals('outcome left: list of int = []\naction go() { left = without([1, 2], "two") }\n')
    assert found == ["a list of int never holds a text"]


def test_a_step_s_value_added_to_a_list_is_told_once():
    found = refusals(DECK.replace("        let card = draw(d)\n        drawn = drawn + [card]\n",
                                  "        drawn = drawn + [draw(d)]\n"))
    assert found == ["the value of the step 'draw' is taken only as the whole value of 'let', an assignment or 'return'"]


def test_without_takes_out_the_first_equal_item_as_python_s_remove_does():
    rules = load("outcome left: list of int = []\naction go(xs: list of int, x: int) { left = without(xs, x) }\n")
    rng = random.Random(5)
    for _ in range(30):
        items = [rng.randrange(4) for _ in range(rng.randrange(1, 7))]
        item = rng.choice(items)
        expected = list(items)
        expected.remove(item)
        assert exact(rules, Scenario("go", {"xs": items, "x": item})).marginal("left") == {tuple(expected): 1}


def test_a_record_written_out_is_never_one_of_a_list_s_things():
    rules = load("kind card { value: int = 1 }\nkind hand { cards: list of card = [{value: 1}, {value: 2}] }\n"
                 "outcome n: int = 0\naction go(h: hand = {}) {\n    h.cards = without(h.cards, {value: 2})\n"
                 "    n = len(h.cards)\n}\n")
    with pytest.raises(ScenarioError) as caught:
        exact(rules, Scenario("go", {}))
    [told] = caught.value.diagnostics
    assert told.message == "card{value: 2} is a record written out, never one of the list's things"
