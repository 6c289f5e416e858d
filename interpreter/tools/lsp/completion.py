"""Completion and signature help: what may be written at the cursor, read from the text before it and the last
analysis.

The text being typed rarely parses, so the context is read from its tokens:
a field name after '.', a parameter after `set`, and where a value of a
known type is expected (a record's field, a call's argument, a row's field, a
list of them), the rows of that type only. Elsewhere: keywords, the names
declared in the chain, the locals in reach and the builtins.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from fracas.dsl import nodes as n
from fracas.dsl.builtins import SIGNATURES
from fracas.dsl.diagnostics import with_article
from fracas.dsl.pieces import split
from fracas.dsl.records import field, record
from fracas.dsl.ruleset import Ruleset
from fracas.dsl.syntax import NAMEABLE, keywords
from fracas.dsl.types import BASIC_TYPES, Type, type_from
from fracas.interpreter.tools.lsp.analysis import Analysis, Place
from fracas.interpreter.tools.lsp.features import doc_comment, signature

KEYWORDS = ("rules extends override kind enum table default param choice outcome modifier add multiply replace at "
            "least most when fn step action let if else for while break in stop return event example set run rolls expect and "
            "or not then true false none list of").split()

_TOKEN = re.compile(r'\s+|#[^\n]*|"(?:[^"\\\n]|\\.)*"?|[0-9]+d[0-9]+|[0-9]+(?:\.[0-9]+)?|[A-Za-z_][A-Za-z0-9_]*'
                    r"|==|!=|<=|>=|\+=|-=|\*=|.", re.S)


@record
class Item:
    """One completion offered to an editor."""

    label: str
    kind: str  # keyword, row, field, param, function, builtin, variable, value, kind
    detail: str = ""
    documentation: str = ""
    insert: str | None = None  # a snippet, when not the label


@record
class _Frame:
    """A bracket open before the cursor: what may be written inside it."""

    bracket: str  # ( [ {
    callee: str = ""  # a call's function
    kind: str = ""  # the kind of a record, or of a row's block
    element: Type | None = None  # a list's item type
    row_block: bool = False
    declaring: bool = False  # a kind's fields, or the parameters of a fn, step, action or modifier declared
    tokens: list[str] = field(default_factory=list)  # the tokens since it opened


def _tokens(text: str) -> list[str]:
    return [t for t in _TOKEN.findall(text) if not t.isspace() and not t.startswith("#")]


def complete(analysis: Analysis, text: str, line: int, column: int) -> list[Item]:
    """What may be written at (line, column), 1-based, of the text."""
    lines = text.split("\n")
    if not 0 < line <= len(lines):
        return []
    # The context is the declaration the cursor is in: read from its first line, outside any bracket.
    first = max((piece.line for piece in split(text) if piece.line <= line), default=1)
    before = "\n".join(lines[first - 1 : line - 1] + [lines[line - 1][: max(0, column - 1)]])
    if _in_comment_or_text(before):
        return []
    tokens = _tokens(before)
    if tokens and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", tokens[-1]) and re.search(r"[A-Za-z0-9_]$", before):
        tokens = tokens[:-1]  # the word being typed: what is offered replaces it
    rules = analysis.rules
    if rules is None:
        return [Item(k, "keyword") for k in KEYWORDS]
    frames = _frames(rules, analysis, tokens)
    if _at_type(tokens, frames):
        return _types(rules)
    if _at_table_key(tokens):
        return [Item("int", "keyword", "keyed by whole numbers"), *(Item(kind, "kind", "kind") for kind in rules.kinds)]
    if len(tokens) >= 2 and tokens[-1] == ".":
        return _fields_after_dot(analysis, rules, tokens[:-1], first, line)
    if tokens and tokens[-1] == "set":
        return [_value_item(analysis, rules, name) for name in [*rules.params, *rules.choices]]
    expected = _expected(rules, analysis, frames, tokens)
    if expected is not None:
        offered = _values_of(analysis, rules, expected)
        if offered is not None:
            return offered
    frame = frames[-1] if frames else None
    if frame is not None and frame.bracket == "{" and frame.kind and _at_field_name(rules, frame):
        return _field_names(analysis, rules, frame.kind, frame.tokens)
    return _everything(analysis, rules, first, line)


def call_at(analysis: Analysis, text: str, line: int, column: int) -> tuple[str, int, str | None] | None:
    """The call whose brackets the cursor is in (the innermost): its function's name, how many arguments are
    written before the cursor's, and the name the cursor's is given by (`at_least:`), if it is; None outside
    a call, in a declaration's parameters, in a comment or a text."""
    lines = text.split("\n")
    if not 0 < line <= len(lines) or analysis.rules is None:
        return None
    first = max((piece.line for piece in split(text) if piece.line <= line), default=1)
    before = "\n".join(lines[first - 1 : line - 1] + [lines[line - 1][: max(0, column - 1)]])
    if _in_comment_or_text(before):
        return None
    # The innermost bracket that is a call's: not one that groups (`(1 + 2)`, `else (x)`).
    calls = [frame for frame in _frames(analysis.rules, analysis, _tokens(before))
             if frame.bracket == "(" and frame.callee
             and (frame.callee not in keywords() or frame.callee in NAMEABLE)]
    if not calls or calls[-1].declaring:
        return None
    frame = calls[-1]
    written = sum(1 for token in _level_tokens(frame.tokens) if token == ",")
    current = _since_separator(frame)
    named = current[0] if len(current) >= 2 and current[1] == ":" else None
    return frame.callee, written, named


