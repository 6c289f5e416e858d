"""Constraints at run time: which one a value breaks, what it read, and the state an action leaves.

The checker has made every bound and `require` a Constraint (dsl.ruleset).
Here they are tested: against a value being built (the Program turns a
failure into an InputProblem at the scenario's key), and against every
state an action leaves, where a failure is the rules' own doing: a RunError
at the constraint, with how likely it is in the exact engine.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from dsl import nodes as n
from dsl.ruleset import Constraint
from dsl.check import chain, paths_read
from interpreter.compile import compiler_for
from interpreter.env import Env, field
from interpreter.errors import RunError
from interpreter.state import State
from interpreter.values import Record, Ref, show

if TYPE_CHECKING:
    from interpreter.program import Program


def first_broken(program: Program, constraints: Iterable[Constraint], frame: dict[str, Any],
                 state: State) -> Constraint | None:
    """The first constraint that does not hold where `frame` names the values it reads."""
    compiler = compiler_for(program.rules)
    env = program.env(frame, state)
    for constraint in constraints:
        if compiler.test(constraint.test)(env) is not True:
            return constraint
    return None


Path = tuple[str | int, ...]  # names, fields and list indices: ("attackers", 0, "figures")


def readings(program: Program, constraint: Constraint, frame: dict[str, Any], state: State) -> list[tuple[Path, Any]]:
    """Each path the constraint reads, with its value: (("track", "size"), 5).

    When it requires a condition of every item of a list, the paths are the
    ones the condition reads of the first item that fails it.
    """
    env = program.env(frame, state)
    paths: tuple[Path, ...] = _failing_item(constraint, env) or constraint.reads
    return [(path, _value_at(path, env)) for path in paths]


def _failing_item(constraint: Constraint, env: Env) -> list[Path] | None:
    """For `all([condition for x in list])`: what the condition reads of the first x it fails, as list[i]...."""
    test = constraint.test
    if not (isinstance(test, n.Call) and test.func == "all" and len(test.args) == 1
            and isinstance(test.args[0], n.Comprehension) and test.args[0].condition is None):
        return None
    each = test.args[0]
    source = chain(each.source)
    compiler = compiler_for(env.program.rules)
    items = compiler.expr(each.source)(env)
    if source is None or not isinstance(items, tuple):
        return None
    heads = {path[0] for path in constraint.reads}
    for index, item in enumerate(items):
        if compiler.test(each.item)(env.program.env({**env.frame, each.var: item}, env.state)) is True:
            continue
        read = list(paths_read(each.item))
        found: list[Path] = [source + (index,) + path[1:] for path in read if path[0] == each.var]
        found += [path for path in read if path[0] in heads and path not in found]
        return found
    return None


def _value_at(path: Path, env: Env) -> Any:
    head, *rest = path
    value = env.frame[head] if head in env.frame else env.program.params.get(str(head))
    for step in rest:
        if value is None:
            return None
        if isinstance(step, int):
            value = value[step] if isinstance(value, tuple) and step < len(value) else None
        else:
            value = field(value, step, env, n.NOWHERE)
    return value


def path_text(path: Path) -> str:
    """("attackers", 0, "figures") -> "attackers[0].figures"."""
    text = ""
    for step in path:
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else step)
    return text


def described(found: list[tuple[Path, Any]]) -> str:
    """"filled is 7 and track.size is 5": the values worth showing (not whole things of the scenario)."""
    parts = [f"{path_text(path)} is {show(value)}" for path, value in found if plain(value)]
    return " and ".join(parts) if len(parts) < 3 else ", ".join(parts[:-1]) + " and " + parts[-1]


def plain(value: Any) -> bool:
    """Whether a value says something shown alone: a number, a truth, a text, a row; not an entity or a list of them."""
    if isinstance(value, tuple):
        return all(plain(item) for item in value)
    return not isinstance(value, (Ref, Record))


def breach(constraint: Constraint) -> str:
    """What a value does wrong, in the rules' words: "breaks the constraint 'filled in 0..track.size'"."""
    words = f": {constraint.message}" if constraint.message else ""
    return f"breaks the constraint '{constraint.text}'{words}"


