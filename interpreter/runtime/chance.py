"""Chance primitives. Each can be sampled, forced, or given as an exact distribution.

A primitive is a frozen value describing one random event. The engines
decide how to resolve it: `sample` draws with a seeded generator (using only
randrange, which is stable across Python versions), `forced` follows a script
of integers from a rulebook example, and `distribution` returns every outcome
with its exact probability. Distributions are computed by convolution and
Markov chains over merged states, never by enumerating roll sequences.
"""

from __future__ import annotations

import functools
import math
import random
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from interpreter.runtime.bodies import Body, Pool, Shot, Volley
from interpreter.runtime.keys import stable_key

Distribution = dict[Any, Fraction]


class ForcedRollError(ValueError):
    """A forced script ran out, or gave a number outside what the roll allows."""


class StateLimitError(RuntimeError):
    def __init__(self, states: int, limit: int):
        super().__init__(f"{states} distinct states, over the limit of {limit}")
        self.states = states
        self.limit = limit


def merge(pairs: Iterable[tuple[Any, Fraction]]) -> Distribution:
    """Sum the probabilities of equal outcomes; order the result by stable_key."""
    out: dict[Any, Fraction] = {}
    for value, p in pairs:
        if p:
            out[value] = out.get(value, 0) + p
    return dict(sorted(out.items(), key=lambda kv: stable_key(kv[0])))


def _next(script: Iterator[int], what: str, low: int, high: int) -> int:
    try:
        value = next(script)
    except StopIteration:
        raise ForcedRollError(f"{what} needs another number ({low} to {high}), but the rolls ran out") from None
    if not isinstance(value, int) or not low <= value <= high:
        raise ForcedRollError(f"{what} needs a number from {low} to {high}, not {value!r}")
    return value


def _convolve(a: dict[int, int], b: dict[int, int]) -> dict[int, int]:
    out: dict[int, int] = {}
    for x, p in a.items():
        for y, q in b.items():
            out[x + y] = out.get(x + y, 0) + p * q
    return out


def _power(one: dict[int, Fraction], count: int) -> dict[int, Fraction]:
    """The distribution of a sum of `count` independent copies, by repeated squaring.

    The work is done on whole-number weights over a common denominator, which
    is far cheaper than Fraction arithmetic; one division at the end makes it exact.
    """
    scale = math.lcm(*(p.denominator for p in one.values()))
    weights = {value: int(p * scale) for value, p in one.items()}
    result: dict[int, int] = {0: 1}
    base = weights
    remaining = count
    while remaining:
        if remaining & 1:
            result = _convolve(result, base)
        remaining >>= 1
        if remaining:
            base = _convolve(base, base)
    total = scale**count
    return {value: Fraction(weight, total) for value, weight in result.items()}


@dataclass(frozen=True, slots=True)
class Dice:
    """The sum of `count` dice of `sides` faces."""

    count: int
    sides: int

    def sample(self, rng: random.Random) -> int:
        return sum(rng.randrange(self.sides) + 1 for _ in range(self.count))

    def distribution(self) -> Distribution:
        return _dice_distribution(self.count, self.sides)

    def forced(self, script: Iterator[int]) -> int:
        return sum(_next(script, f"a d{self.sides}", 1, self.sides) for _ in range(self.count))

    def describe(self) -> str:
        return f"{self.count}d{self.sides}"


@functools.lru_cache(maxsize=1024)
def _dice_distribution(count: int, sides: int) -> Distribution:
    # Ways to reach each total, one die at a time: adding a die sums a sliding window
    # of `sides` totals, which running sums give in one pass (far cheaper than
    # convolving, for a thousand dice as for two).
    ways = [1]  # ways[t]: ways for the dice so far to total their count + t
    for _ in range(count):
        running = [0]
        for w in ways:
            running.append(running[-1] + w)
        span = len(ways) + sides - 1
        ways = [running[min(t + 1, len(ways))] - running[max(0, t - sides + 1)] for t in range(span)]
    total = sides**count
    return merge((count + t, Fraction(w, total)) for t, w in enumerate(ways))


