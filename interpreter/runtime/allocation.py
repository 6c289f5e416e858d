"""Focused allocation: shots that go to one body until it dies, in an order the rules give.

Random allocation, the default, is a matter of chance and lives with the
chance primitive (chance.Fire). A focused allocation chooses nothing by
chance: given the shots' damages, the pool that results is certain, so the
sampled, forced and exact engines all take it from `focused` below, the one
definition of its meaning.

The order: bodies whose owner or tag is listed in `order` first, by the first
item they match; then pool order (the order the `bodies(...)` of a pool were
added); among alike bodies of one group, the most damaged first, so that a
body already hit is finished before a fresh one is started.
"""

from __future__ import annotations

from typing import Any

from fracas.interpreter.runtime.bodies import Body, Hit, Pool, Volley
from fracas.interpreter.runtime.keys import same

RANDOM = "random"  # each shot hits a living body chosen uniformly
FOCUSED = "focused"  # each shot hits the first living body; what it does beyond killing it is lost
FOCUSED_CARRY = "focused_carry"  # the same, but the excess goes on to the next living body, and the next
POLICIES = (RANDOM, FOCUSED, FOCUSED_CARRY)


def _rank(body: Body, order: tuple[Any, ...]) -> int:
    """The place in `order` of the first item naming the body's owner or tag; past the end if none does."""
    for place, item in enumerate(order):
        if same(item, body.owner) or same(item, body.tag):
            return place
    return len(order)


def allocation_order(pool: Pool, order: tuple[Any, ...] = ()) -> list[int]:
    """The indices of the pool's living bodies, in the order focused shots reach them."""
    bodies = pool.bodies
    living = [i for i, body in enumerate(bodies) if not body.lethal]
    return sorted(living, key=lambda i: (_rank(bodies[i], order), bodies[i].group, -bodies[i].damage, i))


def focused(volley: Volley, pool: Pool, policy: str, order: tuple[Any, ...] = ()) -> tuple[Pool, tuple[Hit, ...]]:
    """The pool after every shot goes to the first living body in order, and what each shot hit.

    A body stays first until it dies, so one pass down the order serves every
    shot. With FOCUSED_CARRY the damage left once a body dies goes on to the
    next living body; with FOCUSED it is lost. A body that cannot die, once
    first, takes every shot. With no body living, a shot is lost.
    """
    carry = policy == FOCUSED_CARRY
    bodies = list(pool.bodies)
    queue = allocation_order(pool, order)
    at = 0
    hits: list[Hit] = []
    for index, shot in enumerate(volley.shots):
        left, carried = shot.damage, False
        while at < len(queue):
            i = queue[at]
            before = bodies[i]
            after = bodies[i] = before.hit(left)
            hits.append(Hit(shot, index, before, after, overflow=False, carried=carried))
            if not after.lethal:
                break  # the shot is spent on this body
            at += 1
            left -= after.damage - before.damage
            if not carry or left <= 0:
                break
            carried = True
    return Pool.of(bodies), tuple(hits)
