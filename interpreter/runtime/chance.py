"""Chance primitives. Each can be sampled, forced, or given as exact weights.

A primitive is a frozen value describing one random event. The engines
decide how to resolve it: `sample` draws with a seeded generator (using only
randrange, which is stable across Python versions, or its core _randbelow for
the same numbers), `forced` follows a script
of integers from a rulebook example, and `weights` returns every outcome with
its whole-number weight (`distribution` gives the same as exact fractions).
Weights are computed by convolution and Markov chains over merged states,
never by enumerating roll sequences, and every loop that can grow spends from
a budget so that a runaway stops with an error naming its limit.
"""

from __future__ import annotations

import functools
import math
import operator
import re
import sys
from collections.abc import Iterable, Iterator
from fractions import Fraction
from itertools import chain, compress, repeat, starmap
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from fracas.dsl.records import record
from fracas.interpreter.runtime.allocation import RANDOM, focused
from fracas.interpreter.runtime.bodies import Body, Hit, Pool, Volley, body_key
from fracas.interpreter.runtime.getters import tuple_getter
from fracas.interpreter.runtime.keys import apart, same, stable_key
from fracas.interpreter.runtime.weights import (
    DEFAULT_STATES,
    UNLIMITED,
    Allowance,
    Budget,
    Memo,
    Weights,
    binomial,
    dense_power,
    step_size,
    uniform_dice,
)

if TYPE_CHECKING:  # only sampling makes a generator, and a run that does not sample need not import random
    import random

Distribution = dict[Any, Fraction]


class ForcedRollError(ValueError):
    """A forced script ran out, or gave a number outside what the roll allows; `hint` says which to fix."""

    def __init__(self, message: str, hint: str = "give more numbers after 'rolls'"):
        super().__init__(message)
        self.hint = hint


def merge(pairs: Iterable[tuple[Any, Fraction]]) -> Distribution:
    """Sum the probabilities of equal outcomes; order the result by stable_key."""
    out: dict[Any, Fraction] = {}
    for value, p in pairs:
        if p:
            out[value] = out.get(value, 0) + p
    return dict(sorted(out.items(), key=lambda kv: stable_key(kv[0])))


def _randbelow(rng: random.Random) -> Any:
    """What randrange(n) draws for a whole n > 0, called without its checks (the same numbers)."""
    return rng._randbelow  # type: ignore[attr-defined]


def scripted(script: Iterator[int], what: str, low: int, high: int) -> int:
    """The next number of a forced script, which must lie from low to high."""
    try:
        value = next(script)
    except StopIteration:
        raise ForcedRollError(f"{what} needs another number ({low} to {high}), but the rolls ran out") from None
    if not isinstance(value, int) or not low <= value <= high:
        wrong = ("the numbers after 'rolls' are taken in the order the rules roll: this one came to a roll that "
                 "cannot show it")
        if low == high:  # a chance of 0 or 1: one way it can come out
            raise ForcedRollError(f"{what} can only come out as {low}: its forced number is {low}, not {value!r}",
                                  wrong)
        raise ForcedRollError(f"{what} needs a number from {low} to {high}, not {value!r}", wrong)
    return value


class Chance:
    """What every primitive shares: weights computed once per problem, and exact fractions from them."""

    # Whether its value is made from dice it rolls one by one (their faces, 1 to sides, each a random number or
    # a forced one): a logged run shows them.
    rolls_dice = False

    def shown_dice(self, rolled: list[int], forced: bool) -> list[Any]:
        """The dice a logged run shows, from the faces rolled (or forced rolls taken), in order."""
        return rolled

    __slots__ = ()

    def weights(self, budget: Budget = UNLIMITED) -> Weights:
        return _WEIGHTS(self, budget, self.describe())

    def _weights(self, budget: Budget) -> Weights:
        raise NotImplementedError

    def distribution(self, max_states: int = DEFAULT_STATES) -> Distribution:
        """Each outcome's exact probability: at most max_states outcomes, and the default work limit."""
        return dict(_probabilities(self, max_states))

    def describe(self) -> str:
        raise NotImplementedError

    def sample_work(self) -> int:
        """What one sample counts against the limit 'work', in items (core.rt.ITEMS_PER_STEP a step): the dice it
        rolls (at least; a die rolled again is counted where it could pass the limit, see
        core.builtins._draw_counted), one random number for most."""
        return 1


_WEIGHTS = Memo(lambda primitive, budget: primitive._weights(budget))


@functools.lru_cache(maxsize=1024)
def _probabilities(primitive: Chance, max_states: int) -> tuple[tuple[Any, Fraction], ...]:
    return tuple(primitive.weights(Allowance(states=max_states)).probabilities().items())


