"""The checker's types: basic types, kinds declared by the rules, lists, optionals."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from fracas.dsl.records import record

BASIC_TYPES = ("int", "number", "bool", "text", "dice", "pool", "volley")
NUMERIC = ("int", "number")


@record(frozen=True, slots=True)
class Type:
    """The type of a value as the checker knows it: a basic type, a kind, or a list, perhaps optional."""

    name: str  # a basic type, a kind's name, "list", "none" or "any"
    item: Type | None = None
    optional: bool = False

    def __str__(self) -> str:
        text = f"list of {self.item}" if self.name == "list" else self.name
        return text + ("?" if self.optional and self.name not in ("none", "any") else "")

    @property
    def is_numeric(self) -> bool:
        return self.name in NUMERIC or self.name == "any"

    @property
    def is_kind(self) -> bool:
        return self.name not in BASIC_TYPES and self.name not in ("list", "none", "any")

    def required(self) -> Type:
        return Type(self.name, self.item, False)

    def maybe(self) -> Type:
        return Type(self.name, self.item, True)


INT = Type("int")
NUMBER = Type("number")
BOOL = Type("bool")
TEXT = Type("text")
DICE = Type("dice")  # a roll described, not made: `roll(d)` makes it
POOL = Type("pool")
VOLLEY = Type("volley")
NONE = Type("none")
ANY = Type("any")
# The type of an expression with an error in it, told already: equal to ANY, and so fits anywhere (no follow-on
# error), but its own object, so that what nothing can add (a text to a number) is still refused of a value of no
# declared type (a fn that calls itself).
UNKNOWN = Type("any")


def list_of(item: Type) -> Type:
    return Type("list", item)


def fits(actual: Type, expected: Type) -> bool:
    """Whether a value of type `actual` may stand where `expected` is wanted."""
    if actual.name == "any" or expected.name == "any":
        return True
    if actual.name == "none":
        return expected.optional
    if actual.optional and not expected.optional:
        return False  # it may be none: only where the rules have checked that it is not
    if actual.name == "int" and expected.name in ("number", "dice"):
        return True  # a number is a dice value with no dice: it always rolls itself
    if actual.name != expected.name:
        return False
    if actual.name == "list":
        assert actual.item is not None and expected.item is not None
        return fits(actual.item, expected.item)
    return True


def unify(a: Type, b: Type) -> Type | None:
    """The type both values fit, or None when they have nothing in common."""
    if a.name == "any":
        return b
    if b.name == "any":
        return a
    if a.name == "none":
        return b.maybe()
    if b.name == "none":
        return a.maybe()
    for wider in ("number", "dice"):
        if {a.name, b.name} == {"int", wider}:
            return Type(wider, optional=a.optional or b.optional)
    if a.name != b.name:
        return None
    if a.name == "list":
        assert a.item is not None and b.item is not None
        item = unify(a.item, b.item)
        return None if item is None else list_of(item)
    return Type(a.name, a.item, a.optional or b.optional)


def type_from(expr: Any, kinds: Iterable[str], unknown: Callable[[Any], None] | None = None) -> Type:
    """The Type a written type (a TypeExpr) names: the one place types are resolved.

    A name that is neither basic nor a kind becomes `any`, after `unknown` is
    told of it (the checker reports it there; at run time it has been already).
    """
    if expr.name == "list":
        assert expr.item is not None
        return Type("list", type_from(expr.item, kinds, unknown), expr.optional)
    if expr.name in BASIC_TYPES or expr.name in kinds:
        return Type(expr.name, optional=expr.optional)
    if unknown is not None:
        unknown(expr)
    return ANY