# ---- the brackets open at the cursor, and what they hold ----------------------------------------


def _frames(rules: Ruleset, analysis: Analysis, tokens: list[str]) -> list[_Frame]:
    frames: list[_Frame] = []
    for index, token in enumerate(tokens):
        opened: _Frame | None = None
        if token == "(":
            callee = tokens[index - 1] if index and re.fullmatch(r"[A-Za-z_]\w*", tokens[index - 1]) else ""
            opened = _Frame("(", callee=callee, declaring=index >= 2 and tokens[index - 2] in _DECLARING)
        elif token == "[":
            expected = _expected(rules, analysis, frames, tokens[:index])
            opened = _Frame("[", element=expected.item if expected is not None and expected.name == "list" else None)
        elif token == "{":
            opened = _Frame("{", declaring=index >= 2 and tokens[index - 2] == "kind")
            head = tokens[max(0, index - 3) : index]
            if not frames and len(head) >= 2 and head[-2] in rules.kinds and re.fullmatch(r"[A-Za-z_]\w*", head[-1]):
                opened.kind, opened.row_block = head[-2], True
            else:
                expected = _expected(rules, analysis, frames, tokens[:index])
                if expected is not None and expected.name == "list" and expected.item is not None:
                    expected = expected.item
                if expected is not None and expected.is_kind:
                    opened.kind = expected.name
        if frames:
            frames[-1].tokens.append(token)
        if opened is not None:
            frames.append(opened)
        elif token in (")", "]", "}") and frames:
            frames.pop()
            if frames:
                frames[-1].tokens.append(token)  # the bracket's contents are the inner frame's
    return frames


_DECLARING = ("fn", "step", "action", "modifier")  # the words before a name whose parameters follow in ( )
_TYPED = ("param", "choice", "outcome", "let")  # the words before a name whose type may follow a ':'
_COMPLETE_TEXT = re.compile(r'"(?:[^"\\\n]|\\.)*"')


def _in_comment_or_text(before: str) -> bool:
    """Whether the cursor is in a comment or a text, where no name is written."""
    last = None
    for last in _TOKEN.finditer(before.rstrip(" \t")):
        pass
    if last is None or "\n" in before[last.end():]:  # a comment or a text ends with its line
        return False
    token = last.group()
    return token.startswith("#") or (token.startswith('"') and _COMPLETE_TEXT.fullmatch(token) is None)


