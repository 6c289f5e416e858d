"""Readable text for people: odds tables, event logs, example results."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any

from fracas.dsl.records import record
from fracas.dsl.types import NUMERIC

from fracas.interpreter.api import (Distribution, Pool, Run, ScenarioError, Volley, approx, exact_text, show_plain,
                                   wilson_interval)
from fracas.interpreter.tools.words import counted

BAR_WIDTH = 30
INTERVAL = "95% interval"  # the heading of sampled odds' intervals
STOPPED = "stopped"  # why a resolution stopped early: a name every distribution may have
TINY = " <0.01%"  # a probability too small to show in hundredths of a percent, but not none


def percent(p: Fraction) -> str:
    if 0 < p < Fraction(1, 20000):
        return TINY
    if 1 - Fraction(1, 20000) <= p < 1:  # not certain: not shown as if it were
        return ">99.99%"
    hundredths = math.floor(p * 10000 + Fraction(1, 2))  # exactly, halves up: 1/32 is 3.13%, as a person rounds it
    return f"{_hundredths(hundredths):>6}%"


def _hundredths(count: int) -> str:
    """A count of hundredths of a percent as the percentage's digits: 313 is 3.13."""
    return f"{count // 100}.{count % 100:02d}"


def number(value: Fraction | None, fractions: bool) -> str:
    if value is None:
        return "-"
    shown = approx(value)
    if fractions and isinstance(value, Fraction) and value.denominator != 1:
        return f"{shown} (= {exact_text(value)})"
    return shown


def odds_table(dist: Distribution, fractions: bool = False, joint: tuple[str, str] | None = None) -> str:
    """The odds of each outcome; joint: two outcomes whose joint distribution ends the table (by default, the two
    that vary, where only two do)."""
    prepared = dist.prepared
    mode = "exact" if dist.mode == "exact" else f"estimated from {dist.samples} samples"
    lines = [f"{prepared.action.name} ({mode}, {counted(len(dist.states), 'final state')})"]
    certain, not_set = [], []
    for name in dist.outcome_names:
        marginal = dist.marginal(name)
        if name in dist.outcomes_not_set:
            not_set.append(f"{name} = {show_plain(next(iter(marginal)))}")
            continue
        if len(marginal) == 1:
            certain.append(f"{name} = {show_plain(next(iter(marginal)))}")
            continue
        at_least = dist.at_least(name)
        mean = dist.mean(name)
        header = f"\n{name}"
        if mean is not None:
            header += f"    mean {number(mean, fractions)}"
            variance = dist.variance(name)
            if variance is not None:
                header += f"    sd {approx(variance, root=True)}"
        lines.append(header)
        rows = _tails_gathered(marginal, every=fractions)
        width = max([len("value")] + [len(label) for label, *_ in rows])
        # Sampled odds: each with its 95% interval, in a column of its own under its own heading.
        intervals = {value: "[{:.2f}, {:.2f}]".format(*(bound * 100 for bound in wilson_interval(p, dist.samples)))
                     for value, p in marginal.items()} if dist.mode == "estimate" else {}
        spread = max([len(INTERVAL), *map(len, intervals.values())]) if intervals else 0
        heading = f"  {INTERVAL:<{spread}}" if intervals else ""
        lines.append(f"  {'value':>{width}}  {'p':>7}{heading}  {'at least' if at_least else '':>8}")
        top = max(marginal.values())
        for label, first, values, p in rows:
            ge = percent(at_least[first]) if at_least else ""
            if len(values) > 1:  # a tail of values each too unlikely to show: one line for them all
                together = f"{len(values)} values, {percent(p).strip()} together"
                lines.append(f"  {label:>{width}}  {TINY}{' ' * (spread + 2) if intervals else ''}"
                             f"  {ge:>8}  ({together})")
                continue
            blocks = round(float(p / top) * BAR_WIDTH)
            bar = "█" * blocks if blocks else "▏" if p else ""  # a sliver: possible, but too unlikely for a block
            exact = f"  {exact_text(p)}" if fractions else ""
            error = f"  {intervals[first]:<{spread}}" if intervals else ""
            lines.append(f"  {label:>{width}}  {percent(p)}{error}  {ge:>8}  {bar}{exact}")
    varying = [name for name in dist.outcome_names if len(dist.marginal(name)) > 1]
    if joint is not None:
        lines.append(joint_grid(dist, *joint))
    elif len(varying) == 2:
        fitting = [pair for pair in (tuple(varying), tuple(reversed(varying))) if _grid_fits(dist, *pair)]
        if fitting:
            lines.append(joint_grid(dist, *fitting[0]))
        else:  # a grid of hundreds of rows, or wider than a terminal, only when asked for
            sizes = " by ".join(str(len(dist.marginal(name))) for name in varying)
            lines.append(f"\n{varying[0]} and {varying[1]} vary together ({sizes} values, too many for a grid here): "
                         f"--joint {','.join(varying)} ends the table with them as a grid")
    elif len(varying) > 2:
        shown = sorted(varying, key=lambda name: dist.mean(name) is None)[:2]  # outcomes of numbers first
        lines.append(f"\n{len(varying)} outcomes vary: --joint {','.join(shown)} ends the table with those two "
                     "together, as a grid")
    if certain:
        # Samples can only show a value every one of them gave, not that it is certain.
        label = "certain" if dist.mode == "exact" else f"in all {dist.samples} samples"
        lines.append(f"\n{label}: " + ", ".join(certain))
    if not_set:
        lines.append(f"\nnot set by {prepared.action.name}: " + ", ".join(not_set))
    if dist.mode == "estimate":
        lines.append(f"\n{unseen_bound(dist.samples)}")
    return "\n".join(lines)


