"""The exact engine's shortcuts, each of which can be turned off: a run without them is the reference a
run with them must equal, probability for probability. And a count of the blocks the engine runs, which
tells a shortcut taken."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import pytest

from fracas import dsl
from fracas.interpreter.core import carry, codegen, engines, folds, lanes, liveness, resolve, tails
from fracas.interpreter.core.codegen import Generator, generator_for


def without_carrying(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(carry, "carried_at", lambda routine, projection, folds=None: None)


def without_going_past(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engines, "_pass_through", lambda *facts: {})


def without_folding(monkeypatch: pytest.MonkeyPatch) -> None:
    """No draw folded into the block after it, and so no outcome carried through the blocks that fold it:
    what the blocks carry is worked out afresh, told of no folds (not read from a projection that was)."""
    monkeypatch.setattr(folds, "folded", lambda *facts: None)
    carried_at = carry.carried_at

    def told_of_no_folds(routine, projection, folds=None):
        unfolded = liveness.Projection(projection.live, projection.slots,
                                       liveness.Live(frozenset(projection.end), frozenset()), projection.touched)
        return carried_at(routine, unfolded)

    monkeypatch.setattr(carry, "carried_at", told_of_no_folds)


def without_skipping_worlds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every world on its way to a block looked at for fields to forget, even where none can be dead."""
    monkeypatch.setattr(liveness.Projection, "_may_forget", lambda self, pc, live: True)


def without_skipping_dead_writes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every field a rule changes changed in the world, even where no later rule reads it."""
    monkeypatch.setattr(liveness.Projection, "dead_writes", lambda self, routine, namespace: frozenset())


def without_running_tails_straight(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every state past the last draw run block by block, as the engine runs the rest."""
    monkeypatch.setattr(tails, "tail_of", lambda routine, projection: frozenset())


def without_running_tails_in_lanes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every combination of the values a tail reads run through all of its lines."""
    monkeypatch.setattr(tails, "lanes_for", lambda *facts: None)


def without_grouping_tail_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each state that reaches a tail in lanes puts its rows together one by one, though others carry the same
    parts."""
    monkeypatch.setattr(lanes, "_parts_key", lambda lanes, carried, S0: None)


def without_gathering_draws(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every state a draw makes sent on alone, to meet the others where they wait."""
    monkeypatch.setattr(engines, "_gathered_at", lambda *facts: None)


def without_finding_cells_by_value(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each value a gathered draw makes finds the state it meets by the state's whole key."""
    monkeypatch.setattr(engines, "_BY_VALUE", float("inf"))


def without_counting_pools(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every drawn pool drawn whole, even where the rest of its step only counts its bodies."""
    monkeypatch.setattr(Generator, "counted_draws", lambda self: frozenset())


def without_drawing_into_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every value drawn into a slot of its own, and copied into the name that takes it whole in a block of its
    own: the code made afresh for the rules loaded from now on, none of it read back or kept."""
    monkeypatch.setattr(codegen.RoutineBuilder, "drawn_alone", lambda self, value, scope: None)
    monkeypatch.setattr(codegen, "kept_for", lambda rules: None)
    monkeypatch.setattr(resolve, "keep_if_grown", lambda gen: None)


SHORTCUTS: dict[str, Callable[[pytest.MonkeyPatch], None]] = {
    "carrying-fields": without_carrying, "going-past-blocks": without_going_past,
    "folding-draws-into-outcomes": without_folding, "skipping-worlds-that-forget-nothing": without_skipping_worlds,
    "skipping-dead-field-changes": without_skipping_dead_writes, "running-tails-straight": without_running_tails_straight,
    "running-tails-in-lanes": without_running_tails_in_lanes, "grouping-tail-rows": without_grouping_tail_rows,
    "counting-pools": without_counting_pools,
    "gathering-draws": without_gathering_draws, "finding-cells-by-value": without_finding_cells_by_value,
    "drawing-into-names": without_drawing_into_names}


def block_runs(monkeypatch: pytest.MonkeyPatch) -> Counter:
    """How many states each block of the exact engine runs on, counted from now on."""
    runs: Counter = Counter()
    run_block = engines._block_all

    def counted(routine, pc, group, *rest):
        runs[pc] += len(group)
        return run_block(routine, pc, group, *rest)

    monkeypatch.setattr(engines, "_block_all", counted)
    return runs


def block_calls(rules: dsl.Ruleset, action: str, monkeypatch: pytest.MonkeyPatch) -> Counter:
    """How many times each block's code runs, whoever runs it."""
    calls: Counter = Counter()
    routine = generator_for(rules).routines[action]

    def counting(pc, function):
        def counted(S, R):
            calls[pc] += 1
            return function(S, R)
        return counted

    monkeypatch.setattr(routine, "functions", [None if function is None else counting(pc, function)
                                               for pc, function in enumerate(routine.functions)])
    return calls


def without_any(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every shortcut off at once (folding's own carrying is off with carrying's)."""
    for name, turn_off in SHORTCUTS.items():
        if name != "folding-draws-into-outcomes":
            turn_off(monkeypatch)
    monkeypatch.setattr(folds, "folded", lambda *facts: None)
