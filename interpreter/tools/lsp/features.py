"""What the language server answers, computed from analyses: hover, definitions, references, highlights, renames,
outline, lenses, quick fixes.

Places are 1-based lines and columns in characters; the server converts them
to the protocol's (UTF-16 by default). Completion lives in completion.py.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from fracas.dsl import nodes as n
from fracas.dsl.builtins import SIGNATURES, Signature
from fracas.dsl.diagnostics import CLOSE, similarity, suggested
from fracas.dsl.extend import describe
from fracas.dsl.records import field, record
from fracas.dsl.ruleset import Ruleset, comment_start
from fracas.dsl.syntax import is_name
from fracas.dsl.walk import descendants
from fracas.dsl.types import Type
from fracas.interpreter.tools.lsp.analysis import Analysis, Key, Place


# ---- doc comments ---------------------------------------------------------------------------


def doc_comment(text: str, line: int) -> str:
    """The comment lines right above a line (no blank line between), and the comment ending the line itself."""
    lines = lines_of(text)
    if not 0 < line <= len(lines):
        return ""
    above: list[str] = []
    number = line - 1
    while number >= 1 and lines[number - 1].strip().startswith("#"):
        above.append(lines[number - 1].strip().lstrip("#").strip())
        number -= 1
    above.reverse()
    above = [a for a in above if not re.fullmatch(r"-*[^A-Za-z0-9]*-{3,}.*", a)]  # section rules: not docs
    trailing = _trailing_comment(lines[line - 1])
    return "\n".join(above + ([trailing] if trailing else []))


@functools.lru_cache(maxsize=16)
def lines_of(text: str) -> list[str]:
    """A text's lines, split once for the many questions asked of the same text (not to be changed)."""
    return text.split("\n")


def _trailing_comment(line: str) -> str:
    """The comment after something written on a line (a comment alone on its line is not one)."""
    start = comment_start(line)
    return line[start + 1 :].strip() if line[:start].strip() else ""


# ---- hover --------------------------------------------------------------------------------------


def hover(analysis: Analysis, related: list[Analysis], line: int, column: int) -> str | None:
    """Markdown about the name at a place, or None where there is none."""
    found = analysis.at(analysis.path, line, column)
    if found is None or analysis.rules is None:
        return None
    rules = analysis.rules
    key = found.key
    parts: list[str] = []
    if key[0] == "kind":
        parts.append(_code(_kind_text(rules, key[1])))
    elif key[0] == "field":
        parts.append(_code(_field_text(rules, key[1], key[2])))
    elif key[0] == "builtin":
        sig = SIGNATURES.get(key[1])
        if sig is None:
            return None
        parts.append(_code(signature(sig)))
        parts.append(sig.summary[:1].upper() + sig.summary[1:] + ".")
        return "\n\n".join(parts)
    elif key[0] == "local":
        local = analysis.locals.get(key)
        if local is None:
            return None
        type_ = local.type_text or (str(analysis.types[key]) if key in analysis.types else "")
        parts.append(_code(f"{local.name}: {type_}" if type_ else local.name))
        parts.append(local.what[:1].upper() + local.what[1:])
    else:
        text = _value_text(rules, key[1])
        if text is None:
            return None
        parts.append(_code(text))
    places = _definitions(analysis, related, key)
    docs = [doc_comment(_text_of(analysis, related, place.path), place.line) for place in places]
    parts.extend(dict.fromkeys(d for d in docs if d))
    parts.append(_declared(analysis, places, key))
    return "\n\n".join(p for p in parts if p)


def _code(text: str) -> str:
    return f"```fracas\n{text}\n```"


def signature(sig: Signature) -> str:
    # Written as the rules write a fn's type, after a colon (`fn f(x: int): int`).
    if sig.variadic:
        return f"{sig.name}({', '.join(_builtin_params(sig))}): number"
    if isinstance(sig.returns, Type):
        return f"{sig.name}({', '.join(_builtin_params(sig))}): {sig.returns}"
    return f"{sig.name}({', '.join(_builtin_params(sig))})  # its type depends on its arguments"


def _builtin_params(sig: Signature) -> list[str]:
    if sig.variadic:
        return ["numbers..."]
    return [f"{name}: {type_}" + ("" if i < sig.required else " = none" if type_.optional else " = ...")
            for i, (name, type_) in enumerate(sig.params)]