def _at_type(tokens: list[str], frames: list[_Frame]) -> bool:
    """Whether a type is written at the cursor: after `list of`, or after the ':' of a parameter, choice, outcome
    or let, of a field of a kind, of a parameter of a fn, step, action or modifier, or after those parameters."""
    if len(tokens) >= 2 and tokens[-2:] == ["list", "of"]:
        return True
    if len(tokens) < 2 or tokens[-1] != ":":
        return False
    if not frames:
        return (len(tokens) >= 3 and tokens[-3] in _TYPED) or (tokens[-2] == ")" and tokens[0] in (*_DECLARING, "table"))
    frame = frames[-1]
    if frame.declaring:
        current = _since_separator(frame) if frame.bracket == "(" else frame.tokens
        return len(current) >= 2 and re.fullmatch(r"[A-Za-z_]\w*", current[-2]) is not None
    return len(tokens) >= 3 and tokens[-3] == "let"


def _at_table_key(tokens: list[str]) -> bool:
    """Whether a table's key kind is written at the cursor: `table NAME(` or `table NAME(KIND,`."""
    return tokens[:1] == ["table"] and tokens[2:3] == ["("] and len(tokens) in (3, 5) and tokens[-1] in ("(", ",")


def _types(rules: Ruleset) -> list[Item]:
    """What a type may be: the language's own, the kinds and enums, and a list of one."""
    return ([Item(name, "keyword", "a type of the language") for name in BASIC_TYPES]
            + [Item(kind, "kind", "kind") for kind in rules.kinds] + [Item("list of", "keyword", "a list of a type")])


def _since_separator(frame: _Frame) -> list[str]:
    """The tokens of the frame's current element (after its last comma at its own level)."""
    depth, start = 0, 0
    for index, token in enumerate(frame.tokens):
        if token in ("(", "[", "{"):
            depth += 1
        elif token in (")", "]", "}"):
            depth -= 1
        elif token == "," and depth == 0:
            start = index + 1
    return frame.tokens[start:]


def _at_field_name(rules: Ruleset, frame: _Frame) -> bool:
    if frame.row_block:
        return _row_position(rules, frame)[0] != "value-start"
    return not _since_separator(frame)


_CONTINUES = {"+", "-", "*", "/", "and", "or", "not", "==", "!=", "<", "<=", ">", ">=", ".", "in", "if", "then",
              "else", ":"}


def _row_position(rules: Ruleset, frame: _Frame) -> tuple[str, str]:
    """Where the cursor is in a row's block: before a field's name, just after one, or in a value."""
    fields = rules.kinds[frame.kind].field_names if frame.kind in rules.kinds else ()
    state, name = "name", ""
    for token in frame.tokens:
        if token == ",":
            state = "name"
        elif state == "name" or (state == "value" and token in fields):
            state, name = ("value-start", token) if token in fields else ("value", name)
        elif state == "value-start":
            state = "continue" if token in _CONTINUES else "value"
        elif state == "continue":
            state = "value"
        elif token in _CONTINUES:
            state = "continue"
    return state, name


def _expected(rules: Ruleset, analysis: Analysis, frames: list[_Frame], tokens: list[str]) -> Type | None:
    """The type of the value that the cursor (after tokens) begins, when the context says it."""
    if len(tokens) >= 3 and tokens[-1] == "=" and tokens[-3] == "set":
        typed = rules.params.get(tokens[-2]) or rules.choices.get(tokens[-2])
        return typed.type if typed is not None else None
    if not frames:
        return None
    frame = frames[-1]
    current = _since_separator(frame)
    if frame.bracket == "(":
        params = _params_of(rules, frame.callee)
        if params is None:
            return None
        if len(current) >= 2 and current[-1] == ":" and re.fullmatch(r"[A-Za-z_]\w*", current[-2]):
            return dict(params).get(current[-2])
        if current:
            return None
        position = sum(1 for t in _level_tokens(frame.tokens) if t == ",")
        return params[position][1] if position < len(params) else None
    if frame.bracket == "[":
        return frame.element if not current else None
    if frame.bracket == "{" and frame.kind:
        kind = rules.kinds.get(frame.kind)
        if kind is None:
            return None
        if frame.row_block:
            state, name = _row_position(rules, frame)
            info = kind.field(name) if state == "value-start" else None
            return info.type if info is not None else None
        if len(current) >= 2 and current[-1] == ":":
            info = kind.field(current[-2])
            return info.type if info is not None else None
    return None


