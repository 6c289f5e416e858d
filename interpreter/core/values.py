"""Runtime values beyond plain Python ones: records, row and entity references.

Every value is immutable and hashable, so a whole state can be a dictionary
key and equal states merge in the exact engine.
"""

from __future__ import annotations

import _thread
import math
import weakref
from collections.abc import Callable, Iterable
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any, TypeVar


class Shape:
    """The field layout of one kind, shared by all its records.

    One object for each layout (see _one_of): shapes compare and hash by identity, in C, where every record
    compared or hashed compares or hashes its shape.
    """

    __slots__ = ("kind", "names", "index", "__weakref__")

    def __new__(cls, kind: str, names: Iterable[str]) -> Shape:
        names = tuple(names)

        def made() -> Shape:
            shape = object.__new__(cls)
            shape.kind, shape.names = kind, names
            shape.index = {name: i for i, name in enumerate(names)}
            return shape

        return _one_of(_SHAPES, (kind, names), made)

    def __reduce__(self) -> tuple[Any, ...]:
        return (Shape, (self.kind, self.names))  # read back as the one shape of its layout


class Record:
    """The field values of one thing of a kind: a row, or an entity of the scenario."""

    __slots__ = ("shape", "values", "_hash")

    def __init__(self, shape: Shape, values: tuple[Any, ...]):
        self.shape = shape
        self.values = values
        self._hash: int | None = None

    def get(self, name: str) -> Any:
        return self.values[self.shape.index[name]]

    def has(self, name: str) -> bool:
        return name in self.shape.index

    def replace(self, name: str, value: Any) -> Record:
        values = list(self.values)
        values[self.shape.index[name]] = value
        return Record(self.shape, tuple(values))

    def items(self) -> Iterable[tuple[str, Any]]:
        return zip(self.shape.names, self.values)

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, Record) and other.shape == self.shape
                                 and other.values == self.values)

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash((self.shape, self.values))
        return self._hash

    def __reduce__(self) -> tuple[Any, ...]:
        return (Record, (self.shape, self.values))  # without the cached hash, good only in this process

    def stable_key(self) -> tuple:
        from fracas.interpreter.runtime.keys import stable_key

        return ("record", self.shape.kind, tuple(stable_key(v) for v in self.values))

    def __repr__(self) -> str:
        return f"{self.shape.kind}{{{', '.join(f'{k}: {show(v)}' for k, v in self.items())}}}"


class RowRef:
    """A reference to a named row; rows are looked up by name so rows may refer to each other.

    One object for each row (see _one_of): compared and hashed by identity, in C (frames and records that
    hold rows are hashed each time a state is).
    """

    __slots__ = ("kind", "name", "__weakref__")

    def __new__(cls, kind: str, name: str) -> RowRef:
        def made() -> RowRef:
            ref = object.__new__(cls)
            ref.kind, ref.name = kind, name
            return ref

        return _one_of(_ROWS, (kind, name), made)

    def __reduce__(self) -> tuple[Any, ...]:
        return (RowRef, (self.kind, self.name))  # read back as the one reference to its row

    def stable_key(self) -> tuple:
        return ("row", self.name)

    def __repr__(self) -> str:
        return self.name


class Ref:
    """A reference to an entity of the scenario, whose fields live in the state's world.

    One object for each entity's place (see _one_of): compared and hashed by identity, in C (bodies, frames and
    states hash their entities again and again).
    """

    __slots__ = ("id", "__weakref__")

    def __new__(cls, id: str) -> Ref:
        def made() -> Ref:
            ref = object.__new__(cls)
            ref.id = id
            return ref

        return _one_of(_REFS, id, made)

    def __reduce__(self) -> tuple[Any, ...]:
        return (Ref, (self.id,))  # read back as the one reference to its entity

    def stable_key(self) -> tuple:
        return ("ref", self.id)

    def __repr__(self) -> str:
        return self.id


# The one shape of each layout, reference to each row, and reference to each entity's place, while anything
# holds it. Two equal ones made apart would compare unequal: every one is made here, by its class's __new__
# (pickles and copies too), under a lock.
_SHAPES: weakref.WeakValueDictionary[tuple[str, tuple[str, ...]], Shape] = weakref.WeakValueDictionary()
_ROWS: weakref.WeakValueDictionary[tuple[str, str], RowRef] = weakref.WeakValueDictionary()
_REFS: weakref.WeakValueDictionary[str, Ref] = weakref.WeakValueDictionary()
_MAKING = _thread.RLock()  # reentrant: a collection that runs while one is made may make another (a finaliser)

T = TypeVar("T")


def _one_of(made: weakref.WeakValueDictionary[Any, T], key: Any, make: Callable[[], T]) -> T:
    with _MAKING:
        found = made.get(key)
        if found is None:
            found = made[key] = make()
        return found


def exact_text(value: int | Fraction) -> str:
    """A whole number or a fraction written in full, however many digits it has: Python's own conversion stops
    past 4,300 (an exact probability after thousands of draws may have more), the decimal module's does not."""
    try:
        return str(value)
    except ValueError:
        if isinstance(value, Fraction):
            return f"{format(Decimal(value.numerator), 'f')}/{format(Decimal(value.denominator), 'f')}"
        return format(Decimal(value), "f")


