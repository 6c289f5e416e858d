"""The builtin functions, implemented. Their signatures live in fracas.dsl.builtins.

Each takes its arguments by name, the environment and the position of the
call; the generated code (fracas.interpreter.core.codegen) evaluates the arguments and calls it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any, Protocol

from fracas.dsl import nodes as n
from fracas.dsl.builtins import (AGAIN_WITHOUT_DEPTH, ALLOCATIONS, NO_SIDES, ORDER_WITHOUT_FOCUS, PROBABILITY_HINT,
                                 SIGNATURES, faces_problems, negative, not_a_probability, words_hint)
from fracas.dsl.limits import Limits
from fracas.interpreter.core import rt
from fracas.interpreter.core.errors import RunError
from fracas.interpreter.runtime.allocation import RANDOM
from fracas.interpreter.runtime.bodies import ANY, Pool, Volley
from fracas.interpreter.runtime.chance import Bernoulli, Binomial, Dice, DiceValue, Fire, SuccessPool, Tally, Uniform, dice_value
from fracas.interpreter.runtime.dice import CountedRolls, DiceSum, Exploding, Faces, Keep, Rerolled
from fracas.interpreter.runtime.weights import briefly
from fracas.interpreter.core.values import Record, Ref, normalize, show, show_brief

Args = dict[str, Any]


class Env(Protocol):
    """What a builtin reads of the run: the program (its limits) and the engine that resolves chance."""

    program: Any
    chooser: Any
    counts_only: bool  # an exact run that shows no names at its end (see counted.py)
    gen: Any  # the rules' code generator (which knows the draws that are only counted)
    exact: bool  # a run of the exact engine (whose chooser gives distributions)
    work: int  # steps of work done so far
    work_limit: int  # the most the limit 'work' lets the run do


# Items a builtin goes through within the step of work its statement counts already; over this, all its items count
# (rt.ITEMS_PER_STEP a step: a sum, a sort, a query of a pool, a pool or a volley made), so that ten thousand calls
# over ten thousand items stop at the limit 'work' instead of running for a minute. A few items, the common case,
# are not counted.
FREE_ITEMS = 100


def _through(env: Env, size: int, pos: n.Pos) -> None:
    """A builtin goes through `size` items: over FREE_ITEMS, they count against the limit 'work'."""
    if size > FREE_ITEMS:
        rt.spend_items(env, size, pos)


def _over(key: str, f: Callable[[Args, Env, n.Pos], Any]) -> Callable[[Args, Env, n.Pos], Any]:
    """The builtin f, which goes through the items of its argument `key` (a list, or a pool's bodies). Anything
    else is f's to refuse, with its own message."""
    def through(a: Args, env: Env, pos: n.Pos) -> Any:
        items = a[key]
        kind = type(items)
        # A list is a tuple; the numbers of min and max come as a Python list (rt.variadic).
        _through(env, len(items) if kind is tuple or kind is list else len(items.bodies) if kind is Pool else 0, pos)
        return f(a, env, pos)
    return through


def round_half_away(x: Fraction | int) -> int:
    return math.floor(x + Fraction(1, 2)) if x >= 0 else -math.floor(-x + Fraction(1, 2))


def _count(args: Args, name: str, pos: n.Pos, env: Env) -> int:
    return _whole(args[name], name, pos, env)


def _whole(value: Any, name: str, pos: n.Pos, env: Env) -> int:
    """The argument `name`, a count: a whole number from 0 to the limit 'count'."""
    if type(value) is int and 0 <= value <= env.program.rules.limits.count:
        return value  # the common case, at once
    if not isinstance(value, int) or isinstance(value, bool):
        raise RunError(pos, f"'{name}' must be a whole number, not {show_brief(value)}")
    if value < 0:
        raise RunError(pos, negative(name, value))
    limits = env.program.rules.limits
    if value > limits.count:
        raise RunError(pos, f"'{name}' is {value}, over the limit of {limits.count}", limits.hint("count"))
    return value


def dice_problem(count: int, sides: int, limits: Limits) -> tuple[str, str] | None:
    """What is wrong with rolling `count` dice of `sides` faces, if anything, and the hint for it."""
    if sides < 1:
        return NO_SIDES
    if count > limits.count:
        return f"{count} dice are over the limit of {limits.count}", limits.hint("count")
    if sides > limits.count:
        return f"a die of {sides} sides is over the limit of {limits.count}", limits.hint("count")
    return None


def _sides(a: Args, env: Env, pos: n.Pos) -> int:
    limits = env.program.rules.limits
    problem = dice_problem(0, a["sides"], limits)
    if problem:
        raise RunError(pos, *problem)
    return a["sides"]


def _probability(args: Args, pos: n.Pos) -> Fraction:
    p = args["p"]
    if type(p) is not Fraction:
        p = Fraction(p)
    if p.numerator < 0 or p.numerator > p.denominator:  # out of 0..1: read off its parts, the fraction kept as it is
        raise RunError(pos, not_a_probability(show(normalize(p))), PROBABILITY_HINT)
    return p


def _filters(args: Args) -> dict[str, Any]:
    return {"owner": args.get("owner", ANY), "tag": args.get("tag", ANY)}


def _pool(args: Args, pos: n.Pos) -> Pool:
    pool = args["pool"]
    if not isinstance(pool, Pool):
        raise RunError(pos, f"expected a pool of bodies, not {show_brief(pool)}")
    return pool


_draw = rt.draw


def _draw_counted(env: Env, primitive: DiceSum | SuccessPool, pos: n.Pos) -> Any:
    """_draw for dice that may roll many more dice than they hold: sampled, where they may roll more dice than the
    work left allows, each die rolled, again or not, counts (CountedRolls), so that a runaway stops at the limit."""
    if env.exact:
        return env.chooser.draw(primitive, pos)  # its weights are charged as they are worked out
    room = (env.work_limit - env.work) * rt.ITEMS_PER_STEP  # in dice
    most = primitive.most_rolls()
    if most is not None and most <= room:
        return _draw(env, primitive, pos)  # within the room: its dice counted as any draw's, each once
    counted = CountedRolls(primitive, room, lambda: rt.past_work_limit(env, pos))
    value = env.chooser.draw(counted, pos)
    rt.spend_items(env, counted.made, pos)
    return value


def _bodies(count: Any, hitpoints: Any, owner: Any, tag: str, env: Env, pos: n.Pos) -> Pool:
    if hitpoints is not None and hitpoints < 1:
        raise RunError(pos, f"a body needs at least 1 hitpoint, not {hitpoints}")
    count = _whole(count, "count", pos, env)
    _through(env, count, pos)
    trace = getattr(env.chooser, "trace", None)
    if trace is not None and count:
        life = "that cannot die" if hitpoints is None else f"of {hitpoints} hitpoint{'s' if hitpoints != 1 else ''}"
        shown = show_brief(owner)
        whose = "" if owner is None else f" for {shown}"  # bodies of no owner: not "for none", which reads as no bodies
        trace.add("bodies", pos, f"{count} bod{'ies' if count != 1 else 'y'} {life}{whose}"
                  + (f" ({tag})" if tag else ""), count=count, hitpoints=hitpoints, owner=shown, tag=tag)
    return Pool.make(count, hitpoints, owner, tag)


def _volley(count: Any, damage: Any, source: Any, env: Env, pos: n.Pos) -> Volley:
    if damage < 0:
        raise RunError(pos, f"a shot's damage cannot be negative ({show(damage)})", "a shot that does nothing does 0 damage")
    count = _whole(count, "count", pos, env)
    _through(env, count, pos)
    return Volley.make(count, damage, source)


def _lethal(pool: Any, owner: Any, tag: Any, env: Env, pos: n.Pos) -> int:
    if type(pool) is not Pool:
        pool = _pool({"pool": pool}, pos)
    if len(pool.bodies) > FREE_ITEMS:  # _through's test, written here: a damage step calls lethal again and again
        rt.spend_items(env, len(pool.bodies), pos)
    return pool.lethal_count(owner, tag)


def _fire(a: Args, env: Env, pos: n.Pos) -> Pool:
    limits = env.program.rules.limits
    for what, size in (("shots", len(a["shots"])), ("bodies", len(a["at"]))):
        if size > limits.count:
            raise RunError(pos, f"fire with {size} {what} is over the limit of {limits.count}", limits.hint("count"))
    allocate, order = a.get("allocate", RANDOM), tuple(a.get("order", ()))
    if allocate not in ALLOCATIONS:
        raise RunError(pos, f"'fire' has no allocate {show(allocate)}", words_hint("allocate", ALLOCATIONS))
    if "order" in a and allocate == RANDOM:
        raise RunError(pos, *ORDER_WITHOUT_FOCUS)
    counted = env.counts_only and pos in env.gen.counted_draws()
    return _draw(env, Fire(a["shots"], a["at"], allocate, order, counted), pos)


def _faces_checked(name: str, a: Args, sides: int, pos: n.Pos) -> None:
    """The faces a dice builtin is given, checked as `fracas check` checks those written out as numbers."""
    for _, _, message, hint in faces_problems(name, {**a, "sides": sides}):
        raise RunError(pos, message, hint)


def _successes(a: Args, env: Env, pos: n.Pos) -> int:
    sides = _sides(a, env, pos)
    _faces_checked("successes", a, sides, pos)
    reroll = tuple(sorted(set(a.get("reroll", ()))))
    again_at = a.get("again_at")
    if again_at is not None and "depth" not in a:  # the checker's too, for rules it did not see
        raise RunError(pos, *AGAIN_WITHOUT_DEPTH)
    depth = _count(a, "depth", pos, env) if again_at is not None else 0
    return _draw_counted(env, SuccessPool(_count(a, "count", pos, env), sides, a["at_least"], a.get("double_at"),
                                          reroll, again_at, depth), pos)


def _tally(a: Args, env: Env, pos: n.Pos) -> tuple[int, ...]:
    sides = _sides(a, env, pos)
    _faces_checked("tally", a, sides, pos)
    groups = tuple(tuple(sorted(set(group))) for group in a["groups"])
    return _draw(env, Tally(_count(a, "count", pos, env), sides, groups), pos)


def _roll(a: Args, env: Env, pos: n.Pos) -> int:
    if "sides" not in a:  # roll(d): a value of type dice, its dice drawn here
        return _roll_value(a["count"], env, pos)
    count = _count(a, "count", pos, env)
    sides = _sides(a, env, pos)  # checked even when no die is rolled: roll(0, 0) is as wrong as roll(1, 0)
    _faces_checked("roll", a, sides, pos)
    once, again = a.get("reroll", ()), a.get("reroll_while", ())
    faces = tuple(sorted(set(once or again)))
    if not count:
        return 0
    if not faces:
        return _draw(env, Dice(count, sides), pos)
    return _draw_counted(env, DiceSum(count, Rerolled(sides, faces, once=bool(once))), pos)


def _pool_of_dice(a: Args, env: Env, pos: n.Pos) -> tuple[int, int]:
    """The count and sides of a pool of dice, both checked."""
    return _count(a, "count", pos, env), _sides(a, env, pos)


def _keep(highest: bool) -> Callable[[Args, Env, n.Pos], int]:
    def keep(a: Args, env: Env, pos: n.Pos) -> int:
        count, sides = _pool_of_dice(a, env, pos)
        return _draw(env, Keep(count, sides, _count(a, "keep", pos, env), highest), pos)
    return keep


def _drop(lowest: bool) -> Callable[[Args, Env, n.Pos], int]:
    # Dropping the lowest dice is keeping the rest, the highest.
    def drop(a: Args, env: Env, pos: n.Pos) -> int:
        count, sides = _pool_of_dice(a, env, pos)
        kept = max(0, count - _count(a, "drop", pos, env))
        return _draw(env, Keep(count, sides, kept, highest=lowest), pos)
    return drop


def _two_dice(highest: bool) -> Callable[[Args, Env, n.Pos], int]:
    def two(a: Args, env: Env, pos: n.Pos) -> int:
        return _draw(env, Keep(2, _sides(a, env, pos), 1, highest), pos)
    return two


def _explode(a: Args, env: Env, pos: n.Pos) -> int:
    count, sides = _pool_of_dice(a, env, pos)
    return _draw_counted(env, DiceSum(count, Exploding(sides, _count(a, "depth", pos, env))), pos)


def _custom_dice(a: Args, env: Env, pos: n.Pos) -> Any:
    count, faces = _count(a, "count", pos, env), tuple(a["faces"])
    if not faces:
        raise RunError(pos, "a die needs at least one face", "list its faces, as in custom_dice(4, [-1, 0, 1])")
    for face in faces:
        if not isinstance(face, (int, Fraction)) or isinstance(face, bool):
            raise RunError(pos, f"a die's faces are numbers, not {show_brief(face)}")
    limits = env.program.rules.limits
    if len(faces) > limits.count:
        raise RunError(pos, f"a die of {len(faces)} faces is over the limit of {limits.count}", limits.hint("count"))
    return _draw(env, DiceSum(count, Faces(faces)), pos)


def _roll_value(value: DiceValue | int, env: Env, pos: n.Pos) -> int:
    if not isinstance(value, DiceValue):
        return value  # a dice value without dice: a fixed number
    limits = env.program.rules.limits
    for sides in {sides for _, sides in value.groups}:
        problem = dice_problem(value.count, sides, limits)
        if problem:
            raise RunError(pos, f"rolling {briefly(show_brief(value))}: {problem[0]}", problem[1])
    return _draw(env, value, pos)


def _roll_bound(highest: bool) -> Callable[[Args, Env, n.Pos], int]:
    def bound(a: Args, env: Env, pos: n.Pos) -> int:
        value = a["d"]
        if not isinstance(value, DiceValue):
            return value  # a dice value without dice: a fixed number
        return value.plus + sum(count * (sides if highest else 1) for count, sides in value.groups)
    return bound


def _dice(a: Args, env: Env, pos: n.Pos) -> DiceValue | int:
    count = _count(a, "count", pos, env)
    return dice_value(count, _sides(a, env, pos))


def _pick(a: Args, env: Env, pos: n.Pos) -> Any:
    if not a["items"]:
        raise RunError(pos, "cannot pick from an empty list")
    return _draw(env, Uniform(tuple(a["items"])), pos)


def _absorb(a: Args, env: Env, pos: n.Pos) -> tuple[int, ...]:
    remaining = a["amount"]
    if remaining < 0:
        raise RunError(pos, f"cannot absorb a negative amount ({remaining})")
    taken = []
    for room in a["room"]:
        share = min(remaining, max(0, room))
        taken.append(share)
        remaining -= share
    return tuple(taken)


def _without(a: Args, env: Env, pos: n.Pos) -> tuple[Any, ...]:
    items, item = a["items"], a["item"]
    for index, held in enumerate(items):
        if held == item:
            return items[:index] + items[index + 1:]
    if isinstance(item, Record) and any(type(held) is Ref for held in items):
        raise RunError(pos, f"{show_brief(item)} is a record written out, never one of the list's things",
                       "take out a thing the list holds: one picked from it, say")
    raise RunError(pos, f"{show_brief(item)} is not in the list, so it cannot be taken out of it",
                   "take out only an item the list holds: one picked from it, say")


def _range(a: Args, env: Env, pos: n.Pos) -> tuple[int, ...]:
    count = _count(a, "count", pos, env)
    _through(env, count, pos)
    return tuple(range(count))


def _len(a: Args, env: Env, pos: n.Pos) -> int:
    items = a["items"]
    if isinstance(items, Pool):
        return len(items.bodies)
    if isinstance(items, Volley):
        return len(items.shots)
    if isinstance(items, (tuple, str)):
        return len(items)
    raise RunError(pos, f"len counts a list, a pool, a volley or a text, not {show_brief(items)}")


def _clamp(a: Args, env: Env, pos: n.Pos) -> Any:
    low, high = a["low"], a["high"]
    if low > high:  # no value lies between: min(max(...)) would give `high`, silently
        raise RunError(pos, f"clamp's low, {show(low)}, is above its high, {show(high)}",
                       "write clamp(x, low, high) with low at most high")
    return min(max(a["x"], low), high)


def _aggregate(a: Args, env: Env, pos: n.Pos) -> Any:
    raise RunError(pos, "distribution functions (prob, mean, always...) only work in an example's 'expect'")


IMPLEMENTATIONS: dict[str, Callable[[Args, Env, n.Pos], Any]] = {
    "min": _over("items", lambda a, env, pos: min(a["items"])),
    "max": _over("items", lambda a, env, pos: max(a["items"])),
    "abs": lambda a, env, pos: abs(a["x"]),
    "clamp": _clamp,
    "floor": lambda a, env, pos: math.floor(a["x"]),
    "ceil": lambda a, env, pos: math.ceil(a["x"]),
    "round": lambda a, env, pos: round_half_away(a["x"]),
    "len": _len,
    "sum": _over("items", lambda a, env, pos: normalize(sum(a["items"], 0))),
    "range": _range,
    "sort": _over("items", lambda a, env, pos: tuple(sorted(a["items"]))),
    "without": _over("items", _without),
    "crossed": _over("marks", lambda a, env, pos: sum(1 for box in a["marks"] if a["before"] < box <= a["after"])),
    "absorb": _over("room", _absorb),
    "join": _over("items", lambda a, env, pos: a.get("separator", "").join(a["items"])),
    "any": _over("items", lambda a, env, pos: any(a["items"])),
    "all": _over("items", lambda a, env, pos: all(a["items"])),
    "fire": _fire,
    "living": _over("pool", lambda a, env, pos: _pool(a, pos).living_count(**_filters(a))),
    "count_bodies": _over("pool", lambda a, env, pos: _pool(a, pos).count(**_filters(a))),
    "damage_taken": _over("pool", lambda a, env, pos: _pool(a, pos).damage_taken(**_filters(a))),
    "hitpoints_of": _over("pool", lambda a, env, pos: sum(b.hitpoints or 0 for b in _pool(a, pos).select(**_filters(a)))),
    "roll": _roll,
    "keep_highest": _keep(highest=True),
    "keep_lowest": _keep(highest=False),
    "drop_lowest": _drop(lowest=True),
    "drop_highest": _drop(lowest=False),
    "advantage": _two_dice(highest=True),
    "disadvantage": _two_dice(highest=False),
    "explode": _explode,
    "custom_dice": _custom_dice,
    "dice": _dice,
    "max_roll": _roll_bound(highest=True),
    "min_roll": _roll_bound(highest=False),
    "chance": lambda a, env, pos: _draw(env, Bernoulli(_probability(a, pos)), pos),
    "trials": lambda a, env, pos: _draw(env, Binomial(_count(a, "count", pos, env), _probability(a, pos)), pos),
    "pick": _over("items", _pick),
    "successes": _successes,
    "tally": _tally,
    "prob": _aggregate,
    "mean": _aggregate,
    "always": _aggregate,
    "never": _aggregate,
    "possible": _aggregate,
}


# Builtins generated code calls with their arguments in place, in the order of their signature
# (fracas.dsl.builtins), each missing one given its default here: no dictionary to build and read,
# for the builtins a damage step calls again and again.
POSITIONAL: dict[str, tuple[Callable[..., Any], tuple[Any, ...]]] = {
    "volley": (_volley, (None, 1, None)),
    "bodies": (_bodies, (None, None, None, "")),
    "lethal": (_lethal, (None, ANY, ANY)),
}


def _by_name(name: str) -> Callable[[Args, Env, n.Pos], Any]:
    """A positional builtin called with its arguments by name, as the others are."""
    implementation, defaults = POSITIONAL[name]
    names = [param for param, _ in SIGNATURES[name].params]

    def call(a: Args, env: Env, pos: n.Pos) -> Any:
        return implementation(*(a.get(p, d) for p, d in zip(names, defaults)), env, pos)
    return call


IMPLEMENTATIONS.update({name: _by_name(name) for name in POSITIONAL})
