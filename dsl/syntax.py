"""Source text -> AST: the Lark LALR parser and the tree-to-node transformer.

Only fracas.dsl.parse imports this module, and only when a text is not in the cache
of syntax trees: a run whose rules files are all cached never imports Lark.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation
from pathlib import Path
from fractions import Fraction
from typing import Any

import lark
from lark import Token, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from fracas.dsl import missing
from fracas.dsl import nodes as n
from fracas.dsl import records
from fracas.dsl.cache import cache_folder
from fracas.dsl.diagnostics import Diagnostic, RulesError, SourceFile, no_value_cell
from fracas.dsl.limits import DEFAULT, Limits
from fracas.dsl.resources import grammar_text

EXAMPLE_ID = re.compile(r"^([A-Z][A-Z0-9]*-[0-9]+)\b")


@functools.cache
def parser() -> lark.Lark:
    # Built once per process, and its LALR tables kept between processes: making
    # the tables is the slow part of start-up.
    text = grammar_text()
    options = dict(parser="lalr", lexer="contextual", propagate_positions=True, maybe_placeholders=True,
                   start=["start", "expr"])
    cache = _cache_file(text)
    if cache is not None:
        try:
            return lark.Lark(text, cache=str(cache), **options)
        except OSError:
            pass
    return lark.Lark(text, **options)


@functools.cache
def keywords() -> frozenset[str]:
    """The words the grammar reserves (`if`, `kind`, `true`...): no name may be one."""
    return frozenset(term.pattern.value for term in parser().terminals
                     if term.pattern.type == "str" and term.pattern.value.isidentifier())


# Reserved words of examples, modifiers and types, which start no statement, declaration or expression: each may be a
# name (`outcome rolls: int`, `p.set`), and is read as one where the parser wants a name and not the word. The
# parser's tables may want the word right after a statement (`rolls` in an example, after its `run`), where it
# starts the next: `rolls = n`.
NAMEABLE = frozenset({"rolls", "run", "set", "expect", "add", "multiply", "replace", "at", "least", "most", "when",
                       "default", "of", "list"})


class NamesRead:
    """The parser's on_error: a reserved word met where a name may stand, and the word may not, fed as the name.

    Each one fed is kept: where the file fails later all the same, a word read so in the middle of a line (`o = 1
    rolls [1]`, `x += 1 when c`), where no statement starts, was most likely meant as the word, and its own error is
    the one to tell (`first_mistaken`).
    """

    def __init__(self, text: str):
        self.text = text
        self.mid_line: list[UnexpectedToken] = []

    def __call__(self, error: UnexpectedInput) -> bool:
        token = getattr(error, "token", None)
        if not (isinstance(error, UnexpectedToken) and isinstance(token, Token) and token.type != "NAME"
                and "NAME" in error.expected):
            return False
        labelled = self._labelled(token)  # a field's name, for sure: no later error is its
        if str(token) not in NAMEABLE and not labelled:
            return False
        if not labelled and self.text[self.text.rfind("\n", 0, token.start_pos) + 1:token.start_pos].strip():
            self.mid_line.append(error)
        error.interactive_parser.feed_token(Token.new_borrow_pos("NAME", str(token), token))
        return True

    def _labelled(self, token: Token) -> bool:
        """Whether a reserved word is followed by a ':', as a field's name is (`modifier: int = 0`, after another
        field's default, where the parser's tables also take a declaration): no declaration's word is."""
        return (str(token) in keywords() and token.end_pos is not None
                and self.text[token.end_pos:token.end_pos + 200].lstrip(" \t").startswith(":"))

    def first_mistaken(self, error: UnexpectedInput) -> UnexpectedInput:
        """The error to tell of a parse that failed: that of the first word read as a name mid-line, if any."""
        return self.mid_line[0] if self.mid_line else error


def is_name(text: str) -> bool:
    """Whether a text may be written as a name: the grammar's NAME, and no keyword but those that may be names."""
    [pattern] = [term.pattern for term in parser().terminals if term.name == "NAME"]
    return re.fullmatch(pattern.to_regexp(), text) is not None and (text not in keywords() or text in NAMEABLE)


def _cache_file(grammar: str) -> Path | None:
    folder = cache_folder()
    if folder is None:
        return None
    digest = hashlib.sha256((grammar + lark.__version__).encode()).hexdigest()[:16]
    return folder / f"grammar-{digest}.lark-cache"


def _to_nodes(text: str, path: str, start: str, limits: Limits) -> object:
    """Parse from a start symbol, check the nesting, build the nodes; every failure a RulesError."""
    source = SourceFile(path, text)
    names = NamesRead(text)
    try:
        tree = parser().parse(text, start=start, on_error=names)
    except UnexpectedInput as error:
        raise RulesError([_syntax_diagnostic(source, names.first_mistaken(error))]) from None
    if isinstance(tree, lark.Tree):
        _check_tree(tree, source, limits)
    try:
        return ToNodes(path).transform(tree)
    except lark.exceptions.VisitError as error:  # a bug of ours, said plainly
        raise RulesError([Diagnostic(path, 0, 0, f"internal error while reading: {error.orig_exc}")]) from None


def parse_expression(text: str, path: str = "<expression>", limits: Limits = DEFAULT) -> n.Expr:
    """Parse one expression (a metric on the command line, say); raise RulesError with a located message."""
    expr = _to_nodes(text, path, "expr", limits)
    assert isinstance(expr, n.Expr)
    return expr


def parse(text: str, path: str = "<rules>", limits: Limits = DEFAULT) -> n.Module:
    """Parse rules text into a Module; raise RulesError with a located message."""
    module = _to_nodes(text, path, "start", limits)
    assert isinstance(module, n.Module)
    return n.Module(n.Pos(1, 1, 1, 1, path), path=path, title=module.title, extends=module.extends,
                    decls=module.decls)


