"""Pictures for people: distributions and "at least" curves, and sweep heatmaps (optional matplotlib)."""

from __future__ import annotations

import math

from pathlib import Path
from fractions import Fraction
from collections.abc import Callable
from typing import Any

from fracas.interpreter.api import Distribution, show_plain
from fracas.interpreter.tools.files import write_atomically
from fracas.interpreter.tools.report import marginal_of

LABELLED = 20  # values of numbers labelled each under its bar, at most: more are read off a scale
# Narrowest gaps between numbers that their spread may hold, for them to stand at their places (twice as many as
# there are values at least: 3d100's 298 values side by side stand at theirs).
SPREAD_MOST = 200

INSTALL_HINT = "plots need matplotlib: pip install 'fracas[plot]' (or pip install matplotlib)"


class PlotUnavailable(Exception):
    pass


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")  # no screen needed
        import matplotlib.pyplot as plt
    except ImportError:
        raise PlotUnavailable(INSTALL_HINT) from None
    return plt


# The formats a picture is drawn in, named by the file's suffix: what matplotlib writes without extras.
FORMATS = ("png", "svg", "pdf")


def picture_format(path: Path) -> str | None:
    """The format a file name asks for (out.svg: svg), or None when it names none fracas draws."""
    suffix = path.suffix[1:].lower()
    return suffix if suffix in FORMATS else None


def _save(figure: Any, path: Path) -> None:
    kind = picture_format(path)
    if kind is None:
        raise ValueError(f"{path}: a picture is drawn as " + ", ".join(f".{f}" for f in FORMATS))
    write_atomically(path, lambda temp: figure.savefig(temp, format=kind, dpi=100))


def plot_distributions(dists: list[Distribution], labels: list[str], path: Path, title: str) -> None:
    plt = _pyplot()
    # Every distribution's outcomes (the rules compared may declare others), each as a comparison shows it.
    every = list(dict.fromkeys(name for d in dists for name in d.outcome_names))
    names = [name for name in every if any(len(marginal_of(d, name)) > 1 for d in dists)] or every[:1]
    # Laid out by constraint, which leaves room for the figure's title: tight_layout drew it over the first plot's.
    figure, axes = plt.subplots(len(names), 1, figsize=(8, 2.8 * len(names)), squeeze=False, layout="constrained")
    for axis, name in zip(axes[:, 0], names):
        # Each value by its order key, which keeps true apart from 1 (equal in Python, not the same result), as the
        # comparison's text keeps them.
        marginals = [{_plot_order(v): p for v, p in marginal_of(d, name).items()} for d in dists]
        values = _along_axis(marginals, dists[0].value_key)
        numbers = all(kind == "number" for kind, _ in values)
        # Numbers stand at their own places (456 is not next to 480 because no value between was met), unless the
        # narrowest gap is too small a part of their spread to see a bar in (0, 1 and 10000); other values one step
        # apart, in order.
        places = [float(v) for _, v in values] if numbers else list(range(len(values)))
        gap = min((b - a for a, b in zip(places, places[1:])), default=1.0)
        at_places = numbers and (places[-1] - places[0]) / gap <= max(SPREAD_MOST, 2 * len(values))
        if not at_places:
            places, gap = list(range(len(values))), 1.0
        width = 0.8 * gap / len(dists)
        for i, (marginal, label) in enumerate(zip(marginals, labels)):
            shifted = [place + (i - (len(dists) - 1) / 2) * width for place in places]  # a group centred on its value
            axis.bar(shifted, [float(marginal.get(v, 0)) for v in values], width=width, label=label)
            if marginal and numbers:  # not for rules that do not declare it
                # P(X >= v) for every value drawn, including values this distribution never takes.
                at_least = [float(sum((p for w, p in marginal.items() if w[1] >= v[1]), 0)) for v in values]
                # A step down after each value: P(X >= x) holds the next value's level between two values.
                axis.plot(shifted, at_least, marker="o" if len(values) <= LABELLED else None, linestyle="--",
                          drawstyle="steps-pre", label=f"{label}: at least")
        if not at_places or len(values) <= LABELLED:  # else matplotlib's own ticks: a few round numbers
            every = math.ceil(len(values) / LABELLED)  # values one step apart: every so many labelled, in order
            axis.set_xticks(places[::every], [show_plain(v) for _, v in values[::every]],
                            **({"rotation": 90, "fontsize": "small"} if every > 1 else {}))
        axis.set_ylim(0, 1.05)
        axis.set_ylabel("probability")
        axis.set_title(name)
        axis.legend(fontsize="small")
    figure.suptitle(title)
    _save(figure, path)
    plt.close(figure)


def plot_heatmap(rows: list[str], columns: list[str], cells: list[list[float | None]], path: Path, title: str,
                 down: str = "", across: str = "") -> None:
    """A sweep's values, a cell for each pair of varied values: `down` names what the rows vary, `across` the
    columns'."""
    plt = _pyplot()
    figure, axis = plt.subplots(figsize=(1.2 * len(columns) + 3, 0.6 * len(rows) + 2))
    data = [[float("nan") if c is None else c for c in row] for row in cells]
    image = axis.imshow(data, cmap="viridis", aspect="auto")
    axis.set_xticks(range(len(columns)), columns, rotation=45, ha="right")
    axis.set_yticks(range(len(rows)), rows)
    for r, row in enumerate(cells):
        for c, value in enumerate(row):
            if value is not None:
                axis.text(c, r, cell_text(value), ha="center", va="center", color="white", fontsize="small")
    figure.colorbar(image, ax=axis)
    axis.set_title(title)
    axis.set_ylabel(down)
    axis.set_xlabel(across)
    figure.tight_layout()
    _save(figure, path)
    plt.close(figure)


def cell_text(value: float) -> str:
    """A heatmap cell's number: three significant digits, or as many more as keep a value that is not whole from
    reading as whole (a chance of 0.9997 is not shown certain)."""
    if not math.isfinite(value):  # past a float's range: as format writes it, inf
        return f"{value:g}"
    for digits in range(3, 17):
        text = f"{value:.{digits}g}"
        if value == int(value) or not float(text).is_integer():
            break
    return text


def _plot_order(value: Any) -> tuple[str, Any]:
    """A value as an axis places it: numbers by size, whole or not (1/2 before 1), then each other type apart."""
    return ("number" if type(value) in (int, Fraction) else str(type(value)), value)


def _along_axis(marginals: list[dict[tuple[str, Any], Any]], order: Callable[[Any], tuple]) -> list[tuple[str, Any]]:
    """The values of every marginal along one axis: numbers by size, then the others type by type, each type's
    in the order reports give them (`order`: an enum's values as declared)."""
    met = list(dict.fromkeys(key for marginal in marginals for key in marginal))
    numbers = sorted(key for key in met if key[0] == "number")
    others = [key for key in met if key[0] != "number"]
    kinds = list(dict.fromkeys(kind for kind, _ in others))
    return numbers + sorted(others, key=lambda key: (kinds.index(key[0]), order(key[1])))
