"""A loop as an absorbing Markov chain, solved exactly.

The states met at the start of a while loop's passes are the chain's states.
One pass from state i comes round to state j with probability Q[i][j], or
leaves the loop. The number of times the loop starts a pass in state i,
counted over all the ways it can run, is x_i, where x = start + x Q: a
state's visits are its share of the start plus what every pass brings it.
Most loops only go forward (each pass changes something for good) and the
equations are solved one state at a time, in the order the chain flows; the
states that can come round to each other (a strongly connected group) are
solved together by elimination over fractions. A group that no pass leaves
is a loop that runs for ever: if the start reaches it, the probability that
enters it is given back, for the engine to report rather than answer wrongly.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from fractions import Fraction
from typing import Any

from fracas.interpreter.core.dist import Scaled, unlike_sum


class ByStart:
    """A probability for each state a batch of passes started from.

    The passes from every new state at a loop's start run together through the blocks, merging where they
    meet, yet each state's probability stays apart by where its pass began: a start's probability is its part
    times top / bottom. A draw scales top and bottom and shares the parts, as Carried's do: the states a draw
    makes of one state cost one product each, not one for each start (the many starts of a duel's every
    health, batched). States of the same parts add their scales; states of other parts make a sum of its own
    (`owned`, top 1), whose parts are whole numbers over its bottom where they came so: it takes later
    additions in place, so that thousands of starts meeting in one state cost a merge each, not a copy of
    all the parts before them, and no fraction is reduced until the chain is solved.
    """

    __slots__ = ("parts", "top", "bottom", "owned")

    def __init__(self, parts: dict[Hashable, Any], top: int = 1, bottom: int = 1, owned: bool = False):
        self.parts = parts
        self.top = top
        self.bottom = bottom
        self.owned = owned

    def times(self, weight: int, total: int) -> ByStart:
        """This probability times weight / total, whole numbers: its parts shared from now on."""
        self.owned = False
        return ByStart(self.parts, self.top * weight, self.bottom * total)

    def __mul__(self, k: Any) -> ByStart:
        if type(k) is int:  # a way from a state of the chain (loops.solve): no Fraction made
            return self.times(k, 1)
        k = Fraction(k)
        return self.times(k.numerator, k.denominator)

    __rmul__ = __mul__

    def __truediv__(self, k: Any) -> ByStart:
        k = Fraction(k)
        if not k:
            raise ZeroDivisionError("a loop's starts divided by zero")
        return self.times(k.denominator, k.numerator) if k > 0 else self.times(-k.denominator, -k.numerator)

    def __add__(self, other: Any) -> ByStart:
        if not isinstance(other, ByStart):
            if other == 0:
                return self
            return NotImplemented
        if other.parts is self.parts:  # states of one draw's: their scales added, as Scaled adds
            self.owned = False  # the parts shared with the sum (a sum added to itself, too)
            if other.bottom == self.bottom:
                return ByStart(self.parts, self.top + other.top, self.bottom)
            return ByStart(self.parts, *unlike_sum(self.top, self.bottom, other.top, other.bottom))
        sum_ = self if self.owned else ByStart(
            dict(self.parts) if self.top == 1 else {start: p * self.top for start, p in self.parts.items()},
            1, self.bottom, owned=True)
        sum_._add_into(other)
        return sum_

    __radd__ = __add__

    def _add_into(self, other: ByStart) -> None:
        """other's probabilities added into this sum's own parts (its top 1), over the least common bottom."""
        parts, bottom = self.parts, self.bottom
        scale = other.top
        if other.bottom != bottom:
            common = math.gcd(bottom, other.bottom)
            mine = other.bottom // common
            if mine != 1:
                for start in parts:
                    parts[start] *= mine
            scale *= bottom // common
            self.bottom = bottom // common * other.bottom
        get = parts.get
        for start, p in other.parts.items():
            if scale != 1:
                p = p * scale
            before = get(start)
            parts[start] = p if before is None else before + p

    def __sub__(self, other: Any) -> ByStart:
        return self + other * -1

    def __rsub__(self, other: Any) -> ByStart:
        # A state met at a loop's start that no start of the outer loop's passes enters (its share 0), cleared
        # by one that some do, in loops.solve's elimination.
        if other == 0:
            return self * -1
        return NotImplemented

    def each(self) -> Iterator[tuple[Hashable, Fraction]]:
        """Each start with its probability."""
        for start, n, d in self.counts():
            yield start, Fraction(n, d)

    def counts(self) -> Iterator[tuple[Hashable, int, int]]:
        """Each start with its probability as a whole number over another, not reduced."""
        top, bottom = self.top, self.bottom
        for start, p in self.parts.items():
            if type(p) is int:
                yield start, p * top, bottom
            else:  # a part made a fraction (a sum's, or one given so)
                p = Fraction(p)
                yield start, p.numerator * top, p.denominator * bottom

    def __bool__(self) -> bool:
        return self.top != 0 and any(self.parts.values())

    def __repr__(self) -> str:
        return f"ByStart({dict(self.each())!r})"


def added_work(before: Any, p: Any) -> int:
    """Steps of work to add p into `before` where both are ByStart of other draws: a step for each of p's parts,
    and for each of before's where they are copied into a sum of its own or brought over another bottom."""
    if type(before) is not ByStart or type(p) is not ByStart or before.parts is p.parts:
        return 0
    return len(p.parts) + (len(before.parts) if not before.owned or before.bottom != p.bottom else 0)


