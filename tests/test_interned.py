"""Worlds and outcomes as numbers while the exact engine runs: equal ones one number, unequal ones two, even where
their hashes are equal."""

from __future__ import annotations

from fractions import Fraction

from fracas import dsl
from fracas.interpreter import Scenario, exact
from fracas.interpreter.core.interned import Interned
from fracas.interpreter.core.state import Frozen

# In CPython hash(-1) == hash(-2): two outcomes that differ only there hash alike.
assert hash(frozenset({("a", -1)})) == hash(frozenset({("a", -2)}))


def test_equal_outcomes_made_apart_have_one_number():
    interned = Interned()
    first = interned.id(Frozen({"a": 1, "b": "x"}))
    assert interned.id(Frozen({"b": "x", "a": 1})) == first
    assert interned.values[first] == {"a": 1, "b": "x"}


def test_unequal_outcomes_have_two_numbers():
    interned = Interned()
    assert interned.id(Frozen({"a": 1})) != interned.id(Frozen({"a": 2}))


def test_unequal_outcomes_of_equal_hashes_have_two_numbers_each_found_again():
    interned = Interned()
    minus_one, minus_two = interned.id(Frozen({"a": -1})), interned.id(Frozen({"a": -2}))
    assert minus_one != minus_two
    assert interned.id(Frozen({"a": -2})) == minus_two
    assert interned.id(Frozen({"a": -1})) == minus_one
    assert interned.values[minus_two] == {"a": -2} and interned.values[minus_one] == {"a": -1}


def test_an_interned_world_keeps_the_hash_its_own_hash_gives():
    interned = Interned()
    frozen = Frozen({"a": 3, "b": (1, 2)})
    interned.id(frozen)
    assert hash(frozen) == hash(frozenset({"a": 3, "b": (1, 2)}.items()))


def test_a_dictionary_just_made_gets_the_number_its_equal_has():
    interned = Interned()
    first = interned.id(Frozen({"a": 1, "b": "x"}))
    assert interned.made(Frozen({"b": "x", "a": 1})) == first
    assert interned.made(Frozen({"a": -2})) != interned.made(Frozen({"a": -1}))  # equal hashes, two numbers


def test_a_dictionary_just_made_keeps_the_hash_its_own_hash_would_give():
    frozen = Frozen({"a": 3, "b": (1, 2)})
    Interned().made(frozen)
    assert frozen._hash == hash(frozenset({"a": 3, "b": (1, 2)}.items()))
    assert Frozen({"b": (1, 2), "a": 3}).hashed()._hash == hash(frozen)


def test_a_dictionary_changed_after_a_hash_is_hashed_anew_when_made_again():
    frozen = Frozen({"a": 1})
    hash(frozen)
    frozen["a"] = 2  # as the engine never does once it has hashed one: made() works the hash out again
    interned = Interned()
    assert interned.made(frozen) == interned.id(Frozen({"a": 2}))


def test_exact_odds_keep_apart_outcomes_whose_hashes_are_equal():
    rules = dsl.loads('outcome loss: int = 0\naction lose() {\n    loss = 0 - roll(1, 2)\n}\n')
    assert exact(rules, Scenario("lose", {}), outcomes_only=True).marginal("loss") == {
        -2: Fraction(1, 2), -1: Fraction(1, 2)}
