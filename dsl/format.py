"""`fracas fmt`: one canonical layout for rules files, reached by changing whitespace only.

As gofmt does, the layout keeps the writer's line breaks and decides the rest:

- a block written over several lines has each item (a field, a row's field,
  a statement, a term, a table row, an example line) on a line of its own,
  indented four spaces a level; its `{` ends the line that opens it and its
  `}` stands alone (`} else {` shares a line); a block written on one line
  stays on one line, its items two spaces apart;
- a line that continues an item lines up after the bracket still open on an
  earlier line, or hangs four spaces deeper when that bracket ended its line
  or no bracket is open;
- spaces between tokens are fixed: one around operators and after commas,
  none inside brackets and records, none around `/` between two numbers
  (`1/2` reads as a fraction);
- consecutive one-line rows of a kind line up their names and their fields,
  each field under the same field of the rows above when they agree up to it;
- a table's columns and cells line up, numbers to the right; a row or a
  column header written over several lines is joined onto one line (blank
  lines within it too), and a row's key loses any space before its colon
  (`attacker :` is `attacker:`): the one change of a token's text, made as
  the tokens are read, so that the check compares them so;
- every comment stays where it was, trailing comments of neighbouring lines
  at one column; runs of blank lines become one blank line.

The layout is computed from the concrete syntax tree, which Lark builds with
every token kept; the comments, which the grammar ignores, are read back
from the whitespace between tokens. A construct whose braces this module does
not know is refused with a located message rather than laid out wrongly, and
the result is checked to hold the same tokens and comments as the input.
"""

from __future__ import annotations

import functools
import hashlib
import re
import threading
from collections.abc import Callable

from fracas.dsl.cache import cache_folder
from fracas.dsl.diagnostics import Diagnostic, RulesError, SourceFile
from fracas.dsl.limits import DEFAULT, Limits
from fracas.dsl.parse import parse
from fracas.dsl.pieces import Memo, Piece, split
from fracas.dsl.records import field, record
from fracas.dsl.resources import grammar_text

INDENT = 4

# Rules whose braces hold a block: items one to a line when it spans lines.
BLOCKS = frozenset({"kind_decl", "enum_decl", "table_decl", "row_decl", "modifier_decl", "block", "example_decl"})
# Rules whose braces are part of an expression, laid out like brackets.
RECORDS = frozenset({"record"})


@record(eq=False)
class Tok:
    """One token of the text as the formatter places it: where it was, and the grammar around it."""

    text: str
    start: int
    end: int
    line: int
    end_line: int
    rule: str  # the grammar rule the token belongs to
    first: bool  # the first child of that rule: an opening bracket, a unary minus
    depth: int  # blocks around it
    block: int  # the innermost block around it (0: the file)
    block_rule: str  # that block's rule ("start" for the file)
    item: bool = False  # begins an item of its block
    item_of_multi: bool = False  # ... of a block that spans lines (the file's items always do)
    brace: str = ""  # "open" or "close" for the braces of a block
    multi: bool = False  # for those braces: the block spans lines
    owner: int = 0  # for a block's braces: the block's id
    tight: bool = False  # '/' between two numbers
    grouped: bool = False  # a forced roll set apart from the one before by a wider gap (see _mark_groups)
    blank_before: bool = False

    @property
    def record(self) -> bool:
        return self.rule in RECORDS and self.text in "{}"


@record
class Comment:
    """A comment of the text, kept by the formatter with whether it stood alone and after a blank line."""

    text: str
    own_line: bool
    blank_before: bool


@record(eq=False)
class Line:
    """One output line of the formatter: its tokens, comment and indent, then its code once rendered."""

    tokens: list[Tok] = field(default_factory=list)
    comment: str | None = None  # a trailing comment, or the whole line when there are no tokens
    blank: bool = False
    indent: int = 0
    code: str = ""
    gaps: list[str] | None = None  # the space before each token, once worked out (_gaps)


class CannotFormat(Exception):
    def __init__(self, tok: Tok | None, message: str, hint: str = ""):
        super().__init__(message)
        self.tok, self.message, self.hint = tok, message, hint


