"""Draws folded into the outcome the next block adds them to: `total += roll(10, 6)` run with its draw.

A block that only sets an outcome to the value just drawn, or adds it in, and
forgets it, runs with the draw (`Fold`): the states a group of states makes
are one for each new value of the outcome (`Sums`), not one for each pair of
a state and a value drawn; and where the outcome is carried (carry.py), the
draw is summed into its carried values (`sums_of`, carry.summed_into), so
that a loop of such draws runs one state a pass. `carried_at` tells carry.py
which blocks fold their draw, so that the outcome may be carried through them.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from fracas.dsl.nodes import Pos
from fracas.interpreter.core import carry, liveness, rt
from fracas.interpreter.core import dist as D
from fracas.interpreter.core.codegen import TRACED, Block, Generator, Routine
from fracas.interpreter.core.dist import Scaled
from fracas.interpreter.core.errors import too_many_states
from fracas.interpreter.core.state import Frozen
from fracas.interpreter.core.sums import SumTable
from fracas.interpreter.runtime.weights import long_products


def forgets_only(line: str, live: tuple[int, ...]) -> bool:
    """Whether a line only sets slots to none, none of them in `live`."""
    if line.startswith(" ") or not line.endswith("= None"):
        return False
    reads, writes, _ = liveness.slot_facts(line)
    return not reads and bool(writes) and not writes.intersection(live)


# As text: re compiles it when first used, so that a run of kept code compiles none.
_FOLD_LINE = r"rt\.set_outcome\(S, R, '([^']+)', '(=|\+=|-=)', F\[(\d+)\], (K\d+)\)"


class Fold:
    """A block that only sets an outcome to, or adds into it, the value just drawn (`total += roll(10, 6)`),
    then forgets: run with the draw, where the sums of the outcome's old value and each value drawn are
    the states it makes (as many as the sums, not as the pairs), and the block's own round is spared."""

    __slots__ = ("name", "op", "pos", "following", "slot")

    def __init__(self, name: str, op: str, pos: Pos, following: int, slot: int):
        self.name, self.op, self.pos, self.following, self.slot = name, op, pos, following, slot

    def keys(self, values: Iterable[Any], F: list[Any], rest: tuple[Any, ...], projection: liveness.Projection,
             R: Any) -> list[tuple[Any, ...]]:
        """The state after the block for each value drawn."""
        F[self.slot] = None
        kept = projection.keep(self.following, F)
        world, tail = rest[0], rest[2:]
        others, old = self.apart(R, rest[1])
        return [(kept, world, self.joined(R, others, new), *tail)  # type: ignore[misc]
                for new in self.news(old, values, R)]

    def news(self, old: Any, values: Iterable[Any], R: Any) -> list[Any]:
        """The outcome's new value for each value drawn (whole numbers added here, the common case)."""
        op, pos = self.op, self.pos
        if op == "=":
            return list(values)
        if op == "+=" and type(old) is int:
            return [old + value if type(value) is int else rt.combine(op, old, value, R, pos) for value in values]
        return [rt.combine(op, old, value, R, pos) for value in values]

    def apart(self, R: Any, outcomes: int) -> tuple[int, Any]:
        """Outcomes (by number) as the others (by number, this one none) and this one's value."""
        interned = R.interned
        assert interned is not None
        memo = interned.forgotten.setdefault(("fold apart", self.name), {})
        found = memo.get(outcomes)
        if found is None:
            before = interned.values[outcomes]
            without = Frozen(before)
            without[self.name] = None
            found = memo[outcomes] = (interned.made(without), before[self.name])
        return found  # type: ignore[no-any-return]

    def joined(self, R: Any, others: int, value: Any) -> int:
        """The outcomes (by number) of the others with this one's value."""
        interned = R.interned
        assert interned is not None
        memo = interned.forgotten.setdefault(("fold joined", self.name), {})
        found = memo.get((others, value))
        if found is None:
            after = Frozen(interned.values[others])
            after[self.name] = value
            found = memo[(others, value)] = interned.made(after)
        return found  # type: ignore[no-any-return]


