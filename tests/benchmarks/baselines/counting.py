"""Weights of dice and trials as whole numbers: a distribution is a list of counts over a known total."""

from __future__ import annotations

from fractions import Fraction


def convolve(a: list[int], b: list[int]) -> list[int]:
    """The counts of the sum of two independent values, each given as counts by value from 0."""
    out = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x:
            for j, y in enumerate(b):
                out[i + j] += x * y
    return out


def power(counts: list[int], times: int) -> list[int]:
    """The counts of the sum of `times` independent copies, by repeated squaring."""
    result, base = [1], counts
    while times:
        if times & 1:
            result = convolve(result, base)
        times >>= 1
        if times:
            base = convolve(base, base)
    return result


def binomial(trials: int, hit: int, miss: int) -> list[int]:
    """Counts of k hits among `trials`, each trial hitting in `hit` cases of `hit + miss`."""
    hits = [1]
    for _ in range(trials):
        hits.append(hits[-1] * hit)
    misses = [1]
    for _ in range(trials):
        misses.append(misses[-1] * miss)
    counts, choose = [], 1
    for k in range(trials + 1):
        counts.append(choose * hits[k] * misses[trials - k])
        choose = choose * (trials - k) // (k + 1)
    return counts


def as_fractions(counts: dict, total: int, primes: tuple[int, ...]) -> dict:
    """Counts over a common total as exact probabilities, the zero ones left out.

    Every prime factor of `total` must be in `primes`. Reducing by those primes
    alone, rather than by a gcd of numbers thousands of digits long, is what
    keeps a large distribution's last step cheap.
    """
    powers, rest = {}, total
    for q in primes:
        e = valuation(rest, q, rest.bit_length())
        rest //= q**e
        powers[q] = e
    if rest != 1:
        raise ValueError(f"the total has a prime factor outside {primes}")
    out = {}
    for key, count in counts.items():
        if not count:
            continue
        numerator, denominator = count, total
        for q, e in powers.items():
            v = valuation(numerator, q, e)
            if v and q == 2:
                numerator >>= v
                denominator >>= v
            elif v:
                numerator //= q**v
                denominator //= q**v
        out[key] = coprime_fraction(numerator, denominator)
    return out


def valuation(n: int, q: int, most: int) -> int:
    """How many times q divides n, counted up to `most`."""
    if q == 2:
        return min((n & -n).bit_length() - 1, most)
    v = 0
    while v < most and n % q == 0:
        n //= q
        v += 1
    return v


def coprime_fraction(numerator: int, denominator: int) -> Fraction:
    """A Fraction of two numbers known to be coprime, built without Fraction's own gcd."""
    make = getattr(Fraction, "_from_coprime_ints", None)  # Python 3.12 and later
    if make is not None:
        return make(numerator, denominator)
    return Fraction(numerator, denominator, _normalize=False)


def primes_of(*numbers: int) -> tuple[int, ...]:
    """The prime factors of some small numbers, by trial division."""
    found = set()
    for n in numbers:
        q = 2
        while q * q <= n:
            while n % q == 0:
                found.add(q)
                n //= q
            q += 1
        if n > 1:
            found.add(n)
    return tuple(sorted(found))
