"""Distributions as values: what an expression over independent chance evaluates to in the exact engine.

A `Dist` holds each distinct value with a whole-number weight, and the total
of the weights: probabilities are weight / total, and no Fraction is made
while computing. Every operator of the language is lifted onto distributions
by `apply`: its arguments' values are combined, equal results merge at once,
so `10d6 + 10d6 + 10d6 + 10d6` is three convolutions of a few hundred terms,
never the 51**4 combinations of their totals.

Each chance primitive in an expression is a draw of its own, so two
distributions met by one operator are independent; a value that is used twice
(a function's parameter) is never a distribution, because a function is
applied to each value of its arguments in turn.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections import Counter
from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import Any

from fracas.dsl.nodes import Pos
from fracas.interpreter.core import rt
from fracas.interpreter.core.errors import ESTIMATE_HINT, RunError
from fracas.interpreter.runtime.keys import stable_key
from fracas.interpreter.runtime.weights import long_products


class Dist:
    """Distinct values with whole-number weights; a value's probability is its weight over `total`."""

    __slots__ = ("weights", "total")

    def __init__(self, weights: dict[Any, int], total: int):
        self.weights = weights
        self.total = total

    @classmethod
    def of_fractions(cls, distribution: dict[Any, Fraction]) -> Dist:
        scale = math.lcm(*(Fraction(p).denominator for p in distribution.values()))
        return cls({value: int(p * scale) for value, p in distribution.items() if p}, scale)

    def fractions(self) -> dict[Any, Fraction]:
        total = self.total
        pairs = sorted(self.weights.items(), key=lambda kv: stable_key(kv[0]))
        return {value: Fraction(weight, total) for value, weight in pairs}

    def __repr__(self) -> str:
        return f"Dist({self.fractions()!r})"


class Scaled:
    """A probability as a whole number over a denominator, not reduced while the exact engine runs.

    States that share a denominator (those that met the same draws) add as
    integers, and a draw multiplies two integers: no gcd of numbers
    thousands of digits long in the engine's inner loop. `reduced` makes the
    Fractions at the end.
    """

    __slots__ = ("n", "d")

    def __init__(self, n: int, d: int):
        self.n = n
        self.d = d

    def __add__(self, other: Any) -> Scaled:
        if type(other) is Scaled:
            n, d = other.n, other.d
        elif isinstance(other, (int, Fraction)):
            n, d = other.numerator, other.denominator
        else:
            return NotImplemented
        if d == self.d:
            return Scaled(self.n + n, d)
        return Scaled(*unlike_sum(self.n, self.d, n, d))  # paths through other draws

    __radd__ = __add__

    # Times and over a whole number, for the chain of a loop (loops.solve): a multiplication, no gcd.
    def __mul__(self, k: Any) -> Scaled:
        return Scaled(self.n * k, self.d) if type(k) is int else NotImplemented

    def __truediv__(self, k: Any) -> Scaled:
        if type(k) is not int:
            return NotImplemented
        if k == 0:
            raise ZeroDivisionError("a probability divided by zero")
        return Scaled(self.n, self.d * k) if k > 0 else Scaled(-self.n, -self.d * k)

    def __bool__(self) -> bool:
        return self.n != 0

    def fraction(self) -> Fraction:
        return Fraction(self.n, self.d)

    def __repr__(self) -> str:
        return f"Scaled({self.n}, {self.d})"


