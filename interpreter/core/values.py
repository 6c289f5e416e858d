"""Runtime values beyond plain Python ones: records, row and entity references.

Every value is immutable and hashable, so a whole state can be a dictionary
key and equal states merge in the exact engine.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from fractions import Fraction
from typing import Any


class Shape:
    """The field layout of one kind, shared by all its records."""

    __slots__ = ("kind", "names", "index", "_hash")

    def __init__(self, kind: str, names: Iterable[str]):
        self.kind = kind
        self.names = tuple(names)
        self.index = {name: i for i, name in enumerate(self.names)}
        self._hash = hash((self.kind, self.names))  # every record changed in a run hashes its shape

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, Shape) and other.kind == self.kind and other.names == self.names)

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[Any, ...]:
        # Without the hash: string hashes differ from one process to the next.
        return (Shape, (self.kind, self.names))


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
    """A reference to a named row; rows are looked up by name so rows may refer to each other."""

    __slots__ = ("kind", "name", "_hash")

    def __init__(self, kind: str, name: str):
        self.kind = kind
        self.name = name
        self._hash = hash(("row", name))  # records that hold rows are hashed at the end of every sampled run

    def __eq__(self, other: object) -> bool:
        return self is other or (type(other) is RowRef and other.name == self.name)  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[Any, ...]:
        # Without the hash: string hashes differ from one process to the next.
        return (RowRef, (self.kind, self.name))

    def stable_key(self) -> tuple:
        return ("row", self.name)

    def __repr__(self) -> str:
        return self.name


class Ref:
    """A reference to an entity of the scenario, whose fields live in the state's world."""

    __slots__ = ("id", "_hash")

    def __init__(self, id: str):
        self.id = id
        self._hash = hash(("ref", id))  # bodies and states hash their owners again and again

    def __eq__(self, other: object) -> bool:
        return self is other or (type(other) is Ref and other.id == self.id)  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[Any, ...]:
        # Without the hash: string hashes differ from one process to the next.
        return (Ref, (self.id,))

    def stable_key(self) -> tuple:
        return ("ref", self.id)

    def __repr__(self) -> str:
        return self.id


def exact_text(value: int | Fraction) -> str:
    """A whole number or a fraction written in full, however many digits it has: Python's own conversion stops
    past 4,300 (an exact probability after thousands of draws may have more), the decimal module's does not."""
    try:
        return str(value)
    except ValueError:
        if isinstance(value, Fraction):
            return f"{format(Decimal(value.numerator), 'f')}/{format(Decimal(value.denominator), 'f')}"
        return format(Decimal(value), "f")


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
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, tuple):
        return "[" + ", ".join(show(v) for v in value) + "]"
    return repr(value)


def normalize(value: Fraction | int) -> Fraction | int:
    """Whole fractions become ints, so 4/2 and 2 are the same value everywhere."""
    if isinstance(value, Fraction) and value.denominator == 1:
        return int(value.numerator)
    return value