TAIL_FROM = 20  # values of an outcome past which its unlikely ends are gathered, each into one line
TAIL_LEAST = 5  # values a gathered tail holds at least


def _tails_gathered(marginal: dict[Any, Fraction], every: bool = False) -> list[tuple[str, Any, list[Any], Fraction]]:
    """The rows of an outcome's table, as _spans gives them: each its label, its first value, its values and their
    probability together. every: each value alone all the same, as --fractions shows them (the JSON and the CSV
    keep every value too)."""
    values, ps = list(marginal), list(marginal.values())
    spans = [range(i, i + 1) for i in range(len(values))] if every else _spans(values, [_tiny(p) for p in ps])
    return [(_span_label(values, span), values[span[0]], [values[i] for i in span],
             sum((ps[i] for i in span), Fraction(0))) for span in spans]


def _tiny(p: Fraction) -> bool:
    """Whether a probability shows as below 0.01%, or as none."""
    return p < Fraction(1, 20000)


def _spans(values: list[Any], tiny: list[bool]) -> list[range]:
    """The rows of a table of these values (in order), as the places of the values each shows: one value each, but
    where there are more than TAIL_FROM numbers, the run at either end of the `tiny` ones (each below 0.01%) as one
    row, where it holds TAIL_LEAST or more. None, which comes first or last, is shown apart, however rare."""
    singles = [range(i, i + 1) for i in range(len(values))]
    start = next((i for i, value in enumerate(values) if value is not None), len(values))
    end = len(values) - next((i for i, value in enumerate(reversed(values)) if value is not None), len(values))
    numbers = values[start:end]
    if len(numbers) <= TAIL_FROM or not all(type(value) in (int, Fraction) for value in numbers):
        return singles
    low = next((i for i, small in enumerate(tiny[start:end]) if not small), len(numbers))
    high = next((i for i, small in enumerate(reversed(tiny[start:end])) if not small), len(numbers))
    if low + high >= len(numbers):  # every value unlikely: shown as they are
        return singles
    head = [range(start, start + low)] if low >= TAIL_LEAST else singles[start:start + low]
    tail = [range(end - high, end)] if high >= TAIL_LEAST else singles[end - high:end]
    return singles[:start] + head + singles[start + low:end - high] + tail + singles[end:]


