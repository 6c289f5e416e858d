"""What one ruleset changes from another: declarations added, removed or changed.

Declarations compare by structure, not by position, so moving a rule or
re-indenting it is no change; a row's or kind's change is listed field by field,
and the requires of a kind or an action one by one. A require at the top of a
file has no name: it is known by its condition. What a detail quotes is the
source as written, all its lines, its runs of spaces made one; what it compares
is the syntax, so that a change of layout alone is none.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from fractions import Fraction

from fracas.dsl import nodes as n
from fracas.dsl.builtins import SIGNATURES
from fracas.dsl.extend import describe
from fracas.dsl.records import record, replace
from fracas.dsl.ruleset import Ruleset
from fracas.dsl.types import type_from
from fracas.dsl.walk import descendants, map_children


@record(frozen=True)
class Change:
    """One declaration added, removed or changed between two versions of the rules: one line of `fracas diff`."""

    what: str  # "added", "removed" or "changed"
    category: str  # param, row, kind, modifier, fn, step, action, outcome, require
    name: str
    where: n.Pos  # in the newer rules (the older one for a removal)
    details: tuple[str, ...] = ()

    def line(self) -> str:
        place = f"{self.where.path}:{self.where.line}"
        head = f"{self.what:<8} {self.category} {self.name}"
        return "\n".join([f"{head:<44} {place}"] + [f"           {d}" for d in self.details])


def declarations(rules: Ruleset) -> dict[tuple[str, str], n.Decl]:
    found: dict[tuple[str, str], n.Decl] = {}
    groups: list[dict] = [
        {k: v.decl for k, v in rules.kinds.items()},
        rules.rows,
        rules.tables,
        {k: v.decl for k, v in rules.params.items()},
        {k: v.decl for k, v in rules.choices.items()},
        {k: v.decl for k, v in rules.outcomes.items()},
        rules.modifiers,
        rules.fns,
        rules.steps,
        rules.actions,
    ]
    for group in groups:
        for name, decl in group.items():
            found[(describe(decl), name)] = decl
    for require in rules.requires:  # nameless: known by what they require
        found[("require", _spelled(require.test, rules))] = require
    return found


def _field_changes(old: n.Decl, new: n.Decl, before: Ruleset, after: Ruleset) -> tuple[str, ...]:
    if isinstance(old, (n.ParamDecl, n.ChoiceDecl, n.OutcomeDecl)) and type(old) is type(new):
        return _part_changes(old, new, before, after)
    if isinstance(old, n.Require) and isinstance(new, n.Require):
        return (f'message: "{old.message}" -> "{new.message}"',)
    if isinstance(old, n.StepDecl) and isinstance(new, n.StepDecl):
        return tuple(_param_changes(old, new, before, after) + _gives_changes(old, new, before, after)
                     + _require_changes(old.requires, new.requires, before, after)
                     + _statement_changes(old.body, new.body, before, after)) + _allocation_changes(
            old, new, before, after)
    if isinstance(old, n.FnDecl) and isinstance(new, n.FnDecl):
        body = ([f"value: {_spelled(old.body, before)} -> {_spelled(new.body, after)}"]
                if old.body is not None and new.body is not None
                and _without_allocation(old.body) != _without_allocation(new.body) else [])
        return tuple(_param_changes(old, new, before, after) + _gives_changes(old, new, before, after)
                     + _fn_body_changes(old, new, before, after) + body
                     + (_statement_changes(old.block, new.block, before, after)
                        if old.block is not None and new.block is not None else [])) + _allocation_changes(
            old, new, before, after)
    if isinstance(old, n.ModifierDecl) and isinstance(new, n.ModifierDecl):
        return tuple(_param_changes(old, new, before, after) + _listed_changes(
            [(term.pos.line, _spelled(term, before), term) for term in old.terms],
            [(term.pos.line, _spelled(term, after), term) for term in new.terms]))
    if isinstance(old, n.TableDecl) and isinstance(new, n.TableDecl):
        return _table_changes(old, new, before, after)
    if isinstance(old, n.RowDecl) and isinstance(new, n.RowDecl):
        a = {f.name: f.value for f in old.fields}
        b = {f.name: f.value for f in new.fields}
        gone, came = "(default)", "(default)"  # a row without a field takes its kind's default
    elif isinstance(old, n.KindDecl) and isinstance(new, n.KindDecl):
        a = {f.name: f for f in old.fields}
        b = {f.name: f for f in new.fields}
        gone, came = "(removed)", "(added)"
    else:
        return ()
    details = []
    for name in list(a) + [k for k in b if k not in a]:
        was = _shown(a[name], before) if name in a else came
        now = _shown(b[name], after) if name in b else gone
        if was != now:
            details.append(f"{name}: {was} -> {now}")
    if isinstance(old, n.KindDecl) and isinstance(new, n.KindDecl):
        details += _require_changes(old.requires, new.requires, before, after)
    return tuple(details)


def _table_changes(old: n.TableDecl, new: n.TableDecl, before: Ruleset, after: Ruleset) -> tuple[str, ...]:
    """A table's keys, type and default where they differ, then each cell changed, by its row and column."""
    details = []
    keys = (f"{old.row_kind}, {old.column_kind}", f"{new.row_kind}, {new.column_kind}")
    if keys[0] != keys[1]:
        details.append(f"keyed by: {keys[0]} -> {keys[1]}")
    if old.type != new.type:
        details.append(f"type: {before.text_of(old.type)} -> {after.text_of(new.type)}")
    if old.default != new.default:
        details.append(f"default: {_cell_text(old.default, before, '(none)')} -> {_cell_text(new.default, after, '(none)')}")
    was, now = _cells(old), _cells(new)
    for key in [*was, *(key for key in now if key not in was)]:
        if was.get(key) != now.get(key):
            details.append(f"{key[0]}, {key[1]}: {_cell_text(was.get(key), before, '(unwritten)')} -> "
                           f"{_cell_text(now.get(key), after, '(unwritten)')}")
    return tuple(details)