def format_text(text: str, path: str = "<rules>", limits: Limits = DEFAULT,
                tokens: Callable[[str, str, Limits], list[Tok]] | None = None) -> str:
    """The text in the canonical layout; RulesError (located) if it does not parse or cannot be laid out.

    tokens: how the text is read into tokens, when not whole (a Reformatter's way).
    """
    read = tokens or _tokens
    source = SourceFile(path, text)
    if len(text.encode("utf-8", "surrogatepass")) > limits.file_bytes:
        raise RulesError([Diagnostic(path, 0, 0, f"the text is over the limit of {limits.file_bytes} bytes",
                                     limits.hint("file_bytes"))])
    try:
        found = read(text, path, limits)
        result = _render(_lines(text, found))
        if result != text:
            _same_tokens(text, found, result, path, limits, read)
    except CannotFormat as problem:
        raise RulesError([_diagnostic(source, problem)]) from None
    return result


def _diagnostic(source: SourceFile, problem: CannotFormat) -> Diagnostic:
    hint = problem.hint or "the file is left as it is"
    if problem.tok is None:
        return Diagnostic(source.path, 0, 0, problem.message, hint)
    column = problem.tok.start - source.text.rfind("\n", 0, problem.tok.start)
    return Diagnostic(source.path, problem.tok.line, column, problem.message, hint, source.line(problem.tok.line),
                      max(1, len(problem.tok.text)))


# ---- the concrete syntax tree ----------------------------------------------------


@functools.cache
def _parser():
    import lark

    grammar = grammar_text()
    options = dict(parser="lalr", lexer="contextual", keep_all_tokens=True, maybe_placeholders=True, start="start")
    folder = cache_folder()
    if folder is not None:
        digest = hashlib.sha256((grammar + lark.__version__).encode()).hexdigest()[:16]
        try:
            return lark.Lark(grammar, cache=str(folder / f"grammar-cst-{digest}.lark-cache"), **options)
        except OSError:
            pass
    return lark.Lark(grammar, **options)


def load_parser() -> None:
    """Make the formatter's parser now rather than at the first text (a language server does it at start)."""
    _parser()


class _Walk:
    """Flattens the tree into tokens that know their block, their item and their role."""

    def __init__(self) -> None:
        self.tokens: list[Tok] = []
        self.blocks = 0
        self.pending_item: tuple[bool] | None = None  # (of a multi-line block,) for the next token
        self.rolls: list[Tok] = []  # the tokens of an example's forced rolls, walked so far

    def tree(self, tree, depth: int, block: int, block_rule: str) -> None:
        import lark

        rule = str(tree.data)
        children = [c for c in tree.children if c is not None]
        braces = [i for i, c in enumerate(children) if isinstance(c, lark.Token) and c in ("{", "}")]
        inner: range = range(0)
        inner_block, inner_rule, multi = block, block_rule, False
        if braces and rule in BLOCKS:
            opening, closing = braces[0], braces[-1]
            inner = range(opening + 1, closing)
            self.blocks += 1
            inner_block, inner_rule = self.blocks, rule
            multi = children[opening].line != children[closing].line
        elif braces and rule not in RECORDS:
            token = children[braces[0]]
            raise CannotFormat(self._tok(token, rule, False, depth, block, block_rule),
                               f"fracas fmt does not know how to lay out the braces of '{rule}' yet",
                               "the file is left as it is; this is a gap in fracas fmt, please report it")
        for index, child in enumerate(children):
            inside = index in inner
            child_depth = depth + 1 if inside else depth
            child_block, child_rule = (inner_block, inner_rule) if inside else (block, block_rule)
            if isinstance(child, lark.Token):
                tok = self._tok(child, rule, index == 0, child_depth, child_block, child_rule)
                if braces and rule in BLOCKS and index in (braces[0], braces[-1]):
                    tok.brace = "open" if index == braces[0] else "close"
                    tok.multi, tok.owner = multi, inner_block
            else:
                if inside or rule == "start":
                    self.pending_item = (multi or rule == "start",)
                first = len(self.tokens)
                self.tree(child, child_depth, child_block, child_rule)
                if rule == "example_rolls":
                    self.rolls.extend(self.tokens[first:])

    def _tok(self, token, rule: str, first: bool, depth: int, block: int, block_rule: str) -> Tok:
        text = str(token)
        if token.type in _ROW_KEYS:  # the one token whose text the layout changes (see _row_key)
            text = _row_key(text)
        tok = Tok(text, token.start_pos, token.end_pos, token.line, token.end_line, rule, first, depth, block,
                  block_rule)
        if self.pending_item is not None:
            tok.item, tok.item_of_multi = True, self.pending_item[0]
            self.pending_item = None
        self.tokens.append(tok)
        return tok