@record(frozen=True, slots=True)
class Dice(Chance):
    """The sum of `count` dice of `sides` faces."""

    count: int
    sides: int

    def sample_work(self) -> int:
        return self.count

    def sample(self, rng: random.Random) -> int:
        return sum(rng.randrange(self.sides) + 1 for _ in range(self.count))

    def sample_faces(self, rng: random.Random) -> list[int]:
        """Each die's face, from the random numbers `sample` sums: a logged run rolls as an unlogged one."""
        return [rng.randrange(self.sides) + 1 for _ in range(self.count)]

    def _weights(self, budget: Budget) -> Weights:
        return Weights.dense(self.count, uniform_dice(self.count, self.sides, budget, self.describe()))

    def forced(self, script: Iterator[int]) -> int:
        return sum(self.forced_faces(script))

    def forced_faces(self, script: Iterator[int]) -> list[int]:
        return [scripted(script, f"a d{self.sides}", 1, self.sides) for _ in range(self.count)]

    def describe(self) -> str:
        return f"{self.count}d{self.sides}"


@record(frozen=True, slots=True)
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

    rolls_dice = True  # each group's dice one by one, as a logged run shows them
    shown_dice = Chance.shown_dice  # its faces as rolled: a dice value is not a primitive of its own

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

    def sample_work(self) -> int:
        return self.count

    def sample(self, rng: random.Random) -> int:
        return self.plus + sum(Dice(count, sides).sample(rng) for count, sides in self.groups)

    def forced(self, script: Iterator[int]) -> int:
        return self.plus + sum(Dice(count, sides).forced(script) for count, sides in self.groups)

    def distribution(self) -> Distribution:
        return _dice_value_distribution(self.groups, self.plus)

    def weights(self, budget: Budget = UNLIMITED) -> Weights:
        """Every total with its whole-number weight, each group's sum convolved in, its work charged."""
        found: Weights | None = None
        for count, sides in self.groups:
            group = Dice(count, sides).weights(budget)
            found = group if found is None else found.combine(group, operator.add, budget, self.describe())
        assert found is not None  # a dice value has a group at least (one without is a plain int)
        plus = self.plus
        return found.map(lambda total: total + plus, budget, self.describe()) if plus else found

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


_DICE_TEXT = r"\s*([0-9]+)(?:d([0-9]+))?\s*"  # compiled by re when first used: only a scenario's dice text needs it


def parse_dice(text: str) -> DiceValue | int | None:
    """A dice value written as text, as in a rules file ("2d6 + 1d4 - 1"); None if it is not one."""
    total: DiceValue | int = 0
    sign = 1
    rest = text
    while True:
        found = re.match(_DICE_TEXT, rest)
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
            for value, q in Dice(count, sides).distribution().items():
                following[total + value] = following.get(total + value, 0) + p * q
        weights = following
    return merge(weights.items())


@record(frozen=True, slots=True)
class Bernoulli(Chance):
    """A yes-or-no event: true with probability p."""

    p: Fraction

    def sample(self, rng: random.Random) -> bool:
        p = self.p if type(self.p) is Fraction else Fraction(self.p)
        return rng.randrange(p.denominator) < p.numerator

    def weights(self, budget: Budget = UNLIMITED) -> Weights:
        p = Fraction(self.p)
        return Weights.of([(False, p.denominator - p.numerator), (True, p.numerator)])

    def forced(self, script: Iterator[int]) -> bool:
        p = Fraction(self.p)  # a certain chance takes its number all the same, but only the one it can come out as
        return scripted(script, f"a chance of {self.p}", int(p == 1), int(p != 0)) == 1

    def describe(self) -> str:
        return f"chance {self.p}"


@record(frozen=True, slots=True)
class Binomial(Chance):
    """Successes among n independent trials at p: one binomial, not 2**n paths."""

    n: int
    p: Fraction

    def sample_work(self) -> int:
        return self.n

    def sample(self, rng: random.Random) -> int:
        p = self.p if type(self.p) is Fraction else Fraction(self.p)
        below, den, num = rng.randrange, p.denominator, p.numerator
        return sum(1 for _ in range(self.n) if below(den) < num)

    def _weights(self, budget: Budget) -> Weights:
        # With p = num/den, k successes weigh comb(n, k) * num**k * (den - num)**(n - k) over den**n.
        p = Fraction(self.p)
        hit, miss, n = p.numerator, p.denominator - p.numerator, self.n
        budget.hold(n + 1, self.describe())
        if not miss:
            return Weights.dense(n, [1])
        return Weights.dense(0, binomial(miss, hit, n, budget, self.describe()))

    def forced(self, script: Iterator[int]) -> int:
        p = Fraction(self.p)  # at 0 or 1, only the count it can come out as
        return scripted(script, f"{self.n} trials at {self.p}", self.n if p == 1 else 0, 0 if p == 0 else self.n)

    def describe(self) -> str:
        return f"{self.n} trials at {self.p}"