class NeverEnds(str):
    """Why a state stopped, in place of a rule's reason: it went round a loop that no pass leaves, the loop at
    `pos`. Such a state goes to the end as a stopped one does, so that the loops and steps around it weigh it as
    they weigh every other way out; the resolution reports how likely it is in all (engines.never_ending). Its
    text holds a character no rule can write: no `stop` gives the same reason."""

    pos: Any

    def __new__(cls, pos: Any) -> NeverEnds:
        made = super().__new__(cls, f"\x00never ends: {pos.path}:{pos.line}:{pos.column}")
        made.pos = pos
        return made


Row = tuple[int, dict[Hashable, int]]  # a state's passes: a bottom, and the whole number of each state come round to


def over_one_bottom(found: dict[Any, dict[Hashable, tuple[int, int]]]) -> tuple[int, dict[Any, dict[Hashable, int]]]:
    """The passes from one state, each way a whole number over one bottom (the least common one): where each goes,
    and on to which state, its probability as a whole number over another (ByStart.counts)."""
    bottoms = {d for states in found.values() for _, d in states.values()}
    common = math.lcm(*bottoms) if len(bottoms) > 1 else next(iter(bottoms), 1)
    return common, {following: {key: n * (common // d) for key, (n, d) in states.items()}
                    for following, states in found.items()}


def solve(states: Sequence[Hashable], rows: Mapping[Hashable, Row], start: Mapping[Hashable, Any],
          leaves: Mapping[Hashable, bool], spend: Callable[[int], None] = lambda steps: None
          ) -> tuple[dict[Hashable, Any], list[tuple[list[Hashable], Any]]]:
    """The expected number of passes begun in each state over its row's bottom (states with none are left out):
    a way from it is taken that many times its whole number. And the groups of states that no pass leaves, each
    with the probability that enters it: that never ends.

    The start's probabilities are Scaled (whole numbers over a denominator, as the flow holds them: a way through
    the chain costs products and sums of whole numbers, no gcd) or ByStart (a loop inside another loop's passes):
    the answer is of the same kind (Fractions where a group of states is eliminated).

    rows[i]: the bottom of the passes from i, and the whole number of each state j they come round in (the
    probability is that over the bottom); leaves[i]: whether a pass from i may leave the loop (the rest of its
    probability). spend: told the steps of work done (a block run's worth each), as it goes: an elimination
    over hundreds of states is a runaway too.
    """
    successors = {state: rows[state][1] for state in states}
    mass: dict[Hashable, Any] = {state: start.get(state, 0) for state in states}
    shares: dict[Hashable, Any] = {}
    endless: list[tuple[list[Hashable], Any]] = []
    for group in groups_in_flow_order(states, successors):
        members = set(group)
        entering = [mass[state] for state in group]
        if not any(entering):
            continue
        if not any(leaves[state] or any(j not in members for j in successors[state]) for state in group):
            endless.append((group, sum(entering, 0)))
            continue
        if len(group) == 1:
            # Most loops only go forward, a state at a time. Its passes that come round to it divided out:
            # x / (1 - n/d) / d is x / (d - n), one fraction for the state, each way from it a whole number.
            (state,) = group
            bottom, row = rows[state]
            solved = [entering[0] / (bottom - row.get(state, 0))]
        else:
            again = {state: {j: Fraction(n, rows[state][0]) for j, n in successors[state].items()} for state in group}
            entering = [p.fraction() if type(p) is Scaled else p for p in entering]  # eliminated over fractions
            solved = [visits / rows[state][0] for state, visits in zip(group, _eliminate(group, again, entering, spend))]
        for state, share in zip(group, solved):
            shares[state] = share
            for following, n in successors[state].items():
                if following not in members:
                    mass[following] += share * n
    return shares, endless


# Operations on fractions of the elimination in one step of the exact engine's work (a block run on a state).
_OPERATIONS_IN_A_STEP = 2


def _eliminate(group: list[Hashable], again: Mapping[Hashable, Mapping[Hashable, Any]],
               entering: list[Any], spend: Callable[[int], None]) -> list[Any]:
    """x (I - Q) = b for one strongly connected group, by Gauss-Jordan elimination over fractions, its
    operations counted column by column (the rows a column clears, fill growing as it goes)."""
    place = {state: k for k, state in enumerate(group)}
    size = len(group)
    # Row j of the transposed system: x_j - sum_i x_i Q[i][j] = b_j.
    rows: list[list[Any]] = [[Fraction(int(j == k)) for k in range(size)] + [entering[j]] for j in range(size)]
    for i, state in enumerate(group):
        for following, p in again[state].items():
            j = place.get(following)
            if j is not None:
                rows[j][i] -= p
    for column in range(size):
        spend(sum(1 for row in rows if row[column]) * (size + 1 - column) // _OPERATIONS_IN_A_STEP)
        pivot = next(r for r in range(column, size) if rows[r][column] != 0)
        rows[column], rows[pivot] = rows[pivot], rows[column]
        lead = rows[column]
        inverse = 1 / lead[column]
        for k in range(column, size + 1):
            lead[k] *= inverse
        for r in range(size):
            factor = rows[r][column]
            if r != column and factor:
                row = rows[r]
                for k in range(column, size + 1):
                    row[k] -= factor * lead[k]
    return [rows[j][size] for j in range(size)]


def groups_in_flow_order(states: Sequence[Hashable],
                         again: Mapping[Hashable, Iterable[Hashable]]) -> list[list[Hashable]]:
    """The strongly connected groups of states, each before every group it leads to (Tarjan, without recursion)."""
    index: dict[Hashable, int] = {}
    low: dict[Hashable, int] = {}
    on_stack: set[Hashable] = set()
    stack: list[Hashable] = []
    found: list[list[Hashable]] = []
    for root in states:
        if root in index:
            continue
        work: list[tuple[Hashable, Any]] = [(root, iter(again[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            state, following = work[-1]
            for nxt in following:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(again[nxt])))
                    break
                if nxt in on_stack:
                    low[state] = min(low[state], index[nxt])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[state])
                if low[state] == index[state]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == state:
                            break
                    found.append(group)
    found.reverse()  # Tarjan finds a group after every group it leads to
    return found