def _span_label(values: list[Any], span: range) -> str:
    first = show_plain(values[span[0]])
    return first if len(span) == 1 else f"{first}..{show_plain(values[span[-1]])}"


def unseen_bound(samples: int) -> str:
    """What a sampled table says of the values it leaves out, those no run gave: how likely each may be at most,
    the top of the Wilson interval of a share never seen (about 3.84 in `samples`), rounded up: a bound."""
    hundredths = max(1, math.ceil(wilson_interval(Fraction(0), samples)[1] * 10000))
    return f"values no sample gave are not shown: each has a probability below {_hundredths(hundredths)}% (95%)"


GRID_WIDTH = 120  # characters of a joint grid shown unasked, at most
GRID_ROWS = 60  # and its rows


def _grid_fits(dist: Distribution, down: str, across: str) -> bool:
    """Whether the grid of these two outcomes is small enough to end an odds table unasked."""
    label, width = _grid_widths(dist, down, across)
    return len(dist.marginal(down)) <= GRID_ROWS and label + 2 + width * len(dist.marginal(across)) <= GRID_WIDTH


def _grid_widths(dist: Distribution, down: str, across: str) -> tuple[int, int]:
    """The width of a joint grid's first column (the values down) and of each other (a value across, a percentage)."""
    label = max(len(down), *(len(show_plain(r)) for r in dist.marginal(down)))
    return label, max(7, *(len(show_plain(c)) + 1 for c in dist.marginal(across)))


def joint_grid(dist: Distribution, down: str, across: str) -> str:
    """The joint distribution of two outcomes as a grid of percentages."""
    cells: dict[tuple[Any, Any], Fraction] = {}
    for values, p in dist.joint():
        key = (values[down], values[across])
        cells[key] = cells.get(key, Fraction(0)) + p
    down_marginal = dist.marginal(down)
    rows = list(down_marginal)
    columns = list(dist.marginal(across))
    # The rows at either end each below 0.01% are one, as the outcome's own table shows them.
    spans = _spans(rows, [_tiny(p) for p in down_marginal.values()])
    labels = [_span_label(rows, span) for span in spans]
    label, width = _grid_widths(dist, down, across)
    label = max(label, *map(len, labels))
    out = [f"\njoint: {down} (down) by {across} (across)",
           " " * (label + 2) + "".join(f"{show_plain(c):>{width}}" for c in columns)]
    for span, row_label in zip(spans, labels):
        shown = []
        for column in columns:
            p = sum((cells.get((rows[i], column), Fraction(0)) for i in span), Fraction(0))
            shown.append(f"{percent(p).strip():>{width}}" if p else f"{'.':>{width}}")
        out.append(f"  {row_label:>{label}}" + "".join(shown))
    return "\n".join(out)