def _level_tokens(tokens: list[str]) -> list[str]:
    depth, found = 0, []
    for token in tokens:
        if token in ("(", "[", "{"):
            depth += 1
        elif token in (")", "]", "}"):
            depth -= 1
        elif depth == 0:
            found.append(token)
    return found


def _params_of(rules: Ruleset, callee: str) -> list[tuple[str, Type]] | None:
    decl = rules.fns.get(callee) or rules.modifiers.get(callee) or rules.steps.get(callee) or rules.actions.get(callee)
    if decl is not None:
        return [(p.name, type_from(p.type, rules.kinds)) for p in decl.params]
    sig = SIGNATURES.get(callee)
    if sig is not None and not sig.variadic:
        return list(sig.params)
    return None


# ---- what is offered ----------------------------------------------------------------------------------


def _values_of(analysis: Analysis, rules: Ruleset, expected: Type) -> list[Item] | None:
    """The rows of a kind (and none, for an optional one), true and false for a bool; None for other types."""
    wanted = expected.item if expected.name == "list" and expected.item is not None else expected
    if wanted.name == "bool":
        return [Item("true", "value", "bool"), Item("false", "value", "bool")]
    if not wanted.is_kind or wanted.name not in rules.kinds:
        return None
    items = [_value_item(analysis, rules, name) for name, row in rules.rows.items() if row.kind == wanted.name]
    if not items and rules.kinds[wanted.name].fields:
        kind = rules.kinds[wanted.name]
        required = [f.name for f in kind.fields if f.default is None]
        snippet = "{" + ", ".join(f"{name}: ${i + 1}" for i, name in enumerate(required)) + "}"
        items = [Item(f"{{...}} {with_article(wanted.name)}", "value", wanted.name, insert=snippet)]
    if wanted.optional:
        items.append(Item("none", "value", str(wanted)))
    return items


def _value_item(analysis: Analysis, rules: Ruleset, name: str) -> Item:
    if name in rules.rows:
        row = rules.rows[name]
        return Item(name, "row", row.kind, _doc(analysis, row))
    for table, what in ((rules.params, "param"), (rules.choices, "choice"), (rules.outcomes, "outcome")):
        if name in table:
            typed = table[name]
            return Item(name, "param", f"{what} {name}: {typed.type} = {rules.text_of(typed.value)}",
                        _doc(analysis, typed.decl))
    if name in rules.tables:
        table_decl = rules.tables[name]
        return Item(name, "value", f"table {name}[{table_decl.row_kind}, {table_decl.column_kind}]",
                    _doc(analysis, table_decl))
    for decls, what in ((rules.fns, "fn"), (rules.modifiers, "modifier"), (rules.steps, "step"),
                        (rules.actions, "action")):
        if name in decls:
            decl = decls[name]
            params = ", ".join(f"{p.name}" for p in decl.params)
            return Item(name, "function", f"{what} {name}({params})", _doc(analysis, decl))
    return Item(name, "value")


def _doc(analysis: Analysis, decl: n.Node) -> str:
    source = analysis.sources.get(decl.pos.path)
    return doc_comment(source.text, decl.pos.line) if source is not None else ""


def _field_names(analysis: Analysis, rules: Ruleset, kind_name: str, given_tokens: list[str]) -> list[Item]:
    kind = rules.kinds[kind_name]
    given = set(given_tokens)
    items = []
    for info in kind.fields:
        if info.name in given:
            continue
        default = f" = {rules.text_of(info.default)}" if info.default is not None else ""
        items.append(Item(info.name, "field", f"{info.name}: {info.type}{default}", _doc(analysis, info.decl)))
    return items