def unlike_sum(n: int, d: int, m: int, e: int) -> tuple[int, int]:
    """n/d + m/e over the least common denominator, neither reduced: whole numbers over denominators that differ."""
    common = math.gcd(d, e)
    return n * (e // common) + m * (d // common), d // common * e


def as_fraction(p: Any) -> Fraction:
    """A probability as the engine holds it (Scaled, a Fraction or a whole number) as a Fraction."""
    return p.fraction() if type(p) is Scaled else Fraction(p)


def reduced(probabilities: dict[Any, Any]) -> dict[Any, Any]:
    """The same probabilities with every Scaled one a Fraction.

    Many states share a denominator (every way through the same draws): it is
    factored once into small primes, and each numerator divided by those
    primes alone, far cheaper than a gcd of two numbers thousands of digits long.
    A short denominator is reduced by one gcd instead, which is cheaper there
    (measured: at 150 bits a third of the time, even at about 400).
    """
    reducers: dict[int, _Reducer] = {}
    # Denominators by identity: states of one draw share the denominator's object, a long number whose hash
    # is worked out anew each time it is asked for. Every one is alive, in `probabilities`, all along.
    by_object: dict[int, _Reducer] = {}
    out = {}
    for key, p in probabilities.items():
        if type(p) is Scaled:
            reducer = by_object.get(id(p.d))
            if reducer is None:
                reducer = reducers.get(p.d)
                if reducer is None:
                    reducer = reducers[p.d] = _Reducer(p.d)
                by_object[id(p.d)] = reducer
            p = reducer(p.n)
        out[key] = p
    return out


class _Reducer:
    """Numerators over one denominator made fractions in lowest terms.

    The denominator divided by the powers of its primes that a numerator shares is the same for many
    numerators (a few powers of each prime are met): made once for each, not a division of a long
    number each time. The powers shared are one number, each prime's a digit of its own base.
    """

    __slots__ = ("d", "primes", "lowered")

    def __init__(self, d: int):
        self.d = d
        factors = _small_factors(d) if d.bit_length() > _BY_GCD_UP_TO else None
        self.primes: list[tuple[int, int, int]] | None = None
        if factors is not None:
            self.primes, base = [], 1
            for q, most in factors:
                self.primes.append((q, most, base))
                base *= most + 1
        self.lowered: dict[int, int] = {}

    def __call__(self, n: int) -> Fraction:
        primes = self.primes
        if primes is None or n == 0:
            g = math.gcd(n, self.d)
            return _coprime_fraction(n // g, self.d // g)
        shared = 0
        for q, most, base in primes:
            if q == 2:
                if n & 1:  # the lowest bit read without a copy of the number
                    continue
                e = (n & -n).bit_length() - 1
                if e > most:
                    e = most
                n >>= e
            elif n % q:
                continue
            else:
                e, n = _divide_out(n, q, most)
            shared += e * base
        d = self.lowered.get(shared)
        if d is None:
            d = self.d
            for q, most, base in primes:
                e = shared // base % (most + 1)
                d = d >> e if q == 2 else d // q**e
            self.lowered[shared] = d
        return _coprime_fraction(n, d)


def _primes_below(n: int) -> tuple[int, ...]:
    # A sieve: trial division of every number took most of a millisecond of each process's start.
    sieve = bytearray([1]) * n
    sieve[:2] = b"\0\0"
    for q in range(2, int(n**0.5) + 1):
        if sieve[q]:
            sieve[q * q::q] = bytes(len(range(q * q, n, q)))
    return tuple(itertools.compress(range(n), sieve))


_SMALL_PRIMES = _primes_below(1000)


def _small_factors(d: int) -> list[tuple[int, int]] | None:
    """d's prime factors with their powers, if all are below 1000 (the denominators of dice and
    probabilities written in rules); None otherwise."""
    found = []
    for q in _SMALL_PRIMES:
        if d == 1:
            break
        if d % q == 0:
            e, d = _divide_out(d, q, d.bit_length())
            found.append((q, e))
    return found if d == 1 else None


def _divide_out(n: int, q: int, most: int) -> tuple[int, int]:
    """How many times (up to `most`) q divides n, and n divided by q that many times."""
    if q == 2:
        e = min((n & -n).bit_length() - 1, most)
        return e, n >> e
    e, step, power = 0, 1, q
    while e < most:  # steps double while they divide, and start again from one when not
        if e + step <= most:
            quotient, remainder = divmod(n, power)  # one pass over a long number, divided or not
            if not remainder:
                n = quotient
                e += step
                step, power = step * 2, power * power
                continue
        if step == 1:
            break
        step, power = 1, q
    return e, n


def _made_as_3_12_makes_it(numerator: int, denominator: int) -> Fraction:
    # Fraction's constructor, even told not to normalize, costs a call with a keyword and its checks: a
    # third of a microsecond, for each of a long resolution's tens of thousands of final states.
    made = _bare(Fraction)
    made._numerator = numerator  # type: ignore[attr-defined]
    made._denominator = denominator  # type: ignore[attr-defined]
    return made


_bare = object.__new__

# A fraction of a numerator and a denominator known to share no factor, made without their gcd: Python 3.12
# on has a constructor for it; before it, a Fraction is made as that one makes it, where the two names it
# sets are there (the same since Python 3.0), and with the constructor's keyword where they are not.
_coprime_fraction: Callable[[int, int], Fraction] = getattr(Fraction, "_from_coprime_ints", None) or (
    _made_as_3_12_makes_it if hasattr(Fraction(3, 4), "_numerator") else functools.partial(Fraction, _normalize=False))


# Bits of a denominator up to which one gcd reduces a probability faster than its small primes do.
_BY_GCD_UP_TO = 384


class Budget:
    """How many combinations one statement may enumerate (the exact engine's limit, inside a statement), and
    the resolution whose work mixing them counts toward."""

    __slots__ = ("limit", "pos", "run")

    def __init__(self, limit: int, pos: Pos | None, run: Any = None):
        self.limit = limit
        self.pos = pos
        self.run = run

    def check(self, size: int) -> None:
        if size > self.limit:
            raise RunError(self.pos, f"one statement has more than {self.limit} ways to turn out", ESTIMATE_HINT)

    def spend(self, steps: int) -> None:
        if self.run is not None:
            rt.spend(self.run, steps, self.pos)


def lift(value: Any) -> Dist:
    return value if type(value) is Dist else Dist({value: 1}, 1)


# Combinations of values a statement's expression is worked out for in one step of the resolution's work (a block
# run on a state): measured, one costs about a thirtieth of one.
_COMBINATIONS_IN_A_STEP = 16


def apply(function: Callable[..., Any], args: Iterable[Any], budget: Budget) -> Any:
    """function over every combination of its arguments' values: a plain value if none is a distribution.

    A result that is itself a distribution (a die whose count was rolled) is
    mixed in, weighted by the combination that gave it.
    """
    args = tuple(args)
    drawn = [at for at, a in enumerate(args) if type(a) is Dist]
    if not drawn:
        return function(*args)
    if len(drawn) == 1:  # most often: one distribution, the rest plain values
        return _apply_one(function, args, drawn[0], budget)
    values = [tuple(a.weights) if type(a) is Dist else (a,) for a in args]
    combinations = math.prod(map(len, values))
    budget.check(combinations)
    budget.spend(combinations // _COMBINATIONS_IN_A_STEP)
    total = math.prod(a.total for a in args if type(a) is Dist)
    weights = [tuple(a.weights.values()) if type(a) is Dist else (1,) for a in args]
    results = list(itertools.starmap(function, itertools.product(*values)))
    if all(w and min(w) == max(w) for w in weights):  # fair dice: every combination weighs the same
        each = math.prod(w[0] for w in weights)
        counts = Counter(results)
        if not any(type(value) is Dist for value in counts):
            if len(counts) == 1 and total == 1:
                return results[0]
            return Dist({value: count * each for value, count in counts.items()}, total)
    return _mix(list(zip(results, map(math.prod, itertools.product(*weights)))), total, budget)


def _apply_one(function: Callable[..., Any], args: tuple[Any, ...], at: int, budget: Budget) -> Any:
    """apply where the argument at `at` alone is a distribution: its values in turn, each with its own weight
    (no product of every argument's values and weights made)."""
    drawn: Dist = args[at]
    weights = drawn.weights
    budget.check(len(weights))
    budget.spend(len(weights) // _COMBINATIONS_IN_A_STEP)
    before, after = args[:at], args[at + 1:]
    if before or after:
        results = [function(*before, value, *after) for value in weights]
    else:
        results = list(map(function, weights))
    if any(type(value) is Dist for value in results):
        return _mix(list(zip(results, weights.values())), drawn.total, budget)
    merged: dict[Any, int] = {}
    for value, w in zip(results, weights.values()):
        merged[value] = merged.get(value, 0) + w
    return Dist(merged, drawn.total) if len(merged) > 1 or drawn.total != 1 else next(iter(merged))


def branch(test: Any, then: Callable[[], Any], otherwise: Callable[[], Any], budget: Budget) -> Any:
    """`if test then a else b` over a distribution of the test: only the branch taken is evaluated."""
    if type(test) is not Dist:
        return then() if test else otherwise()
    return _mix([(then() if value else otherwise(), w) for value, w in test.weights.items()], test.total, budget)


def sequence(items: list[Any], budget: Budget) -> Any:
    """A list whose items may be distributions: the distribution of the whole list (a tuple)."""
    _within_limit(items, budget)
    return apply(lambda *values: values, items, budget)


def kept_items(pairs: list[Any], budget: Budget) -> Any:
    """A comprehension's list with a condition: of each item's (kept, value), the values kept, as a tuple."""
    _within_limit(pairs, budget)
    return apply(lambda *found: tuple(value for keep, value in found if keep), pairs, budget)


def _within_limit(items: list[Any], budget: Budget) -> None:
    """A list's items drawn one by one past the limit of a statement's combinations, said as what it is."""
    drawn = [len(item.weights) for item in items if type(item) is Dist]
    if len(drawn) > 1 and math.prod(drawn) > budget.limit:
        raise RunError(budget.pos, f"a list of {len(drawn)} items drawn at random has more than {budget.limit} "
                                   "combinations of their values", _FOLD_HINT)


_FOLD_HINT = ("each item is a draw of its own, so their combinations multiply: draw them in a loop and keep what "
              "later rules read (total += x, best = max(best, x)) as they are drawn; " + ESTIMATE_HINT)


def extreme(highest: bool, args: tuple[Any, ...], budget: Budget) -> Any:
    """max (highest) or min of numbers, some of them distributions: of independent ones, from their cumulative
    weights, value by value (the product of the weights of every argument at or below a value, for the highest),
    not from every combination of their values. The weights are those `apply` would give, whole numbers alike."""
    pick = max if highest else min
    drawn = [a for a in args if type(a) is Dist]
    if len(drawn) < 2:
        return apply(lambda *values: pick(values), args, budget)
    fixed = [a for a in args if type(a) is not Dist]
    bound = pick(fixed) if fixed else None
    values = sorted(set().union(*(a.weights for a in drawn)), reverse=not highest)
    budget.check(len(values))
    budget.spend(len(values) * len(drawn) // _COMBINATIONS_IN_A_STEP)
    # Walking up from the lowest value for max (down from the highest for min): each argument's weight at or
    # past the value so far, their product the weight of an extreme there or before.
    reached = [0] * len(drawn)
    before = 0
    weights: dict[Any, int] = {}
    for value in values:
        for i, a in enumerate(drawn):
            reached[i] += a.weights.get(value, 0)
        now = math.prod(reached)
        if now != before:
            weights[value] = now - before
            before = now
    if bound is not None:  # a number given as it is: every extreme on its wrong side is it
        kept = {v: w for v, w in weights.items() if pick(v, bound) == v and v != bound}
        at_bound = sum(weights.values()) - sum(kept.values())
        weights = ({bound: at_bound} if at_bound else {}) | kept
    total = math.prod(a.total for a in drawn)
    return Dist(weights, total) if len(weights) > 1 or total != 1 else next(iter(weights))


def _mix(results: list[tuple[Any, int]], total: int, budget: Budget) -> Any:
    inner = [r.total for r, _ in results if type(r) is Dist]
    if not inner:
        merged: dict[Any, int] = {}
        for value, w in results:
            merged[value] = merged.get(value, 0) + w
        return Dist(merged, total) if len(merged) > 1 or total != 1 else next(iter(merged))
    scale = math.lcm(*inner)
    merged = {}
    for value, w in results:
        if type(value) is Dist:
            factor = w * (scale // value.total)
            # A result that is a distribution (a pool whose size was drawn) mixes in each of its values.
            budget.spend(len(value.weights) + long_products(len(value.weights), factor.bit_length(),
                                                            value.total.bit_length()))
            for v, u in value.weights.items():
                merged[v] = merged.get(v, 0) + u * factor
        else:
            merged[value] = merged.get(value, 0) + w * scale
        budget.check(len(merged))
    return Dist(merged, total * scale)


class Chooser:
    """The engine as an expression of the exact engine sees it: a draw gives the whole distribution."""

    __slots__ = ("engine", "run")
    trace = None

    def __init__(self, engine: Any, run: Any):
        self.engine = engine
        self.run = run  # whose work a draw's computing counts toward

    def draw(self, primitive: Any, pos: Pos) -> Dist:
        return self.engine.weights(primitive, pos, self.run)