def side_by_side(dists: list[Distribution], names: list[str], title: str) -> str:
    """Several distributions of the same outcomes in columns; with two, the change in each mean.

    Outcomes are compared only where their types agree (an int and a number
    do): `true` and 1 are equal in Python but not the same result. A column
    whose rules do not declare an outcome says so instead of showing 0%.
    """
    width = max(10, *(len(name) for name in names))
    sampled = [dist.samples for dist in dists if dist.mode == "estimate"]
    if sampled:  # not exact: said, as the table of one distribution says it
        title += f" (estimated from {sampled[0]} samples each)"
    outcome_names = list(dict.fromkeys(name for dist in dists for name in dist.outcome_names))
    shown: dict[str, list[_Column]] = {}  # the outcomes not certain in every column, with their columns
    same, not_set = [], []
    for outcome in outcome_names:
        columns = [_Column.of(dist, outcome) for dist in dists]
        certain = _certain_in_every(columns)
        if certain is None:
            shown[outcome] = columns
        elif all(outcome in dist.outcomes_not_set for dist in dists):
            not_set.append(f"{outcome} = {show_plain(certain)}")
        else:
            same.append(f"{outcome} = {show_plain(certain)}")
    # The values' column is as wide as the longest value shown, so that every row's columns line up.
    values = max([10, *(len(show_plain(value)) for columns in shown.values() for c in columns for value in c.marginal)])
    lines = [title, "\n" + " " * (values + 2) + "  ".join(f"{name:>{width}}" for name in names)]
    for outcome, columns in shown.items():
        lines.append(_outcome_header(outcome, columns, names))
        lines.extend(_value_rows(columns, values, width, dists[0].value_key))
        if len({c.category for c in columns if c.declared}) == 1:
            lines.extend(_mean_row(dists, columns, outcome, values, width))
    if same:
        lines.append("\ncertain in every column: " + ", ".join(same))
    if not_set:
        actions = {dist.prepared.action.name for dist in dists}
        lines.append(f"\nnot set by {actions.pop() if len(actions) == 1 else 'the actions'}: " + ", ".join(not_set))
    return "\n".join(lines)


def marginal_of(dist: Distribution, outcome: str) -> dict[Any, Fraction]:
    """An outcome's marginal as a comparison shows it: `stopped` always "" where a distribution never stopped,
    nothing where its rules do not declare the outcome."""
    return _Column.of(dist, outcome).marginal


def comparable(dists: list[Distribution], outcome: str) -> bool:
    """Whether every distribution declares the outcome with types that may be compared (an int and a number may)."""
    columns = [_Column.of(dist, outcome) for dist in dists]
    return all(c.declared for c in columns) and len({c.category for c in columns}) == 1


@record(frozen=True)
class _Column:
    """One outcome in one distribution: its declared type and its marginal, or not declared at all."""

    written: str | None  # its type as written in the rules; None when they do not declare the outcome
    category: str | None  # what it may be compared with: int and number are both "number"
    marginal: dict[Any, Fraction]

    @property
    def declared(self) -> bool:
        return self.written is not None

    @staticmethod
    def of(dist: Distribution, outcome: str) -> _Column:
        declared = dist.prepared.rules.outcomes.get(outcome)
        if declared is not None:
            kind = declared.type
            category = "number" if kind.name in NUMERIC else str(kind.required())
            return _Column(str(kind), category, dist.marginal(outcome))
        if outcome == STOPPED:
            # Every resolution may stop; a distribution that never did lists no `stopped`, as if always "".
            marginal = dist.marginal(outcome) if outcome in dist.outcome_names else {"": Fraction(1)}
            return _Column("text", "text", marginal)
        return _Column(None, None, {})


def _certain_in_every(columns: list[_Column]) -> Any | None:
    """The one value an outcome always takes in every column, if it does (and is comparable there)."""
    if not all(c.declared for c in columns) or len({c.category for c in columns}) != 1:
        return None
    first = columns[0].marginal
    if len(first) != 1 or any(c.marginal != first for c in columns):
        return None
    return next(iter(first))


def _outcome_header(outcome: str, columns: list[_Column], names: list[str]) -> str:
    notes = []
    if len({c.category for c in columns if c.declared}) > 1:
        notes.append("types differ: " + ", ".join(f"{c.written} in {name}"
                                                  for c, name in zip(columns, names) if c.declared))
    missing = [name for c, name in zip(columns, names) if not c.declared]
    if missing:
        notes.append("not declared in " + ", ".join(missing))
    return outcome + "".join(f"    {note}" for note in notes)