@record
class CallSignature:
    """What a call's function takes, for signature help: its signature, where each parameter is written in it
    (start and end, in characters), the parameters' names, and its summary or doc comment."""

    label: str
    spans: list[tuple[int, int]]
    names: list[str]
    documentation: str = ""
    variadic: bool = False  # any number of arguments, all alike (min, max)


def call_signature(analysis: Analysis, callee: str) -> CallSignature | None:
    """The signature of a function, step, modifier, action or builtin called by name; None for another name."""
    rules = analysis.rules
    if rules is None:
        return None
    decl = rules.fns.get(callee) or rules.modifiers.get(callee) or rules.steps.get(callee) or rules.actions.get(callee)
    if decl is not None:
        label, params, names = _value_text(rules, callee) or "", _param_texts(rules, decl.params), \
            [p.name for p in decl.params]
        source = analysis.sources.get(decl.pos.path)
        documentation = doc_comment(source.text, decl.pos.line) if source is not None else ""
    elif callee in SIGNATURES:
        sig = SIGNATURES[callee]
        label, params, names = signature(sig), _builtin_params(sig), [name for name, _ in sig.params]
        documentation = sig.summary[:1].upper() + sig.summary[1:] + "."
    else:
        return None
    spans, at = [], label.find("(") + 1
    for param in params:
        start = label.find(param, at)
        spans.append((start, start + len(param)))
        at = start + len(param)
    return CallSignature(label, spans, names, documentation, callee in SIGNATURES and SIGNATURES[callee].variadic)


def parameter_hints(analysis: Analysis, first: int, last: int) -> list[tuple[int, int, str]]:
    """The name of the parameter each argument given by its place takes, where it is written (line and column)
    between two lines of this file: not for a call of one parameter, nor an argument that is a name alike."""
    rules, module = analysis.rules, analysis.module
    if rules is None or module is None or analysis.stale:
        return []
    found = []
    for decl, start, following in declaration_spans(analysis):
        if start > last or following <= first:
            continue
        for call in (node for node in descendants(decl) if isinstance(node, n.Call)):
            if not first <= call.pos.line <= last:
                continue
            shown = call_signature(analysis, call.func)
            if shown is None or shown.variadic or len(shown.names) < 2:
                continue
            for arg, name in zip(call.args, shown.names):
                if not (isinstance(arg, n.Name) and arg.name == name) and arg.pos.path == analysis.path:
                    found.append((arg.pos.line, arg.pos.column, name))
    return found


def _kind_text(rules: Ruleset, name: str) -> str:
    kind = rules.kinds.get(name)
    if kind is None:
        return f"kind {name}"
    rows = [row for row, decl in rules.rows.items() if decl.kind == name]
    if not kind.fields:
        return f"enum {name} {{ {' '.join(rows)} }}"
    lines = [f"kind {name} {{"]
    for info in kind.fields:
        default = f" = {rules.text_of(info.default)}" if info.default is not None else ""
        lines.append(f"    {info.name}: {info.type}{_bounds_text(rules, info.decl.bounds)}{default}")
    lines.append("}")
    if rows:
        lines.append(f"# rows: {', '.join(rows)}")
    return "\n".join(lines)


def _field_text(rules: Ruleset, kind_name: str, field_name: str) -> str:
    kind = rules.kinds.get(kind_name)
    info = kind.field(field_name) if kind is not None else None
    if info is None:
        return f"{kind_name}.{field_name}"
    default = f" = {rules.text_of(info.default)}" if info.default is not None else ""
    return f"{info.name}: {info.type}{_bounds_text(rules, info.decl.bounds)}{default}    # a field of kind {kind_name}"


def _params_text(rules: Ruleset, params: tuple[n.Param, ...]) -> str:
    return ", ".join(_param_texts(rules, params))


def _param_texts(rules: Ruleset, params: tuple[n.Param, ...]) -> list[str]:
    types = {p.name: p for p in params}
    return [f"{p.name}: {_type_expr(p.type)}{_bounds_text(rules, p.bounds)}"
            + (f" = {rules.text_of(p.default)}" if p.default else "") for p in types.values()]


def _bounds_text(rules: Ruleset, bounds: n.Bounds | None) -> str:
    """` in low..high`, as the bounds of a field, a parameter or an input are written; nothing where there are none."""
    return "" if bounds is None else f" in {rules.text_of(bounds.low)}..{rules.text_of(bounds.high)}"