def _tokens(text: str, path: str, limits: Limits) -> list[Tok]:
    import lark

    from fracas.dsl.syntax import NamesRead

    try:
        tree = _parser().parse(text, on_error=NamesRead(text))
    except lark.exceptions.UnexpectedInput:
        parse(text, path, limits)  # reports the syntax error as `fracas check` does
        raise CannotFormat(None, "fracas fmt cannot read this file", "this is a bug in fracas fmt, please report it")
    if _depth(tree) > limits.nesting:
        parse(text, path, limits)  # the same limit as everywhere, said the same way
    walk = _Walk()
    walk.tree(tree, 0, 0, "start")
    _mark_tight(walk.tokens)
    _mark_groups(walk.rolls, text)
    return walk.tokens


def _mark_groups(rolls: list[Tok], text: str) -> None:
    """Forced rolls written in groups (`rolls [6, 6, 2,   1, 1]`: an attack's dice, then a defence's): a roll
    after a comma and more than one space starts a group, which the layout keeps apart."""
    for before, tok in zip(rolls, rolls[1:]):
        gap = text[before.end : tok.start]
        tok.grouped = before.text == "," and tok.text != "]" and len(gap) > 1 and gap.strip(" ") == ""


def _mark_tight(tokens: list[Tok]) -> None:
    for before, tok, after in zip([None, *tokens], tokens, [*tokens[1:], None]):
        if tok.text == "/" and before is not None and after is not None:
            tok.tight = _is_number(before) and _is_number(after)


def _depth(tree) -> int:
    """How deep the tree nests, counted without recursion: at least as deep as the tree the limit is about."""
    import lark

    deepest, stack = 0, [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in node.children if isinstance(child, lark.Tree))
    return deepest


def _is_number(tok: Tok) -> bool:
    return tok.text[:1].isdigit() and "d" not in tok.text


# ---- lines ------------------------------------------------------------------------


def _gap(text: str, start: int, end: int, at_start: bool) -> tuple[list[Comment], bool, bool]:
    """The comments in the whitespace text[start:end]; whether a newline and a blank line end it."""
    gap = text[start:end]
    if "#" not in gap:  # most gaps: a space, or line ends
        breaks = gap.count("\n")
        return [], breaks > 0 or at_start, breaks > 1
    parts = gap.split("\n")
    comments: list[Comment] = []
    blank = False
    for index, part in enumerate(parts):
        hash_at = part.find("#")
        if hash_at >= 0:
            own_line = index > 0 or at_start
            comments.append(Comment(part[hash_at:].rstrip(), own_line, blank and own_line))
            blank = False
        elif 0 < index < len(parts) - 1:
            blank = True
    newline = len(parts) > 1 or at_start
    return comments, newline, blank


def _breaks(tok: Tok, before: Tok) -> bool:
    """Whether tok must begin a line whatever the writer did."""
    if tok.item and tok.item_of_multi:
        return True
    if tok.brace == "close" and tok.multi:
        return True
    return before.brace == "open" and before.multi


def _joins(tok: Tok, before: Tok) -> bool:
    """Whether tok belongs on the line of the token before it whatever the writer did."""
    if tok.brace == "open":
        return True
    if tok.text == "else" and before.brace == "close":
        return True
    if tok.block_rule == "table_decl" and not tok.item and not tok.brace:
        return True  # a table row's cells go on its line: the grammar lets a row run on over lines
    return tok.text == "if" and before.text == "else"


def _lines(text: str, tokens: list[Tok]) -> list[Line]:
    lines: list[Line] = []
    current: Line | None = None
    closed = True  # the current line ended with a comment: nothing more goes on it

    def start(blank: bool) -> Line:
        if blank and lines:
            lines.append(Line(blank=True))
        line = Line()
        lines.append(line)
        return line

    position = 0
    before: Tok | None = None
    for tok in [*tokens, None]:
        end = tok.start if tok is not None else len(text)
        comments, newline, blank = _gap(text, position, end, before is None)
        for comment in comments:
            if not comment.own_line and current is not None and not closed:
                current.comment = comment.text
            else:
                start(comment.blank_before).comment = comment.text
            closed = True
        if tok is None:
            break
        if before is None or closed or _breaks(tok, before) or (newline and not _joins(tok, before)):
            current = start(blank)
            closed = False
        assert current is not None
        current.tokens.append(tok)
        position, before = tok.end, tok
    return lines


