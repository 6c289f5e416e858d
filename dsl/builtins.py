"""The builtin functions of the language: their names, parameters and result types.

The interpreter implements each of them (a test checks that none is missing).
Chance builtins are resolved by the engine: sampled, forced or enumerated
exactly. Aggregates read a whole distribution and exist only in `expect`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from fracas.dsl.records import record
from fracas.dsl.types import ANY, BOOL, DICE, INT, NUMBER, POOL, TEXT, VOLLEY, Type, list_of

ReturnRule = Type | Callable[[list[Type]], Type]


@record(frozen=True, slots=True)
class Signature:
    """How a builtin is called and what it gives: the checker's whole knowledge of it."""

    name: str
    params: tuple[tuple[str, Type], ...]  # in positional order; all may be given by name
    required: int
    returns: ReturnRule
    summary: str
    chance: bool = False
    aggregate: bool = False
    variadic: bool = False  # min, max: any number of numbers, or one list of numbers
    # Parameters that take one of a few words, a text: the checker knows a written word from a wrong one.
    words: tuple[tuple[str, tuple[str, ...]], ...] = ()


def _numeric_result(types: list[Type]) -> Type:
    flat = [t.item if t.name == "list" and t.item else t for t in types]
    if any(t.name == "any" for t in flat):  # of a value of no known type (an error in it, said already): neither
        return ANY
    return INT if flat and all(t.name == "int" for t in flat) else NUMBER


def _first(types: list[Type]) -> Type:
    return types[0] if types else ANY


def _item(types: list[Type]) -> Type:
    return types[0].item if types and types[0].name == "list" and types[0].item else ANY


FILTERS = (("owner", ANY), ("tag", TEXT))

# How `fire` chooses the body each shot hits: the word, and what it means.
ALLOCATIONS = {
    "random": "each shot hits a living body chosen uniformly",
    "focused": "each shot hits the first living body in order; damage beyond what kills it is lost",
    "focused_carry": "each shot hits the first living body in order; damage beyond what kills it goes on to the next",
}
# An order given to random allocation, which has none to follow: the message and its hint.
ORDER_WITHOUT_FOCUS = ("'order' says which bodies focused shots reach first, but these shots are random",
                       'add allocate: "focused" (or "focused_carry"), or leave the order out')


# What is wrong with a count or a die, said alike where `fracas check` finds it written and where a run meets it.
NO_SIDES = ("dice need at least one side", "a die has 1 side or more (a fixed number needs no die)")


def faces_problems(name: str, known: Mapping[str, Any]) -> Iterator[tuple[str, tuple[int, ...], str, str]]:
    """What is wrong with the faces a dice builtin is given: for each fault, the parameter, the place in its list
    of the face at fault (() for the whole argument), the message and the hint.

    `known` holds the arguments whose values are known: those written out as numbers where `fracas check`
    reads the call, every one where a run makes it; a fault that needs an argument not known is not told. An
    argument of the wrong shape (a number for a list of faces) is the type check's to tell, not looked into.
    """
    known = {param: value for param, value in known.items() if _shaped(param, value)}
    sides = known.get("sides")
    if name == "roll" and known.get("reroll") and known.get("reroll_while"):
        yield ("reroll_while", (), "a die is rerolled once or while it shows a face, not both",
               "give 'reroll' or 'reroll_while'")
    rerolled = ("reroll", "reroll_while") if name in ("roll", "successes") and sides is not None else ()
    for param in rerolled:
        for index, face in enumerate(known.get(param) or ()):
            if not 1 <= face <= sides:
                yield param, (index,), f"a d{sides} has no face {face}", f"a d{sides}'s faces are 1 to {sides}"
    again = known.get("reroll_while")
    if name == "roll" and sides is not None and again and set(range(1, sides + 1)) <= set(again):
        yield ("reroll_while", (), f"rerolling every face of a d{sides} would never stop",
               "leave at least one face out of 'reroll_while'")
    at_least, double_at = known.get("at_least"), known.get("double_at")
    if name == "successes" and at_least is not None and double_at is not None and double_at < at_least:
        yield ("double_at", (), f"double_at {double_at} is below at_least {at_least}",
               "a face counts two only if it succeeds: give double_at at or above at_least")
    seen: set[int] = set()
    for outer, group in enumerate(known.get("groups", ()) if name == "tally" else ()):
        for index, face in enumerate(group):
            if sides is not None and not 1 <= face <= sides:
                yield "groups", (outer, index), f"a d{sides} has no face {face}", f"a d{sides}'s faces are 1 to {sides}"
            elif face in seen:
                yield "groups", (outer, index), f"face {face} is in two groups", "a face counts for one group at most"
            seen.add(face)