def _type_expr(type_: n.TypeExpr | None) -> str:
    if type_ is None:
        return "any"
    text = f"list of {_type_expr(type_.item)}" if type_.name == "list" else type_.name
    return text + ("?" if type_.optional else "")


def _value_text(rules: Ruleset, name: str) -> str | None:
    if name in rules.rows:
        row = rules.rows[name]
        kind = rules.kinds.get(row.kind)
        if kind is None or not kind.fields:
            return f"{name}: a value of enum {row.kind}"
        given = {f.name: f for f in row.fields}
        lines = [f"{row.kind} {name} {{"]
        for info in kind.fields:
            if info.name in given:
                lines.append(f"    {info.name} {rules.text_of(given[info.name].value)}")
            elif info.default is not None:
                lines.append(f"    {info.name} {rules.text_of(info.default)}    # the default")
        lines.append("}")
        return "\n".join(lines)
    if name in rules.params:
        typed = rules.params[name]
        bounds = typed.decl.bounds if isinstance(typed.decl, n.ParamDecl) else None
        return f"param {name}: {typed.type}{_bounds_text(rules, bounds)} = {rules.text_of(typed.value)}"
    if name in rules.choices:
        typed = rules.choices[name]
        decl = typed.decl
        description = f' "{decl.description}"' if isinstance(decl, n.ChoiceDecl) and decl.description else ""
        options = [row for row, d in rules.rows.items() if d.kind == typed.type.name] or ["true", "false"]
        return (f"choice {name}: {typed.type} = {rules.text_of(typed.value)}{description}\n"
                f"# options: {', '.join(options)}")
    if name in rules.outcomes:
        typed = rules.outcomes[name]
        return f"outcome {name}: {typed.type} = {rules.text_of(typed.value)}"
    if name in rules.tables:
        table = rules.tables[name]
        default = f" default {rules.text_of(table.default)}" if table.default is not None else ""
        return (f"table {name}({table.row_kind}, {table.column_kind}): {_type_expr(table.type)}{default}\n"
                f"# looked up as {name}[{table.row_kind}, {table.column_kind}]")
    if name in rules.fns:
        decl = rules.fns[name]
        returns = rules.fn_types.get(name)
        return f"fn {name}({_params_text(rules, decl.params)})" + (f": {returns}" if returns else "")
    if name in rules.modifiers:
        decl = rules.modifiers[name]
        return f"modifier {name}({_params_text(rules, decl.params)})"
    for table in (rules.steps, rules.actions):
        if name in table:
            decl = table[name]
            gives = f": {_type_expr(decl.result)}" if decl.result is not None else ""
            return f"{describe(decl)} {name}({_params_text(rules, decl.params)}){gives}"
    return None


def _text_of(analysis: Analysis, related: list[Analysis], path: str) -> str:
    for candidate in [analysis, *related]:
        source = candidate.sources.get(path)
        if source is not None:
            return source.text
    return ""


def _declared(analysis: Analysis, places: list[Place], key: Key) -> str:
    if not places:
        return ""
    shown = [f"{_short(analysis, p.path)}:{p.line}" for p in places]
    if key[0] in ("value", "kind") and len(places) > 1:
        first, *later = shown
        return f"Declared at {first}; overridden at {', '.join(later)}"
    return f"Declared at {', '.join(shown)}"


def _short(analysis: Analysis, path: str) -> str:
    here = Path(analysis.path).parent
    try:
        return str(Path(path).relative_to(here))
    except ValueError:
        return path


# ---- definitions and references -----------------------------------------------------------------


def _definitions(analysis: Analysis, related: list[Analysis], key: Key) -> list[Place]:
    """Every place a name is declared: in this file's chain, then in open files built on it (their overrides)."""
    places = list(analysis.definitions(key))
    for other in related:
        for place in other.definitions(key):
            if place not in places:
                places.append(place)
    chain_order = {path: index for index, path in enumerate(reversed(analysis.chain))}
    return sorted(places, key=lambda p: (chain_order.get(p.path, len(chain_order)), p.line, p.column))


def definition(analysis: Analysis, related: list[Analysis], line: int, column: int) -> list[Place]:
    found = analysis.at(analysis.path, line, column)
    if found is None or found.key[0] == "builtin":
        return []
    return _definitions(analysis, related, found.key)