def _cells(table: n.TableDecl) -> dict[tuple[str | int, str | int | Fraction], n.Expr]:
    return {(row.name, column): cell for row in table.rows for column, cell in zip(table.columns, row.cells)}


def _cell_text(cell: n.Expr | None, rules: Ruleset, missing: str) -> str:
    return missing if cell is None else rules.text_of(cell)


def _require_changes(old: tuple[n.Require, ...], new: tuple[n.Require, ...], before: Ruleset,
                     after: Ruleset) -> list[str]:
    """A kind's or action's requires added, removed, or given other words. A kind's may require one thing twice (an
    override adds its requires to its base's): they are counted, not known by what they require alone."""
    gone = Counter((_spelled(r.test, before), r.message) for r in old)
    came = Counter((_spelled(r.test, after), r.message) for r in new)
    gone, came = gone - came, came - gone
    reworded = {}  # what one require gone and one come both require: the same require in other words
    gone_texts = {text for text, _ in gone.elements()}
    for text in [text for text in dict.fromkeys(text for text, _ in came.elements()) if text in gone_texts]:
        was = next(message for test, message in gone.elements() if test == text)
        now = next(message for test, message in came.elements() if test == text)
        reworded[text] = (was, now)
        gone[(text, was)] -= 1
        came[(text, now)] -= 1
    details = [f"require {text}: (removed)" for text, _ in gone.elements()]
    details += [f"require {text}: (added)" for text, _ in came.elements()]
    details += [f'require {text}: "{was}" -> "{now}"' for text, (was, now) in reworded.items()]
    return details


def _statement_changes(old: tuple[n.Stmt, ...], new: tuple[n.Stmt, ...], before: Ruleset,
                       after: Ruleset) -> list[str]:
    """The statements of a step's body removed, added or changed, each by its line and its text."""
    return _listed_changes(_statement_lines(old, before), _statement_lines(new, after))


Listed = tuple[int, str, object]  # a line, the text shown, and what is compared (the syntax, and its depth)


def _listed_changes(was: list[Listed], now: list[Listed]) -> list[str]:
    """Items of two lists removed, added or changed, matched by what is compared, each told by its line and text.

    An item whose only change is how a `fire` allocates is left to the allocation's own detail.
    """
    details = []
    matcher = difflib.SequenceMatcher(a=[key for _, _, key in was], b=[key for _, _, key in now], autojunk=False)
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        if op == "equal":
            continue
        if op == "replace" and a1 - a0 == b1 - b0:
            details += [f"line {line}: {_changed(a, b, old, new)}" for (_, a, old), (line, b, new)
                        in zip(was[a0:a1], now[b0:b1]) if _without_allocation(old) != _without_allocation(new)]
            continue
        details += [f"line {line}: {text} (removed)" for line, text, _ in was[a0:a1]]
        details += [f"line {line}: {text} (added)" for line, text, _ in now[b0:b1]]
    return details