_FACE_LISTS = frozenset({"reroll", "reroll_while"})


def _shaped(param: str, value: object) -> bool:
    """Whether an argument has the shape faces_problems reads: a list of faces, a list of such lists (the groups),
    or else a whole number."""
    if param in _FACE_LISTS:
        return _ints(value)
    if param == "groups":
        return isinstance(value, tuple) and all(map(_ints, value))
    return type(value) is int


def _ints(value: object) -> bool:
    return isinstance(value, tuple) and all(type(item) is int for item in value)


PROBABILITY_HINT = "clamp it with clamp(p, 0, 1) if the rules say so"


def not_a_probability(shown: str) -> str:
    """What is wrong with a chance's p out of 0..1, said alike where `fracas check` reads it and where a run meets it."""
    return f"a probability must be between 0 and 1, not {shown}"


# The arguments of dice builtins that are counts, which no run takes below 0: dice, dice kept or dropped, explosions.
COUNTS = ("count", "keep", "drop", "depth")

# `successes` given a face that brings another die but not how many at most, or the other way round.
AGAIN_WITHOUT_DEPTH = ("'again_at' needs 'depth': how many dice at most one die brings, one after another",
                       "add depth, as in again_at: 10, depth: 5")
DEPTH_WITHOUT_AGAIN = ("'depth' counts the dice a die at 'again_at' brings, but no again_at is given",
                       "give again_at (the face at or above which a die brings another), or leave depth out")


def negative(name: str, value: object) -> str:
    return f"'{name}' cannot be negative ({value})"


def words_hint(param: str, words: Iterable[str]) -> str:
    return f"{param} is one of " + ", ".join(f'"{word}"' for word in words)


