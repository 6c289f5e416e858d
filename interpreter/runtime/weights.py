"""Exact distributions as whole-number weights, and the budget that bounds computing them.

A distribution is a list of outcomes in canonical order (stable_key), each
with a positive int weight; the probability of an outcome is its weight over
the total. Computing on ints over a common denominator is far cheaper than on
Fractions (icepool's way): fractions appear only when a result is shown.

Every loop that can grow spends from a budget, so a runaway problem stops in
seconds with an error that names the limit it passed, instead of hanging.
"""

from __future__ import annotations

import math
import operator
from itertools import accumulate, chain
from operator import sub
from collections.abc import Callable, Hashable, Iterable, Iterator
from fractions import Fraction
from typing import Any, Protocol

from fracas.dsl.records import record
from fracas.interpreter.runtime.keys import plain_order, stable_key

DEFAULT_STATES = 1_000_000  # outcomes one computation may hold when no budget is given
DEFAULT_WORK = 20_000_000  # steps of work (a step is about 0.1 microsecond: seconds) when no budget is given
# A step here is a multiply-add of small numbers, far less than a block run on a state, the exact engine's step
# of work (the limit 'work'): so many of these make one of those.
PRIMITIVE_STEPS = 50


def briefly(what: str, most: int = 100) -> str:
    """A description for a message, cut short where it is long (a dice value of 10,000 terms, made in a loop):
    its first terms, and how many more."""
    if len(what) <= most:
        return what
    terms = what.split(" + ")
    kept: list[str] = []
    for term in terms:
        if len(" + ".join([*kept, term])) > most:
            break
        kept.append(term)
    if not kept:
        return what[: most - 3] + "..."
    return " + ".join(kept) + f" + ... ({len(terms) - len(kept)} terms more)"


class LimitError(RuntimeError):
    """A computation went over a limit; `name` is the limit (as --limit NAME=N calls it)."""

    name = ""

    def __init__(self, message: str, limit: int):
        super().__init__(message)
        self.limit = limit


class StateLimitError(LimitError):
    name = "states"

    def __init__(self, states: int, limit: int):
        super().__init__(f"{states} distinct states, over the limit of {limit}", limit)
        self.states = states


class WorkLimitError(StateLimitError):
    """Too much work for one chance primitive.

    A subclass of StateLimitError so that an engine which knows only that one
    still reports it as a located stop; `name` says which limit it really is.
    """

    name = "work"

    def __init__(self, what: str, limit: int):
        what = briefly(what)
        LimitError.__init__(self, f"{what} needs more than {limit} steps of work, the limit", limit)
        self.states = 0
        self.what = what


class Budget(Protocol):
    """What a computation may spend; each method raises a LimitError when a limit is passed."""

    def spend(self, steps: int, what: str) -> None:
        """Count `steps` steps of work toward the work limit (a step: one multiply-add of small
        numbers in a Python loop, about 0.1 microsecond on a desktop)."""

    def hold(self, outcomes: int, what: str) -> None:
        """Say that `outcomes` outcomes (or states) are held at once: checked against the states limit."""


class Unlimited:
    """A budget that never runs out: for tests and for callers that bound the problem themselves."""

    def spend(self, steps: int, what: str) -> None:
        pass

    def hold(self, outcomes: int, what: str) -> None:
        pass


UNLIMITED: Budget = Unlimited()


class Allowance:
    """A budget of work and of outcomes held at once; None is no limit."""

    def __init__(self, states: int | None = DEFAULT_STATES, work: int | None = DEFAULT_WORK):
        self.states = states
        self.work = work
        self.spent = 0

    def spend(self, steps: int, what: str) -> None:
        self.spent += steps
        if self.work is not None and self.spent > self.work:
            raise WorkLimitError(what, self.work)

    def hold(self, outcomes: int, what: str) -> None:
        if self.states is not None and outcomes > self.states:
            raise StateLimitError(outcomes, self.states)


def _is_int(value: object) -> bool:
    return type(value) is int  # not bool: true and false are not numbers to add up


