"""Values drawn for one statement: `let a = roll(...)`, `let d = roll(...)`, `if a > d { ... }`.

Written inline, every pair of the two rolls is a state of the exact engine
until the test reads them, for every state that comes to them: a duel fought
to the end meets its limits where each exchange is a handful of states. Lets
that only one statement after them reads (an `if`'s test, or a `let` of what
they come to, `let margin = a - d`) are an expression over chance written as
statements: they are lowered with what that statement reads as a step of
their own that gives it (a `Region`'s `decl`), run as valued.py runs a step
that changes nothing, so the exact engine works its distribution out once for
each distinct start and branches each state once for each value. The sampler
runs the same lines on its one state, in the same order, and logs them as
the inline code does.

What the region reads of the caller becomes the step's arguments: its locals
by name, and each field or outcome read where it is always read (not inside
an `and`, `or` or `if ... else`), as a value read before the lets. A start is
then the values the test depends on, not the caller's world: the states of a
duel at every health meet the same few starts. Only reads move: they cannot
fail (the checker sees to a field of what may be none), where a sum or a call
might, and an error would then be told before a die the lines as written
roll first.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterable

from fracas.dsl import nodes as n
from fracas.dsl import records
from fracas.dsl.reads import free_names, path_of
from fracas.dsl.records import record
from fracas.dsl.statements import map_children
from fracas.dsl.walk import descendants

PREFIX = "__tested"  # the name of a region's step: no rules' name starts so
GIVEN = "__given"  # the name of a value the caller works out for it


@record(frozen=True)
class Region:
    """Lets that only one statement after them reads (an `if`'s test, or another `let`'s value), and the step
    that gives what that statement reads from them."""

    lets: tuple[n.Let, ...]
    taker: n.If | n.Let  # the statement that reads them
    links: int  # of an `if`, the tests that read them: it and the `else if`s after it (1: its own alone)
    reads: n.Expr  # what the step gives: a `let`'s value, an `if`'s test, or which of `links` tests holds
    decl: n.StepDecl  # its parameters are the values `args` give, in order
    args: tuple[n.Expr, ...]  # written in the caller, read in its scope


def is_region(decl: n.StepDecl) -> bool:
    return decl.name.startswith(PREFIX)


def chain(stmt: n.If) -> list[n.If]:
    """An `if` and the `else if`s after it."""
    links = [stmt]
    while len(links[-1].otherwise) == 1 and isinstance(links[-1].otherwise[0], n.If):
        links.append(links[-1].otherwise[0])  # type: ignore[arg-type]
    return links


def which(links: list[n.If]) -> n.Expr:
    """The number of the first of these tests that holds (as many as there are, where none does): worked out as
    the `if`s work them out, each only where those before it fail."""
    found: n.Expr = n.Number(links[-1].test.pos, value=len(links))
    for at in range(len(links) - 1, -1, -1):
        test = links[at].test
        found = n.Conditional(test.pos, test=test, then=n.Number(test.pos, value=at), otherwise=found)
    return found


def taken_as(taker: n.If, links: int, drawn: n.Name) -> n.If:
    """The `if` (with its first `links` tests) on the value a region drew: which test holds, or its own test."""
    if links == 1:
        return records.replace(taker, test=drawn)
    tests = chain(taker)[:links]

    def link(at: int) -> n.If:
        own = tests[at]
        test = n.Binary(own.test.pos, op="==", left=drawn, right=n.Number(own.test.pos, value=at))
        return records.replace(own, test=test, otherwise=own.otherwise if at == links - 1 else (link(at + 1),))

    return link(0)


def region_at(stmts: tuple[n.Stmt, ...], at: int, scope: Iterable[str], outcomes: Iterable[str],
              steps: Callable[[str], bool], may_draw: Callable[[n.Node], bool],
              pools: Callable[[n.Node], bool]) -> Region | None:
    """The region that starts at statement `at`, if there is one: the lets from there to an `if` or a `let`
    that reads them, where nothing after it reads them and at least two of them (or what reads them) meet
    chance. The first such statement ends it: `let a = roll(...)`, `let d = roll(...)`, `let margin = a - d`
    is a region that gives the margin, whatever reads the margin after.

    `scope`: the caller's local names there; `outcomes`: the rules' outcomes; `steps(name)`: whether a call
    of that name runs a step or an action (which may change anything: no region holds one); `pools(node)`: whether a node draws a pool that is drawn as its counts where it stands (counted.py), which
    a region would draw whole.
    """
    end = at
    while end < len(stmts) and isinstance(stmts[end], n.Let):
        end += 1
    last = end if end < len(stmts) and isinstance(stmts[end], n.If) else end - 1
    for taker in range(at + 1, last + 1):
        found = _region(stmts, at, taker, scope, outcomes, steps, may_draw, pools)
        if found is not None:
            return found
    return None


def _region(stmts: tuple[n.Stmt, ...], at: int, at_taker: int, scope: Iterable[str], outcomes: Iterable[str],
            steps: Callable[[str], bool], may_draw: Callable[[n.Node], bool],
            pools: Callable[[n.Node], bool]) -> Region | None:
    lets: tuple[n.Let, ...] = stmts[at:at_taker]  # type: ignore[assignment]
    taker: n.If | n.Let = stmts[at_taker]  # type: ignore[assignment]
    names = {let.name for let in lets}
    after = stmts[at_taker + 1:]
    links = 0
    if isinstance(taker, n.If):
        # The tests of an `if ... else if ...` that read the lets are one value, which of them holds: only the
        # first may meet chance itself (a later one would draw only where those before it fail).
        tests = chain(taker)
        links = 1 + max((at for at, link in enumerate(tests) if names & _read_by(link.test)), default=0)
        if any(map(may_draw, (link.test for link in tests[1:links]))):
            return None
        after = (*(stmt for link in tests[:links] for stmt in link.then), *tests[links - 1].otherwise, *after)
        reads = taker.test if links == 1 else which(tests[:links])
    else:
        reads = taker.value
    if not names & _read_by(reads):
        return None
    if sum(map(may_draw, (*(let.value for let in lets), reads))) < 2:
        return None
    nodes = [node for part in (*(let.value for let in lets), reads) for node in descendants(part)]
    if any((isinstance(node, n.Call) and steps(node.func)) or pools(node) for node in nodes):
        return None
    if _read_after(names, after):
        return None
    return _made(lets, taker, links, reads, set(scope), set(outcomes))


def _read_by(expr: n.Expr) -> set[str]:
    return {name.name for name in free_names(expr)}


def _read_after(names: set[str], stmts: Iterable[n.Stmt]) -> bool:
    """Whether a statement reads or changes one of `names` before a `let` of its own names it again."""
    live = set(names)
    for stmt in stmts:
        if not live:
            return False
        if live & _mentioned(stmt.value if isinstance(stmt, n.Let) else stmt):
            return True
        if isinstance(stmt, n.Let):
            live.discard(stmt.name)
    return False


def _mentioned(node: n.Node) -> set[str]:
    """Every name a node reads, sets or binds (what binds a name of the region's hides it: counted too)."""
    found: set[str] = set()
    for inner in descendants(node):
        if isinstance(inner, n.Name):
            found.add(inner.name)
        elif isinstance(inner, n.Assign):
            found.add(inner.target[0])
        elif isinstance(inner, (n.Let, n.For, n.Comprehension)):
            found.add(inner.name if isinstance(inner, n.Let) else inner.var)
    return found


_LAZY_OPS = {"and", "or"}  # a Binary that works its right side out only where its left allows


def _made(lets: tuple[n.Let, ...], taker: n.If | n.Let, links: int, reads: n.Expr, scope: set[str],
          outcomes: set[str]) -> Region:
    given: dict[n.Expr, str] = {}  # an expression the caller works out -> its parameter (equal ones: one)

    def lifted(expr: n.Expr, bound: frozenset[str], always: bool = True) -> n.Expr:
        """The expression with what the caller may read before the lets made parameters. `always`: it is
        worked out whenever the region is (not a part that `and`, `or` or `if ... else` may skip, which only
        takes a value the caller reads anyway: read first, it might be a field of what the rules guard)."""
        if _read_of_caller(expr, bound, scope, outcomes) and (always or expr in given):
            name = given.setdefault(expr, f"{GIVEN}{len(given)}")
            return n.Name(expr.pos, name=name)
        if isinstance(expr, n.Comprehension):  # binds a name of its own
            return expr
        if isinstance(expr, n.Conditional):
            return records.replace(expr, test=lifted(expr.test, bound, always),
                                   then=lifted(expr.then, bound, False), otherwise=lifted(expr.otherwise, bound, False))
        if isinstance(expr, n.Binary) and expr.op in _LAZY_OPS:
            return records.replace(expr, left=lifted(expr.left, bound, always), right=lifted(expr.right, bound, False))
        return map_children(expr, lambda child: lifted(child, bound, always))  # type: ignore[no-any-return]

    body: list[n.Stmt] = []
    bound: frozenset[str] = frozenset()
    for let in lets:
        body.append(records.replace(let, value=lifted(let.value, bound)))
        bound |= {let.name}
    body.append(n.Return(reads.pos, value=lifted(reads, bound)))
    # The caller's locals that a part not worked out before reads: given by name.
    seen: set[str] = set()  # the region's own names, as its lets name them: a caller's local before that is passed
    passed: list[str] = []
    for stmt in body:
        value = stmt.value  # type: ignore[attr-defined]
        for name in free_names(value):
            if name.name in scope and name.name not in seen and not name.name.startswith(GIVEN):
                passed.append(name.name)
                seen.add(name.name)
        if isinstance(stmt, n.Let):
            seen.add(stmt.name)
    pos, first = taker.pos, lets[0].pos
    args = (*given, *(n.Name(pos, name=name) for name in passed))
    params = tuple(n.Param(pos, name=name) for name in (*given.values(), *passed))
    place = f"{zlib.crc32(pos.path.encode()):08x}_{first.line}_{first.column}_{pos.line}_{pos.column}"
    # What it gives is what the statement reads, of whatever type (not a pool drawn as its counts: see region_at).
    decl = n.StepDecl(pos, name=f"{PREFIX}_{place}", params=params, body=tuple(body),
                      result=n.TypeExpr(pos, name="any" if links != 1 else "bool"))
    return Region(lets, taker, links, reads, decl, args)


def _read_of_caller(expr: n.Expr, bound: frozenset[str], scope: set[str], outcomes: set[str]) -> bool:
    """Whether an expression is a read of the caller's: a local, an outcome, or a field of either (or of a row)."""
    path = path_of(expr)
    if path is None or path[0] in bound:
        return False
    return len(path) > 1 or path[0] in scope or path[0] in outcomes