class Sums:
    """The states a folded draw makes from a group of states, summed: the states that differ only in the
    outcome the fold changes (and draw the same distribution, over the same denominator) add their numerators
    into one table of the outcome's new values, and a state is made for each new value, not for each pair of
    a state and a value drawn (four 10d6 in a loop: 200 states and 51 values make 10,000 pairs and 250
    states). Whole numbers added to a range of whole numbers are summed as one product of polynomials
    (sums.SumTable); other folds pair by pair. The states come out in the order their first pair came, as
    the pairs would have."""

    __slots__ = ("fold", "projection", "R", "tables", "order", "made", "limit", "pos", "whole_draws")

    def __init__(self, fold: Fold, projection: liveness.Projection, R: Any, limit: int, pos: Pos):
        self.fold, self.projection, self.R = fold, projection, R
        # (frame kept, world, other outcomes, the rest of the state, the draw, denominator) -> the group's
        # sums: a SumTable, or a table of each new value's numerator (the draw kept in it, under _DRAWN)
        self.tables: dict[tuple[Any, ...], SumTable | dict[Any, int]] = {}
        # (group, its table, value), as first met
        self.order: list[tuple[tuple[Any, ...], SumTable | dict[Any, int], Any]] = []
        self.made: set[tuple[Any, ...]] = set()  # the states they make (groups of two draws may make one)
        # The states limit, checked as the states are met (as merging the pairs would have checked it), before
        # a sum met later can fail on its own account.
        self.limit, self.pos = limit, pos
        self.whole_draws: dict[int, bool] = {}  # a draw (by identity, kept alive by its group) -> all whole numbers

    def add(self, F: list[Any], rest: tuple[Any, ...], drawn: D.Dist, p: Any) -> None:
        fold = self.fold
        F[fold.slot] = None
        kept = self.projection.keep(fold.following, F)
        world, tail = rest[0], rest[2:]
        others, old = fold.apart(self.R, rest[1])
        top, bottom = (p.n, p.d) if type(p) is Scaled else (p.numerator, p.denominator)
        group = (kept, world, others, tail, id(drawn), bottom)
        steps = long_products(len(drawn.weights), bottom.bit_length(), drawn.total.bit_length())
        if steps:
            rt.spend(self.R, steps, self.pos)
        table = self.tables.get(group)
        if table is None:
            table = self.tables[group] = (
                SumTable(drawn) if fold.op == "+=" and SumTable.fits(drawn.weights) else {_DRAWN: drawn})
        if type(table) is SumTable and type(old) is int:
            for new in table.add(old, top):
                self._met(group, table, (kept, world, others, tail, new), new)
            return
        if type(table) is SumTable:  # an outcome that is not a whole number: the group is summed pair by pair
            table = self.tables[group] = self._paired(table)
        whole = self.whole_draws.get(id(drawn))
        if whole is None:  # looked at once a draw, not once a state
            whole = self.whole_draws[id(drawn)] = all(type(value) is int for value in drawn.weights)
        rt.spend(self.R, _pair_steps(len(drawn.weights), whole and type(old) is int, _PAIRS_IN_A_STEP), self.pos)
        get = table.get
        for new, weight in zip(fold.news(old, drawn.weights, self.R), drawn.weights.values()):
            before = get(new)
            if before is None:
                table[new] = top * weight
                self._met(group, table, (kept, world, others, tail, new), new)
            else:
                table[new] = before + top * weight

    def _spend(self, steps: int) -> None:
        rt.spend(self.R, steps, self.pos)

    def _met(self, group: tuple[Any, ...], table: Any, state: tuple[Any, ...], new: Any) -> None:
        self.order.append((group, table, new))
        made = self.made
        made.add(state)
        if len(made) > self.limit:
            raise too_many_states(self.pos, self.limit)

    def _paired(self, sums: SumTable) -> dict[Any, int]:
        """A group's sums so far as a plain table, the order's entries pointed at it."""
        table = {_DRAWN: sums.drawn, **sums.table(self._spend)}
        self.order = [(group, table if found is sums else found, value) for group, found, value in self.order]
        return table

    def states(self) -> Iterator[tuple[tuple[Any, ...], Any, int]]:
        fold, R = self.fold, self.R
        denominators: dict[int, int] = {}  # a group's, by its table: a long product, made once
        for (kept, world, others, tail, _, bottom), table, value in self.order:
            if type(table) is SumTable:
                numerator, total = table.table(self._spend)[value], table.drawn.total
            else:
                numerator, total = table[value], table[_DRAWN].total
            denominator = denominators.get(id(table))
            if denominator is None:
                denominator = denominators[id(table)] = bottom * total
            yield ((kept, world, fold.joined(R, others, value), *tail),  # type: ignore[misc]
                   Scaled(numerator, denominator), fold.following)


_DRAWN = object()  # where a table of Sums keeps its draw


def _pair_steps(pairs: int, whole: bool, covered: int = 0) -> int:
    """The engine's steps (a block run on a state) that summing so many pairs of an old value and a value
    drawn costs, less the `covered` ones a state's step pays for already: whole numbers add in about an
    eighth of a block run, other numbers (fractions, through `rt.combine`) in about half of one."""
    pairs = max(0, pairs - covered)
    return pairs // 8 if whole else pairs // 2


# The pairs of a draw folded into an uncarried state's outcome that its block run, charged as a step, pays
# for: a few dice faces cost no more than a block's run.
_PAIRS_IN_A_STEP = 8