def _value_rows(columns: list[_Column], values_width: int, width: int, key: Callable[[Any], tuple]) -> list[str]:
    """One row per value, grouped by type, in the order `key` gives; a column shows only values of its own type."""
    rows = []
    for category in dict.fromkeys(c.category for c in columns if c.declared):
        own = [c for c in columns if c.category == category]
        values = sorted({v for c in own for v in c.marginal}, key=key)
        for span in _spans(values, [all(_tiny(c.marginal.get(value, Fraction(0))) for c in own) for value in values]):
            cells = "  ".join(f"{_share(c, category, [values[i] for i in span]):>{width}}" for c in columns)
            together = f"  ({len(span)} values)" if len(span) > 1 else ""
            rows.append(f"  {_span_label(values, span):>{values_width}}{cells}{together}".rstrip())
    return rows


def _share(column: _Column, category: str | None, values: list[Any]) -> str:
    if not column.declared:
        return "-"
    if column.category != category:
        return ""  # a value of another type: this column has no such row
    return percent(sum((column.marginal.get(value, Fraction(0)) for value in values), Fraction(0)))


def _mean_row(dists: list[Distribution], columns: list[_Column], outcome: str, values_width: int,
              width: int) -> list[str]:
    means = [d.mean(outcome) if c.declared and outcome in d.outcome_names else None for d, c in zip(dists, columns)]
    if all(mean is None for mean in means):
        return []
    row = "  ".join(f"{'-' if mean is None else approx(mean):>{width}}" for mean in means)
    change = ""
    if len(means) == 2 and means[0] is not None and means[1] is not None:
        change = f"   change {approx(means[1] - means[0], '+.4g')}"
    return [f"  {'mean':>{values_width}}{row}{change}"]


def odds_csv(dists: list[Distribution], labels: list[str]) -> str:
    """One row per outcome value (and per column of a comparison): exact and decimal probabilities."""
    buffer = io.StringIO()
    out = csv.writer(buffer, lineterminator="\n")
    out.writerow(["rules_or_option", "outcome", "value", "probability", "probability_decimal",
                  "at_least", "at_least_decimal", "samples"])  # samples: empty where the odds are exact
    for dist, label in zip(dists, labels):
        for name in dist.outcome_names:
            at_least = dist.at_least(name)
            for value, p in dist.marginal(name).items():
                ge = at_least.get(value)
                out.writerow([label, name, show_plain(value), exact_text(p), f"{float(p):.6f}",
                              "" if ge is None else exact_text(ge), "" if ge is None else f"{float(ge):.6f}",
                              dist.samples if dist.mode == "estimate" else ""])
    return buffer.getvalue()


def _cell(case: Any) -> str:
    if case is None:
        return "-"
    text = approx(case.value)
    if not case.estimated:
        return text
    return f"~{text}" if case.margin is None else f"~{text} ±{case.margin:.2g}"


def sweep_matrix(varies: list[Any], cases: list[Any]) -> tuple[list[str], list[str], list[list[Any]]]:
    """Rows by the first varied value, columns by the second (or one column)."""
    by_settings = {case.settings: case for case in cases}
    rows = [show_plain(v) for v in varies[0].values]
    if len(varies) == 1:
        return rows, ["value"], [[by_settings.get((v,))] for v in varies[0].values]
    columns = [show_plain(v) for v in varies[1].values]
    cells = [[by_settings.get((r, c)) for c in varies[1].values] for r in varies[0].values]
    return rows, columns, cells


def sweep_text(varies: list[Any], cases: list[Any], metric: str) -> str:
    lines = [f"{metric} over " + " by ".join(v.path for v in varies)]
    if len(varies) <= 2:
        rows, columns, cells = sweep_matrix(varies, cases)
        head = varies[0].path if len(varies) == 1 else f"{varies[0].path} \\ {varies[1].path}"
        label = max(len(head), *(len(r) for r in rows))
        width = max(10, *(len(c) + 2 for c in columns), *(len(_cell(c)) + 2 for row in cells for c in row))
        lines.append(f"\n{head:<{label}}" + "".join(f"{c:>{width}}" for c in columns))
        for name, row in zip(rows, cells):
            lines.append(f"{name:<{label}}" + "".join(f"{_cell(c):>{width}}" for c in row))
    else:
        for case in cases:
            shown = ", ".join(f"{v.path}={show_plain(s)}" for v, s in zip(varies, case.settings))
            lines.append(f"  {shown}: {_cell(case)}")
    if any(case.estimated for case in cases):
        lines.append("\n~ estimated by sampling (the exact engine reached its state or work limit); ± half a 95% interval")
    if any(case.estimated and case.margin is None for case in cases):
        lines.append("  (none for a true-or-false metric, from fewer than 2 samples, or where every run agreed)")
    return "\n".join(lines)