# ---- rendering --------------------------------------------------------------------


def _space(before: Tok, tok: Tok) -> str:
    """The space between two tokens on one line."""
    if before.brace == "open" or tok.brace == "close":
        return " "
    if tok.item and not tok.item_of_multi:
        return " " if before.text == "," else "  "
    if tok.grouped:
        return "   "
    if before.text in ("(", "[") or (before.record and before.text == "{"):
        return ""
    if tok.text in (")", "]", ",", ":", "?", ".", "..") or (tok.record and tok.text == "}"):
        return ""
    if before.text in (".", ".."):
        return ""  # a field; the ends of a range, low..high, as the reference writes them
    if tok.text in ("(", "[") and not tok.first:
        return ""  # a call, a declaration's parameters, an index
    if before.text == "-" and before.first:
        return ""  # a negative number or negation
    if (tok.text == "/" and tok.tight) or (before.text == "/" and before.tight):
        return ""
    return " "


def _gaps(line: Line) -> list[str]:
    """The space before each token of a line (none before the first), worked out once per line."""
    if line.gaps is None:
        tokens = line.tokens
        line.gaps = [""] + [_space(before, tok) for before, tok in zip(tokens, tokens[1:])]
    return line.gaps


def _join(tokens: list[Tok]) -> str:
    out = tokens[0].text
    for before, tok in zip(tokens, tokens[1:]):
        out += _space(before, tok) + tok.text
    return out


@record
class _Open:
    """A bracket still open while lines render: where its contents line up."""

    tok: Tok
    column: int  # in the rendered line
    line_indent: int
    hanging: bool = False


def _render(lines: list[Line]) -> str:
    rows = _row_groups(lines)
    tables = _tables(lines)
    stack: list[_Open] = []
    item_indent = 0
    value_column: int | None = None  # where the value after an item's '=' begins, if it begins on that line
    for line in lines:
        if line.blank or not line.tokens:
            continue
        first = line.tokens[0]
        if first.item or first.brace == "close":
            line.indent = INDENT * first.depth
            item_indent = line.indent
        elif stack:
            opened = stack[-1]
            closes = first.text in (")", "]") or (first.record and first.text == "}")
            if closes or opened.hanging:
                line.indent = opened.line_indent + (0 if closes else INDENT)
            else:
                line.indent = opened.column + 1
        else:
            line.indent = value_column if value_column is not None else item_indent + INDENT
        if line in tables:
            line.code = " " * line.indent + tables[line]
        elif line in rows:
            line.code = " " * line.indent + rows[line]
        else:
            line.code = " " * line.indent + "".join(gap + tok.text for gap, tok in zip(_gaps(line), line.tokens))
        if first.item or first.brace == "close":
            value_column = _value_column(line)
        _track_brackets(line, stack)
    _comment_indents(lines)
    return _with_comments(lines)


ASSIGNMENTS = ("=", "+=", "-=", "*=")


def _value_column(line: Line) -> int | None:
    """The column of the value after the first '=' outside brackets (or after `return`), when it starts on the line."""
    column, depth = line.indent, 0
    tokens, gaps = line.tokens, _gaps(line)
    if tokens[0].text == "return" and len(tokens) > 1:
        return column + len("return") + len(gaps[1])
    for index, tok in enumerate(tokens):
        column += len(gaps[index])
        if tok.text in ("(", "[") or (tok.record and tok.text == "{"):
            depth += 1
        elif tok.text in (")", "]") or (tok.record and tok.text == "}"):
            depth -= 1
        elif tok.text in ASSIGNMENTS and depth == 0 and tok.brace == "":
            if index + 1 == len(tokens):
                return None
            return column + len(tok.text) + len(gaps[index + 1])
        column += len(tok.text)
    return None