def _check_tree(tree: lark.Tree, source: SourceFile, limits: Limits) -> None:
    """Refuse trees nested deeper than the limit, and numbers longer than theirs, without recursion.

    Everything after parsing walks the tree recursively, so the limit, not
    Python's own recursion limit, must be what stops a deep expression.
    """
    stack: list[tuple[lark.Tree, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > limits.nesting:
            meta = node.meta
            pos = n.Pos(meta.line, meta.column, meta.end_line, meta.end_column, source.path) if not meta.empty else None
            raise RulesError([source.at(pos, f"expressions and blocks nest more than {limits.nesting} deep",
                                        limits.hint("nesting") + "; or split the rule with 'let' or a fn")])
        for child in reversed(node.children):  # popped in the order written: the first place too deep is told
            if isinstance(child, lark.Tree):
                stack.append((child, depth + 1))
            elif isinstance(child, Token) and child.type in ("NUMBER", "DICE", "PERCENT", "ROW_NUMBER"):
                _check_digits(child, source, limits)
            elif isinstance(child, Token) and child.type == "STRING":
                _check_escapes(child, source)


ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}  # what a backslash in a text may come before


def _check_escapes(token: Token, source: SourceFile) -> None:
    """A backslash in a text comes before n, t, a quote or a backslash: any other is a mistake, not a letter."""
    for found in re.finditer(r"\\(.)", str(token)):
        if found.group(1) not in ESCAPES:
            column = token.column + found.start()
            pos = n.Pos(token.line, column, token.line, column + 2, source.path)
            raise RulesError([source.at(pos, f"unknown escape '{found.group()}' in a text",
                                        'a text knows \\n (a new line), \\t (a tab), \\" and \\\\ (a backslash)')])


def _check_digits(token: Token, source: SourceFile, limits: Limits) -> None:
    longest = max(len(part) for part in token.rstrip("%: \t").lstrip("-").replace(".", "d").split("d"))
    if longest > limits.digits:
        pos = n.Pos(token.line, token.column, token.end_line, token.end_column, source.path)
        raise RulesError([source.at(pos, f"a number of {longest} digits is over the limit of {limits.digits}",
                                    limits.hint("digits"))])


# ---- syntax errors ---------------------------------------------------------------

_PUNCTUATION_NAMES = {
    "NAME": "a name",
    "NUMBER": "a number",
    "STRING": "a quoted text",
    "DICE": "dice such as 2d6",
    "PERCENT": "a percentage such as 60%",
    "ROW_NUMBER": "a row's whole number and a colon, such as 7:",
    "ROW_NAME": "a row's name and a colon, such as archer:",
    "COMPARE": "a comparison",
    "ASSIGN_OP": "'=', '+=', '-=' or '*='",
    "OPTIONAL": "'?'",
    "$END": "the end of the file",
}


def _describe_terminal(name: str) -> str:
    if name in _PUNCTUATION_NAMES:
        return _PUNCTUATION_NAMES[name]
    try:
        pattern = parser().get_terminal(name).pattern
    except KeyError:
        return name.lower()
    if isinstance(pattern, lark.lexer.PatternStr):
        return f"'{pattern.value}'"
    return name.lower()


def _expected(names: set[str]) -> str:
    described = sorted({_describe_terminal(t) for t in names if not t.startswith("_")})
    if not described:
        return ""
    if len(described) > 8:
        described = described[:8] + ["..."]
    return "expected " + ", ".join(described)


def _syntax_diagnostic(source: SourceFile, error: UnexpectedInput) -> Diagnostic:
    tokens = _tokens_before(source.text, _error_offset(source.text, error))
    return (_glued_number(source, tokens) or _no_starting_value(source, tokens, error)
            or _closed_early(source, tokens, error) or _brace_not_opened(source, tokens, error)
            or _dash_for_a_cell(source, tokens, error)
            or _missing_construct(source, tokens, error)
            or _unclosed_block(source, tokens, error) or _parser_diagnostic(source, error))


def _brace_not_opened(source: SourceFile, tokens: list[Token], error: UnexpectedInput) -> Diagnostic | None:
    """`if f == 1` and a new line where its block's '{' belongs: told at the end of the line that lacks it, not at
    the next line's first word."""
    if not (isinstance(error, UnexpectedToken) and "LBRACE" in error.expected and error.token.type != "$END"):
        return None
    at = next((i for i, token in enumerate(tokens) if token.start_pos == error.token.start_pos), None)
    if not at or tokens[at].line <= tokens[at - 1].line:
        return None
    last = tokens[at - 1]
    first = next(token for token in tokens if token.line == last.line)
    # Only a line that starts a block: `NAME {` also starts a record (`o = f` and a stray line is no block), and an
    # expression's `if` lacks its `then`, not a brace.
    if first.type not in _BLOCK_WORDS or _then_left_out(source, error.token):
        return None
    line = source.line(last.line)
    written = line[: (last.end_column or 1) - 1].strip()  # without a comment after it
    return Diagnostic(source.path, last.line, last.end_column or 1, "the '{' that opens this block is missing",
                      f"end the line with it: {written} {{", line, 1)


def _dash_for_a_cell(source: SourceFile, tokens: list[Token], error: UnexpectedInput) -> Diagnostic | None:
    """A table's cell written `-` for "no value" at the end of its row: told at the dash, not at what follows it
    (the next row's number, read as the dash's, or the table's '}')."""
    if not isinstance(error, UnexpectedToken) or error.token.type in ("NUMBER", "PERCENT"):
        return None
    at = next((i for i, token in enumerate(tokens) if token.start_pos >= error.token.start_pos), len(tokens))
    if at >= 2 and tokens[at - 1].type in ("NUMBER", "ROW_NUMBER") and tokens[at - 2].type == "MINUS" \
            and tokens[at - 1].line > tokens[at - 2].line:
        at -= 1  # the dash ended a row, and the next row's number was read as a negative cell
    if not at or tokens[at - 1].type != "MINUS" or (at < len(tokens) and tokens[at].line == tokens[at - 1].line):
        return None  # a dash before something on its line: a name negated, say, which is told as that
    opened = max((i for i, token in enumerate(tokens[:at]) if token.type == "TABLE"), default=None)
    if opened is None or any(token.type == "RBRACE" for token in tokens[opened:at]):
        return None
    dash = tokens[at - 1]
    typed = next((i + 1 for i in range(opened, at) if tokens[i].type == "COLON"), at)  # table t(a, b): TYPE
    optional = typed + 1 < at and tokens[typed + 1].type == "OPTIONAL"
    return Diagnostic(source.path, dash.line, dash.column, "'-' is no value for a cell: a cell holds a number or a "
                      "row's name", no_value_cell(str(tokens[typed]), optional), source.line(dash.line), 1)


_BLOCK_WORDS = {"IF", "ELSE", "FOR", "WHILE", "KIND", "ACTION", "STEP", "EXAMPLE", "MODIFIER", "TABLE", "ENUM", "FN"}


def _then_left_out(source: SourceFile, token: Token) -> bool:
    """Whether the token starts a value right after an expression's `if` condition, its `then` left out: the last
    `if` before it has no `then`, and is one of an expression's (`= if`, `then ... else if`), not a statement's."""
    if token.type not in ("NUMBER", "NAME", "STRING", "DICE", "PERCENT", "LPAR", "TRUE", "FALSE", "NONE"):
        return False
    tokens = _tokens_before(source.text, token.start_pos)
    ifs = [i for i, before in enumerate(tokens) if before.type == "IF"]
    if not ifs or any(before.type == "THEN" for before in tokens[ifs[-1]:]):
        return False
    opening = tokens[ifs[-1] - 1].type if ifs[-1] else ""
    since_block = [before.type for before in tokens[:ifs[-1]]]
    block = max((i for i, kind in enumerate(since_block) if kind in ("LBRACE", "RBRACE")), default=-1)
    return opening in ("EQUAL", "LPAR", "COMMA") or (opening == "ELSE" and "THEN" in since_block[block + 1:])


def _error_offset(text: str, error: UnexpectedInput) -> int:
    if isinstance(error, UnexpectedToken) and error.token.type != "$END":
        return error.token.end_pos or 0
    if isinstance(error, UnexpectedCharacters):
        return error.pos_in_stream
    return len(text)


def _tokens_before(text: str, end: int) -> list[Token]:
    """The tokens of the text up to offset end (and to the first one the lexer cannot read)."""
    found: list[Token] = []
    try:
        for token in parser().lex(text):
            if token.start_pos >= end:
                break
            if token.type == "ROW_NAME":  # read as one only inside a table: elsewhere `if a:` is a name and a ':'
                found.extend(_name_and_colon(token))
                continue
            found.append(token)
    except UnexpectedInput:
        pass
    return found


def _name_and_colon(token: Token) -> list[Token]:
    """A table row's name and its colon, as two tokens where the lexer read them as one (a reserved word, `else`,
    as the word it is)."""
    name = str(token).rstrip(": \t")
    at = str(token).index(":")
    colon = Token("COLON", ":", token.start_pos + at, token.line, token.column + at, token.line, token.column + at + 1,
                  token.start_pos + at + 1)
    return [Token(_keywords().get(name, "NAME"), name, token.start_pos, token.line, token.column, token.line,
                  token.column + len(name), token.start_pos + len(name)), colon]


@functools.cache
def _keywords() -> dict[str, str]:
    """The language's reserved words, by the terminal each is."""
    return {terminal.pattern.value: terminal.name for terminal in parser().terminals
            if type(terminal.pattern).__name__ == "PatternStr" and terminal.pattern.value.isidentifier()}


def _in_full(written: str) -> str:
    """The hint for a number written with an exponent: the same number in full, where that is short enough to read."""
    try:
        shown = format(Decimal(written), "f")
    except (InvalidOperation, ValueError):
        shown = ""
    if shown and len(shown) <= 30:
        return f"write it in full: {shown}"
    return "write the number in full, or as a fraction (1/1000)"


# Another dice notation's suffix (4d6kh3, 3d6ro1, 2d10e) -> the builtin that does the same, given the dice and
# the suffix's number.
_DICE_SUFFIXES = (
    (r"kh?(\d*)", "keep_highest({count}, {sides}, {n})"),
    (r"kl(\d*)", "keep_lowest({count}, {sides}, {n})"),
    (r"dh(\d*)", "drop_highest({count}, {sides}, {n})"),
    (r"dl?(\d*)", "drop_lowest({count}, {sides}, {n})"),
    (r"ro(\d*)", "roll({count}, {sides}, reroll: [{n}])"),
    (r"r(\d*)", "roll({count}, {sides}, reroll_while: [{n}])"),
    (r"[ex](\d*)", "explode({count}, {sides}, {depth})"),
)


_EXPLODE_DEPTH = " (the last number: how many times a die may explode)"


def _dice_suffix(dice: Token, name: Token) -> tuple[str, str] | None:
    """The message and hint for dice run into a name: another notation's keep, drop, reroll or explode, if it is
    one."""
    count, sides = str(dice).split("d")
    for pattern, builtin in _DICE_SUFFIXES:
        found = re.fullmatch(pattern, str(name))
        if found:
            n = found.group(1) or "1"
            written = builtin.format(count=count or "1", sides=sides, n=n, depth="10")
            return (f"'{dice}{name}': dice take no letters after them here",
                    f"write {written}" + (_EXPLODE_DEPTH if builtin.startswith("explode") else ""))
    return None


def _glued_number(source: SourceFile, tokens: list[Token]) -> Diagnostic | None:
    """A number run into a name (1e400, 3x), or dice written in another notation (4d6kh3): the real mistake,
    though the parser stops further on."""
    last = tokens[-1] if tokens else None
    if (last is not None and (last.type == "DICE" or last.type == "NAME" and re.fullmatch(r"d[0-9]+", str(last)))
            and source.text[last.end_pos : last.end_pos + 1] == "!"):
        count, sides = str(last).split("d")
        bangs = len(source.text[last.end_pos:]) - len(source.text[last.end_pos:].lstrip("!"))
        return Diagnostic(source.path, last.line, last.column, f"'{last}{'!' * bangs}': dice take no '!' after them here",
                          f"write explode({count or 1}, {sides}, 10){_EXPLODE_DEPTH}", source.line(last.line),
                          len(str(last)) + bangs)
    for number, name in zip(tokens, tokens[1:]):
        if number.type == "DICE" and name.type == "NAME" and number.end_pos == name.start_pos:
            found = _dice_suffix(number, name)
            message, hint = found if found is not None else (
                f"the dice {number} run into the name '{name}'", "put a space or an operator between them, as in 2d6 + x")
            return Diagnostic(source.path, number.line, number.column, message, hint, source.line(number.line),
                              len(f"{number}{name}"))
        if number.type == "NUMBER" and name.type == "NAME" and number.end_pos == name.start_pos:
            written = f"{number}{name}"
            if re.fullmatch(r"[0-9.]+[eE][0-9]*", written):
                signed = re.match(r"[+-][0-9]+", source.text[name.end_pos:]) if written[-1] in "eE" else None
                written += signed.group() if signed else ""  # 2.5e-3: the sign and exponent are tokens of their own
                message, hint = f"'{written}': numbers are not written with an exponent", _in_full(written)
            elif re.fullmatch(r"[0-9]+D[0-9]+", written):
                message, hint = f"'{written}': dice are written with a small d", f"write {written.lower()}"
            elif re.fullmatch(r"[0-9]+[dD]", written):  # another game's `2d-1`: the sides left out
                found = missing.DICE_WITHOUT_SIDES
                message, hint = found.message.format(written=written), found.hint
            else:
                message, hint = (f"the number {number} runs into the name '{name}'",
                                 "put a space or an operator between them, as in 3 * x")
            return Diagnostic(source.path, number.line, number.column, message, hint, source.line(number.line),
                              len(written))
    return None


_STATEMENT_WORDS = {"LET", "IF", "FOR", "STOP", "EVENT"}


def _missing_construct(source: SourceFile, tokens: list[Token], error: UnexpectedInput) -> Diagnostic | None:
    """A construct of another language (while, elif, &&, `return x`...): named, with what to write today."""
    if isinstance(error, UnexpectedCharacters):
        offset = error.pos_in_stream
        char = source.text[offset : offset + 1]
        if char == "%" and re.match(r"%[ \t]*[A-Za-z0-9_(]", source.text[offset:]) and tokens:  # `x % 2`: a remainder
            return Diagnostic(source.path, error.line, error.column, missing.REMAINDER.message, missing.REMAINDER.hint,
                              source.line(error.line), 1)
        if char not in missing.CHARACTERS:
            return None
        found = missing.CHARACTERS[char]
        width = 2 if source.text[offset : offset + 2] == char * 2 else 1
        return Diagnostic(source.path, error.line, error.column, found.message, found.hint, source.line(error.line),
                          width)
    if not isinstance(error, UnexpectedToken) or not tokens:
        return None

    def at(token: Token, found: missing.Missing) -> Diagnostic:
        return Diagnostic(source.path, token.line, token.column, found.message, found.hint, source.line(token.line),
                          len(str(token)))

    def starts_statement(index: int) -> bool:
        before = tokens[index - 1] if index else None
        return before is None or before.type in ("LBRACE", "RBRACE") or before.line < tokens[index].line

    depth = _count(tokens, "LBRACE") - _count(tokens, "RBRACE")
    last = len(tokens) - 1
    wrong = last if error.token.type != "$END" else None
    if wrong is not None and tokens[wrong].type in ("COLON", "ROW_NUMBER"):  # Python's `if x:` (`if x > 1:`)
        if _statement_word_before(tokens[:wrong]):
            return Diagnostic(source.path, error.line, error.column, missing.COLON_BLOCK.message,
                              missing.COLON_BLOCK.hint, source.line(error.line), 1)
    if wrong is not None and tokens[wrong].type in ("COLON", "ROW_NUMBER") and _inside_brackets(tokens[:wrong]):
        # `xs[1:]`, `xs[i:j]` (a number and its colon read as one token, as a table row's key is)
        return Diagnostic(source.path, error.line, error.column, missing.SLICE.message, missing.SLICE.hint,
                          source.line(error.line), 1)
    if wrong is not None and str(tokens[wrong]) == ".." and _loop_head_before(tokens[:wrong]):  # `for i in 1..3`
        return at(tokens[wrong], missing.RANGE_IN_FOR)
    if wrong is not None and tokens[wrong].type == "COMPARE" and _compared_before(tokens[:wrong]):  # `a < b < c`
        return at(tokens[wrong], missing.CHAINED)
    if wrong is not None and wrong >= 1 and tokens[wrong].type in ("PLUS", "MINUS") \
            and source.text[tokens[wrong].end_pos:tokens[wrong].end_pos + 1] == str(tokens[wrong]) \
            and tokens[wrong - 1].type == "NAME":  # `rounds++`
        op, name = str(tokens[wrong]), tokens[wrong - 1]
        return Diagnostic(source.path, name.line, name.column, missing.STEP_BY_ONE.message.format(op=op),
                          missing.STEP_BY_ONE.hint.format(op=op, name=name), source.line(name.line),
                          tokens[wrong].end_pos + 1 - name.start_pos)
    if wrong is not None and wrong >= 1 and str(tokens[wrong]) in missing.DOUBLED \
            and str(tokens[wrong - 1]) == str(tokens[wrong]) and tokens[wrong - 1].end_pos == tokens[wrong].start_pos:
        return _doubled(source, tokens[wrong - 1])
    if wrong is not None and wrong >= 4 and str(tokens[wrong]) == ")" and str(tokens[wrong - 2]) == "(" \
            and tokens[wrong - 4].type == "TABLE":  # `table cost(ground): number {`
        key = str(tokens[wrong - 1])
        return at(tokens[wrong - 3], missing.ONE_NUMBER_KEY_TABLE if key == "int" else missing.ONE_KEY_TABLE)
    if wrong is not None and str(tokens[wrong]) == "/" and source.text[tokens[wrong].end_pos:][:1] == "/":
        return _doubled(source, tokens[wrong])  # `// a comment` where a statement starts: the first '/' fails
    if wrong is not None and wrong >= 2 and tokens[wrong].type == "LPAR" and tokens[wrong - 1].type == "NAME" \
            and tokens[wrong - 2].type == "DOT":  # another language's method: `xs.index(2)`
        name = tokens[wrong - 1]
        return at(name, missing.Missing(missing.METHOD.message.format(name=name), missing.METHOD.hint))
    # The word the parser could not go on from is the one it failed at, or one of the two before.
    for index in range(last, max(-1, last - 3), -1):
        token, word = tokens[index], str(tokens[index])
        if token.type == "NAME" and word in missing.WORDS and starts_statement(index):
            return at(token, missing.WORDS[word])
        if token.type == "RETURN" and depth <= 0:
            return at(token, missing.RETURN_OUTSIDE_A_STEP)
        if token.type in _STATEMENT_WORDS and depth <= 0 and starts_statement(index):
            return at(token, missing.STATEMENT_OUTSIDE_A_STEP)
    return _after_return(source, tokens) or _action_gives(source, tokens)


def _doubled(source: SourceFile, first: Token) -> Diagnostic:
    """`7 // 2`, `2 ** 3` or `// a comment` (alone on its line): both characters shown, with what to write."""
    found = missing.DOUBLED[str(first)]
    if str(first) == "/" and not source.line(first.line)[:first.column - 1].strip():
        found = missing.SLASH_COMMENT
    return Diagnostic(source.path, first.line, first.column, found.message, found.hint, source.line(first.line), 2)


def _outside_brackets(tokens: list[Token]) -> Iterator[int]:
    """The places of the tokens, the last first, that stand outside every bracket closed after them; none from
    an opening bracket not closed on (the tokens end inside it)."""
    depth = 0
    for index in range(len(tokens) - 1, -1, -1):
        kind = tokens[index].type
        if kind in ("RPAR", "RSQB"):
            depth += 1
        elif kind in ("LPAR", "LSQB"):
            if depth == 0:
                return
            depth -= 1
        elif depth == 0:
            yield index


def _statement_word_before(tokens: list[Token]) -> bool:
    """Whether these tokens end in the condition (or the loop's head) of an if, else, for or while: its word
    comes after the last brace, outside any bracket."""
    for index in _outside_brackets(tokens):
        token = tokens[index]
        if token.type in ("LBRACE", "RBRACE", "THEN"):
            return False  # a brace, or an expression's `if c then a else b`
        if token.type == "ELSE":
            return index > 0 and tokens[index - 1].type == "RBRACE"  # `} else:`; not an expression's else
        if token.type in ("IF", "FOR", "WHILE"):
            return True
    return False


def _loop_head_before(tokens: list[Token]) -> bool:
    """Whether these tokens end in the head of a `for` loop, after its `in` (`for i in 1`), with nothing between
    that could not stand in a loop's list."""
    for index in range(len(tokens) - 1, -1, -1):
        token = tokens[index]
        if token.type == "IN":
            return index >= 2 and tokens[index - 1].type == "NAME" and tokens[index - 2].type == "FOR"
        if token.type not in ("NAME", "NUMBER", "DOT", "PLUS", "MINUS", "STAR", "SLASH") or _apart(tokens, index):
            return False
    return False


# Tokens that end an operand, and tokens that start one: two of them in a row are two statements.
_ENDS_OPERAND = frozenset({"NAME", "NUMBER", "STRING", "RPAR", "RSQB", "TRUE", "FALSE", "NONE", "DICE", "PERCENT"})
_STARTS_OPERAND = frozenset({"NAME", "NUMBER", "STRING", "LPAR", "LSQB", "TRUE", "FALSE", "NONE", "DICE", "PERCENT"})


def _apart(tokens: list[Token], index: int) -> bool:
    """Whether the token at index starts an operand right after one ended: a statement begins there."""
    return (index > 0 and tokens[index].type in _STARTS_OPERAND and tokens[index - 1].type in _ENDS_OPERAND)


def _compared_before(tokens: list[Token]) -> bool:
    """Whether these tokens end in a comparison (`a < b`), within the same parentheses, the same operand of
    an and, an or or a conditional, and the same statement."""
    for index in _outside_brackets(tokens):
        token = tokens[index]
        if token.type == "COMPARE":
            return True
        if _apart(tokens, index) or token.type in _STATEMENT_WORDS or token.type in (
                "LBRACE", "RBRACE", "EQUAL", "ASSIGN_OP", "COMMA", "AND", "OR", "NOT", "IF", "THEN", "ELSE", "WHILE",
                "IN", "COLON"):
            return False
    return False


def _inside_brackets(tokens: list[Token]) -> bool:
    """Whether these tokens end inside a '[' not yet closed (and no brace or parenthesis opened since)."""
    depth = 0
    for token in reversed(tokens):
        if token.type in ("RSQB", "RPAR", "RBRACE"):
            depth += 1
        elif token.type in ("LSQB", "LPAR", "LBRACE"):
            if depth == 0:
                return token.type == "LSQB"
            depth -= 1
    return False


def _no_starting_value(source: SourceFile, tokens: list[Token], error: UnexpectedInput) -> Diagnostic | None:
    """`outcome x: int` or `param p: int` with nothing after: the value it starts from (or is) is missing. The
    parser stops at the next declaration; the mistake is at the end of this one."""
    if not isinstance(error, UnexpectedToken) or "EQUAL" not in error.expected or len(tokens) < 2:
        return None
    declared = tokens if error.token.type == "$END" else tokens[:-1]  # the declaration, without what stopped it
    starts = [index for index, token in enumerate(declared) if token.type in ("OUTCOME", "PARAM", "CHOICE")]
    if not starts or starts[-1] + 1 >= len(declared) or any(
            token.type in ("EQUAL", "LBRACE") for token in declared[starts[-1]:]):
        return None
    word, name, end = declared[starts[-1]], declared[starts[-1] + 1], declared[-1]
    if end.end_line is None or end.end_column is None:
        return None
    if error.token.type != "$END" and (error.token.line or 0) <= end.end_line:  # a mistake within the line
        return None
    message = {"OUTCOME": "an outcome starts from the value it has where no rule sets it",
               "PARAM": "a parameter is given its value where it is declared (a scenario or --set may change it)",
               "CHOICE": "a choice is given the option taken where none is made"}[word.type]
    written = " ".join(source.text[word.start_pos : end.end_pos].split())
    if " list of " in f" {written} ":
        value = "[]"
    elif str(end) == "?":
        value = "none"
    elif word.type == "CHOICE":  # a choice is a truth or an enum's value
        value = "false" if str(end) == "bool" else "OPTION"
    else:
        value = _VALUE_OF_TYPE.get(str(end), "VALUE") if end.type == "NAME" else "VALUE"
    example = f"{written} = {value}"
    return Diagnostic(source.path, end.end_line, end.end_column, f"'{name}' has no value: {message}",
                      f"write '= value' after it, as in {example}", source.line(end.end_line), 1)


_VALUE_OF_TYPE = {"int": "0", "number": "0", "bool": "false", "text": '""', "dice": "1d6"}


def _action_gives(source: SourceFile, tokens: list[Token]) -> Diagnostic | None:
    """`action name(...): type`: a step may give a value, an action gives its results as outcomes."""
    if len(tokens) < 2 or tokens[-1].type != "COLON" or tokens[-2].type != "RPAR":
        return None
    starts = [t for t in tokens if t.type in ("ACTION", "STEP", "FN", "MODIFIER")]
    if not starts or starts[-1].type != "ACTION":
        return None
    colon = tokens[-1]
    return Diagnostic(source.path, colon.line, colon.column, "an action gives no value",
                      "its results are the outcomes it sets; a step may give one: step name(...): int { ... }",
                      source.line(colon.line), 1)


def _after_return(source: SourceFile, tokens: list[Token]) -> Diagnostic | None:
    """A statement written after a `return`, in its block: newlines mean nothing, so it was read as the value."""
    returns = [index for index, token in enumerate(tokens[:-1]) if token.type == "RETURN"]
    if not returns:
        return None
    word, following = tokens[returns[-1]], tokens[returns[-1] + 1]
    between = tokens[returns[-1] + 1 : -1]
    if following.line == word.line or any(t.type in ("LBRACE", "RBRACE") for t in between):
        return None
    return Diagnostic(source.path, following.line, following.column,
                      "this is read as the value of the 'return' before it", "what follows a 'return' in its "
                      "block never runs: end the block after the return, or put the return inside an 'if'",
                      source.line(following.line), len(str(following)))


def _unclosed_block(source: SourceFile, tokens: list[Token], error: UnexpectedInput) -> Diagnostic | None:
    """The '{' left open when the parser meets a reserved word, or the end, inside a block.

    Of the braces the parser paired, the first '}' that does not line up with
    its '{' most likely belongs to an outer block: its '{' is the one not
    closed. Failing that, the innermost block still open at the error.
    """
    if not isinstance(error, UnexpectedToken) or "RBRACE" not in error.expected:
        return None
    token = error.token
    if token.type != "$END" and not (token.type == str(token).upper() and str(token).isidentifier()):
        return None  # not a reserved word: a plain syntax error, said as such
    opened, misaligned = _paired(source, tokens)
    everything = _tokens_before(source.text, len(source.text))
    if not opened or _count(everything, "LBRACE") == _count(everything, "RBRACE"):
        return None  # every block is closed somewhere: the reserved word is the mistake
    unclosed = misaligned[0] if misaligned else opened[-1]
    met = "the file ends" if token.type == "$END" else f"'{token}' at line {token.line} is still"
    return Diagnostic(source.path, unclosed.line, unclosed.column, "the block opened here is not closed",
                      f"{met} inside it; add the '}}' that ends it", source.line(unclosed.line))


def _closed_early(source: SourceFile, tokens: list[Token], error: UnexpectedInput) -> Diagnostic | None:
    """An indented line met outside every block: the '}' that closed its block too early.

    Of the braces paired before it, the first '}' that does not line up with
    its '{' is most likely one too many, as _unclosed_block reads them.
    """
    if not isinstance(error, UnexpectedToken) or error.token.type == "$END" or not tokens:
        return None
    before = tokens[:-1]
    if _count(before, "LBRACE") != _count(before, "RBRACE") or _indent(source, tokens[-1]) == 0:
        return None
    _, misaligned = _paired(source, before)
    if misaligned is None:
        return None
    start, brace = misaligned
    return Diagnostic(source.path, brace.line, brace.column,
                      f"this '}}' closes the block opened at line {start.line}, out of line with it",
                      f"line {tokens[-1].line} is then outside every block: take this '}}' out if it is one too many",
                      source.line(brace.line))


def _paired(source: SourceFile, tokens: list[Token]) -> tuple[list[Token], tuple[Token, Token] | None]:
    """The braces of the tokens paired as the parser pairs them: the '{'s left open, and the first pair whose '}'
    does not line up with its '{' (on a line of its own, indented otherwise), the likeliest to be misplaced."""
    opened: list[Token] = []
    misaligned: tuple[Token, Token] | None = None
    for brace in tokens:
        if brace.type == "LBRACE":
            opened.append(brace)
        elif brace.type == "RBRACE" and opened:
            start = opened.pop()
            if misaligned is None and brace.line != start.line and _indent(source, brace) != _indent(source, start):
                misaligned = (start, brace)
    return opened, misaligned


def _count(tokens: list[Token], kind: str) -> int:
    return sum(1 for token in tokens if token.type == kind)


def _indent(source: SourceFile, token: Token) -> int:
    line = source.line(token.line)
    return len(line) - len(line.lstrip())


def _parser_diagnostic(source: SourceFile, error: UnexpectedInput) -> Diagnostic:
    line, column = error.line, error.column
    if isinstance(error, UnexpectedToken) and error.token.type == "$END":
        message = "unexpected end of file"
        lines = source.lines or [""]
        line, column = len(lines), len(lines[-1]) + 1
        hint = _expected(error.expected)
        if "RBRACE" in error.expected or "}" in hint:
            hint = "a '{' was opened and never closed; " + hint
        return Diagnostic(source.path, line, column, message, hint, source.line(line))
    if isinstance(error, UnexpectedToken):
        token = error.token
        if token.type == "ROW_NAME":  # `x:` read as a table row's key, where no table is: the name is unexpected
            token = _name_and_colon(token)[0]
        message = f"unexpected name '{token}'" if token.type == "NAME" else f"unexpected '{token}'"
        hint = _expected(error.expected)
        width = len(str(token)) or 1
        before = source.line(line)[: column - 1]
        if token.type == "STRING" and re.search(r"(^|\s)extends\s*$", before):
            message = "extends comes before the file's declarations"
            hint = "move it up, after the rules line if there is one: a variant names its base first"
            column, width = len(before.rstrip()) - len("extends") + 1, len("extends")
        elif str(token) == "else":  # where an else can follow nothing: a name is expected there too
            message = "an 'else' with no 'if' before it"
            hint = ("an else comes right after the '}' that closes an if's block (if c { ... } else { ... }), or in "
                    "an expression: if c then a else b")
        elif _then_left_out(source, token):
            message = "an 'if' in an expression needs 'then' between its condition and its value"  # `if s > t 3`
            hint = "if a > b then 1 else 2"
        elif str(token) == "=" and before.endswith("=") and re.match(r"\s*fn\b", source.line(line)):
            message = "a fn's value follows one '=', not '=='"  # `fn f(x: int): bool == x > 1`
            hint = source.line(line).strip().replace("==", "=", 1)
            column, width = column - 1, 2
        elif str(token) == "=":
            hint = "'=' sets a name or a field, in a statement of its own; to compare two values, write '=='"
        elif token.type == "NAME" and "PERCENT" in error.expected and "NAME" not in error.expected:
            # A name among a table row's cells, where the row's key has no colon (its cells are numbers only), or
            # after a minus.
            key = re.fullmatch(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s+", before)
            if before.rstrip().endswith("-"):
                hint = "only a number may be negated in a table's cell"
            elif key is not None:
                hint = (f"a row whose cells are names ends its key with a colon ({key.group(1)}: {token} ...), or "
                        f"the next row's key would read as one more cell")
        elif token.type == "NUMBER" and "ROW_NUMBER" in error.expected:  # a row's number without its colon
            hint = f"a table's row starts with its number and a colon: {token}: ..."
        elif "NAME" in error.expected and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", str(token)):
            message = f"'{token}' is a reserved word of the language and cannot be a name here"
            hint = f"choose another name, such as '{token}_'"
        return Diagnostic(source.path, line, column, message, hint, source.line(line), width)
    if isinstance(error, UnexpectedCharacters):
        char = source.text[error.pos_in_stream] if error.pos_in_stream < len(source.text) else ""
        message = f"unexpected character {char!r}"
        hint = _expected(set(error.allowed or ()))
        if char == "'":
            hint = "texts are written in double quotes: \"like this\""
        elif char == '"':  # a quote that opens no text the lexer can end: none closes it on its line
            message = "this text is not closed"
            hint = "a text ends with a '\"' on the same line it starts on"
        elif char == "%":
            hint = "a percentage is written right after its number, with no space: 60%; % means nothing else"
        return Diagnostic(source.path, line, column, message, hint, source.line(line))
    if isinstance(error, UnexpectedEOF):
        lines = source.lines or [""]
        return Diagnostic(source.path, len(lines), len(lines[-1]) + 1, "unexpected end of file")
    return Diagnostic(source.path, line or 0, column or 0, "syntax error")


# ---- tree -> nodes ------------------------------------------------------------------


def _unquote(token: str) -> str:
    body = token[1:-1]
    return re.sub(r"\\(.)", lambda m: ESCAPES[m.group(1)], body)


def _args(items: list[Any] | None) -> tuple[tuple[n.Expr, ...], tuple[n.Keyword, ...]]:
    positional = tuple(a for a in items or () if not isinstance(a, n.Keyword))
    keywords = tuple(a for a in items or () if isinstance(a, n.Keyword))
    return positional, keywords


@v_args(meta=True)
class ToNodes(Transformer):
    """One small method per grammar rule; each returns a frozen node."""

    def __init__(self, path: str):
        super().__init__()
        self.path = path

    def _pos(self, meta: Any) -> n.Pos:
        if getattr(meta, "empty", True):
            return n.NOWHERE
        return n.Pos(meta.line, meta.column, meta.end_line, meta.end_column, self.path)

    def _tpos(self, token: Token) -> n.Pos:
        end = token.end_column or token.column + len(token)
        return n.Pos(token.line, token.column, token.end_line or token.line, end, self.path)

    # ---- module and declarations

    def start(self, meta, items):
        title = ""
        extends = []
        decls = []
        for item in items:
            if isinstance(item, str):
                title = item
            elif isinstance(item, n.Extends):
                extends.append(item)
            elif isinstance(item, list):
                decls.extend(item)
            else:
                decls.append(item)
        return n.Module(self._pos(meta), title=title, extends=tuple(extends), decls=tuple(decls))

    def extends_decl(self, meta, items):
        return n.Extends(self._tpos(items[0]), path=_unquote(items[0]))

    def override_decl(self, meta, items):
        if isinstance(items[0], list):
            return [records.replace(d, override=True) for d in items[0]]
        return records.replace(items[0], override=True)

    def header(self, meta, items):
        return _unquote(items[0])

    def kind_decl(self, meta, items):
        name, *parts = items
        return n.KindDecl(self._tpos(name), name=str(name),
                          fields=tuple(p for p in parts if isinstance(p, n.FieldDecl)),
                          requires=tuple(p for p in parts if isinstance(p, n.Require)))

    def field_decl(self, meta, items):
        name, type_, bounds, default = items
        return n.FieldDecl(self._tpos(name), name=str(name), type=type_, default=default, bounds=bounds)

    def bounds(self, meta, items):
        return n.Bounds(self._pos(meta), low=items[0], high=items[1])

    def require_decl(self, meta, items):
        test, message = items
        return n.Require(self._pos(meta), test=test, message=_unquote(message) if message else "")

    def type_expr(self, meta, items):
        base, optional = items
        return n.TypeExpr(base.pos, name=base.name, item=base.item, optional=optional is not None)

    def named_type(self, meta, items):
        return n.TypeExpr(self._tpos(items[0]), name=str(items[0]))

    def list_type(self, meta, items):
        return n.TypeExpr(self._pos(meta), name="list", item=items[0])

    def enum_decl(self, meta, items):
        # An enumeration is sugar for a kind without fields and one row per member.
        name, *members = items
        kind = n.KindDecl(self._tpos(name), name=str(name))
        rows = [n.RowDecl(self._tpos(m), name=str(m), kind=str(name), kind_pos=self._tpos(name)) for m in members]
        return [kind, *rows]

    def table_decl(self, meta, items):
        name, row_kind, column_kind, type_, default, columns, *rows = items
        return n.TableDecl(self._tpos(name), name=str(name), row_kind=str(row_kind), column_kind=str(column_kind),
                           type=type_, default=default, columns=tuple(c for c, _ in columns),
                           column_pos=tuple(p for _, p in columns), rows=tuple(rows),
                           row_kind_pos=self._tpos(row_kind), column_kind_pos=self._tpos(column_kind))

    def table_columns(self, meta, items):
        return [item if isinstance(item, tuple) else (self._key(item), self._tpos(item)) for item in items]

    def negative_key(self, meta, items):
        return -self._key(items[0]), self._pos(meta)

    def _key(self, token: Token) -> str | int | Fraction:
        """A table's key as written: a row's name, or a number (a whole one, if the table is keyed by int)."""
        if token.type == "NAME":
            return str(token)
        text = str(token)
        value = Fraction(text) if "." in text else int(text)
        return int(value) if value.denominator == 1 else value  # 2.0 is the number 2, as anywhere

    def table_row(self, meta, items):
        first = items[0]
        if first.type in ("ROW_NUMBER", "ROW_NAME"):  # `7:`, `archer:`: the key alone is the key, and where it is
            written = str(first).rstrip(": \t")
            pos = self._tpos(first)
            key: str | int = int(written) if first.type == "ROW_NUMBER" else written
            pos = n.Pos(pos.line, pos.column, pos.line, pos.column + len(written), self.path)
        else:
            key, pos = str(first), self._tpos(first)
        return n.TableRow(pos, name=key, cells=tuple(items[1:]))

    def cell(self, meta, items):
        return self.number(meta, items)

    def name_cell(self, meta, items):
        if str(items[0]) == "none":  # a cell of a table of T? that has no value
            return n.NoneLit(self._tpos(items[0]))
        return n.Name(self._tpos(items[0]), name=str(items[0]))

    def negative_cell(self, meta, items):
        return n.Number(self._pos(meta), value=-self.number(meta, items).value)

    def row_decl(self, meta, items):
        kind, name, *fields = items
        return n.RowDecl(self._tpos(name), name=str(name), kind=str(kind), kind_pos=self._tpos(kind), fields=tuple(fields))

    def row_field(self, meta, items):
        return n.RowField(self._tpos(items[0]), name=str(items[0]), value=items[1])

    def param_decl(self, meta, items):
        name, type_, bounds, value = items
        return n.ParamDecl(self._tpos(name), name=str(name), type=type_, value=value, bounds=bounds)

    def choice_decl(self, meta, items):
        name, type_, value, description = items
        return n.ChoiceDecl(self._tpos(name), name=str(name), type=type_, value=value,
                            description=_unquote(description) if description else "")

    def outcome_decl(self, meta, items):
        name, type_, value = items
        return n.OutcomeDecl(self._tpos(name), name=str(name), type=type_, value=value)

    def modifier_decl(self, meta, items):
        name, params, *terms = items
        return n.ModifierDecl(self._tpos(name), name=str(name), params=params, terms=tuple(terms))

    def _term(op):  # noqa: N805 - a factory used in the class body only
        def build(self, meta, items):
            return n.Term(self._pos(meta), op=op, amount=items[0], when=items[1])

        return build

    term_add = _term("add")
    term_multiply = _term("multiply")
    term_replace = _term("replace")
    term_at_least = _term("at least")
    term_at_most = _term("at most")

    def fn_decl(self, meta, items):
        name, params, result, body = items
        if isinstance(body, tuple):  # statements in braces
            return n.FnDecl(self._tpos(name), name=str(name), params=params or (), result=result, block=body)
        return n.FnDecl(self._tpos(name), name=str(name), params=params or (), body=body, result=result)

    def step_decl(self, meta, items):
        name, params, result, body = items
        return n.StepDecl(self._tpos(name), name=str(name), params=params or (), body=body, result=result)

    def action_decl(self, meta, items):
        name, params, *requires, body = items
        return n.StepDecl(self._tpos(name), name=str(name), params=params or (), body=body, is_action=True,
                          requires=tuple(requires))

    def params(self, meta, items):
        return tuple(items)

    def param(self, meta, items):
        name, type_, bounds, default = items
        return n.Param(self._tpos(name), name=str(name), type=type_, default=default, bounds=bounds)

    def example_decl(self, meta, items):
        title_token, *parts = items
        title = _unquote(title_token)
        match = EXAMPLE_ID.match(title)
        sets, set_pos, run, rolls, expects = [], [], None, None, []
        for kind, value in parts:
            if kind == "set":
                name_token, set_value = value
                sets.append((str(name_token), set_value))
                set_pos.append(self._tpos(name_token))
            elif kind == "run":
                run = value
            elif kind == "rolls":
                rolls = value
            else:
                expects.append(value)
        return n.ExampleDecl(
            self._tpos(title_token),
            name=title,
            example_id=match.group(1) if match else "",
            sets=tuple(sets),
            run=run,
            rolls=rolls,
            expects=tuple(expects),
            set_pos=tuple(set_pos),
        )

    def example_set(self, meta, items):
        return ("set", (items[0], items[1]))  # the name's token: example_decl keeps its place

    def example_run(self, meta, items):
        name, args = items
        positional, keywords = _args(args)
        return ("run", n.Call(self._tpos(name), func=str(name), args=positional, keywords=keywords))

    def example_rolls(self, meta, items):
        return ("rolls", items[0])

    def example_expect(self, meta, items):
        return ("expect", items[0])

    # ---- statements

    def block(self, meta, items):
        return tuple(items)

    def let_stmt(self, meta, items):
        name, type_, value = items
        return n.Let(self._pos(meta), name=str(name), value=value, type=type_, name_pos=self._tpos(name))

    def assign_stmt(self, meta, items):
        (target, index), op, value = items
        return n.Assign(self._pos(meta), target=tuple(str(t) for t in target), op=str(op), value=value,
                        target_pos=tuple(self._tpos(t) for t in target), index=index)

    def lvalue(self, meta, items):
        *names, index = items
        return tuple(names), index  # the names' tokens, which assign_stmt keeps the places of, and an item's index

    def if_stmt(self, meta, items):
        test, then, otherwise = items
        if isinstance(otherwise, n.If):
            otherwise = (otherwise,)
        return n.If(self._pos(meta), test=test, then=then, otherwise=otherwise or ())

    def for_stmt(self, meta, items):
        var, source, body = items
        return n.For(self._pos(meta), var=str(var), source=source, body=body, var_pos=self._tpos(var))

    def while_stmt(self, meta, items):
        test, body = items
        return n.While(self._pos(meta), test=test, body=body)

    def break_stmt(self, meta, items):
        return n.Break(self._pos(meta))

    def stop_stmt(self, meta, items):
        return n.Stop(self._pos(meta), reason=_unquote(items[0]) if items[0] else "")

    def return_stmt(self, meta, items):
        value = items[0]
        # A text alone may be a step's reason for ending (what explain shows), or the value a step
        # or fn gives: which one, the checker knows from the step.
        reason = value.value if isinstance(value, n.Text) else ""
        return n.Return(self._pos(meta), reason=reason, value=value)

    def call_stmt(self, meta, items):
        name, args = items
        positional, keywords = _args(args)
        call = n.Call(self._pos(meta), func=str(name), args=positional, keywords=keywords)
        return n.CallStmt(self._pos(meta), call=call)

    def event_stmt(self, meta, items):
        name, args = items
        positional, keywords = _args(args)
        return n.Event(self._pos(meta), name=str(name), args=positional, keywords=keywords)

    # ---- expressions

    def cond_expr(self, meta, items):
        return n.Conditional(self._pos(meta), test=items[0], then=items[1], otherwise=items[2])

    def _binary(op):  # noqa: N805
        def build(self, meta, items):
            return n.Binary(self._pos(meta), op=op, left=items[0], right=items[-1])

        return build

    or_op = _binary("or")
    and_op = _binary("and")
    add_op = _binary("+")
    sub_op = _binary("-")
    mul_op = _binary("*")
    div_op = _binary("/")
    contains = _binary("in")
    not_contains = _binary("not in")

    def in_range(self, meta, items):
        return n.InRange(self._pos(meta), value=items[0], low=items[1], high=items[2])

    def not_in_range(self, meta, items):
        return n.InRange(self._pos(meta), value=items[0], low=items[1], high=items[2], negated=True)

    def compare(self, meta, items):
        left, op, right = items
        return n.Binary(self._pos(meta), op=str(op), left=left, right=right)

    def not_op(self, meta, items):
        return n.Unary(self._pos(meta), op="not", operand=items[0])

    def neg_op(self, meta, items):
        operand = items[0]
        if isinstance(operand, n.Number):
            return n.Number(self._pos(meta), value=-operand.value)
        return n.Unary(self._pos(meta), op="-", operand=operand)

    def attr(self, meta, items):
        return n.Attr(self._pos(meta), obj=items[0], name=str(items[1]))

    def index(self, meta, items):
        return n.Index(self._pos(meta), obj=items[0], index=items[1], more=tuple(items[2:]))

    def call(self, meta, items):
        name, args = items
        positional, keywords = _args(args)
        return n.Call(self._pos(meta), func=str(name), args=positional, keywords=keywords)

    def args(self, meta, items):
        return list(items)

    def keyword_arg(self, meta, items):
        return n.Keyword(self._tpos(items[0]), name=str(items[0]), value=items[1])

    def number(self, meta, items):
        text = str(items[0])
        if text.endswith("%"):  # a PERCENT token: 60% is exactly 60/100
            value: int | Fraction = Fraction(text[:-1]) / 100
        else:
            value = Fraction(text) if "." in text else int(text)
        if isinstance(value, Fraction) and value.denominator == 1:
            value = int(value)
        return n.Number(self._pos(meta), value=value)

    def dice(self, meta, items):
        count, sides = str(items[0]).split("d")
        return n.Dice(self._pos(meta), count=int(count), sides=int(sides))

    def string(self, meta, items):
        return n.Text(self._pos(meta), value=_unquote(items[0]))

    def true(self, meta, items):
        return n.Bool(self._pos(meta), value=True)

    def false(self, meta, items):
        return n.Bool(self._pos(meta), value=False)

    def none(self, meta, items):
        return n.NoneLit(self._pos(meta))

    def name(self, meta, items):
        return n.Name(self._pos(meta), name=str(items[0]))

    def list(self, meta, items):
        return n.ListLit(self._pos(meta), items=tuple(i for i in items if i is not None))

    def comprehension(self, meta, items):
        item, var, source, condition = items
        return n.Comprehension(self._pos(meta), item=item, var=str(var), source=source, condition=condition,
                               var_pos=self._tpos(var))

    def record(self, meta, items):
        return n.RecordLit(self._pos(meta), fields=tuple(items))

    def field_init(self, meta, items):
        return n.FieldInit(self._tpos(items[0]), name=str(items[0]), value=items[1])