@record(frozen=True, slots=True)
class Uniform(Chance):
    """One of the items, each equally likely."""

    items: tuple[Any, ...]

    def sample(self, rng: random.Random) -> Any:
        return self.items[rng.randrange(len(self.items))]

    def weights(self, budget: Budget = UNLIMITED) -> Weights:
        budget.spend(len(self.items), self.describe())
        return Weights.of((item, 1) for item in self.items)

    def forced(self, script: Iterator[int]) -> Any:
        return self.items[scripted(script, f"a pick of {len(self.items)}", 0, len(self.items) - 1)]

    def describe(self) -> str:
        return f"pick one of {len(self.items)}"


def one_die(sides: int, reroll: tuple[int, ...] = (), once: bool = True) -> Weights:
    """The face of one die of faces 1..sides, where faces in `reroll` are rolled again.

    Rolled again once, the new face stands: a listed face's share goes to every
    face equally. Rolled again while it shows a listed face, the die is the die
    conditioned on the other faces.
    """
    if not reroll:
        return Weights(tuple(range(1, sides + 1)), (1,) * sides, sides)
    if not once:
        return Weights.of((face, 1) for face in range(1, sides + 1) if face not in reroll)
    again = sum(1 for face in range(1, sides + 1) if face in reroll)
    return Weights.of((face, again + (0 if face in reroll else sides)) for face in range(1, sides + 1))


def _nth(number: int) -> str:
    return f"{number}{'th' if 10 <= number % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(number % 10, 'th')}"