def _track_brackets(line: Line, stack: list[_Open]) -> None:
    """Follow the expression brackets of a line, with the columns they were rendered at."""
    column = line.indent
    opened_here: list[_Open] = []
    gaps = _gaps(line)
    for index, tok in enumerate(line.tokens):
        column += len(gaps[index])
        if tok.text in ("(", "[") or (tok.record and tok.text == "{"):
            entry = _Open(tok, column, line.indent)
            stack.append(entry)
            opened_here.append(entry)
        elif (tok.text in (")", "]") or (tok.record and tok.text == "}")) and stack:
            stack.pop()
        column += len(tok.text)
    last = line.tokens[-1]
    for entry in opened_here:
        entry.hanging = entry.tok is last


def _comment_indents(lines: list[Line]) -> None:
    """A comment alone on its line is indented as the code it comes before (inside a block it closes)."""
    following = 0
    for line in reversed(lines):
        if line.blank:
            continue
        if line.tokens:
            first = line.tokens[0]
            following = line.indent + (INDENT if first.brace == "close" and first.multi else 0)
        else:
            line.indent = following


def _with_comments(lines: list[Line]) -> str:
    out: list[str] = []
    group: list[Line] = []

    def flush() -> None:
        commented = [line for line in group if line.comment is not None]
        if commented:
            column = max(len(line.code) for line in commented) + 2
            for line in commented:
                line.code = line.code.ljust(column) + line.comment
        group.clear()

    for line in lines:
        if line.blank or not line.tokens or (group and line.indent != group[-1].indent):
            flush()
        if line.tokens:
            group.append(line)
    flush()
    for line in lines:
        if line.blank:
            out.append("")
        elif line.tokens:
            out.append(line.code.rstrip())
        else:
            out.append(" " * line.indent + (line.comment or ""))
    return "\n".join(out) + "\n" if out else ""


# ---- rows and tables ----------------------------------------------------------------


@record
class _Row:
    """A row written alone on its line, whose fields line up with those of the rows around it."""

    line: Line
    kind: str
    head: str
    fields: list[tuple[str, str]]  # (name, text)


def _row_of(line: Line) -> _Row | None:
    """The row declared alone on this line (as `override` too), if it is one."""
    tokens = line.tokens
    first = tokens[0]
    if not (first.item and first.depth == 0):
        return None
    opening = next((i for i, t in enumerate(tokens) if t.brace == "open"), None)
    if opening is None or tokens[opening].rule != "row_decl" or tokens[-1].brace != "close":
        return None
    if tokens[-1].owner != tokens[opening].owner:
        return None
    head = tokens[:opening]
    body = tokens[opening + 1 : -1]
    fields: list[list[Tok]] = []
    for tok in body:
        if tok.item or not fields:
            fields.append([])
        fields[-1].append(tok)
    kind = next(t.text for t in head if t.rule == "row_decl")
    return _Row(line, kind, _join(head), [(f[0].text, _join(f)) for f in fields])


def _row_groups(lines: list[Line]) -> dict[Line, str]:
    """Runs of one-line rows of one kind, laid out with their names and fields in columns."""
    laid: dict[Line, str] = {}
    group: list[_Row] = []

    def flush() -> None:
        if group:
            laid.update(_align_rows(group))
        group.clear()

    for line in lines:
        row = _row_of(line) if line.tokens else None
        if row is None or (group and row.kind != group[-1].kind):
            flush()
        if row is not None:
            group.append(row)
    flush()
    return laid


def _align_rows(rows: list[_Row]) -> dict[Line, str]:
    head = max(len(row.head) for row in rows)
    widths: dict[tuple[str, ...], int] = {}  # the fields so far -> the width of the last one
    for row in rows:
        for count in range(1, len(row.fields) + 1):
            key = tuple(name for name, _ in row.fields[:count])
            widths[key] = max(widths.get(key, 0), len(row.fields[count - 1][1]))
    laid = {}
    for row in rows:
        if not row.fields:
            laid[row.line] = row.head.ljust(head) + " { }"
            continue
        parts = []
        for count, (_, text) in enumerate(row.fields, 1):
            last = count == len(row.fields)
            key = tuple(name for name, _ in row.fields[:count])
            parts.append(text if last else text.ljust(widths[key]))
        laid[row.line] = row.head.ljust(head) + " { " + "  ".join(parts) + " }"
    return laid


