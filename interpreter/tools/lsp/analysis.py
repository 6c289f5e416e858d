"""What the language server knows of one open rules file: its problems, and where every name is.

An analysis loads the file with its `extends` chain (open documents taken as
the editor holds them), runs the checker that `fracas check` runs, and
indexes every declaration and every use of a name, across the chain, by its
place. Nothing here knows the protocol: places are 1-based lines and columns
counted in characters, as the checker gives them.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Sequence
from difflib import SequenceMatcher
from pathlib import Path

from fracas.dsl import nodes as n
from fracas.dsl.builtins import SIGNATURES
from fracas.dsl.check import Checker, Scope
from fracas.dsl.diagnostics import Diagnostic, RulesError, SourceFile
from fracas.dsl.extend import OpenTexts, load_module
from fracas.dsl.limits import Limits
from fracas.dsl.parse import parse
from fracas.dsl.records import field, record
from fracas.dsl.reparse import Reparser
from fracas.dsl.statements import blocks, children
from fracas.dsl.ruleset import KindInfo, Ruleset, read_as_rules_after
from fracas.dsl.types import Type, type_from

# What a name names: ("kind", K), ("value", NAME) for rows, parameters, choices, outcomes,
# tables, functions, modifiers, steps and actions (they share one namespace), ("field", K, F),
# ("local", path, line, column) for a parameter or a local, named by where it is bound,
# and ("builtin", NAME).
Key = tuple


@record(frozen=True)
class Place:
    """A stretch of one line of a file, as an editor asks about and underlines it."""

    path: str
    line: int  # 1-based
    column: int  # 1-based, in characters
    end_column: int  # exclusive

    def holds(self, line: int, column: int) -> bool:
        return self.line == line and self.column <= column <= self.end_column


@record(frozen=True)
class Occurrence:
    """Where a name is written, and what it names: for going to its definition and finding its uses."""

    place: Place
    key: Key
    definition: bool


@record
class Local:
    """A parameter or local name, where it is bound and what it is."""

    name: str
    what: str  # "parameter of step x", "local of action y", ...
    type: Type | None = None
    type_text: str = ""


@record
class Analysis:
    """What the server knows of one version of an open file, worked out once for all the editor asks."""

    path: str
    text: str
    version: int | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    rules: Ruleset | None = None  # checked, or as far as the checker got
    checked: bool = False  # the rules have no error
    sources: dict[str, SourceFile] = field(default_factory=dict)
    occurrences: list[Occurrence] = field(default_factory=list)
    locals: dict[Key, Local] = field(default_factory=dict)
    types: dict[Key, Type] = field(default_factory=dict)  # a local's type, from the checker
    module: n.Module | None = None  # this file alone, as parsed
    depends: set[str] = field(default_factory=set)  # the files its chain reads (resolved), even when it fails
    stale: bool = False  # places are those of an earlier text, carried over to this one
    readable: bool = True  # the text parses (within the limits)

    @property
    def chain(self) -> tuple[str, ...]:
        return tuple(self.sources)

    def at(self, path: str, line: int, column: int) -> Occurrence | None:
        for occurrence in self.occurrences:
            if occurrence.place.path == path and occurrence.place.holds(line, column):
                return occurrence
        return None

    def definitions(self, key: Key) -> list[Place]:
        return _unique(o.place for o in self.occurrences if o.key == key and o.definition)


def _unique(places: Iterable[Place]) -> list[Place]:
    return list(dict.fromkeys(places))


# One reparser per file read (the open ones and the files they extend): an edit re-reads only the
# declarations it touched. Bounded, as a long session opens many files.
_reparsers: dict[tuple[str, Limits], Reparser] = {}
_MOST_FILES = 64


def parse_again(text: str, path: str, limits: Limits) -> n.Module:
    """The text's tree as fracas.dsl.parse gives it, reusing the declarations of the file's last texts."""
    key = (path, limits)
    reparser = _reparsers.pop(key, None) or Reparser(path, limits)
    _reparsers[key] = reparser  # the most recent last
    while len(_reparsers) > _MOST_FILES:
        del _reparsers[next(iter(_reparsers))]
    return reparser.parse(text)


def parse_kept(text: str, path: str, limits: Limits) -> n.Module:
    """The tree of a file on disk that the editor has not opened: kept between runs, as `fracas check` keeps it
    (a second server finds it there), and not among the reparsers of the files being edited."""
    return parse(text, path, limits, cache=True)


Parsing = Callable[[str, str, Limits], n.Module]


def analyze(text: str, path: str, limits: Limits, version: int | None = None,
            open_texts: OpenTexts | None = None, previous: Analysis | None = None,
            parsing: Parsing = parse_again) -> Analysis:
    """Check a text as `fracas check` would, and index its names; never raises for what a user can write.
    `parsing`: how its text is parsed (a file on disk the editor has not opened: parse_kept)."""
    analysis = Analysis(path, text, version)
    if len(text.encode("utf-8", "surrogatepass")) > limits.file_bytes:
        analysis.diagnostics = [Diagnostic(path, 1, 1, f"the file is over the limit of {limits.file_bytes} bytes",
                                           limits.hint("file_bytes"))]
        analysis.readable = False
        return _keep_places(analysis, previous)
    try:
        analysis.module = parsing(text, path, limits)
    except RulesError as error:
        analysis.diagnostics = list(error.diagnostics)
        analysis.readable = False
        return _keep_places(analysis, previous)
    try:
        loaded = load_module(text, path, limits, False, open_texts, analysis.module,
                             lambda text, shown: parse_again(text, shown, limits))
    except RulesError as error:  # an extends or override problem: this file alone is indexed
        analysis.diagnostics = list(error.diagnostics)
        here = Path(path).resolve().parent
        analysis.depends = {str((here / e.path).resolve()) for e in analysis.module.extends}
        analysis.depends |= previous.depends if previous is not None else set()
        analysis.sources = {path: SourceFile(path, text)}
        checker = Recorder(analysis.module, analysis.sources[path])
        _run(checker, analysis)
        _index(analysis, checker, analysis.module.decls, {})
        return analysis
    analysis.sources = dict(loaded.sources)
    analysis.depends = {str(Path(p).resolve()) for p in loaded.sources}
    checker = Recorder(loaded.module, loaded.sources[path])
    checker.rules.sources.update(loaded.sources)
    analysis.diagnostics = _run(checker, analysis)
    analysis.checked = not analysis.diagnostics
    checker.rules.bases, checker.rules.limits = loaded.base_paths, limits
    if analysis.checked:  # what `fracas check` reports besides: warnings, rows and inputs that break a constraint
        # Here, not at the top: the engine is loaded when a file first checks clean, not when the server starts.
        from fracas.interpreter.tools.examples import check_problems

        analysis.diagnostics = check_problems(checker.rules)
    bases = {p: _base_module(source, limits) for p, source in loaded.sources.items() if p != path}
    _index(analysis, checker, loaded.module.decls, bases)
    return analysis


def outlined(text: str, path: str, limits: Limits) -> Analysis | None:
    """A file read for its outline alone (its own declarations, as parsed): None where it does not parse."""
    if len(text.encode("utf-8", "surrogatepass")) > limits.file_bytes:
        return None
    analysis = Analysis(path, text, None)
    try:
        analysis.module = parse_kept(text, path, limits)
    except RulesError:
        return None
    analysis.sources = {path: SourceFile(path, text)}
    return analysis


def _keep_places(analysis: Analysis, previous: Analysis | None) -> Analysis:
    """A text that does not parse keeps the names of the last one that did, for hover and the rest."""
    if previous is None:
        return analysis
    carried = carry_over(previous, analysis.text, analysis.version)
    carried.diagnostics, carried.readable = analysis.diagnostics, analysis.readable
    return carried


# ---- names carried over to a newer text ------------------------------------------------------


def carry_over(previous: Analysis, text: str, version: int | None) -> Analysis:
    """The names of an analysis, moved to a newer text of its file, without analysing it.

    What the edit left alone keeps its meaning: a place above the edited
    lines stays, a place below moves with them, a place on an edited line
    stays or moves with the characters around it if they were left alone,
    and a place in what was rewritten is dropped. The rules, types and the
    outline are those of the previous text: for the moment until the new
    text is analysed, or for as long as it does not parse.
    """
    carried = Analysis(previous.path, text, version)
    for name in ("rules", "locals", "types", "module", "depends"):
        setattr(carried, name, getattr(previous, name))
    carried.sources = {**previous.sources, previous.path: SourceFile(previous.path, text)}
    carried.stale = True
    if text == previous.text:
        carried.occurrences = previous.occurrences
        return carried
    move = _mover(previous.text, text)
    found = []
    for occurrence in previous.occurrences:
        if occurrence.place.path != previous.path:
            found.append(occurrence)
            continue
        place = move(occurrence.place)
        if place is not None:
            found.append(Occurrence(place, occurrence.key, occurrence.definition))
    carried.occurrences = found
    return carried


def _mover(old: str, new: str) -> Callable[[Place], Place | None]:
    """Where a place of the old text is in the new one (None: in what an edit rewrote)."""
    before, after = old.split("\n"), new.split("\n")
    lines: dict[int, int] = {}  # an old line left alone -> its number now (1-based)
    edited: dict[int, _Rewritten] = {}  # an old line of lines rewritten -> what they were rewritten as
    # An edit is a few lines: the lines before and after it, the same in both texts, are matched as they are,
    # and only those between are diffed (SequenceMatcher over a whole long file takes tens of milliseconds).
    head, tail = _edit_within(before, after)
    lines.update((i + 1, i + 1) for i in range(head))
    shift = len(after) - len(before)
    lines.update((i + 1, i + 1 + shift) for i in range(len(before) - tail, len(before)))
    middle = SequenceMatcher(None, before[head : len(before) - tail], after[head : len(after) - tail], autojunk=False)
    for how, first, last, new_first, new_last in middle.get_opcodes():
        first, last, new_first, new_last = first + head, last + head, new_first + head, new_last + head
        if how == "equal":
            lines.update((first + i + 1, new_first + i + 1) for i in range(last - first))
        elif how == "replace" and last - first == new_last - new_first:  # lines typed in (a selection re-indented)
            for i in range(last - first):
                old_line, new_line = first + i, new_first + i
                edited[old_line + 1] = _Rewritten(old_line + 1, [before[old_line]], new_line + 1, [after[new_line]])
        elif how == "replace":  # lines split or joined: what the edit left alone at either end of them all
            rewritten = _Rewritten(first + 1, before[first:last], new_first + 1, after[new_first:new_last])
            edited.update((line, rewritten) for line in range(first + 1, last + 1))

    def move(place: Place) -> Place | None:
        if place.line in lines:
            return Place(place.path, lines[place.line], place.column, place.end_column)
        rewritten = edited.get(place.line)
        return rewritten.move(place) if rewritten is not None else None

    return move


class _Rewritten:
    """Lines an edit rewrote, and what it rewrote them as: a name in the characters it left alone at either end
    of them (a line's start before what was typed, its end after) is found there in the new lines."""

    def __init__(self, first: int, old: list[str], new_first: int, new: list[str]):
        self.first, self.new_first, self.new = first, new_first, new
        self.old_starts, self.new_starts = _line_starts(old), _line_starts(new)
        self.old_length, self.new_length = self.old_starts[-1] - 1, self.new_starts[-1] - 1
        self.left, self.right = _edit_within("\n".join(old), "\n".join(new))

    def move(self, place: Place) -> Place | None:
        start = self.old_starts[place.line - self.first] + place.column - 1  # in the old lines joined
        end = start + place.end_column - place.column
        if end <= self.left:
            moved = start
        elif start >= self.old_length - self.right:
            moved = start + self.new_length - self.old_length
        else:
            return None
        index = bisect.bisect_right(self.new_starts, moved) - 1
        line, column = self.new[index], moved - self.new_starts[index]
        if not _still_a_name(line, column, column + end - start):
            return None
        return Place(place.path, self.new_first + index, column + 1, column + 1 + end - start)


def _line_starts(lines: list[str]) -> list[int]:
    """Where each line starts in the lines joined by new lines, and where one more would."""
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    return starts


def _still_a_name(line: str, start: int, end: int) -> bool:
    """Whether line[start:end], a name's characters, still reads as that name: not run together with a name's
    characters on either side (a space typed before it leaves it a name, a letter does not), nor in a comment or
    a text that the edit opened before it."""
    if (start > 0 and _name_character(line[start - 1])) or (end < len(line) and _name_character(line[end])):
        return False
    return read_as_rules_after(line[:start])


def _name_character(char: str) -> bool:
    return char == "_" or (char.isascii() and char.isalnum())


def _edit_within(old: Sequence[str], new: Sequence[str]) -> tuple[int, int]:
    """How many characters at the start, and at the end, of a line an edit left alone (of a text: lines)."""
    shortest = min(len(old), len(new))
    left = 0
    while left < shortest and old[left] == new[left]:
        left += 1
    right = 0
    while right < shortest - left and old[-1 - right] == new[-1 - right]:
        right += 1
    return left, right


def _run(checker: Recorder, analysis: Analysis) -> list[Diagnostic]:
    try:
        checker.run()
        found: list[Diagnostic] = []
    except RulesError as error:
        found = list(error.diagnostics)
    except RecursionError:
        found = [Diagnostic(analysis.path, 1, 1, "the rules nest too deeply to check")]
    analysis.rules = checker.rules
    return found


def _base_module(source: SourceFile, limits: Limits) -> n.Module | None:
    try:
        return parse_again(source.text, source.path, limits)
    except RulesError:
        return None


# ---- the checker, noting what it resolves ------------------------------------------------


def _pos_key(pos: n.Pos) -> tuple:
    return (pos.path, pos.line, pos.column, pos.end_line, pos.end_column)


class Recorder(Checker):
    """The checker of `fracas check`, noting the kind behind each field it resolves and each name's type."""

    def __init__(self, module: n.Module, source: SourceFile):
        super().__init__(module, source)
        self.fields: dict[tuple, list[tuple[str, str]]] = {}  # an Attr's or Assign's place -> (kind, field)...
        self.given: dict[tuple, tuple[str, str]] = {}  # a row's or record's field name -> (kind, field)
        self.name_types: dict[tuple, Type] = {}
        self.bound_types: dict[tuple, Type] = {}  # where a let's or a for loop's name is written -> its type
        self._for: n.For | None = None  # the loop whose body is checked next

    def check_statement_parts(self, stmt: n.Stmt, scope: Scope) -> None:
        if isinstance(stmt, n.For):
            self._for = stmt
        super().check_statement_parts(stmt, scope)
        if isinstance(stmt, n.Let) and stmt.name in scope.names:
            self.bound_types[_pos_key(stmt.name_pos)] = scope.names[stmt.name]

    def check_loop_body(self, body: tuple[n.Stmt, ...], scope: Scope) -> None:
        loop, self._for = self._for, None
        if loop is not None and loop.var in scope.names:  # the loop's scope, its name bound to an item
            self.bound_types[_pos_key(loop.var_pos)] = scope.names[loop.var]
        super().check_loop_body(body, scope)

    def field_type(self, obj: Type, name: str, pos: n.Pos) -> Type:
        found = super().field_type(obj, name, pos)
        kind = self.rules.kinds.get(obj.name)
        self.fields.setdefault(_pos_key(pos), []).append((obj.name, name) if kind and kind.field(name) else ("", name))
        return found

    def check_given_fields(self, kind: KindInfo, fields, scope: Scope, constant: bool) -> set[str]:
        for name, _, pos in fields:
            self.given[(pos.path, pos.line, pos.column)] = (kind.name, name)
        return super().check_given_fields(kind, fields, scope, constant)

    def infer_Name(self, expr: n.Name, scope: Scope) -> Type:
        found = super().infer_Name(expr, scope)
        self.name_types[_pos_key(expr.pos)] = found
        return found


# ---- the index --------------------------------------------------------------------------------

class _Indexer:
    def __init__(self, analysis: Analysis, checker: Recorder):
        self.analysis = analysis
        self.checker = checker
        self.rules = checker.rules
        self.found: list[Occurrence] = []
        self.action_names: dict[str, dict[str, Key]] = {}  # an action's parameters and locals, for its examples

    # ---- places

    def add(self, path: str, line: int, column: int, name: str, key: Key, definition: bool = False) -> None:
        if line > 0 and column > 0:
            self.found.append(Occurrence(Place(path, line, column, column + len(name)), key, definition))

    def at_pos(self, pos: n.Pos, name: str, key: Key, definition: bool = False) -> None:
        self.add(pos.path, pos.line, pos.column, name, key, definition)

    # ---- declarations

    def decl(self, decl: n.Decl) -> None:
        if isinstance(decl, n.KindDecl):
            self.at_pos(decl.pos, decl.name, ("kind", decl.name), True)
            scope: dict[str, Key] = {}
            for f in decl.fields:
                self.at_pos(f.pos, f.name, ("field", decl.name, f.name), True)
                self.type(f.type)
                if f.default is not None:
                    self.expr(f.default, {name: key for name, key in scope.items()})
                scope[f.name] = ("field", decl.name, f.name)
            # A field's bounds and the kind's requires read any of its fields.
            whole = {f.name: ("field", decl.name, f.name) for f in decl.fields}
            for f in decl.fields:
                self.bounds(f.bounds, whole)
            for require in decl.requires:
                self.expr(require.test, whole)
        elif isinstance(decl, n.RowDecl):
            self.at_pos(decl.pos, decl.name, ("value", decl.name), True)
            if decl.kind_pos.line and (decl.kind_pos.line, decl.kind_pos.column) != (decl.pos.line, decl.pos.column):
                kind = self.rules.kinds.get(decl.kind)
                enum_name = kind is not None and (kind.decl.pos.path, kind.decl.pos.line, kind.decl.pos.column) == (
                    decl.kind_pos.path, decl.kind_pos.line, decl.kind_pos.column)
                if not enum_name:
                    self.at_pos(decl.kind_pos, decl.kind, ("kind", decl.kind))
            for f in decl.fields:
                self.at_pos(f.pos, f.name, ("field", decl.kind, f.name))
                self.expr(f.value, {})
        elif isinstance(decl, n.TableDecl):
            self.at_pos(decl.pos, decl.name, ("value", decl.name), True)
            for kind, pos in ((decl.row_kind, decl.row_kind_pos), (decl.column_kind, decl.column_kind_pos)):
                if kind != "int":
                    self.at_pos(pos, kind, ("kind", kind))
            self.type(decl.type)
            for key, pos in [*zip(decl.columns, decl.column_pos), *((row.name, row.pos) for row in decl.rows)]:
                if isinstance(key, str):  # a row's name; a number names nothing
                    self.at_pos(pos, key, ("value", key))
            for cell in (decl.default, *(cell for row in decl.rows for cell in row.cells)):
                if isinstance(cell, n.Name):  # a row named in a cell (an enum's value)
                    self.expr(cell, {})
        elif isinstance(decl, (n.ParamDecl, n.ChoiceDecl, n.OutcomeDecl)):
            self.at_pos(decl.pos, decl.name, ("value", decl.name), True)
            if decl.type is not None:
                self.type(decl.type)
            self.expr(decl.value, {})
            if isinstance(decl, n.ParamDecl):
                self.bounds(decl.bounds, {})
        elif isinstance(decl, n.Require):  # at the top of a file: over the parameters and choices
            self.expr(decl.test, {})
        elif isinstance(decl, (n.ModifierDecl, n.FnDecl, n.StepDecl)):
            self.at_pos(decl.pos, decl.name, ("value", decl.name), True)
            what = "fn" if isinstance(decl, n.FnDecl) else "modifier" if isinstance(decl, n.ModifierDecl) else (
                "action" if decl.is_action else "step")
            scope = self.params(decl.params, f"parameter of {what} {decl.name}")
            if isinstance(decl, n.ModifierDecl):
                for term in decl.terms:
                    self.expr(term.amount, scope)
                    if term.when is not None:
                        self.expr(term.when, scope)
            elif isinstance(decl, n.FnDecl):
                self.type(decl.result)
                self.expr(decl.body, scope)
                self.block(decl.block or (), dict(scope), f"local of fn {decl.name}")
            else:
                self.type(decl.result)
                for param in decl.params:  # an input's bounds and the action's requires read its inputs
                    self.bounds(param.bounds, scope)
                for require in decl.requires:
                    self.expr(require.test, scope)
                inner = dict(scope)
                self.block(decl.body, inner, f"local of {what} {decl.name}")
                if decl.is_action:
                    self.action_names[decl.name] = inner
        elif isinstance(decl, n.ExampleDecl):
            self.example(decl)

    def params(self, params: tuple[n.Param, ...], what: str) -> dict[str, Key]:
        scope: dict[str, Key] = {}
        for param in params:
            key = ("local", param.pos.path, param.pos.line, param.pos.column)
            self.at_pos(param.pos, param.name, key, True)
            self.analysis.locals[key] = Local(param.name, what, type_from(param.type, self.rules.kinds),
                                              _type_text(param.type))
            self.type(param.type)
            if param.default is not None:
                self.expr(param.default, {})
            scope[param.name] = key
        return scope

    def bounds(self, bounds: n.Bounds | None, scope: dict[str, Key]) -> None:
        if bounds is not None:
            self.expr(bounds.low, scope)
            self.expr(bounds.high, scope)

    def example(self, decl: n.ExampleDecl) -> None:
        for (name, value), pos in zip(decl.sets, decl.set_pos):
            self.at_pos(pos, name, ("value", name))
            self.expr(value, {})
        names: dict[str, Key] = {}
        if decl.run is not None:
            self.call(decl.run, {})
            names = self.action_names.get(decl.run.func, {})
            if not names and decl.run.func in self.rules.actions:
                names = self._names_of(self.rules.actions[decl.run.func])
        if decl.rolls is not None:
            self.expr(decl.rolls, {})
        for expect in decl.expects:
            self.expr(expect, names)

    def _names_of(self, action: n.StepDecl) -> dict[str, Key]:
        return {p.name: ("local", p.pos.path, p.pos.line, p.pos.column) for p in action.params}

    def type(self, type_: n.TypeExpr | None) -> None:
        if type_ is None:
            return
        if type_.name == "list":
            self.type(type_.item)
        elif type_.name in self.rules.kinds:
            self.at_pos(type_.pos, type_.name, ("kind", type_.name))

    # ---- statements

    def block(self, stmts: tuple[n.Stmt, ...], scope: dict[str, Key], what: str) -> None:
        for stmt in stmts:
            self.stmt(stmt, scope, what)

    def bind(self, pos: n.Pos, name: str, scope: dict[str, Key], what: str,
             type_expr: n.TypeExpr | None = None) -> None:
        """A local bound where its name is written: known by that place from here to the end of its scope."""
        key = ("local", pos.path, pos.line, pos.column)
        self.at_pos(pos, name, key, True)
        self.analysis.locals[key] = Local(name, what, None, _type_text(type_expr) if type_expr else "")
        found = self.checker.bound_types.get(_pos_key(pos))  # as the checker found it: known before any use
        if found is not None and found.name != "any":
            self.analysis.types.setdefault(key, found)
        scope[name] = key

    def stmt(self, stmt: n.Stmt, scope: dict[str, Key], what: str) -> None:
        if isinstance(stmt, n.Let):
            self.type(stmt.type)
            self.expr(stmt.value, scope)
            self.bind(stmt.name_pos, stmt.name, scope, what, stmt.type)
        elif isinstance(stmt, n.Assign):
            self.assign(stmt, scope)
        elif isinstance(stmt, n.For):
            self.expr(stmt.source, scope)
            inner = dict(scope)
            self.bind(stmt.var_pos, stmt.var, inner, what)
            self.block(stmt.body, inner, what)
        else:  # if, while, a call, an event, return: their expressions, then each block in a scope of its own
            for child in children(stmt):
                self.expr(child, scope)
            for block in blocks(stmt):
                self.block(block, dict(scope), what)

    def assign(self, stmt: n.Assign, scope: dict[str, Key]) -> None:
        head, *path = stmt.target
        head_pos, *path_pos = stmt.target_pos
        self.at_pos(head_pos, head, self.name_key(head, scope))
        kinds = self.checker.fields.get(_pos_key(stmt.pos), [])  # the kind behind each field, as the checker found
        for name, pos, (kind, _) in zip(path, path_pos, kinds):
            if kind:
                self.at_pos(pos, name, ("field", kind, name))
        if stmt.index is not None:
            self.expr(stmt.index, scope)
        self.expr(stmt.value, scope)

    # ---- expressions

    def name_key(self, name: str, scope: dict[str, Key]) -> Key:
        if name in scope:
            return scope[name]
        if name in self.rules.kinds and not self._is_value(name):
            return ("kind", name)
        return ("value", name)

    def _is_value(self, name: str) -> bool:
        rules = self.rules
        return any(name in table for table in (rules.rows, rules.params, rules.choices, rules.outcomes, rules.tables,
                                                 rules.fns, rules.modifiers, rules.steps, rules.actions))

    def call(self, call: n.Call, scope: dict[str, Key]) -> None:
        name = call.func
        callee = (self.rules.fns.get(name) or self.rules.modifiers.get(name) or self.rules.steps.get(name)
                  or self.rules.actions.get(name))
        if callee is not None or name not in SIGNATURES:
            self.add(call.pos.path, call.pos.line, call.pos.column, name, ("value", name))
        else:
            self.add(call.pos.path, call.pos.line, call.pos.column, name, ("builtin", name))
        for arg in call.args:
            self.expr(arg, scope)
        params = {p.name: p for p in callee.params} if callee is not None else {}
        for keyword in call.keywords:
            param = params.get(keyword.name)
            if param is not None:
                self.at_pos(keyword.pos, keyword.name, ("local", param.pos.path, param.pos.line, param.pos.column))
            self.expr(keyword.value, scope)

    def expr(self, expr: n.Expr | None, scope: dict[str, Key]) -> None:
        if expr is None:
            return
        if isinstance(expr, n.Name):
            key = self.name_key(expr.name, scope)
            self.at_pos(expr.pos, expr.name, key)
            found = self.checker.name_types.get(_pos_key(expr.pos))
            if key[0] == "local" and found is not None and found.name != "any":
                self.analysis.types.setdefault(key, found)
        elif isinstance(expr, n.Call):
            self.call(expr, scope)
        elif isinstance(expr, n.Attr):
            self.expr(expr.obj, scope)
            for kind, name in self.checker.fields.get(_pos_key(expr.pos), [])[:1]:
                if kind:
                    self.add(expr.pos.path, expr.pos.end_line, expr.pos.end_column - len(name), name,
                             ("field", kind, name))
        elif isinstance(expr, n.RecordLit):
            for f in expr.fields:
                kind, name = self.checker.given.get((f.pos.path, f.pos.line, f.pos.column), ("", f.name))
                if kind:
                    self.at_pos(f.pos, name, ("field", kind, name))
                self.expr(f.value, scope)
        elif isinstance(expr, n.Comprehension):
            self.expr(expr.source, scope)
            inner = dict(scope)
            self.bind(expr.var_pos, expr.var, inner, "item of a list comprehension")
            self.expr(expr.item, inner)
            self.expr(expr.condition, inner)
        else:
            for child in children(expr):
                self.expr(child, scope)


def _type_text(type_: n.TypeExpr | None) -> str:
    if type_ is None:
        return ""
    text = f"list of {_type_text(type_.item)}" if type_.name == "list" else type_.name
    return text + ("?" if type_.optional else "")


def _index(analysis: Analysis, checker: Recorder, decls: Iterable[n.Decl], bases: dict[str, n.Module | None]) -> None:
    indexer = _Indexer(analysis, checker)
    merged = list(decls)
    # Examples last: they read the names their action binds.
    for decl in sorted(merged, key=lambda d: isinstance(d, n.ExampleDecl)):
        indexer.decl(decl)
    # An override of a row keeps its base's kind in the merged list: the kind written here is a use too.
    for decl in analysis.module.decls if analysis.module is not None else ():
        if isinstance(decl, n.RowDecl) and decl.override:
            indexer.at_pos(decl.kind_pos, decl.kind, ("kind", decl.kind))
    # Declarations a variant overrides are no longer in the merged list: their places still count.
    seen = {(o.place.path, o.place.line, o.place.column) for o in indexer.found if o.definition}
    for module in bases.values():
        for decl in module.decls if module is not None else ():
            if isinstance(decl, n.ExampleDecl):
                continue
            where = (decl.pos.path, decl.pos.line, decl.pos.column)
            if where not in seen:
                key = ("kind", decl.name) if isinstance(decl, n.KindDecl) else ("value", decl.name)
                indexer.at_pos(decl.pos, decl.name, key, True)
                if isinstance(decl, n.KindDecl):
                    for f in decl.fields:
                        if (f.pos.path, f.pos.line, f.pos.column) not in seen:
                            indexer.at_pos(f.pos, f.name, ("field", decl.name, f.name), True)
    analysis.occurrences = indexer.found