@record(frozen=True, slots=True)
class SuccessPool(Chance):
    """Successes of a pool of dice: faces at or above `at_least` succeed, at or above `double_at` twice.

    Faces in `reroll` are rolled again once; the new face stands. A die that shows `again_at` or above (after
    its reroll) brings another die, whose successes count too and which may bring another: at most `depth` a
    die. The dice it brings are not rerolled.
    """

    rolls_dice = True

    count: int
    sides: int
    at_least: int
    double_at: int | None = None
    reroll: tuple[int, ...] = ()
    again_at: int | None = None
    depth: int = 0

    def _value(self, face: int) -> int:
        if face < self.at_least:
            return 0
        return 2 if self.double_at is not None and face >= self.double_at else 1

    def _again(self, face: int) -> bool:
        return self.again_at is not None and face >= self.again_at

    def sample_work(self) -> int:
        return self.count

    def most_rolls(self) -> int:
        """The most dice one sample rolls: each die, its reroll, and the dice it may bring."""
        return self.count * ((2 if self.reroll else 1) + (self.depth if self.again_at is not None else 0))

    def sample(self, rng: random.Random) -> int:
        total = 0
        for _ in range(self.count):
            face = rng.randrange(self.sides) + 1
            if face in self.reroll:
                face = rng.randrange(self.sides) + 1
            total += self._value(face)
            left = self.depth
            while left and self._again(face):
                face = rng.randrange(self.sides) + 1
                total += self._value(face)
                left -= 1
        return total

    def _brought(self, budget: Budget) -> list[int]:
        """The successes of the dice an again face brings, as whole-number weights by count over sides**depth: a
        die rolled, and with an again face, what `depth - 1` more may bring, and so on."""
        sides, ways = self.sides, [1]  # no die left to bring: no success, certain
        for left in range(1, self.depth + 1):
            plain = sides ** (left - 1)  # a face that brings no die, over the same total as one that does
            # A deep chain is long work, its weights long numbers (a word of 64 bits a step): the limit binds here.
            budget.spend(sides * len(ways) * (1 + plain.bit_length() // 64), self.describe())
            more = [0] * (len(ways) + 2)
            for face in range(1, sides + 1):
                value = self._value(face)
                if self._again(face):
                    for successes, weight in enumerate(ways):
                        more[successes + value] += weight
                else:
                    more[value] += plain
            ways = more
        return ways

    def _weights(self, budget: Budget) -> Weights:
        # What one_die(...).map(self._value).power(count) gives, the die's weights summed by value in place: a
        # pool's weights are computed once a process, and a fresh process computes a dozen or two of them.
        one = one_die(self.sides, self.reroll)
        bringing = self.again_at is not None and self.depth > 0
        brought = self._brought(budget) if bringing else [1]
        plain = self.sides ** self.depth if bringing else 1  # a die that brings none, over the same total
        ways = [0] * (len(brought) + 2)
        for face, weight in one:
            value = self._value(face)
            if bringing and self._again(face):
                for successes, brings in enumerate(brought):
                    ways[successes + value] += weight * brings
            else:
                ways[value] += weight * plain
        if self.count < 0 or not any(ways):  # no pool: refused as the die mapped and raised refuses it
            return one.map(self._value).power(self.count, budget=budget, what=self.describe())
        low = ways.index(next(filter(None, ways)))
        while not ways[-1]:
            ways.pop()
        ways = ways[low:]
        what = self.describe()
        budget.hold(self.count * (len(ways) - 1) + 1, what)
        return Weights.dense(low * self.count, dense_power(ways, self.count, budget, what))

    def forced(self, script: Iterator[int]) -> int:
        # Each number is a die's face, in the order thrown: a die, its reroll, the dice it brings, then the next die.
        total = 0
        for number in range(1, self.count + 1):
            die = f"die {number} of {self.count}" if self.count > 1 else "the die"
            face = scripted(script, f"{die} (a d{self.sides})", 1, self.sides)
            if face in self.reroll:
                face = scripted(script, f"{die}, rerolled,", 1, self.sides)
            total += self._value(face)
            left, brought = self.depth, 0
            while left and self._again(face):
                brought += 1
                face = scripted(script, f"the {_nth(brought)} die that {die} brings", 1, self.sides)
                total += self._value(face)
                left -= 1
        return total

    def describe(self) -> str:
        doubles = f", doubles at {self.double_at}" if self.double_at is not None else ""
        again = (f", again at {self.again_at} (at most {self.depth} a die)"
                 if self.again_at is not None and self.depth else "")
        return f"{self.count}d{self.sides} counting {self.at_least}+{doubles}{again}"


@record(frozen=True, slots=True)
class Tally(Chance):
    """How many dice of a pool show a face of each group: one multinomial, not sides**count paths.

    Faces in no group are not counted. Dice keep no identity, so rerolling some
    of them later is tallying that many dice again: a rule can reroll the dice
    of one group at one step and another group's at a later step, and look at
    the counts in between.
    """

    rolls_dice = True

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

    def sample_work(self) -> int:
        return self.count

    def sample(self, rng: random.Random) -> tuple[int, ...]:
        return self._counts(rng.randrange(self.sides) + 1 for _ in range(self.count))

    def forced(self, script: Iterator[int]) -> tuple[int, ...]:
        return self._counts([scripted(script, f"a d{self.sides}", 1, self.sides) for _ in range(self.count)])

    def _weights(self, budget: Budget) -> Weights:
        # Faces per group (and, last, faces in none): the weight of a die landing there.
        faces = [len(group) for group in self.groups]
        faces.append(self.sides - sum(faces))
        live = [i for i, w in enumerate(faces) if w]  # a group no face reaches always counts 0
        what = self.describe()
        budget.hold(math.comb(self.count + len(live) - 1, len(live) - 1), what)
        out = []
        for split in _compositions(self.count, len(live)):
            budget.spend(len(live), what)
            ways, left = 1, self.count
            counts = [0] * len(faces)
            for k, i in zip(split, live):
                ways *= math.comb(left, k) * faces[i] ** k
                left -= k
                counts[i] = k
            out.append((tuple(counts[:-1]), ways))
        return Weights.of(out)

    def describe(self) -> str:
        groups = len(self.groups)
        return f"{self.count}d{self.sides} tallied in {groups} group{'s' if groups != 1 else ''}"


def _compositions(total: int, parts: int) -> Iterator[tuple[int, ...]]:
    """Every way to write total as an ordered sum of `parts` whole numbers."""
    if parts == 1:
        yield (total,)
        return
    for first in range(total + 1):
        for rest in _compositions(total - first, parts - 1):
            yield (first, *rest)


@record(slots=True, unsafe_hash=True)  # not frozen: one is made per volley sampled (see bodies.py)
class Fire(Chance):
    """The pool after every shot of the volley, in order, hits a body the allocation names.

    Random allocation (the default) hits a body chosen uniformly among the
    living. When no body is living, a shot hits any body, which changes nothing
    since damage is capped at hitpoints. An empty pool absorbs every shot.
    Focused allocations (runtime.allocation) choose no body by chance: given the
    shots' damages, their result is certain, in every engine alike.
    """

    volley: Volley
    pool: Pool
    allocate: str = RANDOM
    order: tuple[Any, ...] = ()  # focused allocation: owners or tags whose bodies come first
    # Whether what reads the pool after only counts its bodies: its exact weights are then of pools of
    # counted bodies (`counted_body`), pools alike to every count one (see core/counted.py).
    counted: bool = False

    def __eq__(self, other: object) -> bool:
        # An order may name owners of any type: compared as the rules compare them (see Body.__eq__).
        if other.__class__ is not Fire:
            return NotImplemented
        return (self.volley == other.volley and self.pool == other.pool  # type: ignore[attr-defined]
                and self.allocate == other.allocate and self.counted == other.counted  # type: ignore[attr-defined]
                and same(self.order, other.order))  # type: ignore[attr-defined]

    def weights(self, budget: Budget = UNLIMITED) -> Weights:
        if self.allocate != RANDOM:
            budget.spend(len(self.volley) + len(self.pool), self.describe())
            return Weights.certain(self._focused()[0])
        # Keyed by the damages alone: the shots' sources change nothing here.
        damages = tuple(shot.damage for shot in self.volley.shots)
        return _FIRE((damages, self.pool, self.counted), budget, self.describe())

    def _focused(self) -> tuple[Pool, tuple[Hit, ...]]:
        return focused(self.volley, self.pool, self.allocate, self.order)

    def sample(self, rng: random.Random) -> Pool:
        """What sample_trace draws, from the same random numbers, without making the log."""
        if self.allocate != RANDOM:
            return self._focused()[0]
        pool = self.pool
        if not pool.bodies:
            return pool
        hitpoints, alive, left_before, after, _ = _fired(pool)
        # randrange(n) is _randbelow(n) once n is checked positive: the same numbers, without the checks.
        below = _randbelow(rng)
        count = len(hitpoints)
        living, left = list(alive), list(left_before)
        last_negative = None  # found when first needed: every body lethal is the rare moment
        k = -1  # a body's place among the living (a shot at a lethal body reads none)
        for index, shot in enumerate(self.volley.shots):
            if living:
                k = below(len(living))
                i = living[k]
            else:
                if last_negative is None:
                    last_negative = _last_negative(self.volley)
                if index > last_negative:
                    break  # every body is lethal, and no shot left can give one hitpoints back
                i = below(count)  # any body, as sample_trace draws it
            if left[i] is not None:
                living = _struck(left, living, i, k, shot.damage)
        return _left_as(pool, left)

    def sample_trace(self, rng: random.Random) -> tuple[Pool, tuple[Hit, ...]]:
        """What sample draws, from the same random numbers, with the hits for the log.

        As sample, it follows the hitpoints each body has left. A hit is made once for a volley and the pool it is
        fired at (_Trail): a logged run fires the volley it made before its first chance at the pool it made
        there again and again, and logs each hit from the event the hit keeps (core.engines.log_hits).
        """
        if self.allocate != RANDOM:
            return self._focused()
        pool = self.pool
        if not pool.bodies:
            return pool, ()
        _, alive, left_before, _, trails = _fired(pool)
        trail = _trail(trails, self.volley, pool)
        count = len(left_before)
        living, left = list(alive), list(left_before)
        hits = []
        last_negative = None
        k = -1  # a body's place among the living (a shot at a lethal body reads none)
        for index, shot in enumerate(self.volley.shots):
            overflow = not living
            if overflow:
                if last_negative is None:
                    last_negative = _last_negative(self.volley)
                if index > last_negative:  # as sample stops: no draw, nothing hit
                    hits.extend(trail.rest(index))
                    break
                i = rng.randrange(count)
            else:
                k = rng.randrange(len(living))
                i = living[k]
            hits.append(trail.hit(index, i, left[i], overflow))
            if left[i] is not None:
                living = _struck(left, living, i, k, shot.damage)
        return _left_as(pool, left), tuple(hits)

    def forced(self, script: Iterator[int]) -> Pool:
        return self.forced_trace(script)[0]

    def forced_trace(self, script: Iterator[int]) -> tuple[Pool, tuple[Hit, ...]]:
        if self.allocate != RANDOM:
            return self._focused()  # no body is chosen by chance: no forced roll is read
        pool = self.pool
        hits = []
        for index, shot in enumerate(self.volley.shots):
            if not pool.bodies:
                break
            living = [i for i, body in enumerate(pool.bodies) if not body.lethal]
            overflow = not living
            choices = range(len(pool.bodies)) if overflow else living
            pick = scripted(script, f"shot {index + 1} (a body)", 0, len(choices) - 1)
            chosen = choices[pick]
            before = pool.bodies[chosen]
            after = before.hit(shot.damage)
            pool = pool.replace(chosen, after)
            hits.append(Hit(shot, index, before, after, overflow))
        return pool, tuple(hits)

    def sample_work(self) -> int:
        """A volley's shots and the bodies it is fired at: the most a sample goes through (it stops early once
        every body is lethal), as the exact engine charges a focused volley."""
        return len(self.volley.shots) + len(self.pool.bodies)

    def describe(self) -> str:
        how = "" if self.allocate == RANDOM else f", allocated {self.allocate}"
        return f"volley of {len(self.volley)} shots at {len(self.pool)} bodies{how}"


def _struck(left: list[int | None], living: list[int], i: int, k: int, damage: int) -> list[int]:
    """A shot of `damage` at body i, which has hitpoints left (living[k] where it lives): the living after it.
    The hitpoints left are changed in place."""
    room = left[i]
    assert room is not None
    if damage >= room:
        left[i] = 0
        if room:
            del living[k]
        return living
    left[i] = room - damage
    if not room:  # negative damage gave a lethal body hitpoints back: it lives again
        return [j for j, r in enumerate(left) if r is None or r > 0]
    return living


_POOLS_LEFT = 256  # the pools one pool is left as by sampled volleys, remembered: the common endings


def _fired(pool: Pool) -> tuple[tuple[int | None, ...], tuple[int, ...], tuple[int | None, ...], dict[Any, Pool],
                                dict[int, _Trail]]:
    """What a sampled volley reads of a pool (pool.fired), made when first fired at: its bodies' hitpoints, the
    living in pool order (a pick's index means the same body in sample and sample_trace), the hitpoints each
    has left (None: it cannot die); and empty memos of the pools it is left as, by the hitpoints left, and of
    the hits of the volleys fired at it in logged runs, by the volley's id (_trail)."""
    try:
        return pool.fired  # type: ignore[no-any-return]
    except AttributeError:
        hitpoints = tuple(b.hitpoints for b in pool.bodies)
        living = tuple(i for i, b in enumerate(pool.bodies) if not b.lethal)
        left = tuple(None if b.hitpoints is None else b.hitpoints - b.damage for b in pool.bodies)
        found = pool.fired = (hitpoints, living, left, {}, {})
        return found


def _left_as(pool: Pool, left: list[int | None]) -> Pool:
    """The pool fired at, its bodies left with these hitpoints (remembered in pool.fired: the common endings)."""
    hitpoints, after = pool.fired[0], pool.fired[3]
    key = tuple(left)
    found = after.get(key)
    if found is None:
        bodies = list(pool.bodies)
        changed = False
        for i, body in enumerate(bodies):
            most = hitpoints[i]
            if most is not None and most - left[i] != body.damage:  # type: ignore[operator]
                bodies[i] = Body(most, most - left[i], body.owner, body.tag, body.group)  # type: ignore[operator]
                changed = True
        found = Pool.of(bodies) if changed else pool
        if len(after) < _POOLS_LEFT:
            after[key] = found
    return found


class _Trail:
    """The hits of one volley at one pool, each made once, for the logs of the runs that fire it there."""

    __slots__ = ("volley", "pool", "hits", "tails")

    def __init__(self, volley: Volley, pool: Pool):
        self.volley, self.pool = volley, pool
        self.hits: dict[tuple[int, int, int | None, bool], Hit] = {}
        self.tails: dict[int, tuple[Hit, ...]] = {}

    def hit(self, index: int, i: int, room: int | None, overflow: bool) -> Hit:
        """Shot `index` hitting body i of the pool while it has `room` hitpoints left."""
        key = (index, i, room, overflow)
        found = self.hits.get(key)
        if found is None:
            shot = self.volley.shots[index]
            body = self.pool.bodies[i]
            if room is not None and body.hitpoints - room != body.damage:  # type: ignore[operator]
                body = Body(body.hitpoints, body.hitpoints - room, body.owner, body.tag, body.group)  # type: ignore[operator]
            found = Hit(shot, index, body, body.hit(shot.damage), overflow)
            if len(self.hits) < _HITS_KEPT:
                self.hits[key] = found
        return found

    def rest(self, index: int) -> tuple[Hit, ...]:
        """The shots from `index` on, once every body is lethal and no shot left can give one hitpoints back:
        each hits none."""
        found = self.tails.get(index)
        if found is None:
            found = tuple(Hit(shot, at, None, None, True) for at, shot in enumerate(self.volley.shots[index:], index))
            if len(self.tails) < _HITS_KEPT:
                self.tails[index] = found
        return found


# Volleys whose hits are remembered at one pool: those of the few steps that fire at it. More are let go at
# once: volleys made anew by each run (after a chance) are fired once each, and what they hit is not met again.
_TRAILS = 8
_HITS_KEPT = 1024  # hits remembered of one volley at one pool, and as many runs of shots that hit none


def _trail(trails: dict[int, _Trail], volley: Volley, pool: Pool) -> _Trail:
    # By the volley's id, not by its value, whose hash reads every shot: the volley is kept in the trail, so
    # that no other takes its id while the trail is remembered.
    found = trails.get(id(volley))
    if found is None or found.volley is not volley:
        if len(trails) >= _TRAILS:
            trails.clear()
        found = trails[id(volley)] = _Trail(volley, pool)
    return found


def _last_negative(volley: Volley) -> int:
    """The index of the volley's last shot of negative damage (one that can make a lethal body live), or -1.

    Past it, once every body is lethal, the shots left can change nothing: a sampled volley stops there.
    """
    found = volley.last_negative
    if found is None:
        found = -1
        for index in range(len(volley.shots) - 1, -1, -1):
            if volley.shots[index].damage < 0:
                found = index
                break
        volley.last_negative = found
    return found


def _fire_weights(problem: tuple[tuple[int, ...], Pool, bool], budget: Budget) -> Weights:
    # A Markov chain shot by shot. A state counts the bodies of each variant (a body
    # with its damage so far), so equal pools are one state however their bodies are
    # ordered, and identical living bodies are one transition weighted by their number.
    # A shot splits a state's weight evenly among its living bodies; scaling every
    # weight by the lcm of the living counts met at that shot keeps each split whole.
    damages, pool, counted = problem
    what = f"a volley of {len(damages)} shots at {len(pool)} bodies"
    variants: list[Body] = []
    number: dict[Body, int] = {}
    living: list[bool] = []

    def variant(body: Body) -> int:
        found = number.get(body)
        if found is None:
            found = number[body] = len(variants)
            variants.append(body)
            living.append(not body.lethal)
        return found

    # A state is packed in one int, a field of `bits` bits per count: the living bodies in the lowest
    # field, then the bodies of variant v in field v + 1. No count passes the pool's size, so no field
    # overflows into the next: a shot moving a body is one addition, and the variants made for shots to
    # come are fields still zero. An int hashes and compares far faster than a tuple of counts, twice a
    # move, and the count of living bodies a shot splits by is read, not summed. Fields are whole bytes,
    # 1, 2, 4 or 8 of them, so that the final states are read as arrays of counts (see _pools).
    bits = 8 * _FIELD_BYTES[(len(pool).bit_length() + 7) // 8]
    field = (1 << bits) - 1
    start = 0
    for body in pool.bodies:
        v = variant(body)
        start += (1 << (v + 1) * bits) + living[v]
    states: dict[int, int] = {start: 1}
    longest = 1  # bits of the longest weight held: an upper bound, kept from the shot before
    # A shot's damage -> the moves of each living variant met so far, and how many variants that covers. A
    # move is the field shift of the variant, the addition that moves one of its bodies to the variant the
    # shot makes of it, and whether that charges work: not where the body stays as it was (a body that
    # cannot die, or a shot of no damage), whose weight stays in its state.
    moves_of: dict[int, tuple[list[tuple[int, int, bool]], list[int]]] = {}
    for damage in damages:
        moves, covered = moves_of.setdefault(damage, ([], [0]))
        if covered[0] < len(variants):  # variants made by earlier shots: their moves too
            known = len(variants)
            for v in range(covered[0], known):
                if living[v]:
                    w = variant(variants[v].hit(damage))
                    here, there = (v + 1) * bits, (w + 1) * bits
                    # One body fewer here, one more there, and one fewer living if it dies.
                    moves.append((here, (1 << there) - (1 << here) - (not living[w]), w != v))
            covered[0] = known
        # The weights grow long as the lcms pile up: every step of work is charged by their length. A state
        # is charged for its fields (as many as the variants, at most) and its weight's length, once, and
        # once more for each body it moves: bounds known once a shot, not worked out state by state, where
        # working them out cost a sixth of the shot. Charged before the shot too, for the states the last
        # one left, so that a runaway stops before its work is done.
        step = math.lcm(*filter(None, {state & field for state in states}))  # a state with none alive splits nothing
        step_bits = step.bit_length()
        cost = len(variants) + step_size(longest + step_bits)
        budget.spend(len(states) * cost, what)
        charges = 0
        following: dict[int, int] = {}
        get = following.get
        for state, weight in states.items():
            targets = state & field
            if not targets:
                following[state] = get(state, 0) + weight * step
                charges += 1
                continue
            share = weight * (step // targets)
            moved = 1  # the state is charged once, and once more for each body it moves
            for shift, move, charged in moves:
                c = state >> shift & field
                if c:
                    key = state + move
                    following[key] = get(key, 0) + share * c
                    moved += charged
            charges += moved
        budget.spend(charges * cost, what)
        budget.hold(len(following), what)
        longest = max(following.values()).bit_length()
        budget.spend(len(following) * step_size(longest), what)
        states = _reduced(following, step)
    return _counted_pools(states, variants, bits) if counted else _pools(states, variants, bits)


# Bytes a field of a packed state takes, by the bytes its largest count needs; and each one's array code.
_FIELD_BYTES = {0: 1, 1: 1, 2: 2, 3: 4, 4: 4, 5: 8, 6: 8, 7: 8, 8: 8}
_FIELD_CODES = {1: "B", 2: "H", 4: "I", 8: "Q"}


def _pools(states: dict[int, int], variants: list[Body], bits: int) -> Weights:
    """The packed states of a volley's end as pools in canonical order, with their weights.

    A pool is its variants in key order, each repeated by its count: canonical without a sort each.
    Every pool holds as many bodies as the first, so comparing two by their bodies' keys one by one is
    comparing how many bodies of each key they hold, in key order, the one with more first: the pools are
    sorted by those counts, descending, not by tuples of a key per body.
    """
    keys = [body_key(body) for body in variants]
    order = sorted(range(len(variants)), key=keys.__getitem__)
    ranked = [variants[v] for v in order]
    # Each state's fields read at once as an array of counts, and its variants' counts picked in key order:
    # not a shift a field, where most fields of many variants are zero.
    size, code = (len(variants) + 1) * bits // 8, _FIELD_CODES[bits // 8]
    pick = tuple_getter(_field_places([v + 1 for v in order], len(variants) + 1, sys.byteorder))
    counted = [(pick(memoryview(state.to_bytes(size, sys.byteorder)).cast(code)), weight)
               for state, weight in states.items()]
    # Variants of equal keys (owners unequal but keyed alike) count as one key: pools that their bodies' keys
    # cannot tell apart keep the order they were met in, as a stable sort by the keys keeps them.
    starts = [i for i in range(len(order)) if not i or keys[order[i]] != keys[order[i - 1]]]
    if len(starts) == len(order):
        counted.sort(key=itemgetter(0), reverse=True)  # a stable sort, reversed or not
    else:
        spans = list(zip(starts, starts[1:] + [len(order)]))
        counted.sort(key=lambda entry: [sum(entry[0][a:b]) for a, b in spans], reverse=True)
    pools = tuple(_pool_of(tuple(compress(zip(ranked, counts), counts))) for counts, _ in counted)
    return Weights.ordered(pools, tuple(weight for _, weight in counted))


def _pool_of(census: tuple[tuple[Body, int], ...]) -> Pool:
    """The pool of a volley's end in canonical order: each kind of body, in order, repeated by its count."""
    pool = Pool(tuple(chain.from_iterable(starmap(repeat, census))))
    pool.census = census
    return pool


def counted_body(body: Body) -> Body:
    """What a count of bodies reads of one: its owner, its tag, and whether it is lethal, living or deathless."""
    if body.hitpoints is None:
        return Body(None, 0, body.owner, body.tag)
    return Body(1, int(body.lethal), body.owner, body.tag)


def _counted_pools(states: dict[int, int], variants: list[Body], bits: int) -> Weights:
    """_pools for a pool read only by counting its bodies: each body as its counted_body, the pools that
    come out alike merged (a hundred pools of bodies damaged more or less, a few dozen counted)."""
    # Alike bodies found by what a count reads, not by comparing bodies (whose == a fresh process makes when
    # first asked for: a tenth of a millisecond).
    made: dict[tuple[Any, ...], Body] = {}
    kinds = [made.setdefault((body.hitpoints is None, body.lethal, apart(body.owner), body.tag), counted_body(body))
             for body in variants]
    distinct = sorted(made.values(), key=body_key)  # pool order
    rank = {id(kind): place for place, kind in enumerate(distinct)}
    fields = [((v + 1) * bits, rank[id(kind)]) for v, kind in enumerate(kinds)]
    mask = (1 << bits) - 1
    merged: dict[tuple[int, ...], int] = {}
    for state, weight in states.items():
        counts = [0] * len(distinct)
        for shift, place in fields:
            counts[place] += state >> shift & mask
        key = tuple(counts)
        merged[key] = merged.get(key, 0) + weight
    # Every pool holds as many bodies: sorted by their counts in pool order, more first, they are in canonical
    # order (as _pools sorts them), unless two kinds of body are keyed alike, which Weights.of sorts out.
    keyed_apart = len({body_key(kind) for kind in distinct}) == len(distinct)
    pools, weights = [], []
    for counts, weight in sorted(merged.items(), reverse=True) if keyed_apart else merged.items():
        pools.append(_pool_of(tuple((kind, count) for kind, count in zip(distinct, counts) if count)))
        weights.append(weight)
    return (Weights.ordered(tuple(pools), tuple(weights)) if keyed_apart
            else Weights.of(zip(pools, weights)))


def _field_places(fields: list[int], count: int, byteorder: str) -> list[int]:
    """Where each of these fields of a packed state is in the array of its `count` fields that its bytes in
    this byte order make: field 0, the lowest, comes first in little-endian bytes and last in big-endian."""
    return fields if byteorder == "little" else [count - 1 - field for field in fields]


def _reduced(weights: dict[Any, int], scale: int) -> dict[Any, int]:
    """The weights divided by the part of `scale` they all share.

    Weights that shared no factor before being scaled share at most a divisor
    of the scale (except by chance), and a gcd with a short number is cheap,
    where the gcd of two long weights would cost the square of their length.
    """
    # The scale first, so that every gcd is with a short number; once the gcd is 1, math.gcd does no more work.
    g = math.gcd(scale, *weights.values())
    return {key: weight // g for key, weight in weights.items()} if g > 1 else weights


_FIRE = Memo(_fire_weights, maxsize=4096)