def _fields_after_dot(analysis: Analysis, rules: Ruleset, tokens: list[str], first: int, line: int) -> list[Item]:
    path: list[str] = []
    index = len(tokens) - 1
    while index >= 0 and re.fullmatch(r"[A-Za-z_]\w*", tokens[index]):
        path.insert(0, tokens[index])
        if index >= 1 and tokens[index - 1] == ".":
            index -= 2
        else:
            break
    if not path:
        return []
    type_ = _type_of_name(analysis, rules, path[0], first, line) or _declared_in_text(rules, tokens, path[0])
    for name in path[1:]:
        kind = rules.kinds.get(type_.name) if type_ is not None else None
        info = kind.field(name) if kind is not None else None
        type_ = info.type if info is not None else None
    kind = rules.kinds.get(type_.name) if type_ is not None else None
    if kind is None:
        return []
    return [Item(info.name, "field", f"{info.name}: {info.type}", _doc(analysis, info.decl)) for info in kind.fields]


def _declared_in_text(rules: Ruleset, tokens: list[str], name: str) -> Type | None:
    """A parameter's or typed local's kind as written in the text before the cursor (`name: kind`)."""
    for index in range(len(tokens) - 3, -1, -1):
        if tokens[index] == name and tokens[index + 1] == ":":
            written = tokens[index + 2]
            if written == "list" and index + 4 < len(tokens) and tokens[index + 3] == "of":
                written = tokens[index + 4]
            return Type(written) if written in rules.kinds else None
    return None


def _type_of_name(analysis: Analysis, rules: Ruleset, name: str, first: int, line: int) -> Type | None:
    local = _local_in_reach(analysis, name, first, line)
    if local is not None:
        return local
    if name in rules.rows:
        return Type(rules.rows[name].kind)
    for table in (rules.params, rules.choices, rules.outcomes):
        if name in table:
            return table[name].type
    return None


def _local_in_reach(analysis: Analysis, name: str, first: int, line: int) -> Type | None:
    """The type of the nearest binding of a local name above the line, in the declaration that begins at line
    `first` (another declaration's local of the name is not this one's)."""
    best = None
    for place, key, local in _locals_bound(analysis, first, line):
        if local.name == name and (best is None or place.line >= best[0].line):
            best = (place, key)
    if best is None:
        return None
    key = best[1]
    local = analysis.locals[key]
    return local.type if local.type is not None and local.type.name != "any" else analysis.types.get(key)


def _locals_bound(analysis: Analysis, first: int, line: int) -> Iterator[tuple[Place, tuple[Any, ...], Any]]:
    """The locals bound in this file from line `first` (the declaration around the cursor) to `line`: where,
    their key, and the local."""
    for occurrence in analysis.occurrences:
        key, place = occurrence.key, occurrence.place
        if key[0] == "local" and occurrence.definition and place.path == analysis.path and first <= place.line <= line:
            local = analysis.locals.get(key)
            if local is not None:
                yield place, key, local


def _everything(analysis: Analysis, rules: Ruleset, first: int, line: int) -> list[Item]:
    """Everything that may be named at a line of the declaration that begins at line `first`."""
    items = [Item(k, "keyword") for k in KEYWORDS]
    seen: set[str] = set()
    for _, _, local in _locals_bound(analysis, first, line):
        if local.name not in seen:
            seen.add(local.name)
            items.append(Item(local.name, "variable", local.type_text or local.what))
    names = [*rules.rows, *rules.params, *rules.choices, *rules.outcomes, *rules.tables, *rules.fns,
             *rules.modifiers, *rules.steps, *rules.actions]
    items.extend(_value_item(analysis, rules, name) for name in dict.fromkeys(names))
    items.extend(Item(kind, "kind", "kind") for kind in rules.kinds)
    for sig in SIGNATURES.values():
        items.append(Item(sig.name, "builtin", signature(sig), sig.summary))
    return items