def references(analysis: Analysis, related: list[Analysis], line: int, column: int,
               include_declaration: bool = True) -> list[Place]:
    found = analysis.at(analysis.path, line, column)
    if found is None:
        return []
    places: list[Place] = []
    for candidate in [analysis, *related]:
        for occurrence in candidate.occurrences:
            if occurrence.key == found.key and (include_declaration or not occurrence.definition):
                if occurrence.place not in places:
                    places.append(occurrence.place)
    return places


def highlights(analysis: Analysis, line: int, column: int) -> list[tuple[Place, bool]]:
    """Where the name at a place is written in this file, each with whether it is declared (or bound) there."""
    found = analysis.at(analysis.path, line, column)
    if found is None:
        return []
    seen: dict[Place, bool] = {}
    for occurrence in analysis.occurrences:
        if occurrence.key == found.key and occurrence.place.path == analysis.path:
            seen[occurrence.place] = seen.get(occurrence.place, False) or occurrence.definition
    return list(seen.items())


# ---- quick fixes ------------------------------------------------------------------------------------


def quick_fix(message: str, hint: str, covered: str) -> tuple[int, int, str] | None:
    """The fix a problem's hint offers, as (start, end, new text) within the text it underlines (`covered`):
    the name it quotes that is written there, whole, replaced by the name the hint suggests."""
    new = suggested(hint)
    if new is None:
        return None
    # The misspelt word: of the names the message quotes that are written there, the one the hint is close to
    # (as did_you_mean found it); where the problem underlines another name, there is no fix.
    candidates = [(similarity(old, new), written) for old in re.findall(r"'([A-Za-z_][A-Za-z0-9_]*)'", message)
                  if old != new
                  for written in re.finditer(rf"(?<![A-Za-z0-9_]){re.escape(old)}(?![A-Za-z0-9_])", covered)]
    close = [(alike, written) for alike, written in candidates if alike >= CLOSE]
    if not close:
        return None
    _, written = max(close, key=lambda found: found[0])
    return written.start(), written.end(), new


# ---- renaming ---------------------------------------------------------------------------------------


# What a scenario, a sweep or the command line may name is never renamed: a rename that missed a file of
# theirs would break it, and the server does not read them. Those are the actions and their inputs and
# names, the parameters, choices, outcomes, rows and fields. The rest is read by rules files (and by a
# sweep's metric that calls a fn, which is not searched): every one built on the file that declares the
# name is read for a rename, the open ones and those on disk.
_NOT_HERE = ("an action, its inputs and names, a parameter, choice, outcome, row or field may be named by "
             "scenarios, sweeps or the command line, which the editor does not read: rename it by hand, and "
             "`fracas check` finds the rules that still read the old name")


@record(frozen=True)
class RenameTarget:
    """A name that may be renamed: where the cursor is on it, what it names, and whether files besides this one
    may read it (a declaration, a parameter), so that every rules file built on its declaration's is read."""

    place: Place
    key: Key
    shared: bool


def renameable(analysis: Analysis, line: int, column: int) -> RenameTarget | str:
    """The name at the cursor, if it may be renamed; else why not."""
    if not analysis.readable:
        return "the file does not parse: its names are not known"
    if analysis.stale:
        return "the file is still being read: try again in a moment"
    found = analysis.at(analysis.path, line, column)
    if found is None:
        return "there is no name here to rename"
    rules, key = analysis.rules, found.key
    if rules is None:
        return _NOT_HERE
    if key[0] == "kind" or (key[0] == "value" and any(key[1] in table for table in (
            rules.fns, rules.modifiers, rules.steps, rules.tables))):
        return RenameTarget(found.place, key, True)
    local = analysis.locals.get(key) if key[0] == "local" else None
    if local is None or local.what.endswith(tuple(f" of action {name}" for name in rules.actions)):
        return _NOT_HERE
    return RenameTarget(found.place, key, local.what.startswith("parameter"))


def reading(analysis: Analysis, others: list[Analysis], key: Key) -> list[Analysis]:
    """The other analyses whose files may read what a key names: those built on the file of its declaration, as
    this analysis finds it (a file built on another base may declare a name of its own alike)."""
    declared = {str(Path(place.path).resolve()) for place in analysis.definitions(key)}
    return [other for other in others  # (the files a file depends on: those of its chain, even where it fails)
            if declared & {str(Path(path).resolve()) for path in (*other.chain, *other.depends)}]


