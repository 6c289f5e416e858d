"""Dice operations: keeping the highest or lowest dice of a pool, exploding dice,
rerolled dice and dice of any faces.

Each is a chance primitive like those of chance.py: sampled with one
randrange per die thrown, forced with one scripted number per die thrown, and
computed exactly as whole-number weights, polynomially in the number of dice
(never by enumerating sides**count rolls).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from fracas.dsl.records import record
from fracas.interpreter.runtime.chance import Chance, one_die, scripted
from fracas.interpreter.runtime.weights import (
    Budget,
    Weights,
    add_uniform_die,
    product_steps,
    step_size,
    uniform_die_cost,
)

if TYPE_CHECKING:  # only sampling makes a generator, and a run that does not sample need not import random
    import random


def _whole(value: Any) -> Any:
    """A sum of fraction faces that comes out whole is the int, as everywhere in the language."""
    return value.numerator if isinstance(value, Fraction) and value.denominator == 1 else value


def _faces(faces: tuple[int, ...]) -> str:
    shown = [str(face) for face in faces]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]


@record(frozen=True, slots=True)
class Keep(Chance):
    """The sum of the `keep` highest (or lowest) of `count` dice of `sides` faces.

    Dropping the lowest d dice is keeping the count - d highest; keeping more
    dice than are thrown keeps them all.
    """

    rolls_dice = True

    count: int
    sides: int
    keep: int
    highest: bool = True

    def sample_work(self) -> int:
        return self.count

    def _kept(self, faces: list[int]) -> int:
        faces.sort(reverse=self.highest)
        return sum(faces[: self.keep])

    def sample(self, rng: random.Random) -> int:
        return self._kept([rng.randrange(self.sides) + 1 for _ in range(self.count)])

    def forced(self, script: Iterator[int]) -> int:
        return self._kept([scripted(script, f"a d{self.sides}", 1, self.sides) for _ in range(self.count)])

    def _weights(self, budget: Budget) -> Weights:
        keep = min(self.keep, self.count)
        low, ways = _keep_highest(self.count, self.sides, keep, budget, self.describe())
        kept = Weights.dense(low, ways)
        if self.highest:
            return kept
        # The lowest dice of a pool are the highest of the pool turned upside down
        # (face f read as sides + 1 - f): the same weights, outcomes reflected.
        top = keep * (self.sides + 1)
        return Weights(tuple(top - x for x in reversed(kept.outcomes)), kept.weights[::-1], kept.total)

    def describe(self) -> str:
        return f"{self.count}d{self.sides} keeping the {self.keep} {'highest' if self.highest else 'lowest'}"


def _keep_highest(count: int, sides: int, keep: int, budget: Budget, what: str) -> tuple[int, list[int]]:
    """Weights of the sum of the `keep` highest of `count` dice (keep <= count), from the lowest sum.

    A multiset evaluation, face by face. Sort the dice from high to low and
    look at the lowest kept one: say it shows f, with `above` dice (fewer than
    `keep`) showing more than f. The other count - above dice show f or less,
    and at most count - keep of them less than f. The kept sum is then
    keep * f plus, for each die above, how far above f it lands: the sum of
    `above` dice of sides - f faces. So the distribution is a weighted mixture,
    over f and `above`, of plain dice sums, which running sums give: work
    about sides**2 * keep**2, polynomial in the pool, never sides**count.
    """
    if keep == 0:
        return 0, [sides**count]
    budget.hold(keep * (sides - 1) + 1, what)
    out = [0] * (keep * (sides - 1) + 1)  # sums keep .. keep * sides
    size = step_size(count * sides.bit_length())  # an addition on weights as large as sides**count
    for f in range(1, sides + 1):
        higher = sides - f
        budget.spend(3 * count * size, what)
        at_most = _at_most_below(count, count - keep, f)
        ways = [1]  # the sum of `above` dice of `higher` faces, less `above`
        choose = 1  # comb(count, above): which dice are the ones above
        for above in range(keep):
            if above:
                if not higher:
                    break
                budget.spend(uniform_die_cost(ways, higher), what)
                ways = add_uniform_die(ways, higher)
                choose = choose * (count - above + 1) // above
            factor = choose * next(at_most)
            budget.spend(len(ways) * product_steps(factor.bit_length(), ways[len(ways) // 2].bit_length()), what)
            start = keep * f + above - keep  # index of the lowest sum: keep * f + above
            for i, w in enumerate(ways, start):
                out[i] += factor * w
    return keep, out


def _at_most_below(count: int, most: int, f: int) -> Iterator[int]:
    """For rest = count, count - 1, ...: the ways for `rest` dice to show f or less, at most `most` of them less.

    That is S(rest) = sum over m <= most of comb(rest, m) * (f - 1)**m. S(count)
    is summed over the fewer terms (those with m <= most, or f**count less the
    others); then Pascal's rule, comb(r, m) = comb(r - 1, m) + comb(r - 1, m - 1),
    gives S(r - 1) = (S(r) + comb(r - 1, most) * (f - 1)**(most + 1)) / f,
    one step per die: no sum of binomials for each count.
    """
    x = f - 1
    if most + 1 <= count - most:
        total, term = 0, 1  # term: comb(count, m) * x**m
        for m in range(most + 1):
            total += term
            term = term * (count - m) * x // (m + 1)
    else:
        total, term = f**count, x**count  # term: comb(count, k) * x**(count - k), k dice at f
        for k in range(count - most):
            total -= term
            if x:
                term = term * (count - k) // ((k + 1) * x)
    binomial, lift = math.comb(count - 1, most), x ** (most + 1)
    for rest in range(count, most, -1):
        yield total
        total = (total + binomial * lift) // f
        binomial = binomial * (rest - 1 - most) // (rest - 1) if rest > 1 else 0


@record(frozen=True, slots=True)
class DiceSum(Chance):
    """The sum of `count` independent dice of one kind: exploding, rerolled, or of custom faces."""

    count: int
    die: Exploding | Rerolled | Faces

    rolls_dice = True

    def shown_dice(self, rolled: list[int], forced: bool) -> list[Any]:
        """Each die's face; a die of faces listed is rolled as its face's place in the list (from 0 when forced,
        from 1 when rolled), shown as the face."""
        die = self.die
        if type(die) is not Faces:
            return rolled
        return [die.faces[number if forced else number - 1] for number in rolled]

    def sample(self, rng: random.Random) -> Any:
        roll = self.die.sampler()
        return _whole(sum((roll(rng) for _ in range(self.count)), 0))

    def forced(self, script: Iterator[int]) -> Any:
        roll = self.die.forced
        return _whole(sum((roll(script) for _ in range(self.count)), 0))

    def sample_work(self) -> int:
        return self.count

    def most_rolls(self) -> int | None:
        """The most dice one sample rolls; None: no bound (a die rolled again while it shows a face)."""
        each = self.die.most_rolls()
        return None if each is None else self.count * each

    def _weights(self, budget: Budget) -> Weights:
        what = self.describe()
        total = self.die.weights(budget, what).power(self.count, budget=budget, what=what)
        if all(type(value) is int for value in total.outcomes):
            return total
        return total.map(_whole)

    def describe(self) -> str:
        return self.die.describe(self.count)


@record(frozen=True, slots=True)
class Exploding:
    """A die of `sides` faces rolled again, and added, while it shows its highest face: at most `depth` times."""

    sides: int
    depth: int

    def most_rolls(self) -> int:
        return self.depth + 1

    def sampler(self) -> Callable[[random.Random], int]:
        return self.sample

    def sample(self, rng: random.Random) -> int:
        total = 0
        for _ in range(self.depth + 1):
            face = rng.randrange(self.sides) + 1
            total += face
            if face != self.sides:
                break
        return total

    def forced(self, script: Iterator[int]) -> int:
        total = 0
        for _ in range(self.depth + 1):
            face = scripted(script, f"an exploding d{self.sides}", 1, self.sides)
            total += face
            if face != self.sides:
                break
        return total

    def weights(self, budget: Budget, what: str) -> Weights:
        # After j highest faces (j < depth) a lower face r ends the die at j * sides + r,
        # with probability sides**-(j + 1); after `depth` of them the last roll stands,
        # whatever it shows. Over sides**(depth + 1), these are whole weights.
        s, depth = self.sides, self.depth
        # Charged before they are made: a die of 2,000 sides exploding 2,000 times has four million outcomes,
        # weighted by numbers of up to 22,000 bits, gigabytes made before any limit was looked at.
        outcomes = depth * (s - 1) + s
        budget.hold(outcomes, what)
        budget.spend(outcomes * step_size(depth * s.bit_length()), what)
        pairs = [(j * s + r, s ** (depth - j)) for j in range(depth) for r in range(1, s)]
        pairs += [(depth * s + r, 1) for r in range(1, s + 1)]
        return Weights.of(pairs)

    def describe(self, count: int) -> str:
        return f"{count}d{self.sides} exploding at most {self.depth} time{'s' if self.depth != 1 else ''}"


@record(frozen=True, slots=True)
class Rerolled:
    """A die of `sides` faces rolled again when it shows one of `faces`: once (the new face
    stands), or as long as it shows one of them."""

    sides: int
    faces: tuple[int, ...]
    once: bool

    def most_rolls(self) -> int | None:
        return 2 if self.once else None

    def _again(self, face: int, roll: Any, faces: tuple[int, ...] | frozenset[int]) -> int:
        if self.once:
            return roll() if face in faces else face
        while face in faces:
            face = roll()
        return face

    def sample(self, rng: random.Random) -> int:
        return self.sampler()(rng)

    def sampler(self) -> Callable[[random.Random], int]:
        """The sample of one die, for a pool's dice one after another: a die rolled again while it shows any
        of hundreds of faces looks each face up in a set, made once for the pool, not along a tuple."""
        sides, faces = self.sides, frozenset(self.faces) if len(self.faces) > 8 else self.faces

        def sample(rng: random.Random) -> int:
            def roll() -> int:
                return rng.randrange(sides) + 1
            return self._again(roll(), roll, faces)

        return sample

    def forced(self, script: Iterator[int]) -> int:
        def roll() -> int:
            return scripted(script, f"a rerolled d{self.sides}", 1, self.sides)
        return self._again(scripted(script, f"a d{self.sides}", 1, self.sides), roll, self.faces)

    def weights(self, budget: Budget, what: str) -> Weights:
        return one_die(self.sides, self.faces, self.once)

    def describe(self, count: int) -> str:
        how = "once" if self.once else "while it shows one"
        return f"{count}d{self.sides} rerolling {_faces(self.faces)} {how}"


@record(frozen=True, slots=True)
class Faces:
    """A die whose faces are the given numbers, each equally likely (a repeated number weighs more)."""

    faces: tuple[Any, ...]

    def most_rolls(self) -> int:
        return 1

    def sampler(self) -> Callable[[random.Random], Any]:
        return self.sample

    def sample(self, rng: random.Random) -> Any:
        return self.faces[rng.randrange(len(self.faces))]

    def forced(self, script: Iterator[int]) -> Any:
        return self.faces[scripted(script, f"a die of {len(self.faces)} faces (a face's index)",
                                   0, len(self.faces) - 1)]

    def weights(self, budget: Budget, what: str) -> Weights:
        return Weights.of((face, 1) for face in self.faces)

    def describe(self, count: int) -> str:
        return f"{count} dice of faces {', '.join(str(face) for face in self.faces)}"


class _PastRoom(Exception):
    """A counted draw rolled more dice than it had room for."""


class _Rolls:
    """A random generator that gives at most `left` numbers, one a die."""

    __slots__ = ("rng", "left")

    def __init__(self, rng: Any, left: int):
        self.rng, self.left = rng, left

    def randrange(self, sides: int) -> int:
        if self.left <= 0:
            raise _PastRoom
        self.left -= 1
        return self.rng.randrange(sides)


class CountedRolls:
    """A draw of dice sampled die by die against the room left for them, where the dice it rolls are not
    bounded by the dice it holds (an exploding d1 rolls every die again up to its depth; a die rolled again
    while it shows any of 99 faces of 100 may roll for long).

    Past `room` dice, `fail()` is raised: the work limit's error, located, in seconds rather than a run that
    never ends. `made` is the dice the last sample rolled, for the run to count as its work. Forced rolls
    are a script's, which ends: they are taken as they are.
    """

    rolls_dice = True
    __slots__ = ("primitive", "room", "fail", "made")

    def __init__(self, primitive: Any, room: int, fail: Callable[[], Exception]):
        self.primitive, self.room, self.fail = primitive, room, fail
        self.made = 0

    def sample(self, rng: Any) -> Any:
        rolls = _Rolls(rng, self.room)
        try:
            return self.primitive.sample(rolls)
        except _PastRoom:
            raise self.fail() from None
        finally:
            self.made = self.room - rolls.left

    def forced(self, script: Iterator[int]) -> Any:
        return self.primitive.forced(script)

    def shown_dice(self, rolled: list[int], forced: bool) -> list[Any]:
        return self.primitive.shown_dice(rolled, forced)

    def describe(self) -> str:
        return self.primitive.describe()