def _changed(was: str, now: str, old: object, new: object) -> str:
    """An item's change: its text before and after, or, where that is the same, how deep it moved."""
    if was != now or not (isinstance(old, tuple) and isinstance(new, tuple)):
        return f"{was} -> {now}"
    return f"{now} (moved {'into' if new[0] > old[0] else 'out of'} a block)"  # type: ignore[operator]


def _statement_lines(stmts: tuple[n.Stmt, ...], rules: Ruleset, depth: int = 0) -> list[Listed]:
    """Every statement, nested ones too, in order: a block's statement by its head (`while hp > 0`), compared
    with how deep it stands, so that a statement moved into a block or out of one is a change."""
    found: list[Listed] = []
    for stmt in stmts:
        if isinstance(stmt, n.If):
            found.append((stmt.pos.line, f"if {_spelled(stmt.test, rules)}", (depth, "if", stmt.test)))
            found += _statement_lines(stmt.then, rules, depth + 1)
            if stmt.otherwise:
                found.append((stmt.otherwise[0].pos.line, "else", (depth, "else")))
                found += _statement_lines(stmt.otherwise, rules, depth + 1)
        elif isinstance(stmt, n.For):
            found.append((stmt.pos.line, f"for {stmt.var} in {_spelled(stmt.source, rules)}",
                          (depth, "for", stmt.var, stmt.source)))
            found += _statement_lines(stmt.body, rules, depth + 1)
        elif isinstance(stmt, n.While):
            found.append((stmt.pos.line, f"while {_spelled(stmt.test, rules)}", (depth, "while", stmt.test)))
            found += _statement_lines(stmt.body, rules, depth + 1)
        else:
            found.append((stmt.pos.line, _spelled(stmt, rules), (depth, stmt)))
    return found


def _without_allocation(compared: object) -> object:
    """What is compared of an item, with every `fire` told nothing of how it allocates."""
    def strip(node: n.Node) -> n.Node:
        node = map_children(node, strip)
        if isinstance(node, n.Call) and node.func == "fire":
            kept = tuple(k for k in node.keywords if k.name not in {param for param, _ in _ALLOCATION})
            node = replace(node, args=node.args[:2], keywords=kept)
        return node

    return tuple(strip(part) if isinstance(part, n.Node) else part for part in compared) if isinstance(
        compared, tuple) else strip(compared) if isinstance(compared, n.Node) else compared


def _spelled(node: n.Node, rules: Ruleset) -> str:
    """A node's source as written, all its lines, with each run of spaces outside a text made one space."""
    parts = re.split(r'("(?:[^"\\]|\\.)*")', rules.full_text_of(node))
    return "".join(part if index % 2 else re.sub(r"\s+", " ", part) for index, part in enumerate(parts)).strip()


def _param_changes(old: n.StepDecl | n.FnDecl | n.ModifierDecl, new: n.StepDecl | n.FnDecl | n.ModifierDecl,
                   before: Ruleset, after: Ruleset) -> list[str]:
    """The inputs of an action (the parameters of a step, fn or modifier) added, removed, reordered, or given
    another type, bounds or default."""
    what = "input" if isinstance(new, n.StepDecl) and new.is_action else "parameter"

    def shown(param: n.Param, rules: Ruleset) -> str:
        bounds = "" if param.bounds is None else f" {_spelled(param.bounds, rules)}"
        default = "" if param.default is None else f" = {_spelled(param.default, rules)}"
        return _spelled(param.type, rules) + bounds + default

    a = {p.name: p for p in old.params}
    b = {p.name: p for p in new.params}
    details = [f"{what} {name}: {shown(a[name], before)} -> (removed)" for name in a if name not in b]
    details += [f"{what} {name}: (added) -> {shown(b[name], after)}" for name in b if name not in a]
    details += [f"{what} {name}: {shown(a[name], before)} -> {shown(b[name], after)}" for name in b
                if name in a and a[name] != b[name]]
    kept = [name for name in a if name in b]
    if kept != [name for name in b if name in a]:
        details.append(f"order: ({', '.join(a)}) -> ({', '.join(b)})")
    return details