def renamed(analyses: list[Analysis], target: RenameTarget, new_name: str) -> list[Place] | str:
    """Every place where the analyses (the file asked about first) write the target's name, to be written as
    `new_name`; or why it may not be."""
    analysis = analyses[0]
    old = analysis.locals[target.key].name if target.key[0] == "local" else target.key[1]
    if new_name == old:
        return []
    if not is_name(new_name):
        return f"'{new_name}' is not a name: a letter or _, then letters, digits or _, and no keyword"
    for other in analyses:
        if other.stale or not other.readable:
            return f"{_short(analysis, other.path)} does not parse, or is still being read: its names are not known"
        rules = other.rules
        if rules is not None and (new_name in rules.kinds or any(new_name in table for table in (
                rules.rows, rules.params, rules.choices, rules.outcomes, rules.tables, rules.fns, rules.modifiers,
                rules.steps, rules.actions)) or new_name in SIGNATURES):
            return f"'{new_name}' is declared already: one name would name two things"
        if target.key[0] != "local" and any(local.name == new_name for local in other.locals.values()):
            where = _short(analysis, other.path)
            return f"'{new_name}' is a local or a parameter in {where}: it would hide the new name"
    if target.key[0] == "local":
        if target.key[1] != analysis.path:
            return f"rename the parameter where it is declared, in {_short(analysis, target.key[1])}"
        lines = _declaration_lines(analysis, target.key[2])
        if any(other.name == new_name and key[1] == target.key[1] and key[2] in lines
               for key, other in analysis.locals.items()):
            return f"'{new_name}' is a name in this declaration already"
        local = analysis.locals[target.key]
        owner = ("value", local.what.rsplit(" ", 1)[-1])  # the fn, step or modifier whose parameter it is
        if target.shared and len({place for other in analyses for place in other.definitions(owner)}) > 1:
            return f"the {local.what} is overridden: rename the parameter in each by hand"
    places: dict[Place, None] = {}
    for other in analyses:
        for occurrence in other.occurrences:
            if occurrence.key == target.key:
                places[occurrence.place] = None
    return list(places)


def rewritten(text: str, places: list[Place], new_name: str) -> str:
    """A text with the places (of one file, each on one line) written as `new_name`."""
    lines = text.split("\n")
    for place in sorted(places, key=lambda p: (p.line, p.column), reverse=True):
        line = lines[place.line - 1]
        lines[place.line - 1] = line[: place.column - 1] + new_name + line[place.end_column - 1 :]
    return "\n".join(lines)


def _declaration_lines(analysis: Analysis, line: int) -> range:
    """The lines of the top-level declaration of this file that holds a line: to the next one's first line."""
    return next((range(start, following) for _, start, following in declaration_spans(analysis)
                 if start <= line < following), range(1, line + 1))


# ---- the outline and the examples -------------------------------------------------------------------


@record
class Symbol:
    """One declaration in an editor's outline of the file."""

    name: str
    kind: str  # kind, enum, row, table, param, choice, outcome, modifier, fn, step, action, example, field
    detail: str
    start: tuple[int, int]  # line, column of the declaration's start
    end: tuple[int, int]  # line, column just past its end
    selection: Place
    children: list[Symbol] = field(default_factory=list)


def own_declarations(analysis: Analysis) -> list[n.Decl]:
    module = analysis.module
    return [d for d in module.decls if d.pos.path == analysis.path] if module is not None else []


def declaration_spans(analysis: Analysis) -> list[tuple[n.Decl, int, int]]:
    """Each declaration of this file, with its first line and the first line of the next (past the file's end,
    for the last): blank lines and comments before the next are the declaration's."""
    decls = own_declarations(analysis)
    source = analysis.sources.get(analysis.path)  # a text that does not parse keeps the last one that did
    end = (source.text if source is not None else analysis.text).count("\n") + 2
    starts = [d.pos.line for d in decls]
    return [(decl, start, next((s for s in starts[index + 1 :] if s > start), end))
            for index, (decl, start) in enumerate(zip(decls, starts))]