@record(frozen=True, slots=True)
class Weights:
    """Outcomes in canonical order, each with a positive whole-number weight.

    Two Weights are == only when their weights are the same numbers; compare
    `reduced()` forms, or `probabilities()`, to compare distributions.
    """

    outcomes: tuple[Any, ...]
    weights: tuple[int, ...]
    total: int

    # ---- construction ----------------------------------------------------------------

    @classmethod
    def of(cls, pairs: Iterable[tuple[Any, int]]) -> Weights:
        """Merge equal outcomes (summing their weights), drop zero weights, order canonically."""
        merged: dict[Any, int] = {}
        get = merged.get
        for value, weight in pairs:
            merged[value] = get(value, 0) + weight
        return cls._from_merged(merged)

    @classmethod
    def _from_merged(cls, merged: dict[Any, int]) -> Weights:
        if any(w < 0 for w in merged.values()):
            raise ValueError("a weight cannot be negative")
        keys = [k for k, w in merged.items() if w]
        if not keys:
            raise ValueError("a distribution needs at least one outcome of positive weight")
        keys.sort(key=None if plain_order(keys) else stable_key)
        weights = tuple(merged[k] for k in keys)
        return cls(tuple(keys), weights, sum(weights))

    @classmethod
    def ordered(cls, outcomes: tuple[Any, ...], weights: tuple[int, ...]) -> Weights:
        """Distinct outcomes already in canonical order, with their positive weights: nothing to merge or sort."""
        return cls(outcomes, weights, sum(weights))

    @classmethod
    def certain(cls, value: Hashable) -> Weights:
        return cls((value,), (1,), 1)

    @classmethod
    def dense(cls, low: int, ways: list[int]) -> Weights:
        """Whole-number outcomes low, low + 1, ... with the weights in `ways` (zeros left out)."""
        outcomes = tuple(low + i for i, w in enumerate(ways) if w)
        weights = tuple(w for w in ways if w)
        if not weights:
            raise ValueError("a distribution needs at least one outcome of positive weight")
        return cls(outcomes, weights, sum(weights))

    # ---- reading ---------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.outcomes)

    def __iter__(self) -> Iterator[tuple[Any, int]]:
        return zip(self.outcomes, self.weights)

    def items(self) -> Iterator[tuple[Any, int]]:
        return zip(self.outcomes, self.weights)

    def probabilities(self) -> dict[Any, Fraction]:
        """Each outcome's exact probability, in canonical order: for output, not for loops."""
        total = self.total
        return {value: Fraction(weight, total) for value, weight in zip(self.outcomes, self.weights)}

    def reduced(self) -> Weights:
        """The same distribution with the smallest whole weights."""
        g = math.gcd(*self.weights)
        if g == 1:
            return self
        return Weights(self.outcomes, tuple(w // g for w in self.weights), self.total // g)

    def _dense_form(self) -> tuple[int, list[int]] | None:
        """(lowest outcome, weight of each whole number from it) when every outcome is a whole number.

        None for other outcomes, and for whole numbers so spread out (say 0 and
        1000) that a list of every number between would be mostly zeros.
        """
        if not all(map(_is_int, self.outcomes)):
            return None
        low = self.outcomes[0]
        if self.outcomes[-1] - low > 4 * len(self.outcomes) + 16:
            return None
        ways = [0] * (self.outcomes[-1] - low + 1)
        for value, weight in zip(self.outcomes, self.weights):
            ways[value - low] = weight
        return low, ways

    # ---- combining -------------------------------------------------------------------

    def map(self, f: Callable[[Any], Any], budget: Budget = UNLIMITED, what: str = "a mapped distribution") -> Weights:
        """The distribution of f(outcome); outcomes with equal images merge."""
        budget.spend(len(self.outcomes), what)
        return Weights.of((f(value), weight) for value, weight in zip(self.outcomes, self.weights))

    def combine(self, other: Weights, f: Callable[[Any, Any], Any], budget: Budget = UNLIMITED,
                what: str = "a combination of independent chances") -> Weights:
        """The distribution of f(x, y) for x from self and y from other, independent: weights multiply."""
        if f is operator.add:
            mine, theirs = self._dense_form(), other._dense_form()
            if mine is not None and theirs is not None:
                budget.hold(len(mine[1]) + len(theirs[1]) - 1, what)
                budget.spend(convolution_cost(mine[1], theirs[1]), what)
                return Weights.dense(mine[0] + theirs[0], convolve(mine[1], theirs[1]))
        steps = product_steps(max(self.weights).bit_length(), max(other.weights).bit_length())
        budget.spend(len(self.outcomes) * len(other.outcomes) * steps, what)
        merged: dict[Any, int] = {}
        get = merged.get
        for y, v in zip(other.outcomes, other.weights):
            for x, w in zip(self.outcomes, self.weights):
                key = f(x, y)
                merged[key] = get(key, 0) + w * v
        budget.hold(len(merged), what)
        return Weights._from_merged(merged)

    def power(self, count: int, f: Callable[[Any, Any], Any] = operator.add, budget: Budget = UNLIMITED,
              what: str = "a sum of independent copies") -> Weights:
        """The distribution of f folded over `count` independent copies (by default their sum).

        f must be associative (as + is); the copies are combined by repeated squaring.
        """
        if count < 0:
            raise ValueError("cannot combine a negative number of copies")
        if f is operator.add:
            dense = self._dense_form()
            if dense is not None:
                low, ways = dense
                budget.hold(count * (len(ways) - 1) + 1, what)
                return Weights.dense(low * count, dense_power(ways, count, budget, what))
            if count == 0:
                return Weights.certain(0)
        elif count == 0:
            raise ValueError("no copies to combine, and f has no known starting value")
        result: Weights | None = None
        base: Weights = self
        remaining = count
        while True:
            if remaining & 1:
                result = base if result is None else result.combine(base, f, budget, what)
            remaining >>= 1
            if not remaining:
                return result  # type: ignore[return-value]
            base = base.combine(base, f, budget, what)


# ---- whole-number polynomials: the weights of outcomes 0, 1, 2, ... --------------------

# Below this many products, a plain double loop beats packing the numbers into one integer.
_PACK_FROM = 400


def convolve(a: list[int], b: list[int]) -> list[int]:
    """The weights of the sum of two independent whole-number outcomes (a polynomial product)."""
    if len(a) * len(b) < _PACK_FROM:
        out = [0] * (len(a) + len(b) - 1)
        for i, x in enumerate(a):
            if x:
                for j, y in enumerate(b, i):
                    out[j] += x * y
        return out
    return _packed_product(a, b)


def _packed_product(a: list[int], b: list[int]) -> list[int]:
    # Kronecker substitution: lay each list out as the digits of one huge integer, in
    # slots wide enough that no product's sum spills over, and let the integer
    # multiplication (Karatsuba, in C) do every multiply-add at once.
    bound = max(a) * max(b) * min(len(a), len(b))
    width = bound.bit_length() // 8 + 1  # bytes per slot
    x = int.from_bytes(b"".join(w.to_bytes(width, "little") for w in a), "little")
    y = int.from_bytes(b"".join(w.to_bytes(width, "little") for w in b), "little")
    size = len(a) + len(b) - 1
    raw = (x * y).to_bytes(size * width, "little")
    return [int.from_bytes(raw[i:i + width], "little") for i in range(0, size * width, width)]


def dense_power(ways: list[int], count: int, budget: Budget = UNLIMITED, what: str = "a sum of dice") -> list[int]:
    """The weights of the sum of `count` independent copies of one whole-number outcome, by repeated squaring
    (two outcomes next to each other, a die that fails or succeeds: the binomial, term by term)."""
    if len(ways) == 2 and ways[0] and count > 0:
        return binomial(ways[0], ways[1], count, budget, what)
    result = [1]
    base = ways
    remaining = count
    while remaining:
        if remaining & 1:
            budget.spend(convolution_cost(result, base), what)
            result = convolve(result, base)
        remaining >>= 1
        if remaining:
            budget.spend(convolution_cost(base, base), what)
            base = convolve(base, base)
    return result


def binomial(miss: int, hit: int, count: int, budget: Budget = UNLIMITED, what: str = "trials") -> list[int]:
    """The weights of k hits among `count` trials, each of weight `miss` to fail and `hit` to succeed:
    comb(count, k) * hit**k * miss**(count - k), each from the one before: two multiplications and a division
    by small numbers."""
    budget.spend((count + 1) * 3 * step_size(count * (miss + hit).bit_length()), what)
    ways = [miss**count]
    for k in range(count):
        ways.append(ways[-1] * (count - k) * hit // ((k + 1) * miss))
    return ways


def step_size(bits: int) -> int:
    """Steps one addition, or a multiplication by a small number, costs on numbers of so many bits."""
    return 1 + bits // 2000


def product_steps(a_bits: int, b_bits: int) -> int:
    """Steps one multiply-add costs on numbers of so many bits.

    Measured: 23,000 bits by 60 cost about 10 steps, 16,000 by 6,000 about 500:
    long multiplication grows with the product of the sizes.
    """
    return 1 + (a_bits + b_bits) // 4000 + a_bits * b_bits // 200_000


def long_products(count: int, a_bits: int, b_bits: int) -> int:
    """Steps of the exact engine's work (PRIMITIVE_STEPS of these each) that `count` probabilities cost beyond
    their states' steps, each a product of numbers so many bits long, then merged (a sum of two more such
    products where denominators differ): nothing while the numbers are short."""
    return count * (3 * product_steps(a_bits, b_bits) // PRIMITIVE_STEPS)


def convolution_cost(a: list[int], b: list[int]) -> int:
    """Steps of work of the product of a and b, as `convolve` does it.

    A step is one multiply-add of small numbers in a Python loop. The double
    loop costs its multiply-adds, each longer as the numbers grow. A packed
    product is one multiplication of integers of so many machine words, which
    Karatsuba does in about words**1.585 machine steps, ten or so a step; a
    lopsided one (a long sum of dice and a short one) in slices of the longer
    as long as the shorter, and each weight is packed and unpacked.
    """
    a_bits, b_bits = max(a).bit_length(), max(b).bit_length()
    if len(a) * len(b) < _PACK_FROM:
        return len(a) * len(b) * product_steps(a_bits, b_bits)
    width = 2 + (a_bits + b_bits) // 64  # words a slot
    short, long = sorted((len(a) * width, len(b) * width))
    return int(3 * long * short**0.585 / 10) + 4 * (len(a) + len(b))


def add_uniform_die(ways: list[int], sides: int) -> list[int]:
    """Add one die of faces 1..sides (shifted to 0..sides-1) to the weights of a sum.

    Adding a die sums a sliding window of `sides` weights: the difference of
    two running sums, which accumulate and map compute in C, in one pass: far
    cheaper than a general product, for a thousand dice as for two.
    """
    pad = [0] * sides
    running = list(accumulate(chain(pad, ways, pad)))
    return list(map(sub, running[sides:-1], running[: len(ways) + sides - 1]))


def uniform_dice(count: int, sides: int, budget: Budget = UNLIMITED, what: str = "a sum of dice") -> list[int]:
    """Weights of the sum of `count` dice of faces 1..sides, as offsets from `count`."""
    budget.hold(count * (sides - 1) + 1, what)
    ways = [1]
    for _ in range(count):
        budget.spend(uniform_die_cost(ways, sides), what)
        ways = add_uniform_die(ways, sides)
    return ways


def uniform_die_cost(ways: list[int], sides: int) -> int:
    """Steps of add_uniform_die: two passes in C (running sums, then differences), a step an item and more as the
    weights grow long. Measured on lists of 500 to 50,000 weights: 0.1-0.15 us an item up to 650 bits, 0.6 us at
    2,000 bits, 1.2 us at 3,300 (500d100, whose 500 additions took 8 s where half a step an item had charged 1.3)."""
    return 1 + (len(ways) + sides) * (1 + ways[len(ways) // 2].bit_length() // 300)


class _Watched:
    """A budget passed through, remembering the most outcomes held at once and the work spent."""

    def __init__(self, budget: Budget):
        self.budget = budget
        self.peak = 0
        self.spent = 0

    def spend(self, steps: int, what: str) -> None:
        self.spent += steps
        self.budget.spend(steps, what)

    def hold(self, outcomes: int, what: str) -> None:
        self.peak = max(self.peak, outcomes)
        self.budget.hold(outcomes, what)


class Memo:
    """Results of a pure computation by its problem, whatever budget paid for them.

    A cached result is charged the work its computation cost, and the most
    outcomes that computation held at once are checked against the states
    limit of the budget asking, which may be smaller than the one that
    computed it: a limit stops the same problems whether or not they were
    computed before (in a process that resolves again and again, the
    language server's, as in a fresh one).
    """

    def __init__(self, compute: Callable[[Any, Budget], Weights], maxsize: int = 1024):
        self.compute = compute
        self.maxsize = maxsize
        self.store: dict[Hashable, tuple[Weights, int, int]] = {}

    def __call__(self, problem: Any, budget: Budget, what: str) -> Weights:
        found = self.store.get(problem)
        if found is None:
            watched = _Watched(budget)
            result = self.compute(problem, watched)
            found = (result, max(watched.peak, len(result)), watched.spent)
            if len(self.store) >= self.maxsize:
                del self.store[next(iter(self.store))]
            self.store[problem] = found
        else:
            budget.spend(found[2], what)
        budget.hold(found[1], what)
        return found[0]

    def cache_clear(self) -> None:
        self.store.clear()