def sweep_csv(varies: list[Any], cases: list[Any], metric: str) -> str:
    buffer = io.StringIO()
    out = csv.writer(buffer, lineterminator="\n")
    out.writerow([v.path for v in varies] + ["metric", "value", "value_decimal", "estimated", "margin_95"])
    for case in cases:
        exact = exact_text(case.value) if isinstance(case.value, Fraction) and not case.estimated else ""
        out.writerow([show_plain(s) for s in case.settings] + [metric, exact, approx(case.value, ".6f"),
                                                               str(case.estimated).lower(),
                                                               "" if case.margin is None else f"{case.margin:.6f}"])
    return buffer.getvalue()


def _summary(dist: Distribution, state: Any, asked: str) -> tuple[tuple[str, str], ...]:
    """What a final state records beside the outcome asked about, as (what, the line that shows it): the other
    outcomes the action sets, changed fields of things, and the action's locals."""
    start = dist.prepared.start
    values = dist.values(state)
    parts = [(name, f"{name} = {show_plain(values[name])}") for name in dist.outcome_names
             if name != asked and name != STOPPED and name not in dist.outcomes_not_set]
    for entity, fields in state.world.items():
        before = start.world.get(entity)
        for field, value in fields.items():
            if before is None or before.get(field) != value:
                parts.append((f"{entity}.{field}", f"{entity}.{field}" + _changed(before and before.get(field), value)))
    params = {p.name for p in dist.prepared.action.params}
    types = dist.prepared.rules.action_locals.get(dist.prepared.action.name, {})
    for name, value in state.frames[0].items():
        if name in params:
            continue
        if value is None and name in types and not types[name].optional and types[name].name not in ("none", "any"):
            continue  # a local this way never reached (a stop before its let): none is no value it can hold
        if isinstance(value, Pool):
            owners: dict[str, list[int]] = {}
            for body in value.bodies:
                key = show_plain(body.owner) + (f" ({body.tag})" if body.tag else "")
                lethal, total = owners.get(key, [0, 0])
                owners[key] = [lethal + int(body.lethal), total + 1]
            shown = ", ".join(f"{k} {v[0]}/{v[1]} lethal" for k, v in owners.items())
            parts.append((name, f"{name}: {shown}"))
        elif not isinstance(value, (Volley, tuple)):
            parts.append((name, f"{name} = {show_plain(value)}"))
    if state.stopped:
        parts.append(("stopped", f"stopped: {state.stopped}"))
    return tuple(parts)


def _changed(before: Any, value: Any) -> str:
    """A field's new value, as a line of --why shows it: a list that lost some of its items (a deck drawn from) by
    what it lost, the rest in full."""
    if isinstance(before, tuple) and isinstance(value, tuple) and len(value) < len(before):
        kept, taken = 0, []
        for item in before:
            if kept < len(value) and value[kept] == item:
                kept += 1
            else:
                taken.append(item)
        if kept == len(value):  # the items left, in the order they began in: the rest were taken out
            return f": {show_plain(tuple(taken))[1:-1]} taken out ({len(taken)} of its {counted(len(before), 'item')})"
    return f" = {show_plain(value)}"