@dataclass(frozen=True, slots=True)
class DiceValue:
    """A value of the type `dice`: groups of dice and a number added, described and rolled later.

    `1d6 + 1` in a field of type dice is this, not a roll: `roll(d)` rolls it,
    and then it is a chance primitive like any other. Groups keep the order they
    are written in (forced rolls give faces in that order); a group next to one
    of the same sides joins it, so `1d6 + 1d6` is `2d6`. A value with no dice
    is a plain int, never a DiceValue (see `dice_value`).
    """

    groups: tuple[tuple[int, int], ...]  # (count, sides), each count at least 1
    plus: int = 0

    def __add__(self, other: object) -> DiceValue:
        if isinstance(other, DiceValue):
            return DiceValue(_joined(self.groups + other.groups), self.plus + other.plus)
        if isinstance(other, int) and not isinstance(other, bool):
            return DiceValue(self.groups, self.plus + other)
        return NotImplemented

    __radd__ = __add__

    def __sub__(self, other: object) -> DiceValue:
        if isinstance(other, int) and not isinstance(other, bool):
            return DiceValue(self.groups, self.plus - other)
        return NotImplemented

    @property
    def count(self) -> int:
        return sum(count for count, _ in self.groups)

    def sample(self, rng: random.Random) -> int:
        return self.plus + sum(Dice(count, sides).sample(rng) for count, sides in self.groups)

    def forced(self, script: Iterator[int]) -> int:
        return self.plus + sum(Dice(count, sides).forced(script) for count, sides in self.groups)

    def distribution(self) -> Distribution:
        return _dice_value_distribution(self.groups, self.plus)

    def describe(self) -> str:
        text = " + ".join(f"{count}d{sides}" for count, sides in self.groups)
        if self.plus:
            text += f" {'+' if self.plus > 0 else '-'} {abs(self.plus)}"
        return text

    def stable_key(self) -> tuple:
        return ("dice", self.groups, self.plus)

    __repr__ = describe


def dice_value(count: int, sides: int) -> DiceValue | int:
    """`count` dice of `sides` faces as a value of type dice: no dice at all is the number 0."""
    return DiceValue(((count, sides),)) if count else 0