def where_written(constraint: Constraint) -> str:
    return f"{constraint.pos.path}:{constraint.pos.line}"


# ---- after an action ---------------------------------------------------------------------


@dataclass(frozen=True)
class _Breach:
    subject: str  # where the record is: "target", "attackers[0].type", an outcome's name
    kind: str
    constraint: Constraint
    found: tuple[tuple[Path, Any], ...]


def check_after(program: Program, action: n.StepDecl, states: dict[State, Any], exact: bool) -> None:
    """Every state an action leaves must meet the constraints of every record in it; else a RunError.

    The error stands at the constraint that fails, names the record and its
    values in the first state that breaks it, and, from the exact engine,
    how likely the states that break it are.
    """
    if not any(kind.constraints for kind in program.rules.kinds.values()):
        return
    checked: dict[Record, Constraint | None] = {}
    first: _Breach | None = None
    first_state: State | None = None
    weight: Any = 0
    for state, p in states.items():
        found = _breach_in(program, state, checked)
        if found is None:
            continue
        if first is None:
            first, first_state = found, state
        if (found.subject, found.constraint) == (first.subject, first.constraint):
            weight += p
    if first is None or first_state is None:
        return
    subject, shown_value = first.subject, ""
    if first.found:
        path, value = first.found[0]
        subject = f"{first.subject}.{path_text(path)}"
        shown_value = f" is {show(value)}" if plain(value) else ""
    total = sum(states.values())
    if not exact:
        chance = ""
    elif weight == total:
        chance = ", in every outcome"
    else:
        chance = f", with probability {show(Fraction(weight) / Fraction(total))}"
    outcomes = ", ".join(f"{k} = {show(v)}" for k, v in first_state.outcomes.items())
    hint = f"a rule of {action.name} left this {first.kind} so"
    if len(first.found) > 1:
        hint += f" ({described(list(first.found))})"
    if outcomes:
        hint += f"; in the final state where {outcomes}"
    raise RunError(first.constraint.pos, f"after {action.name}, {subject}{shown_value}: it {breach(first.constraint)}{chance}",
                   hint)


def _breach_in(program: Program, state: State, checked: dict[Record, Constraint | None]) -> _Breach | None:
    kinds = program.rules.kinds
    for subject, record in _records(state):
        constraints = kinds[record.shape.kind].constraints
        if not constraints:
            continue
        plain = not _refers(record.values)
        if plain and record in checked:  # reads no entity: the same record meets the same constraints
            broken = checked[record]
        else:
            broken = first_broken(program, constraints, dict(record.items()), state)
            if plain:
                checked[record] = broken
        if broken is not None:
            found = tuple(readings(program, broken, dict(record.items()), state))
            return _Breach(subject, record.shape.kind, broken, found)
    return None


def _records(state: State) -> Iterator[tuple[str, Record]]:
    """Every record a state holds: the scenario's entities, records inside them, and outcomes that are records."""
    for id, record in state.world.items():
        yield from _inside(id, record)
    for name, value in state.outcomes.items():
        yield from _inside(name, value)


def _inside(where: str, value: Any) -> Iterator[tuple[str, Record]]:
    if isinstance(value, Record):
        yield where, value
        for name, item in value.items():
            if isinstance(item, (Record, tuple)):
                yield from _inside(f"{where}.{name}", item)
    elif isinstance(value, tuple):
        for i, item in enumerate(value):
            yield from _inside(f"{where}[{i}]", item)


def _refers(values: Iterable[Any]) -> bool:
    for value in values:
        if isinstance(value, Ref):
            return True
        if isinstance(value, tuple) and _refers(value):
            return True
        if isinstance(value, Record) and _refers(value.values):
            return True
    return False