def _as_it_began(dist: Distribution, ways: list[tuple[tuple[str, str], ...]]) -> list[tuple[tuple[str, bool], ...]]:
    """Each way's lines, each with whether it shows a field as it began: a field that another way changes is
    shown where this one leaves it, so that the ways compare field by field."""
    start = dist.prepared.start.world
    changed: dict[str, str] = {}  # the fields some way changes, each as it began
    for parts in ways:
        for what, _ in parts:
            entity, _, field = what.rpartition(".")  # a thing held by another is named by its path: `w.a`
            if field and what not in changed and entity in start and start[entity].has(field):
                changed[what] = f"{what} = {show_plain(start[entity].get(field))}"
    entities = {entity: i for i, entity in enumerate(start)}

    def placed(what: str) -> tuple[int, int]:  # in the things' order, each thing's fields in its kind's
        entity, _, field = what.rpartition(".")
        return entities[entity], start[entity].shape.index[field]

    in_order = sorted(changed, key=placed)
    return [tuple((line, False) for _, line in parts)
            + tuple((changed[what], True) for what in in_order if what not in dict(parts))
            for parts in ways]


_SHORT_FRACTION = 30  # characters of an exact probability shown beside its percentage without being asked


def _beside(p: Fraction, fractions: bool) -> str:
    """An exact probability, in brackets after its percentage: where it is short, or asked for."""
    text = exact_text(p)
    return f" ({text})" if fractions or len(text) <= _SHORT_FRACTION else ""


def why_text(dist: Distribution, name: str, value: Any, most: int = 5, fractions: bool = False) -> str:
    """The main ways an outcome value comes about, with their probabilities: exact ones too where they are short,
    or all of them (`fractions`)."""
    found: dict[tuple[tuple[str, str], ...], Fraction] = {}
    for state, p in dist.states.items():
        if dist.values(state).get(name) == value:
            key = _summary(dist, state, name)
            found[key] = found.get(key, Fraction(0)) + p
    ways: dict[tuple[tuple[str, bool], ...], Fraction] = {}
    for parts, p in zip(_as_it_began(dist, list(found)), found.values()):
        ways[parts] = ways.get(parts, Fraction(0)) + p
    total = sum(ways.values(), Fraction(0))
    lines = [f"why {name} = {show_plain(value)}: probability {percent(total).strip()}{_beside(total, fractions)}, "
             f"{counted(len(ways), 'way')}"]
    # What every way holds is said once, before them: the ways then show only what tells them apart.
    shared = set.intersection(*(set(parts) for parts in ways)) if len(ways) > 1 else set()
    if shared:
        lines.append(f"\nin {'both' if len(ways) == 2 else f'all {len(ways)}'} ways:")
        lines.extend(f"     {line}" for line, kept in next(iter(ways)) if (line, kept) in shared)
    ranked = sorted(ways.items(), key=lambda kv: (-kv[1], kv[0]))
    for rank, (parts, p) in enumerate(ranked[:most], 1):
        lines.append(f"\n{rank}. {percent(p).strip()} of all resolutions{_beside(p, fractions)}, "
                     f"{percent(p / total).strip()} of these")
        told = [line for line, kept in parts if not kept and (line, kept) not in shared]
        left = [line for line, kept in parts if kept]  # never shared: another way changes each
        if left:
            told.append("as they began: " + ", ".join(left))
        lines.extend(f"     {part}" for part in told or ("(nothing else changes)",))
    if len(ranked) > most:
        rest = sum((p for _, p in ranked[most:]), Fraction(0))
        lines.append(f"\n... and {counted(len(ranked) - most, 'more way')}, {percent(rest).strip()} together")
    if not fractions and any(len(exact_text(p)) > _SHORT_FRACTION for p in [total, *(p for _, p in ranked[:most])]):
        lines.append(f"\n(exact fractions longer than {_SHORT_FRACTION} characters are left out: --fractions shows them)")
    return "\n".join(lines)