def _joined(groups: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    out: list[tuple[int, int]] = []
    for count, sides in groups:
        if out and out[-1][1] == sides:
            out[-1] = (out[-1][0] + count, sides)
        else:
            out.append((count, sides))
    return tuple(out)


_DICE_TEXT = re.compile(r"\s*([0-9]+)(?:d([0-9]+))?\s*")


def parse_dice(text: str) -> DiceValue | int | None:
    """A dice value written as text, as in a rules file ("2d6 + 1d4 - 1"); None if it is not one."""
    total: DiceValue | int = 0
    sign = 1
    rest = text
    while True:
        found = _DICE_TEXT.match(rest)
        if found is None:
            return None
        count, sides = int(found.group(1)), found.group(2)
        if sides is None:
            total = total + sign * count
        elif sign < 0 or int(sides) < 1:
            return None  # dice are added, never taken away
        else:
            total = total + dice_value(count, int(sides))
        rest = rest[found.end():]
        if not rest:
            return total
        if rest[0] not in "+-":
            return None
        sign = 1 if rest[0] == "+" else -1
        rest = rest[1:]


@functools.lru_cache(maxsize=1024)
def _dice_value_distribution(groups: tuple[tuple[int, int], ...], plus: int) -> Distribution:
    weights: dict[int, Fraction] = {plus: Fraction(1)}
    for count, sides in groups:
        following: dict[int, Fraction] = {}
        for total, p in weights.items():
            for value, q in _dice_distribution(count, sides).items():
                following[total + value] = following.get(total + value, 0) + p * q
        weights = following
    return merge(weights.items())


@dataclass(frozen=True, slots=True)
class Bernoulli:
    p: Fraction

    def sample(self, rng: random.Random) -> bool:
        p = Fraction(self.p)
        return rng.randrange(p.denominator) < p.numerator

    def distribution(self) -> Distribution:
        return merge([(False, 1 - Fraction(self.p)), (True, Fraction(self.p))])

    def forced(self, script: Iterator[int]) -> bool:
        return _next(script, f"a chance of {self.p}", 0, 1) == 1

    def describe(self) -> str:
        return f"chance {self.p}"


@dataclass(frozen=True, slots=True)
class Binomial:
    """Successes among n independent trials at p: one binomial, not 2**n paths."""

    n: int
    p: Fraction

    def sample(self, rng: random.Random) -> int:
        p = Fraction(self.p)
        return sum(1 for _ in range(self.n) if rng.randrange(p.denominator) < p.numerator)

    def distribution(self) -> Distribution:
        return _binomial(self.n, Fraction(self.p))

    def forced(self, script: Iterator[int]) -> int:
        return _next(script, f"{self.n} trials", 0, self.n)

    def describe(self) -> str:
        return f"{self.n} trials at {self.p}"


@functools.lru_cache(maxsize=1024)
def _binomial(n: int, p: Fraction) -> Distribution:
    q = 1 - p
    return merge((k, math.comb(n, k) * p**k * q ** (n - k)) for k in range(n + 1))


@dataclass(frozen=True, slots=True)
class Uniform:
    """One of the items, each equally likely."""

    items: tuple[Any, ...]

    def sample(self, rng: random.Random) -> Any:
        return self.items[rng.randrange(len(self.items))]

    def distribution(self) -> Distribution:
        share = Fraction(1, len(self.items))
        return merge((item, share) for item in self.items)

    def forced(self, script: Iterator[int]) -> Any:
        return self.items[_next(script, f"a pick of {len(self.items)}", 0, len(self.items) - 1)]

    def describe(self) -> str:
        return f"pick one of {len(self.items)}"


@dataclass(frozen=True, slots=True)
class SuccessPool:
    """Successes of a pool of dice: faces at or above `at_least` succeed, at or above `double_at` twice.

    Faces in `reroll` are rolled again once; the new face stands.
    """

    count: int
    sides: int
    at_least: int
    double_at: int | None = None
    reroll: tuple[int, ...] = ()

    def _value(self, face: int) -> int:
        if face < self.at_least:
            return 0
        return 2 if self.double_at is not None and face >= self.double_at else 1

    def sample(self, rng: random.Random) -> int:
        total = 0
        for _ in range(self.count):
            face = rng.randrange(self.sides) + 1
            if face in self.reroll:
                face = rng.randrange(self.sides) + 1
            total += self._value(face)
        return total

    def distribution(self) -> Distribution:
        return _success_distribution(self)

    def forced(self, script: Iterator[int]) -> int:
        total = 0
        for _ in range(self.count):
            face = _next(script, f"a d{self.sides}", 1, self.sides)
            if face in self.reroll:
                face = _next(script, f"a rerolled d{self.sides}", 1, self.sides)
            total += self._value(face)
        return total

    def describe(self) -> str:
        doubles = f", doubles at {self.double_at}" if self.double_at is not None else ""
        return f"{self.count}d{self.sides} counting {self.at_least}+{doubles}"


@functools.lru_cache(maxsize=1024)
def _success_distribution(pool: SuccessPool) -> Distribution:
    face = Fraction(1, pool.sides)
    one: dict[int, Fraction] = {}
    for first in range(1, pool.sides + 1):
        if first in pool.reroll:
            for second in range(1, pool.sides + 1):
                value = pool._value(second)
                one[value] = one.get(value, 0) + face * face
        else:
            value = pool._value(first)
            one[value] = one.get(value, 0) + face
    return merge(_power(one, pool.count).items())


@dataclass(frozen=True, slots=True)
class Tally:
    """How many dice of a pool show a face of each group: one multinomial, not sides**count paths.

    Faces in no group are not counted. Dice keep no identity, so rerolling some
    of them later is tallying that many dice again: a rule can reroll the dice
    of one group at one step and another group's at a later step, and look at
    the counts in between.
    """

    count: int
    sides: int
    groups: tuple[tuple[int, ...], ...]

    def _group_of_face(self) -> list[int]:
        """For faces 1..sides (index 0..sides-1), the group it belongs to; len(groups) for none."""
        of = [len(self.groups)] * self.sides
        for index, group in enumerate(self.groups):
            for face in group:
                of[face - 1] = index
        return of

    def _counts(self, faces: Iterable[int]) -> tuple[int, ...]:
        of = self._group_of_face()
        counts = [0] * (len(self.groups) + 1)
        for face in faces:
            counts[of[face - 1]] += 1
        return tuple(counts[:-1])

    def sample(self, rng: random.Random) -> tuple[int, ...]:
        return self._counts(rng.randrange(self.sides) + 1 for _ in range(self.count))

    def forced(self, script: Iterator[int]) -> tuple[int, ...]:
        return self._counts([_next(script, f"a d{self.sides}", 1, self.sides) for _ in range(self.count)])

    def distribution(self, max_states: int = 1_000_000) -> Distribution:
        return dict(_tally_distribution(self, max_states))

    def describe(self) -> str:
        return f"{self.count}d{self.sides} tallied in {len(self.groups)} groups"


@functools.lru_cache(maxsize=1024)
def _tally_distribution(tally: Tally, max_states: int) -> tuple[tuple[tuple[int, ...], Fraction], ...]:
    # Faces per group (and, last, faces in none): the weight of a die landing there.
    weights = [len(group) for group in tally.groups]
    weights.append(tally.sides - sum(weights))
    live = [i for i, w in enumerate(weights) if w]  # a group no face reaches always counts 0
    outcomes = math.comb(tally.count + len(live) - 1, len(live) - 1)
    if outcomes > max_states:
        raise StateLimitError(outcomes, max_states)
    total = tally.sides**tally.count
    out = []
    for split in _compositions(tally.count, len(live)):
        ways, left = 1, tally.count
        for k, i in zip(split, live):
            ways *= math.comb(left, k) * weights[i] ** k
            left -= k
        counts = [0] * len(weights)
        for k, i in zip(split, live):
            counts[i] = k
        out.append((tuple(counts[:-1]), Fraction(ways, total)))
    return tuple(merge(out).items())


def _compositions(total: int, parts: int) -> Iterator[tuple[int, ...]]:
    """Every way to write total as an ordered sum of `parts` whole numbers."""
    if parts == 1:
        yield (total,)
        return
    for first in range(total + 1):
        for rest in _compositions(total - first, parts - 1):
            yield (first, *rest)


@dataclass(frozen=True, slots=True)
class Hit:
    """One shot of a sampled or forced volley, for the event log."""

    shot: Shot
    index: int
    before: Body
    after: Body
    overflow: bool


@dataclass(frozen=True, slots=True)
class Fire:
    """The pool after every shot of the volley, in order, hits a body chosen uniformly among the living.

    When no body is living, a shot hits any body, which changes nothing since
    damage is capped at hitpoints. An empty pool absorbs every shot.
    """

    volley: Volley
    pool: Pool

    def distribution(self, max_states: int = 1_000_000) -> Distribution:
        damages = tuple(shot.damage for shot in self.volley.shots)
        return dict(_fire_distribution(damages, self.pool, max_states))

    def sample(self, rng: random.Random) -> Pool:
        """What sample_trace draws, from the same random numbers, without making the log."""
        bodies = list(self.pool.bodies)
        if not bodies:
            return self.pool
        hitpoints = [b.hitpoints for b in bodies]
        damage = [b.damage for b in bodies]
        living = [i for i, b in enumerate(bodies) if not b.lethal]
        randrange = rng.randrange
        for shot in self.volley.shots:
            i = living[randrange(len(living))] if living else randrange(len(bodies))
            most = hitpoints[i]
            if most is None:
                continue
            was_lethal = damage[i] >= most
            damage[i] = min(most, damage[i] + shot.damage)
            if (damage[i] >= most) != was_lethal:
                living = [j for j, h in enumerate(hitpoints) if h is None or damage[j] < h]
        for i, body in enumerate(bodies):
            if damage[i] != body.damage:
                bodies[i] = Body(body.hitpoints, damage[i], body.owner, body.tag)
        return Pool.of(bodies)

    def sample_trace(self, rng: random.Random) -> tuple[Pool, tuple[Hit, ...]]:
        bodies = list(self.pool.bodies)
        hits = []
        for index, shot in enumerate(self.volley.shots):
            if not bodies:
                break
            living = [i for i, body in enumerate(bodies) if not body.lethal]
            overflow = not living
            chosen = rng.randrange(len(bodies)) if overflow else living[rng.randrange(len(living))]
            before = bodies[chosen]
            bodies[chosen] = before.hit(shot.damage)
            hits.append(Hit(shot, index, before, bodies[chosen], overflow))
        return Pool.of(bodies), tuple(hits)

    def forced(self, script: Iterator[int]) -> Pool:
        return self.forced_trace(script)[0]

    def forced_trace(self, script: Iterator[int]) -> tuple[Pool, tuple[Hit, ...]]:
        pool = self.pool
        hits = []
        for index, shot in enumerate(self.volley.shots):
            if not pool.bodies:
                break
            living = [i for i, body in enumerate(pool.bodies) if not body.lethal]
            overflow = not living
            choices = range(len(pool.bodies)) if overflow else living
            pick = _next(script, f"shot {index + 1} (a body)", 0, len(choices) - 1)
            chosen = choices[pick]
            before = pool.bodies[chosen]
            after = before.hit(shot.damage)
            pool = pool.replace(chosen, after)
            hits.append(Hit(shot, index, before, after, overflow))
        return pool, tuple(hits)

    def describe(self) -> str:
        return f"volley of {len(self.volley)} shots at {len(self.pool)} bodies"


@functools.lru_cache(maxsize=4096)
def _fire_distribution(damages: tuple[int, ...], pool: Pool, max_states: int) -> tuple[tuple[Pool, Fraction], ...]:
    # A Markov chain shot by shot: equal pools merge after every shot, and identical
    # living bodies are one transition weighted by how many there are.
    states: dict[Pool, Fraction] = {pool: Fraction(1)}
    for damage in damages:
        following: dict[Pool, Fraction] = {}
        for current, p in states.items():
            living = current.living()
            if not living:
                following[current] = following.get(current, 0) + p
                continue
            share = p / len(living)
            seen: dict[Body, int] = {}
            for body in living:
                seen[body] = seen.get(body, 0) + 1
            for body, copies in seen.items():
                index = current.bodies.index(body)
                after = current.replace(index, body.hit(damage))
                following[after] = following.get(after, 0) + share * copies
        if len(following) > max_states:
            raise StateLimitError(len(following), max_states)
        states = following
    return tuple(merge(states.items()).items())