def _tables(lines: list[Line]) -> dict[Line, str]:
    """The header and rows of each table written over several lines, as a grid."""
    found: dict[int, list[Line]] = {}
    item: Tok | None = None  # the first token of the last row or column header met
    for line in lines:
        first = line.tokens[0] if line.tokens else None
        if first is None or first.block_rule != "table_decl":
            continue
        if not first.item:  # the cells after a comment: the row's line ended at the comment
            what = "column header" if item is not None and item.rule == "table_columns" else "row"
            raise CannotFormat(first, f"a comment stands inside this table {what}",
                               f"move the comment above the {what}, or after its last cell")
        item = first
        if first.item_of_multi:
            found.setdefault(first.block, []).append(line)
    laid: dict[Line, str] = {}
    for table in found.values():
        laid.update(_grid(table))
    return laid


def _row_key(text: str) -> str:
    """A row's key as laid out: its name or number and its colon, with no space between (one token to the
    grammar, `attacker :` as `attacker:`): the tokens are read so, and the text checked against them."""
    return _SPACED_COLON.sub(":", text)


_SPACED_COLON = re.compile(r"[ \t]+:$")
_ROW_KEYS = frozenset({"ROW_NUMBER", "ROW_NAME"})  # the grammar's terminals of a row's key and its colon


def _grid(lines: list[Line]) -> dict[Line, str]:
    header: list[str] | None = None
    header_line: Line | None = None
    rows: list[tuple[Line, str, list[str]]] = []
    for line in lines:
        tokens = line.tokens
        if tokens[0].rule == "table_columns":
            header, header_line = [], line
            for tok in tokens[1:-1]:
                if tok.rule == "negative_key" and not tok.first:
                    header[-1] += tok.text
                else:
                    header.append(tok.text)
            continue
        cells: list[str] = []
        for tok in tokens[1:]:
            if tok.rule == "negative_cell" and not tok.first:
                cells[-1] += tok.text
            else:
                cells.append(tok.text)
        rows.append((line, tokens[0].text, cells))
    names = header or []
    count = max([len(names)] + [len(cells) for _, _, cells in rows])
    widths = [max([len(names[j]) if j < len(names) else 0]
                  + [len(cells[j]) for _, _, cells in rows if j < len(cells)]) for j in range(count)]
    name_width = max((len(name) for _, name, _ in rows), default=0)
    laid: dict[Line, str] = {}
    for line, name, cells in rows:
        numbered = name.endswith(":") and (name[0].isdigit() or name[0] == "-")
        text = name.rjust(name_width) if numbered else name.ljust(name_width)  # numbers to the right
        for j, cell in enumerate(cells):
            text += (" " * 3 if j == 0 else " " * 2) + cell.rjust(widths[j])
        laid[line] = text
    if header_line is not None and names:
        text = " " * (name_width + 3 + widths[0] - len(names[0]) - 1) + "[" + names[0]
        for j in range(1, len(names)):
            text += " " * 2 + names[j].rjust(widths[j])
        laid[header_line] = text + "]"
    elif header_line is not None:
        laid[header_line] = "[]"
    return laid


# ---- the check that nothing but whitespace changed ------------------------------------------------


def _same_tokens(before: str, old: list[Tok], after: str, path: str, limits: Limits,
                 read: Callable[[str, str, Limits], list[Tok]]) -> None:
    new = read(after, path, limits)
    for a, b in zip(old, new):
        if a.text != b.text:
            raise CannotFormat(a, "fracas fmt would change this file's tokens here",
                               "the file is left as it is; this is a bug in fracas fmt, please report it")
    if len(old) != len(new) or _comments(before, old) != _comments(after, new):
        raise CannotFormat(None, "fracas fmt would lose or change a comment",
                           "the file is left as it is; this is a bug in fracas fmt, please report it")


def _comments(text: str, tokens: list[Tok]) -> list[str]:
    found: list[str] = []
    position = 0
    for index, tok in enumerate([*tokens, None]):
        end = tok.start if tok is not None else len(text)
        found.extend(c.text for c in _gap(text, position, end, index == 0)[0])
        if tok is not None:
            position = tok.end
    return found


# ---- formatting again after an edit --------------------------------------------------