def explain_text(run: Run) -> str:
    """The resolution as a readable trace: every step, body, modifier, shot, exit and change, with its rule; a
    step's events under it, indented as deep as the steps it runs within."""
    rules = run.prepared.rules
    shown = [event for event in run.events if event["kind"] != "end"]
    lines = [f"{run.prepared.action.name} (seed {run.seed}): {counted(len(shown), 'event')}"]
    overflow: list[int] = []  # shots that changed nothing, in a row: one line for them all
    overflow_depth = 0

    def flush() -> None:
        if overflow:
            shots = f"shot {overflow[0]}" if len(overflow) == 1 else f"shots {overflow[0]} to {overflow[-1]}"
            lines.append(f"{'  ' * overflow_depth}{'shot':<8} {shots}: every body has taken lethal damage; they "
                         "change nothing")
            overflow.clear()

    for event, depth in _nested(run.events):
        if event["kind"] == "shot" and event.get("overflow"):
            if overflow and (depth != overflow_depth or event["shot"] != overflow[-1] + 1):  # another volley's
                flush()
            overflow.append(event["shot"])
            overflow_depth = depth
            continue
        flush()
        place = f"{event['file']}:{event['line']}" if event["line"] else ""
        source = rules.sources.get(event["file"])
        rule = source.line(event["line"]).strip() if source and event["line"] else ""
        if event["kind"] == "step":
            called = f", called at line {event['called_at']}" if event.get("called_at") else ""
            lines.append(f"\n{'  ' * depth}{event['text']}    ({place}{called})")
            continue
        text = event["text"].removeprefix(f"{event['kind']}: ")  # `stop: reason` under the kind `stop`: once
        lines.append(f"{'  ' * depth}{event['kind']:<8} {text}")
        if rule and event["kind"] not in ("shot",):
            lines.append(f"{'  ' * depth}{'':<8}   <- {place}: {rule}")
    flush()
    if run.stopped:
        lines.append(f"\nstopped: {run.stopped}")
    unset = run.outcomes_not_set
    lines.append("\noutcomes: " + ", ".join(f"{k} = {show_plain(v)}" for k, v in run.outcomes.items() if k not in unset))
    if unset:
        lines.append(_not_set_text(run, unset))
    return "\n".join(lines)


def _nested(events: list[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], int]]:
    """Each event but a step's end, with the number of steps it runs within (a step's own header: those it is
    called within). A step that stops the resolution never ends."""
    depth = 0
    for event in events:
        kind = event["kind"]
        if kind == "end":
            depth = max(0, depth - 1)
            continue
        yield event, depth
        if kind == "step":
            depth += 1


def _not_set_text(run: Run, unset: tuple[str, ...]) -> str:
    """The outcomes a run's action never sets (`unset`), as odds lists them: with their starting values, which no
    rule of the action gave them."""
    return f"not set by {run.prepared.action.name}: " + ", ".join(
        f"{name} = {show_plain(run.outcomes[name])}" for name in unset)


def run_text(run: Run, state_toml: str | ScenarioError) -> str:
    """A sampled run: its events, its outcomes and the state it leaves (or why that cannot be written)."""
    lines = [f"{run.prepared.action.name} (seed {run.seed})" if run.seed is not None else run.prepared.action.name]
    lines.append("\nevents")
    for event, depth in _nested(run.events):
        lines.append(f"  line {event['line']:>4}  {'  ' * depth}{event['text']}")
    if not run.events:
        lines.append("  (none)")
    lines.append("\noutcomes")
    unset = run.outcomes_not_set
    for name, value in run.outcomes.items():
        if name not in unset:
            lines.append(f"  {name} = {show_plain(value)}")
    if unset:
        lines.append("  " + _not_set_text(run, unset))
    if run.stopped:
        lines.append(f"  stopped: {run.stopped}")
    lines.append("\nstate")
    if isinstance(state_toml, ScenarioError):
        lines.append("  (not writable as a state file; --write-state says why)")
        lines.extend(f"  {d.message}" for d in state_toml.diagnostics)
    else:
        lines.extend(("  " + line).rstrip() for line in state_toml.rstrip().splitlines())  # no blanks at an end
    return "\n".join(lines)