def symbols(analysis: Analysis) -> list[Symbol]:
    source = analysis.sources.get(analysis.path)  # a text that does not parse keeps the last one that did
    lines = (source.text if source is not None else analysis.text).split("\n")
    found: list[Symbol] = []
    enum_members: dict[tuple[str, int, int], Symbol] = {}
    for decl, start, following in declaration_spans(analysis):
        if not decl.name:  # a require at the top: a condition, not a name (clients refuse a symbol without one)
            continue
        end_line = following - 1
        end_line = min(end_line, len(lines))
        while end_line > start and (not lines[end_line - 1].strip() or lines[end_line - 1].strip().startswith("#")):
            end_line -= 1
        end = (end_line, len(lines[end_line - 1]) + 1 if 0 < end_line <= len(lines) else 1)
        name_place = Place(decl.pos.path, decl.pos.line, decl.pos.column, decl.pos.column + len(decl.name))
        if isinstance(decl, n.ExampleDecl):
            name_place = Place(decl.pos.path, decl.pos.line, decl.pos.column, decl.pos.column + len(decl.name) + 2)
        kind = describe(decl) if not isinstance(decl, n.ExampleDecl) else "example"
        member_of = (decl.kind, decl.kind_pos.line, decl.kind_pos.column) if isinstance(decl, n.RowDecl) else None
        if member_of in enum_members:
            parent = enum_members[member_of]
            parent.children.append(Symbol(decl.name, "row", decl.kind, (decl.pos.line, decl.pos.column),
                                          (decl.pos.line, name_place.end_column), name_place))
            continue
        symbol = Symbol(decl.name, kind, _detail(decl), (start, 1), end, name_place)
        if isinstance(decl, n.KindDecl):
            for f in decl.fields:
                if f.pos.path == analysis.path:
                    place = Place(f.pos.path, f.pos.line, f.pos.column, f.pos.column + len(f.name))
                    # From its name to the end of its type, bounds or default: fields written on one line, or
                    # the kind's closing brace after one, are not inside it.
                    written = max((node.pos.end_line, node.pos.end_column) for node in (f, *descendants(f)) if node.pos)
                    symbol.children.append(Symbol(f.name, "field", _type_expr(f.type), (f.pos.line, f.pos.column),
                                                  written, place))
            if not decl.fields:
                symbol.kind = "enum"
                enum_members[(decl.name, decl.pos.line, decl.pos.column)] = symbol
        found.append(symbol)
    return found


def named_in(found: list[Symbol], container: str = "") -> list[tuple[Symbol, str]]:
    """Each symbol of an outline, with the name of the one it is in ('' for a declaration)."""
    return [item for symbol in found for item in [(symbol, container), *named_in(symbol.children, symbol.name)]]


def matches(query: str, name: str) -> bool:
    """Whether a name holds the query's characters in order, whatever their case (`tgt` finds `target`)."""
    rest = iter(name.lower())
    return all(char in rest for char in query.lower())


def _detail(decl: n.Decl) -> str:
    if isinstance(decl, n.RowDecl):
        return decl.kind
    if isinstance(decl, (n.ParamDecl, n.ChoiceDecl, n.OutcomeDecl)) and decl.type is not None:
        return _type_expr(decl.type)
    if isinstance(decl, (n.FnDecl, n.StepDecl, n.ModifierDecl)):
        return "(" + ", ".join(p.name for p in decl.params) + ")"
    if isinstance(decl, n.TableDecl):
        return f"({decl.row_kind}, {decl.column_kind})"
    return ""


@record
class Lens:
    """The line an editor shows above an example: run it, or how it last fared."""

    line: int  # of the example's title
    column: int
    title: str  # the example's title
    shown: str  # what the lens says


def lenses(analysis: Analysis, results: dict[str, tuple[bool, str]]) -> list[Lens]:
    """One lens per example of the file: run it, or its last result (PASS, or FAIL and why)."""
    found = []
    for decl in own_declarations(analysis):
        if isinstance(decl, n.ExampleDecl):
            result = results.get(decl.name)
            if result is None:
                shown = "▶ run example"
            elif result[0]:
                shown = "PASS ✓ (run again)"
            else:
                why = result[1].splitlines()[0].rstrip(":") if result[1] else ""  # a lens is one line: the rest is
                shown = f"FAIL ✗ {why} (run again)"  # in the message the run showed
            found.append(Lens(decl.pos.line, decl.pos.column, decl.name, shown))
    return found
