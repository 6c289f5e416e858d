"""An exact volley counts the bodies of each kind however many there are: past what a byte, or two, can count."""

from __future__ import annotations

from fractions import Fraction

from fracas.interpreter.runtime.bodies import Body, Pool, Volley
from fracas.interpreter.runtime.chance import Fire, _field_places


def test_two_shots_at_three_hundred_alike_bodies_hit_the_same_one_once_in_three_hundred():
    dist = Fire(Volley.make(2, 1), Pool.make(300, 2)).distribution()
    same = Pool.of([Body(2, 2)] + [Body(2, 0)] * 299)
    different = Pool.of([Body(2, 1)] * 2 + [Body(2, 0)] * 298)
    assert dist == {same: Fraction(1, 300), different: Fraction(299, 300)}


def test_a_shot_at_seventy_thousand_alike_bodies_leaves_one_of_them_lethal():
    dist = Fire(Volley.make(1, 1), Pool.make(70_000, 1)).distribution()
    assert dist == {Pool.of([Body(1, 1)] + [Body(1, 0)] * 69_999): 1}
    assert [pool.lethal_count() for pool in dist] == [1]


def test_a_packed_state_reads_back_its_counts_in_either_byte_order():
    # Counts 3, 1 and 2 in fields 0, 1 and 2 of a byte each: field 0 is the lowest byte.
    state = 3 + (1 << 8) + (2 << 16)
    for byteorder in ("little", "big"):
        counts = memoryview(state.to_bytes(3, byteorder)).cast("B")
        places = _field_places([0, 1, 2], 3, byteorder)
        assert [counts[place] for place in places] == [3, 1, 2]
