"""What generated code calls: arithmetic with its limits, fields, tables, changes and events.

Every function here is small and takes the position to blame, so that an
error in a rule is reported at its line. Nothing here knows which engine runs.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from fracas.dsl import nodes as n
from fracas.interpreter.core.errors import SAMPLE_INSTEAD, RunError
from fracas.interpreter.core.values import Record, Ref, RowRef, brief_change, normalize, show_brief
from fracas.interpreter.runtime.bodies import Pool, Volley


class Working:
    """One state being changed by a block: the frame's slots, the world, the outcomes, why it stopped."""

    __slots__ = ("F", "W", "O", "stopped", "stack", "depth", "wrote")

    def __init__(self, F: list[Any], W: dict[str, Record], O: dict[str, Any], stopped: str | None = None,
                 stack: tuple[Any, ...] = (), depth: int = 0):
        self.F = F
        self.W = W
        self.O = O
        self.stopped = stopped
        self.stack = stack  # callers' frames, while a step that calls itself runs
        self.depth = depth
        self.wrote = False  # whether the exact engine changed the world (a dead change leaves it as it was)


# ---- numbers -----------------------------------------------------------------------------


def bits_limit(digits: int) -> int:
    return math.ceil(digits * math.log2(10))


def within(value: Any, R: Any, pos: n.Pos) -> Any:
    """The value, if it stays within the digits limit (a fraction: both its parts), or a text within its length."""
    kind = type(value)
    if kind is int:
        bits = value.bit_length()
    elif kind is Fraction:
        bits = max(value.numerator.bit_length(), value.denominator.bit_length())
    elif kind is str:  # a text doubled in a loop: stopped before it takes the machine's memory
        limits = R.program.rules.limits
        if len(value) > limits.text_length:
            raise RunError(pos, f"a text grew past the limit of {limits.text_length} characters",
                           limits.hint("text_length"))
        return value
    else:
        return value
    if bits > R.most_bits:
        limits = R.program.rules.limits
        raise RunError(pos, f"a number grew past the limit of {limits.digits} digits", limits.hint("digits"))
    return value


def add(a: Any, b: Any, R: Any, pos: n.Pos) -> Any:
    if type(a) is int and type(b) is int:
        return a + b  # grows by a digit at most: no check
    if type(a) is tuple and type(b) is tuple and len(a) + len(b) > R.program.rules.limits.loop_items:
        limits = R.program.rules.limits  # a list doubled in a loop: stopped before it takes the machine's memory
        raise RunError(pos, f"a list grew past the limit of {limits.loop_items} items", limits.hint("loop_items"))
    try:
        value = normalize(a + b) if isinstance(a, (int, Fraction)) else a + b
    except TypeError:
        raise RunError(pos, f"cannot add {show_brief(a)} and {show_brief(b)}") from None
    return within(value, R, pos)


def sub(a: Any, b: Any, R: Any, pos: n.Pos) -> Any:
    if type(a) is int and type(b) is int:
        return a - b
    return within(normalize(a - b), R, pos)


def mul(a: Any, b: Any, R: Any, pos: n.Pos) -> Any:
    return within(a * b if type(a) is int and type(b) is int else normalize(a * b), R, pos)


def div(a: Any, b: Any, R: Any, pos: n.Pos) -> Any:
    if b == 0:
        raise RunError(pos, "division by zero")
    if type(a) is int and type(b) is int:
        # Whole numbers (hits / 6 for each count of hits a distribution holds): whole where b divides a, else
        # one fraction reduced once, not two made and divided.
        quotient, rest = divmod(a, b)
        return within(quotient if rest == 0 else Fraction(a, b), R, pos)
    return within(normalize(Fraction(a) / Fraction(b)), R, pos)


def floor_div(a: Any, b: Any, R: Any, pos: n.Pos) -> Any:
    """floor(a / b), `pos` the division's: whole numbers divided by one Python operation, no fraction made."""
    if type(a) is int and type(b) is int and b:
        return a // b
    return math.floor(div(a, b, R, pos))