def sums_of(fold: Fold, drawn: D.Dist, R: Any, pos: Pos) -> Callable[[list[tuple[Any, int]]], list[tuple[Any, int]]]:
    """For carry.summed_into: the new values of the outcome, each with its numerator, from its old values
    (each with a numerator, over one denominator) and the draw; in the order the pairs meet them.

    Charged as work before it is done, in the engine's steps (a block run on a state): two for each old
    value summed as polynomials (measured: a carried part costs about two block runs there), and pairs
    otherwise as _pair_steps charges them."""
    weights = drawn.weights
    whole = fold.op == "+=" and SumTable.fits(weights)
    drawn_whole = all(type(value) is int for value in weights)

    def sums(olds: list[tuple[Any, int]]) -> list[tuple[Any, int]]:
        olds_whole = all(type(old) is int for old, _ in olds)
        steps = long_products(len(olds) * len(weights), max(top.bit_length() for _, top in olds),
                              drawn.total.bit_length())
        if steps:
            rt.spend(R, steps, pos)
        if whole and olds_whole:
            rt.spend(R, 2 * len(olds), pos)
            table = SumTable(drawn)
            order = [new for old, top in olds for new in table.add(old, top)]
            found = table.table(lambda steps: rt.spend(R, steps, pos))
            return [(new, found[new]) for new in order]
        rt.spend(R, _pair_steps(len(olds) * len(weights), olds_whole and drawn_whole), pos)
        paired: dict[Any, int] = {}
        for old, top in olds:
            for new, weight in zip(fold.news(old, weights, R), weights.values()):
                paired[new] = paired.get(new, 0) + top * weight
        return list(paired.items())
    return sums


def folded(routine: Routine, draw: int, pc: int, slot: int, projection: liveness.Projection,
            gen: Generator) -> Fold | None:
    """The fold of block pc into the draw before it (block `draw`, into `slot`), if pc is a block that only
    takes the value into an outcome and forgets (see Fold), and both blocks carry no values, or both carry
    that outcome (see carry.summed_into)."""
    key = ("fold", draw, pc)
    found = projection.memo.get(key, False)
    if found is not False:
        return found  # type: ignore[no-any-return]
    found = fold_shape(routine, draw, pc, slot, projection, gen)
    carried = carried_at(routine, projection, gen)
    if found is not None and carried is not None and not (
            carried[draw] is carry.NONE and carried[pc] is carry.NONE
            or (carry.OUTCOME, found.name) in carried[draw] and (carry.OUTCOME, found.name) in carried[pc]):
        found = None
    projection.memo[key] = found
    return found


def fold_shape(routine: Routine, draw: int, pc: int, slot: int, projection: liveness.Projection,
               gen: Generator) -> Fold | None:
    """The fold of block pc into the draw before it, by the blocks' lines alone."""
    block = routine.blocks[pc]
    if not (isinstance(block, Block) and block.draw_slot is None and len(block.successors) == 1
            and not block.writes_world and pc not in routine.loops and block.lines):
        return None
    following = block.successors[0]
    live = projection.kept[following] if following >= 0 else projection.end
    first, *others = [line for line, _ in block.lines if not line.startswith(TRACED)] or [""]
    match = re.fullmatch(_FOLD_LINE, first)
    # The value is forgotten there, or never read again: a name's, drawn straight into it (`let x = roll(...)`),
    # may be read after.
    kept = slot in live and not any(f"F[{slot}] = " in line and line.endswith("= None") for line in others)
    if (match is None or int(match.group(3)) != slot or following == pc or kept
            or not all(line in (f"return {following}", f"F[{slot}] = None") or forgets_only(line, live)
                       for line in others)):
        return None
    pos = getattr(gen.namespace.get(match.group(4)), "pos", None)
    return None if pos is None else Fold(match.group(1), match.group(2), pos, following, slot)


def carried_at(routine: Routine, projection: liveness.Projection,
               gen: Generator) -> list[tuple[carry.Field, ...]] | None:
    """What each block's states carry (carry.carried_at), told which blocks fold a draw into an outcome: the
    outcome they fold may be carried through them, the draw summed into its carried values."""
    if projection.carried is False:
        # A fold block that some other block leads to would run as written there, with its outcome carried.
        reached = Counter(pc for following in routine.successors for pc in following)
        folds: dict[int, tuple[int, str]] = {}
        for draw, block in enumerate(routine.blocks):
            if isinstance(block, Block) and block.draw_slot is not None and len(block.successors) == 1:
                pc = block.successors[0]
                fold = (fold_shape(routine, draw, pc, block.draw_slot, projection, gen)
                        if pc >= 0 and reached[pc] == 1 else None)
                if fold is not None:
                    folds[pc] = (draw, fold.name)
        return carry.carried_at(routine, projection, folds)
    return carry.carried_at(routine, projection)