# How `fire` allocates its shots, and what it shows when a variant does not say.
_ALLOCATION = (("allocate", '(unwritten: "random")'), ("order", "(unwritten)"))


def _allocation_changes(old: n.Decl, new: n.Decl, before: Ruleset, after: Ruleset) -> tuple[str, ...]:
    """How the fires of a step or function allocate, where the variant changes it: the n-th fire with the n-th."""
    details = []
    for was, now in zip(_calls_of(old, "fire"), _calls_of(new, "fire")):
        for param, unwritten in _ALLOCATION:
            a, b = _argument(was, param), _argument(now, param)
            shown_was = unwritten if a is None else before.text_of(a)
            shown_now = unwritten if b is None else after.text_of(b)
            if shown_was != shown_now:
                details.append(f"fire at line {now.pos.line}: {param} {shown_was} -> {shown_now}")
    return tuple(details)


def _argument(call: n.Call, param: str) -> n.Expr | None:
    """The argument a call of a builtin gives for `param`, by name or by position, if any."""
    for keyword in call.keywords:
        if keyword.name == param:
            return keyword.value
    position = [name for name, _ in SIGNATURES[call.func].params].index(param)
    return call.args[position] if len(call.args) > position else None


def _calls_of(decl: n.Decl, func: str) -> list[n.Call]:
    """The calls of `func` in a declaration, in the order written."""
    return [node for node in descendants(decl) if isinstance(node, n.Call) and node.func == func]


def _gives_changes(old: n.FnDecl | n.StepDecl, new: n.FnDecl | n.StepDecl, before: Ruleset,
                   after: Ruleset) -> list[str]:
    """The type of the value a fn or step gives, where it changed (a fn `= expr` gives what its expression does)."""
    def gives(decl: n.FnDecl | n.StepDecl, rules: Ruleset) -> str:
        if decl.result is not None:
            return str(type_from(decl.result, rules.kinds))
        if isinstance(decl, n.FnDecl):
            return str(rules.fn_types.get(decl.name, "(unwritten)"))
        return "(nothing)"

    was, now = gives(old, before), gives(new, after)
    return [f"gives: {was} -> {now}"] if was != now else []


def _fn_body_changes(old: n.FnDecl, new: n.FnDecl, before: Ruleset, after: Ruleset) -> list[str]:
    """Whether a fn went from an expression to statements, or back."""
    def form(decl: n.FnDecl) -> str:
        return "= expression" if decl.body is not None else "{ statements }"

    return [f"written: {form(old)} -> {form(new)}"] if form(old) != form(new) else []


def _shown(node: n.Node, rules: Ruleset) -> str:
    """A row's field value as written, or a kind's field as its type and default."""
    if isinstance(node, n.FieldDecl):
        bounds = "" if node.bounds is None else f" {rules.text_of(node.bounds)}"
        default = "" if node.default is None else f" = {rules.text_of(node.default)}"
        return rules.text_of(node.type) + bounds + default
    return rules.text_of(node)


def _part_changes(old: n.Decl, new: n.Decl, before: Ruleset, after: Ruleset) -> tuple[str, ...]:
    """The type and the value of a parameter, choice or outcome, where they differ."""
    details = []
    for part in ("type", "bounds", "value") if isinstance(old, n.ParamDecl) else ("type", "value"):
        was, now = getattr(old, part), getattr(new, part)
        shown_was = "(unwritten)" if was is None else before.text_of(was)
        shown_now = "(unwritten)" if now is None else after.text_of(now)
        if shown_was != shown_now:
            details.append(f"{part}: {shown_was} -> {shown_now}")
    return tuple(details)


def compare(before: Ruleset, after: Ruleset) -> list[Change]:
    old = declarations(before)
    new = declarations(after)
    changes = []
    for key, decl in new.items():
        if key not in old:
            changes.append(Change("added", key[0], key[1], decl.pos))
        elif old[key] != decl:
            changes.append(Change("changed", key[0], key[1], decl.pos, _field_changes(old[key], decl, before, after)))
    for key, decl in old.items():
        if key not in new:
            changes.append(Change("removed", key[0], key[1], decl.pos))
    return changes