def ceil_div(a: Any, b: Any, R: Any, pos: n.Pos) -> Any:
    """ceil(a / b), as floor_div."""
    if type(a) is int and type(b) is int and b:
        return -(-a // b)
    return math.ceil(div(a, b, R, pos))


def _none_compared(symbol: str, pos: n.Pos) -> RunError:
    return RunError(pos, f"cannot compare none with '{symbol}'")


def lt(a: Any, b: Any, pos: n.Pos) -> bool:
    if a is None or b is None:
        raise _none_compared("<", pos)
    return a < b


def le(a: Any, b: Any, pos: n.Pos) -> bool:
    if a is None or b is None:
        raise _none_compared("<=", pos)
    return a <= b


def gt(a: Any, b: Any, pos: n.Pos) -> bool:
    if a is None or b is None:
        raise _none_compared(">", pos)
    return a > b


def ge(a: Any, b: Any, pos: n.Pos) -> bool:
    if a is None or b is None:
        raise _none_compared(">=", pos)
    return a >= b


def in_range(value: Any, low: Any, high: Any, negated: bool, pos: n.Pos) -> bool:
    if value is None or low is None or high is None:
        raise RunError(pos, "cannot compare none with 'in low..high'")
    return (low <= value <= high) != negated


def truth(value: Any, pos: n.Pos) -> bool:
    if value is True or value is False:
        return value
    raise RunError(pos, f"a condition must be true or false, not {show_brief(value)}")


def add_assign(old: Any, value: Any) -> Any:
    kind = type(old)
    if kind is int and type(value) is int:
        return old + value
    # numbers are normalised; pools and volleys concatenate
    return normalize(old + value) if kind is Fraction or isinstance(old, (int, float)) else old + value


_JOINED = (Pool, Volley)  # values that += joins

COMBINE = {
    "=": lambda old, value: value,
    "+=": add_assign,
    "-=": lambda old, value: normalize(old - value),
    "*=": lambda old, value: normalize(old * value),
}


def combine(op: str, old: Any, value: Any, R: Any, pos: n.Pos) -> Any:
    if op == "=":
        return value
    kind = type(old)
    if kind is int and type(value) is int and op != "*=":
        return old + value if op == "+=" else old - value  # grows by a digit at most: no check
    if op == "+=" and kind in _JOINED and type(value) is kind:
        return old + value  # no number: nothing to normalise or hold to the digits limit
    if op == ITEM_SET:
        return value.put(old, R, pos)
    return within(COMBINE[op](old, value), R, pos)


ITEM_SET = "[]="  # the operator of an assignment to an item of a list: its value is an ItemSet


class ItemSet:
    """What `xs[i] op= v` does to the list xs: a list is a value, so a new one is made with the item changed."""

    __slots__ = ("index", "op", "value", "index_pos")

    def __init__(self, index: Any, op: str, value: Any, index_pos: n.Pos):
        self.index, self.op, self.value, self.index_pos = index, op, value, index_pos

    def put(self, items: Any, R: Any, pos: n.Pos) -> tuple[Any, ...]:
        old = item(items, self.index, pos, self.index_pos)
        at = self.index
        return items[:at] + (combine(self.op, old, self.value, R, pos),) + items[at + 1:]


# ---- records, rows, tables, lists ------------------------------------------------------------


def record_of(value: Any, W: dict[str, Record], R: Any, pos: n.Pos, name: str) -> Record:
    kind = type(value)
    if kind is Ref:
        return W[value.id]
    if kind is RowRef:
        return R.program.rows[value.name]
    if kind is Record:
        return value
    if value is None:
        raise RunError(pos, f"there is nothing here (none), so it has no field '{name}'",
                       "check it first, for example: if x != none { ... }")
    raise RunError(pos, f"{show_brief(value)} has no field '{name}'")


def attr(value: Any, name: str, W: dict[str, Record], R: Any, pos: n.Pos) -> Any:
    kind = type(value)
    if kind is Ref:
        record = W[value.id]
    elif kind is RowRef:
        record = R.program.rows[value.name]
    else:
        record = record_of(value, W, R, pos, name)
    try:  # the most called function of a sampled run: no test on the way that works
        return record.values[record.shape.index[name]]
    except KeyError:
        raise RunError(pos, f"a {record.shape.kind} has no field '{name}'") from None


def item(items: Any, index: Any, pos: n.Pos, index_pos: n.Pos) -> Any:
    if not isinstance(items, tuple):
        raise RunError(pos, f"only a list can be indexed, not {show_brief(items)}")
    if not isinstance(index, int) or not 0 <= index < len(items):  # counted from 0; never from the end
        raise RunError(index_pos, f"index {show_brief(index)} is outside a list of {len(items)}")
    return items[index]


_NO_CELL = object()  # a table's cell not written


def cell(R: Any, name: str, row: Any, column: Any, pos: n.Pos) -> Any:
    keys = (_table_key(row), _table_key(column))
    if None in keys:
        raise RunError(pos, f"table '{name}' is looked up by two rows or whole numbers, not {show_brief(row)} and "
                            f"{show_brief(column)}")
    program = R.program
    found = program.tables[name].get(keys, _NO_CELL)
    if found is not _NO_CELL:  # none, too, in a table of T?
        return found
    if name in program.table_defaults:
        return program.table_defaults[name]
    raise RunError(pos, f"table '{name}' has no value for {keys[0]} and {keys[1]}",
                   "add the row or column to the table, or give the table a default")


def _table_key(value: Any) -> str | int | None:
    """A value as a table's key: a row by its name, a whole number as itself (None for anything else)."""
    if isinstance(value, RowRef):
        return value.name
    return value if type(value) is int else None


def record(R: Any, kind: str, values: tuple[Any, ...]) -> Record:
    return Record(R.program.shapes[kind], values)


def set_field(S: Working, R: Any, owner: Any, path: tuple[str, ...], name: str, op: str, value: Any,
              stmt: n.Assign) -> None:
    """owner.path.name op= value: an entity of the world changed; rows are constants."""
    pos = stmt.pos
    for step in path:
        owner = attr(owner, step, S.W, R, pos)
    if type(owner) is not Ref:
        if isinstance(owner, RowRef):
            raise RunError(pos, f"'{owner.name}' is a row: rows are constants",
                           "store changing values in the scenario's things, not in rows")
        raise RunError(pos, f"cannot change a field of {show_brief(owner)}: a record written in the rules is a value, "
                       "not a thing", "only the scenario's things change: an action's inputs (given by the scenario or "
                       "by their defaults) and the things they hold")
    entity: Record = S.W[owner.id]
    old = entity.get(name)
    new = combine(op, old, value, R, pos)
    if R.trace is not None:
        log_change(R.trace, stmt, f"{owner.id}.{name}", old, new)
    interned = R.interned  # the exact engine's
    if interned is None:
        S.W[owner.id] = entity.replace(name, new)
    elif id(stmt) not in R.dead:  # a field no later rule reads: the world left as it was (see Projection.dead_writes)
        S.W[owner.id] = interned.changed(entity, name, new)
        S.wrote = True


def set_outcome(S: Working, R: Any, name: str, op: str, value: Any, stmt: n.Assign) -> None:
    if op == "=" and R.trace is None:
        S.O[name] = value
        return
    old = S.O[name]
    new = combine(op, old, value, R, stmt.pos)
    if R.trace is not None:
        log_change(R.trace, stmt, name, old, new)
    S.O[name] = new


# ---- the event log ----------------------------------------------------------------------------


_DEEPER = " (changed within what is cut short)"


def log_change(trace: Any, stmt: n.Assign, what: str, old: Any, new: Any) -> None:
    if old != new:
        before, after, deeper = brief_change(old, new)
        pos = stmt.pos
        # As trace.add writes an event, without its keywords gathered and spread again: most of a logged run's
        # events besides its shots are changes.
        trace.events.append({"kind": "change", "file": pos.path if pos else "", "line": pos.line if pos else 0,
                             "text": f"{what}: {before} -> {after}" + (_DEEPER if deeper else ""), "target": what,
                             "before": before, "after": after})


def log_let(R: Any, stmt: n.Let, S: Working, slot: int) -> None:
    """A local named, in a logged run: what a later line that reads it (a chance, a count of dice) was given. (A
    pool is not: the bodies made and the shots at them are logged as they happen.)"""
    value = S.F[slot]
    if type(value) is not Pool:
        shown = show_brief(value)
        R.trace.add("let", stmt.pos, f"{stmt.name} = {shown}", name=stmt.name, value=shown)


def local_before(R: Any, S: Working, slot: int) -> Any:
    """A local's value before a statement changes it, in a logged run (none otherwise). Read through the slot's
    number, not written as a read of the slot in the generated line, which would keep the value alive there."""
    return None if R.trace is None else S.F[slot]


def log_local(R: Any, stmt: n.Assign, before: Any, S: Working, slot: int) -> None:
    after = S.F[slot]
    if type(after) is not Pool:
        log_change(R.trace, stmt, stmt.target[0], before, after)


def log_drawn(R: Any, stmt: n.Assign, S: Working, slot: int) -> None:
    """A local set to a value drawn straight into it: the value it holds now (the draw took the old one's place)."""
    name, shown = stmt.target[0], show_brief(S.F[slot])
    R.trace.add("change", stmt.pos, f"{name} = {shown}", target=name, after=shown)


def event(R: Any, stmt: n.Event, values: list[Any], named: list[tuple[str, Any]]) -> None:
    trace = R.trace
    if trace is None:
        return
    shown_args = [show_brief(value) for value in values]
    shown_keywords = {name: show_brief(value) for name, value in named}
    shown = ", ".join(shown_args + [f"{k}: {v}" for k, v in shown_keywords.items()])
    trace.add("event", stmt.pos, f"{stmt.name}({shown})", name=stmt.name, args=shown_args, keywords=shown_keywords)


def log_stop(R: Any, stmt: n.Stop, reason: str) -> None:
    if R.trace is not None:
        R.trace.add("stop", stmt.pos, f"stop: {reason}", reason=reason)


_NOTHING = object()


def log_return(R: Any, stmt: n.Return, value: Any = _NOTHING) -> None:
    if R.trace is None:
        return
    if value is _NOTHING:
        R.trace.add("return", stmt.pos, "end of step" + (f": {stmt.reason}" if stmt.reason else ""),
                    reason=stmt.reason)
    else:
        shown = show_brief(value)
        R.trace.add("return", stmt.pos, f"end of step, giving {shown}", gives=shown)


def log_step(R: Any, decl: n.StepDecl, call: n.Call, given: tuple[Any, ...]) -> None:
    # With what it was given: strike(s: defender, t: attacker) tells a counter from an attack. The text is made
    # once for each call and values, as a logged run's many runs meet the same again and again.
    made = R.program.rules.runtime_cache.setdefault("step texts", {})
    key = (id(call), given)
    found = made.get(key)
    if found is None:
        names = [param.name for param in decl.params]
        shown = [value.id if type(value) is Ref else show_brief(value) for value in given]
        found = (f"step {call.func}({', '.join([f'{k}: {v}' for k, v in zip(names, shown)])})", dict(zip(names, shown)))
        if len(made) < _STEP_TEXTS:
            made[key] = found
    pos = decl.pos
    R.trace.events.append({"kind": "step", "file": pos.path, "line": pos.line, "text": found[0], "step": call.func,
                           "called_at": call.pos.line, "given": dict(found[1])})


_STEP_TEXTS = 4096  # step calls' texts kept for a ruleset, at most


def log_step_end(R: Any, call: n.Call) -> None:
    """Where a step's events end and its caller's go on (a report nests them by these): at the call."""
    pos = call.pos
    R.trace.events.append({"kind": "end", "file": pos.path, "line": pos.line, "text": f"end of step {call.func}",
                           "step": call.func})


def log_modifier(R: Any, decl: n.ModifierDecl, call: n.Call, start: Any, value: Any, applied: list[n.Term]) -> None:
    rules = R.program.rules
    source = rules.source(decl.pos)
    steps = "; ".join(f"line {t.pos.line}: {source.line(t.pos.line).strip()}" for t in applied)
    before, after, deeper = brief_change(start, value)
    R.trace.add("modifier", call.pos, f"{decl.name}: {before} -> {after}{_DEEPER if deeper else ''} ({steps})",
                modifier=decl.name, start=before, result=after, terms=[t.pos.line for t in applied])


TERMS = {
    "add": lambda v, a: normalize(v + a),
    "multiply": lambda v, a: normalize(v * a),
    "replace": lambda v, a: a,
    "at least": lambda v, a: max(v, a),
    "at most": lambda v, a: min(v, a),
}


# ---- limits and failures ---------------------------------------------------------------------


def spend(R: Any, amount: int, pos: n.Pos | None) -> None:
    """Count work against the limit 'work': a runaway loop or comprehension stops, located, in seconds."""
    R.work += amount
    if R.work > R.work_limit:
        raise past_work_limit(R, pos)


# Items gone through in one step of work: a die rolled, a body a volley reads or an item a builtin goes through
# costs a fraction of a block of rules run (measured: a die sampled 0.5 us, a body of a pool fired at anew 1 us, a
# block several), and the default limit is to let a run of a few seconds finish.
ITEMS_PER_STEP = 4


def spend_items(R: Any, items: int, pos: n.Pos | None) -> None:
    """Count `items` gone through (dice rolled, bodies read, a list's items) against the limit 'work'."""
    spend(R, items // ITEMS_PER_STEP, pos)


def draw(R: Any, primitive: Any, pos: n.Pos) -> Any:
    """A draw of a chance primitive, as the run's engine makes it (the exact engine: its distribution).

    Sampled, the dice it rolls count against the limit 'work' (and a volley's shots and bodies): ten thousand
    draws of ten thousand dice in a loop stop at the limit in seconds, where they ran for minutes. (The exact
    engine charges the work of its distribution.)
    """
    if not R.exact:
        items = primitive.sample_work()
        if items >= ITEMS_PER_STEP:
            spend_items(R, items, pos)
    return R.chooser.draw(primitive, pos)


def past_work_limit(R: Any, pos: n.Pos | None) -> RunError:
    """The error of a resolution that did more work than the limit 'work' lets it, located at pos."""
    limits = R.program.rules.limits
    hint = f"{SAMPLE_INSTEAD}; {limits.hint('work')}" if R.exact else limits.hint("work")
    return RunError(pos, f"this resolution did more than {limits.work} steps of work", hint)


def items_of(source: Any, R: Any, pos: n.Pos) -> Any:
    """What a comprehension runs over, counted as work."""
    if isinstance(source, tuple):
        spend(R, len(source), pos)
    return source


class Items:
    """The list a loop runs over, as a state holds it: hashed once, however long (states are hashed often)."""

    __slots__ = ("items", "_hash")

    def __init__(self, items: tuple[Any, ...]):
        self.items = items
        self._hash = hash(items)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return self is other or (type(other) is Items and self._hash == other._hash and self.items == other.items)


def loop_items(items: Any, R: Any, pos: n.Pos) -> Items:
    if not isinstance(items, tuple):
        raise RunError(pos, f"a for loop runs over a list, not {show_brief(items)}")
    limits = R.program.rules.limits
    if len(items) > limits.loop_items:
        raise RunError(pos, f"a loop over {len(items)} items is over the limit of {limits.loop_items}",
                       limits.hint("loop_items"))
    return Items(items)


def loop_enter(R: Any, S: Working, head: int) -> None:
    if R.passes is not None:
        R.passes[head, S.depth] = 0


def loop_pass(R: Any, S: Working, head: int, pos: n.Pos) -> None:
    """One more pass of a while loop, sampled: passes of one loop are held to the loop_items limit."""
    passes = R.passes
    if passes is not None:
        # Counted where the loop's condition is tested, before every pass and once more after the last.
        tested = passes[head, S.depth] = passes[head, S.depth] + 1
        if tested - 1 > R.program.rules.limits.loop_items:
            raise _endless(R, pos)


def _endless(R: Any, pos: n.Pos) -> RunError:
    limits = R.program.rules.limits
    return RunError(pos, f"a while loop made more than {limits.loop_items} passes",
                    "its condition may never fail; " + limits.hint("loop_items"))


BROKE = object()  # what a helper of a fn gives back for a `break` of a loop around it


def fn_pass(passes: int, R: Any, pos: n.Pos) -> int:
    """One more pass of a while loop in a fn: counted as work, and held to the loop_items limit."""
    if passes >= R.program.rules.limits.loop_items:
        raise _endless(R, pos)
    spend(R, 1, pos)
    return passes + 1


def fn_loop(items: Any, R: Any, pos: n.Pos) -> tuple[Any, ...]:
    """What a loop in a fn runs over: a list within the limit, each item counted as work."""
    found = loop_items(items, R, pos).items
    spend(R, len(found), pos)
    return found


def deeper(depth: int, R: Any, pos: n.Pos) -> int:
    limits = R.program.rules.limits
    if depth >= limits.call_depth:
        raise RunError(pos, f"calls nest deeper than {limits.call_depth}",
                       "a function may be calling itself forever; " + limits.hint("call_depth"))
    return depth + 1


def fail(pos: n.Pos, message: str, hint: str = "") -> Any:
    raise RunError(pos, message, hint)


def variadic(implementation: Any, name: str, values: list[Any], R: Any, pos: n.Pos) -> Any:
    if len(values) == 1 and isinstance(values[0], tuple):
        values = list(values[0])
    if not values:
        raise RunError(pos, f"'{name}' of an empty list")
    return implementation({"items": values}, R, pos)