def as_float(value: int | Fraction) -> float:
    """The nearest float, or an infinity past the largest: a value may have a thousand digits, a float 308."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def approx(value: int | Fraction, spec: str = ".4g", root: bool = False) -> str:
    """A number rounded for reading (its square root: a variance's spread), however many digits it has: as a
    float where one holds it, else by the decimal module, which has no largest number."""
    try:
        found = float(value)
        shown = format(found ** 0.5 if root else found, spec)
        if spec.endswith("g") and shown.lstrip("+-").isdigit() and value != round(value) and not root:
            return format(found, "#" + spec)  # 1.0002 to four figures is 1.000, not the whole number 1
        return shown
    except OverflowError:
        with localcontext() as context:
            context.prec = 28
            number = Decimal(value.numerator) / Decimal(value.denominator)
            return format((number.sqrt() if root else number).normalize(), spec)


_ESCAPED = str.maketrans({"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t"})


def show(value: Any) -> str:
    """A value as a designer reads it: 1/3 not Fraction(1, 3), true not True."""
    kind = type(value)
    if kind is int:  # the common cases first: an event log shows many values
        try:
            return repr(value)
        except ValueError:  # digits past Python's limit
            return exact_text(value)
    if kind is Ref:
        return value.id
    if value is None:
        return "none"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, Fraction):
        return exact_text(value)
    if isinstance(value, str):  # as the rules write it: a new line, a tab, a quote or a backslash escaped
        return '"' + value.translate(_ESCAPED) + '"'
    if isinstance(value, tuple):
        return "[" + ", ".join(show(v) for v in value) + "]"
    shown = getattr(type(value), "shown", None)  # a pool or a volley: its method, given this to show its owners
    if shown is not None:
        return shown(value, show)  # type: ignore[no-any-return]
    return repr(value)


BRIEF_ITEMS = 20  # a list's items shown in a log line or a message; the rest counted
BRIEF_CHARACTERS = 200  # a text's characters shown there; the rest counted


def show_brief(value: Any, start: int = 0) -> str:
    """A value as a log line or a message shows it: as show() does, but a list of more than BRIEF_ITEMS items or
    a text of more than BRIEF_CHARACTERS characters cut short, its rest counted, in the lists, records, pools
    and volleys it holds too (a list gathered in a loop is logged at each change: whole, the log would grow
    with the square of its length). start: where a list's items or a text's characters begin to be shown,
    those before it counted."""
    kind = type(value)
    if kind is int:  # most values a log shows
        return show(value)
    if kind is tuple:
        if start == 0 and len(value) <= BRIEF_ITEMS:
            return "[" + ", ".join(map(show_brief, value)) + "]"
        shown = value[start:start + BRIEF_ITEMS]
        rest = len(value) - start - len(shown)
        return ("[" + (f"... {start} before, " if start else "") + ", ".join(map(show_brief, shown))
                + (f", ... {rest} more" if rest else "") + "]")
    if kind is str:
        if start == 0 and len(value) <= BRIEF_CHARACTERS:
            return show(value)
        part = value[start:start + BRIEF_CHARACTERS]
        rest = len(value) - start - len(part)
        return ((f"({_characters(start)} before) ..." if start else "") + show(part)
                + (f"... ({_characters(rest)} more)" if rest else ""))
    if kind is Record:
        return f"{value.shape.kind}{{{', '.join(f'{k}: {show_brief(v)}' for k, v in value.items())}}}"
    shown_by = getattr(kind, "shown", None)  # a pool or a volley
    if shown_by is not None:
        return shown_by(value, show_brief)  # type: ignore[no-any-return]
    return show(value)


def _characters(count: int) -> str:
    return f"{count} character" + ("" if count == 1 else "s")


def brief_change(old: Any, new: Any) -> tuple[str, str, bool]:
    """A change as a log shows it: both values as show_brief() shows them, a long list or text from a little
    before where the two first differ; and whether the difference lies deeper than either shows (within an
    item or a field that is itself cut short)."""
    if type(old) is int and type(new) is int:  # most changes a log shows: whole numbers, shown whole
        return show(old), show(new), False
    start = 0
    if type(old) is type(new) and type(old) in (tuple, str):
        most = BRIEF_ITEMS if type(old) is tuple else BRIEF_CHARACTERS
        at = next((i for i, (a, b) in enumerate(zip(old, new)) if a != b), min(len(old), len(new)))
        if at >= most:  # past the first items shown: the window moved to it
            start = at - (2 if type(old) is tuple else 20)
    before, after = show_brief(old, start), show_brief(new, start)
    return before, after, before == after and old != new


def normalize(value: Fraction | int) -> Fraction | int:
    """Whole fractions become ints, so 4/2 and 2 are the same value everywhere."""
    if isinstance(value, Fraction) and value.denominator == 1:
        return int(value.numerator)
    return value
