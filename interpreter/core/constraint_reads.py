"""What the constraints of the rules read, worked out from the rules alone and kept with them.

Checking a value or a final state against its constraints needs to know, of
each kind, what its constraints read and how, which of them a statement could
break, and which fields may hold a record with constraints of its own: walks
of the constraints' trees and of the types, the same for every scenario. A
fresh process would walk them again on its first call (a tenth of a small
exact call); they are kept with the checked rules instead, as the generated
code is (kept_code.py), under the digest of the interpreter's code.
"""

from __future__ import annotations

from typing import Any

from fracas.dsl import nodes as n
from fracas.dsl.builtins import SIGNATURES
from fracas.dsl.checked import keep_with
from fracas.dsl.records import record
from fracas.dsl.ruleset import Constraint, Ruleset
from fracas.dsl.statements import children
from fracas.dsl.types import Type
from fracas.dsl.walk import descendants
from fracas.interpreter.core import kept_code

KEY = "constraint reads"


@record(frozen=True)
class Reads:
    """What the constraints of a ruleset read (see the module's docstring)."""

    made_by: bytes  # code_digest() of the interpreter that worked it out
    constrained: frozenset[str]  # constrained_fields
    layout: dict[str, tuple[Any, ...]]  # by kind (and "" for the outcomes): the fields that may hold records
    changing: dict[str, tuple[Constraint, ...]]  # by kind: the constraints a statement could break
    # By kind, for each of its constraints in order, what it reads of its record by place: the plain fields,
    # and the fields it reads through (which must hold rows for the values to say all); None if it reads
    # anything else but parameters, or calls a function of the rules.
    own: dict[str, tuple[tuple[tuple[int, ...], tuple[int, ...]] | None, ...]]
    structured: dict[str, tuple[int, ...]]  # by kind: the fields that may hold a record with constraints
    outcomes_structured: bool  # whether an outcome may hold a record with constraints


def reads_of(rules: Ruleset) -> Reads:
    """The rules' Reads: kept with them, or worked out (and kept) now."""
    found = rules.runtime_cache.get(KEY)
    if found is None:
        try:
            digest = kept_code.code_digest()
        except OSError:
            digest = b""
        kept = rules.kept.get(KEY)
        if isinstance(kept, Reads) and digest and kept.made_by == digest:
            found = kept
        else:
            found = _worked_out(rules, digest)
            if digest and rules.cache_name is not None:  # rules given once, as text, keep nothing (kept_code.py)
                keep_with(rules, KEY, found)
        rules.runtime_cache[KEY] = found
    return found  # type: ignore[no-any-return]


def own_reads(rules: Ruleset, constraint: Constraint, kind: str) -> Any:
    """What a constraint of `kind` reads of its record (see Reads.own)."""
    by_id = rules.runtime_cache.get("own reads by constraint")
    if by_id is None:
        own = reads_of(rules).own
        by_id = rules.runtime_cache["own reads by constraint"] = {
            (id(c), name): reads for name, info in rules.kinds.items() for c, reads in zip(info.constraints, own[name])}
    return by_id[(id(constraint), kind)]


def _worked_out(rules: Ruleset, digest: bytes) -> Reads:
    def structured(t: Type) -> bool:
        return t.is_kind or t.name in ("list", "any")

    layout: dict[str, tuple[Any, ...]] = {name: tuple(i for i, f in enumerate(kind.fields) if structured(f.type))
                                          for name, kind in rules.kinds.items()}
    layout[""] = tuple(name for name, typed in rules.outcomes.items() if structured(typed.type))
    read: set[str] = set()
    for kind in rules.kinds.values():
        for constraint in kind.constraints:
            read |= {step for path in constraint.reads for step in path if isinstance(step, str)}
            read |= _names_read(rules, constraint.test)
    constrained = frozenset(read) | frozenset(field.name for kind in rules.kinds.values() for field in kind.fields
                                              if may_hold_constrained(rules, field.type))
    return Reads(
        made_by=digest, constrained=constrained, layout=layout,
        changing={name: tuple(c for c in kind.constraints if _may_change(c.test, rules.assigned_fields))
                  for name, kind in rules.kinds.items()},
        own={name: tuple(_own(rules, c, name) for c in kind.constraints) for name, kind in rules.kinds.items()},
        structured={name: tuple(i for i in layout[name] if may_hold_constrained(rules, kind.fields[i].type))
                    for name, kind in rules.kinds.items()},
        outcomes_structured=any(may_hold_constrained(rules, rules.outcomes[name].type) for name in layout[""]))


def _names_read(rules: Ruleset, test: n.Expr) -> set[str]:
    """The name of every field an expression reads, on whatever record, and in the functions and modifiers it
    calls, theirs too: more than the paths it reads (a comprehension's item, a function's parameter)."""
    names: set[str] = set()
    seen: set[str] = set()
    waiting: list[n.Node] = [test]
    while waiting:
        for node in descendants(waiting.pop()):
            if isinstance(node, n.Attr):
                names.add(node.name)
            elif isinstance(node, n.Call) and node.func not in seen:
                called = rules.fns.get(node.func) or rules.modifiers.get(node.func)
                if called is not None:
                    seen.add(node.func)
                    waiting.append(called)
    return names


def may_hold_constrained(rules: Ruleset, typed: Type, seen: frozenset[str] = frozenset()) -> bool:
    """Whether a value of this type may hold a record with constraints, at any depth (its kind's, or one
    of its fields')."""
    if typed.name == "any":
        return True
    if typed.name == "list":
        return typed.item is None or may_hold_constrained(rules, typed.item, seen)
    if not typed.is_kind or typed.name in seen:
        return False
    kind = rules.kinds.get(typed.name)
    return kind is None or bool(kind.constraints) or any(
        may_hold_constrained(rules, field.type, seen | {typed.name}) for field in kind.fields)


def _own(rules: Ruleset, constraint: Constraint, kind: str) -> Any:
    """What a constraint reads of a record of `kind` (see Reads.own)."""
    if _calls_rules(constraint.test):
        return None
    fields = rules.kinds[kind].fields
    index = {field.name: place for place, field in enumerate(fields)}
    plain: set[int] = set()
    through: set[int] = set()
    for path in constraint.reads:
        name = path[0]
        if name in index:
            place = index[name]
            typed = fields[place].type
            if len(path) == 1 and not (typed.is_kind or typed.name in ("list", "any")):
                plain.add(place)
            elif typed.is_kind:
                through.add(place)
            else:
                return None
        elif not (len(path) == 1 and name in rules.params):
            return None
    return tuple(sorted(plain)), tuple(sorted(through))


def _calls_rules(expr: n.Expr) -> bool:
    """Whether an expression calls a function or modifier of the rules."""
    return (isinstance(expr, n.Call) and expr.func not in SIGNATURES) or any(
        _calls_rules(child) for child in children(expr))


def _may_change(expr: n.Expr, assigned: set[str]) -> bool:
    if isinstance(expr, (n.Attr, n.Name)) and expr.name in assigned:
        return True
    if isinstance(expr, n.Call) and expr.func not in SIGNATURES:
        return True
    return any(_may_change(child, assigned) for child in children(expr))