class Reformatter:
    """Formats the texts of one file, one version after another (an editor's), reading only what changed.

    The tokens of each top-level declaration (fracas.dsl.pieces) are kept by its
    text; the layout is then computed over the whole file as format_text
    does, so the result is the same. A text that cannot be read piece by
    piece is read whole, which also gives format_text's messages.
    """

    def __init__(self, path: str, limits: Limits = DEFAULT):
        self.path = path
        self.limits = limits
        self.pieces: Memo[tuple[list[Tok], int] | None] = Memo(self._piece_tokens)
        self.placed: Memo[list[Tok]] = Memo(self._place)
        self.lock = threading.Lock()  # format and prepare may be called from two threads

    def format(self, text: str) -> str:
        with self.lock:
            return format_text(text, self.path, self.limits, self._tokens)

    def prepare(self, text: str, pause: Callable[[], None]) -> None:
        """Read a text's pieces ahead of its formatting, one at a time, calling pause before each.

        Meant for another thread than the one that formats: the pieces are
        read while nothing more urgent is going on, and formatting the text
        then only lays it out.
        """
        blocks = 0
        for piece in split(text):
            pause()
            with self.lock:
                read = self.pieces(piece.text)
                if read is None:
                    return
                self.placed((piece.text, piece.offset, piece.line, blocks))
            blocks += read[1]

    def _tokens(self, text: str, path: str, limits: Limits) -> list[Tok]:
        if not self.pieces.kept:  # the first text: read whole, which is quicker, and its pieces kept
            found = _tokens(text, path, limits)
            self._keep_pieces(found, split(text))
            return found
        found = []
        blocks = 0
        for index, piece in enumerate(split(text)):
            read = self.pieces(piece.text)
            if read is None or (index > 0 and read[0] and read[0][0].rule in ("header", "extends_decl")):
                return _tokens(text, path, limits)
            found.extend(self.placed((piece.text, piece.offset, piece.line, blocks)))
            blocks += read[1]
        return found

    def _keep_pieces(self, tokens: list[Tok], pieces: list[Piece]) -> None:
        """A whole text's tokens shared out to its pieces, as each piece read alone would give them."""
        index, blocks = 0, 0
        for number, piece in enumerate(pieces):
            end = pieces[number + 1].offset if number + 1 < len(pieces) else None
            mine = []
            while index < len(tokens) and (end is None or tokens[index].start < end):
                mine.append(tokens[index])
                index += 1
            count = sum(1 for tok in mine if tok.brace == "open")
            self.placed.kept[(piece.text, piece.offset, piece.line, blocks)] = mine
            self.pieces.kept[piece.text] = (_moved(mine, -piece.offset, 1 - piece.line, -blocks), count)
            blocks += count

    def _piece_tokens(self, text: str) -> tuple[list[Tok], int] | None:
        """A piece's tokens as if it began the file, and how many blocks it holds; None if it cannot be read alone."""
        import lark

        from fracas.dsl.syntax import NamesRead

        try:
            tree = _parser().parse(text, on_error=NamesRead(text))
        except lark.exceptions.UnexpectedInput:
            return None
        if _depth(tree) > self.limits.nesting:
            return None
        walk = _Walk()
        try:
            walk.tree(tree, 0, 0, "start")
        except CannotFormat:
            return None
        _mark_tight(walk.tokens)
        _mark_groups(walk.rolls, text)
        return walk.tokens, walk.blocks

    def _place(self, key: tuple[str, int, int, int]) -> list[Tok]:
        text, offset, line, blocks = key
        read = self.pieces(text)
        assert read is not None
        if (offset, line, blocks) == (0, 1, 0):
            return read[0]
        return _moved(read[0], offset, line - 1, blocks)


def _moved(tokens: list[Tok], offset: int, lines: int, blocks: int) -> list[Tok]:
    """Copies of tokens `offset` characters and `lines` lines further on, their blocks numbered `blocks` on."""
    placed = []
    for tok in tokens:
        copy = object.__new__(Tok)
        copy.__dict__.update(tok.__dict__)
        copy.start, copy.end = tok.start + offset, tok.end + offset
        copy.line, copy.end_line = tok.line + lines, tok.end_line + lines
        copy.block = tok.block + blocks if tok.block else 0
        copy.owner = tok.owner + blocks if tok.owner else 0
        placed.append(copy)
    return placed