SIGNATURES: dict[str, Signature] = {
    s.name: s
    for s in (
        Signature("min", (), 1, _numeric_result, "the smallest of its numbers", variadic=True),
        Signature("max", (), 1, _numeric_result, "the largest of its numbers", variadic=True),
        Signature("abs", (("x", NUMBER),), 1, _first, "the size of a number"),
        Signature("clamp", (("x", NUMBER), ("low", NUMBER), ("high", NUMBER)), 3, _numeric_result,
                  "x, raised to low and lowered to high"),
        Signature("floor", (("x", NUMBER),), 1, INT, "round down"),
        Signature("ceil", (("x", NUMBER),), 1, INT, "round up"),
        Signature("round", (("x", NUMBER),), 1, INT, "round to nearest, halves away from zero"),
        Signature("len", (("items", ANY),), 1, INT,
                  "how many items a list, bodies a pool, shots a volley or characters a text has"),
        Signature("sum", (("items", list_of(NUMBER)),), 1, _numeric_result, "the total of a list"),
        Signature("range", (("count", INT),), 1, list_of(INT), "the list 0, 1, ..., count - 1"),
        Signature("sort", (("items", list_of(NUMBER)),), 1, _first, "the numbers of a list from the smallest up"),
        Signature("without", (("items", list_of(ANY)), ("item", ANY)), 2, _first,
                  "the list without its first item equal to `item` (a card drawn from a deck, say)"),
        Signature("crossed", (("marks", list_of(INT)), ("before", INT), ("after", INT)), 3, INT,
                  "how many marked boxes a track passes when filled from box `before` to box `after`"),
        Signature("absorb", (("amount", INT), ("room", list_of(INT))), 2, list_of(INT),
                  "layered absorption: what each layer takes of an amount, filling them in order"),
        Signature("join", (("items", list_of(TEXT)), ("separator", TEXT)), 1, TEXT,
                  "the texts of a list one after another, the separator (none unless given) between each two"),
        Signature("any", (("items", list_of(BOOL)),), 1, BOOL, "whether any item is true"),
        Signature("all", (("items", list_of(BOOL)),), 1, BOOL, "whether every item is true"),
        Signature("volley", (("count", INT), ("damage", INT), ("source", ANY)), 1, VOLLEY,
                  "count shots of a damage each, fired in order"),
        Signature("bodies", (("count", INT), ("hitpoints", INT.maybe()), ("owner", ANY), ("tag", TEXT)),
                  2, POOL, "count fresh bodies; hitpoints none means a body that cannot die"),
        Signature("fire", (("shots", VOLLEY), ("at", POOL), ("allocate", TEXT), ("order", list_of(ANY))), 2, POOL,
                  "each shot hits a living body: chosen uniformly (allocate: \"random\"), or the first in pool "
                  "order, owners or tags listed in order first (\"focused\", \"focused_carry\")", chance=True,
                  words=(("allocate", tuple(ALLOCATIONS)),)),
        Signature("lethal", (("pool", POOL),) + FILTERS, 1, INT, "bodies that took lethal damage"),
        Signature("living", (("pool", POOL),) + FILTERS, 1, INT, "bodies not yet lethal"),
        Signature("count_bodies", (("pool", POOL),) + FILTERS, 1, INT, "bodies in a pool"),
        Signature("damage_taken", (("pool", POOL),) + FILTERS, 1, INT, "damage the bodies took, each up to its hitpoints"),
        Signature("hitpoints_of", (("pool", POOL),) + FILTERS, 1, INT,
                  "total hitpoints of the bodies (bodies that cannot die count none)"),
        Signature("roll", (("count", INT), ("sides", INT), ("reroll", list_of(INT)), ("reroll_while", list_of(INT))),
                  2, INT, "the sum of dice (roll(d) rolls a value of type dice); a die showing a face in reroll is rolled again once (the new face "
                  "stands), one showing a face in reroll_while again until it shows another", chance=True),
        Signature("keep_highest", (("count", INT), ("sides", INT), ("keep", INT)), 3, INT,
                  "the sum of the `keep` highest of a pool of dice", chance=True),
        Signature("keep_lowest", (("count", INT), ("sides", INT), ("keep", INT)), 3, INT,
                  "the sum of the `keep` lowest of a pool of dice", chance=True),
        Signature("drop_lowest", (("count", INT), ("sides", INT), ("drop", INT)), 3, INT,
                  "the sum of a pool of dice without its `drop` lowest", chance=True),
        Signature("drop_highest", (("count", INT), ("sides", INT), ("drop", INT)), 3, INT,
                  "the sum of a pool of dice without its `drop` highest", chance=True),
        Signature("advantage", (("sides", INT),), 1, INT, "the higher of two dice", chance=True),
        Signature("disadvantage", (("sides", INT),), 1, INT, "the lower of two dice", chance=True),
        Signature("explode", (("count", INT), ("sides", INT), ("depth", INT)), 3, INT,
                  "the sum of dice, each rolled again and added while it shows its highest face, "
                  "at most `depth` extra rolls a die", chance=True),
        Signature("custom_dice", (("count", INT), ("faces", list_of(NUMBER))), 2, _numeric_result,
                  "the sum of dice whose faces are the given numbers", chance=True),
        Signature("dice", (("count", INT), ("sides", INT)), 2, DICE,
                  "count dice of sides faces as a value of type dice, rolled later with roll(d)"),
        Signature("max_roll", (("d", DICE),), 1, INT, "the highest total a value of type dice can roll"),
        Signature("min_roll", (("d", DICE),), 1, INT, "the lowest total a value of type dice can roll"),
        Signature("chance", (("p", NUMBER),), 1, BOOL, "true with probability p", chance=True),
        Signature("trials", (("count", INT), ("p", NUMBER)), 2, INT,
                  "successes among independent trials at p", chance=True),
        Signature("pick", (("items", list_of(ANY)),), 1, _item, "one item, uniformly", chance=True),
        Signature("successes", (("count", INT), ("sides", INT), ("at_least", INT), ("double_at", INT.maybe()),
                                ("reroll", list_of(INT)), ("again_at", INT.maybe()), ("depth", INT)),
                  3, INT, "successes of a pool of dice; faces in reroll are rolled again once; a die at again_at "
                  "or above brings another, at most depth a die", chance=True),
        Signature("tally", (("count", INT), ("sides", INT), ("groups", list_of(list_of(INT)))), 3, list_of(INT),
                  "how many dice of a pool show a face of each group", chance=True),
        Signature("prob", (("condition", BOOL),), 1, NUMBER, "the probability of a condition", aggregate=True),
        Signature("mean", (("value", NUMBER),), 1, NUMBER, "the expected value", aggregate=True),
        Signature("always", (("condition", BOOL),), 1, BOOL, "true in every outcome", aggregate=True),
        Signature("never", (("condition", BOOL),), 1, BOOL, "false in every outcome", aggregate=True),
        Signature("possible", (("condition", BOOL),), 1, BOOL, "true in some outcome", aggregate=True),
    )
}
