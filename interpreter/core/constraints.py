"""Constraints at run time: which one a value breaks, what it read, and the state an action leaves.

The checker has made every bound and `require` a Constraint (fracas.dsl.ruleset).
Here they are tested: against a value being built (fracas.interpreter.inputs
turns a failure into an InputProblem at the scenario's key), and against every
state an action leaves, where a failure is the rules' own doing: a RunError
at the constraint, with how likely it is in the exact engine.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from fracas.dsl import nodes as n
from fracas.dsl.reads import path_of, paths_read
from fracas.dsl.records import record
from fracas.dsl.ruleset import Constraint, Ruleset
from fracas.interpreter.core.constraint_reads import own_reads, reads_of
from fracas.interpreter.core.dist import as_fraction
from fracas.interpreter.core.resolve import evaluate
from fracas.interpreter.core.errors import RunError
from fracas.interpreter.core.program import Program
from fracas.interpreter.core.state import Frozen, State
from fracas.interpreter.core.values import Record, Ref, RowRef, show, show_brief
from fracas.interpreter.runtime.keys import stable_key

# A final state as the check reads it: its world, its outcomes, why it stopped, and its probability.
Final = tuple[Frozen, Frozen, str | None, Any]
_NO_NAMES = Frozen()  # a state checked shows no names: constraints read records and outcomes


def first_broken(program: Program, constraints: Iterable[Constraint], frame: dict[str, Any],
                 state: State) -> Constraint | None:
    """The first constraint that does not hold where `frame` names the values it reads."""
    for constraint in constraints:
        if _value(program, constraint.test, frame, state) is not True:
            return constraint
    return None


def _value(program: Program, expr: n.Expr, frame: dict[str, Any], state: State) -> Any:
    return evaluate(program, expr, frame, state.world, state.outcomes, chance="a constraint cannot depend on chance")


def constrained_fields(rules: Ruleset) -> frozenset[str]:
    """What the states an action leaves must keep for their constraints to be checked: the names of every field
    a kind's constraint reads (in its test, through a comprehension's items, in the functions and modifiers it
    calls), and of every field whose value may hold a record with constraints (the check looks inside it: a
    record a rule wrote there must meet its own, whatever reads the field later)."""
    return reads_of(rules).constrained


Path = tuple[str | int, ...]  # names, fields and list indices: ("attackers", 0, "figures")


def readings(program: Program, constraint: Constraint, frame: dict[str, Any], state: State) -> list[tuple[Path, Any]]:
    """Each path the constraint reads, with its value: (("track", "size"), 5).

    When it requires a condition of every item of a list, the paths are the
    ones the condition reads of the first item that fails it.
    """
    paths = _failing_item(program, constraint, frame, state) or _failing_part(program, constraint, frame, state)
    return [(path, _value_at(program, path, frame, state)) for path in paths or constraint.reads]


def _failing_part(program: Program, constraint: Constraint, frame: dict[str, Any], state: State) -> list[Path] | None:
    """For `a and b and c`: what the first part that fails reads, then the rest the constraint reads, so that the
    input blamed is one of that part's, not the first that another part reads."""
    parts, stack = [], [constraint.test]
    while stack:
        expr = stack.pop()
        if isinstance(expr, n.Binary) and expr.op == "and":
            stack += [expr.right, expr.left]
        else:
            parts.append(expr)
    if len(parts) < 2:
        return None
    for part in parts:
        try:
            holds = _value(program, part, frame, state) is True
        except RunError:  # a part that an earlier one guards, or that cannot be read: blame as a whole
            return None
        if not holds:
            failing = list(dict.fromkeys(path for path in paths_read(part) if path in constraint.reads))
            return failing + [path for path in constraint.reads if path not in failing] if failing else None
    return None


def _failing_item(program: Program, constraint: Constraint, frame: dict[str, Any], state: State) -> list[Path] | None:
    """For `all([condition for x in list])`: what the condition reads of the first x it fails, as list[i]...."""
    test = constraint.test
    if not (isinstance(test, n.Call) and test.func == "all" and len(test.args) == 1
            and isinstance(test.args[0], n.Comprehension) and test.args[0].condition is None):
        return None
    each = test.args[0]
    source = path_of(each.source)
    items = _value(program, each.source, frame, state)
    if source is None or not isinstance(items, tuple):
        return None
    heads = {path[0] for path in constraint.reads}
    for index, item in enumerate(items):
        if _value(program, each.item, {**frame, each.var: item}, state) is True:
            continue
        read = list(paths_read(each.item))
        found: list[Path] = [source + (index,) + path[1:] for path in read if path[0] == each.var]
        found += [path for path in read if path[0] in heads and path not in found]
        return found
    return None


def _value_at(program: Program, path: Path, frame: dict[str, Any], state: State) -> Any:
    head, *rest = path
    value = frame[head] if head in frame else program.params.get(str(head))
    for step in rest:
        if value is None:
            return None
        if isinstance(step, int):
            value = value[step] if isinstance(value, tuple) and step < len(value) else None
        else:
            value = _field(program, value, step, state)
    return value


def _field(program: Program, value: Any, name: str, state: State) -> Any:
    record = state.world[value.id] if isinstance(value, Ref) else (
        program.rows[value.name] if isinstance(value, RowRef) else value)
    if not isinstance(record, Record) or not record.has(name):
        raise RunError(None, f"{show_brief(value)} has no field '{name}'")
    return record.get(name)


def path_text(path: Path) -> str:
    """("attackers", 0, "figures") -> "attackers[0].figures"."""
    text = ""
    for step in path:
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else step)
    return text


def described(found: list[tuple[Path, Any]], world: Mapping[str, Record] | None = None) -> str:
    """"filled is 7 and track.size is 5": the values worth showing. A thing of the scenario read whole (through a
    fn, say) is shown by its fields that say something alone, where the world that holds it is given."""
    parts = []
    for path, value in found:
        if plain(value):
            parts.append(f"{path_text(path)} is {show_brief(value)}")
        elif type(value) is Ref and world is not None and value.id in world:
            parts += [f"{path_text((*path, name))} is {show_brief(field)}"
                      for name, field in world[value.id].items() if plain(field)]
    return " and ".join(parts) if len(parts) < 3 else ", ".join(parts[:-1]) + " and " + parts[-1]


def plain(value: Any) -> bool:
    """Whether a value says something shown alone: a number, a truth, a text, a row; not an entity or a list of them."""
    if isinstance(value, tuple):
        return all(plain(item) for item in value)
    return not isinstance(value, (Ref, Record))


def breach(constraint: Constraint, verb: str = "breaks") -> str:
    """What a value does wrong, in the rules' words: "breaks the constraint 'filled in 0..track.size'"."""
    words = f": {constraint.message}" if constraint.message else ""
    return f"{verb} the constraint '{constraint.text}'{words}"


def where_written(constraint: Constraint) -> str:
    return f"{constraint.pos.path}:{constraint.pos.line}"


# ---- after an action ---------------------------------------------------------------------


@record(frozen=True)
class _Breach:
    """A constraint a record of a final state fails, with the values it read there: what the error says."""

    subject: str  # where the record is: "target", "attackers[0].type", an outcome's name
    kind: str
    constraint: Constraint
    found: tuple[tuple[Path, Any], ...]


def check_after(program: Program, action: n.StepDecl, finals: Sequence[Final], exact: bool,
                start: State | None = None) -> None:
    """Every state an action leaves must meet the constraints of every record in it; else a RunError.

    `finals`: each final state's world, outcomes and why it stopped, with its probability (all that the
    check reads: a State is made only for one that the quick test does not clear). The error stands at
    the constraint that fails, names the record and its
    values in a state that breaks it, and, from the exact engine, how likely
    the states that break it are. Where records break constraints in several
    ways (a record, a constraint), it is the likeliest way, shown in its
    likeliest state: what the engine's order of states, which its shortcuts
    change, cannot change. `start`: the state the action began in, whose
    records (met when the scenario was built) the states may still hold.
    """
    clear = clear_test(program)
    if clear is None:
        return
    # (subject, constraint) -> what the error would show (the outcomes, why the run stopped, the values the
    # constraint read) -> how likely, with a state that shows it and its breach
    ways: dict[tuple[str, int], dict[tuple[Any, ...], list[Any]]] = {}
    known: dict[int, bool] = {} if start is None else dict(_met_at_start(program, start, program.clear_test[1]))
    cleared: set[int] = set()  # worlds found clear, by identity: many final states may share one (lanes.py)
    for world, outcomes, stopped, p in finals:
        if id(world) in cleared:
            continue
        if clear(world, outcomes, known):  # what a world meets does not depend on its outcomes, where it is clear
            cleared.add(id(world))
            continue
        state = State((_NO_NAMES,), world, outcomes, stopped)
        if _breach_in(program, state) is None:
            continue
        # A state counts toward every way it breaks, not its first alone: the probability said is that of
        # the states that break the constraint shown, whatever else they break.
        for found in _every_breach(program, state):
            shown = ways.setdefault((found.subject, id(found.constraint)), {})
            seen = (state.outcomes, state.stopped, found.found)
            before = shown.get(seen)
            if before is None:
                shown[seen] = [as_fraction(p), state, found]
            else:
                before[0] += as_fraction(p)
    if not ways:
        return
    # The likeliest way; of ways as likely, the constraint written first, then the subject first in order. Each
    # shown as it is likeliest seen, ties broken by value: what the error says depends on the probabilities of
    # what it shows alone, not on the order of the states, nor on what else they hold (locals, dead fields).
    weight, way = min(((sum(entry[0] for entry in shown.values()), shown) for shown in ways.values()),
                      key=lambda found: (-found[0], _where(found[1])))
    _, first_state, first = min(way.values(), key=lambda entry: (-entry[0], _order(entry[1], entry[2])))
    subject, shown_value = first.subject, ""
    if first.found:
        path, value = first.found[0]
        subject = f"{first.subject}.{path_text(path)}"
        shown_value = f" is {show_brief(value)}" if plain(value) else ""
    total = as_fraction(sum(final[3] for final in finals))
    if not exact:
        chance = ""
    elif weight == total:
        chance = ", in every outcome"
    else:
        chance = f", with probability {show(weight / total)}"
    outcomes = ", ".join(f"{k} = {show_brief(v)}" for k, v in first_state.outcomes.items())
    hint = f"a rule of {action.name} left this {first.kind} so"
    shown = described(list(first.found)) if len(first.found) > 1 else ""
    if shown:  # nothing where it reads only whole things
        hint += f" ({shown})"
    if outcomes:
        hint += f"; in the final state where {outcomes}"
    raise RunError(first.constraint.pos, f"after {action.name}, {subject}{shown_value}: it {breach(first.constraint)}{chance}",
                   hint)


def _where(shown: dict[tuple[Any, ...], list[Any]]) -> tuple[int, int, str]:
    breach = next(iter(shown.values()))[2]
    return breach.constraint.pos.line, breach.constraint.pos.column, breach.subject


def _order(state: State, breach: _Breach) -> tuple[Any, ...]:
    """Where what an error would show of a final state stands among others, by value: what ties of likelihood
    are broken by."""
    return (stable_key(tuple(sorted(state.outcomes.items()))), stable_key(state.stopped),
            stable_key(tuple((tuple(path), value) for path, value in breach.found)))


def _met_at_start(program: Program, start: State, alone: Callable[[Record], bool]) -> dict[int, bool]:
    """The records of a start state as the quick test knows them, by identity: met when the scenario was built
    (kept with the start, which keeps them alive), those whose constraints hold by their own values `alone`:
    one whose constraint reads another thing (through a field, a list of things, a function) may break it
    unchanged, when that thing changes."""
    met = program.constraints_met
    found = met.get(("start", start))
    if found is None:
        if len(met) >= _MEMO:
            met.clear()
        found = met[("start", start)] = {id(record): True for record in start.world.values() if alone(record)}
    return found  # type: ignore[no-any-return]


def clear_test(program: Program) -> Callable[[Frozen, Frozen, dict[int, bool]], bool] | None:
    """A quick test that a final state's world (with its outcomes) breaks no constraint (False: perhaps it
    does, look closer), told in `known` what it found of records by identity; None: the rules have no
    constraints.

    Most records are entities whose changing constraints read only their own plain fields, rows
    through their fields, and parameters, with nothing constrained inside them: such a record meets
    its constraints by those fields' values alone, remembered once checked. A final state of the exact
    engine is then a few lookups, where finding the first record that breaks a constraint would cost
    a walk of the state.
    """
    rules = program.rules
    found = program.clear_test
    if found is not None:
        return found[0]  # type: ignore[no-any-return]
    if not any(kind.constraints for kind in rules.kinds.values()):
        program.clear_test = (None,)
        return None
    found_reads = reads_of(rules)
    layout, changing = found_reads.layout, found_reads.changing
    plans: dict[str, tuple[Callable[[tuple[Any, ...]], Any] | None, tuple[Constraint, ...], tuple[int, ...],
                           tuple[int, ...]]] = {}
    for name in rules.kinds:
        places: set[int] = set()
        through: set[int] = set()
        for constraint in changing[name]:
            reads = own_reads(rules, constraint, name)
            if reads is None:
                break
            places.update(reads[0])
            through.update(reads[1])
        else:
            read = None if not places | through else _values_at(tuple(sorted(places | through)))
            plans[name] = (read, changing[name], tuple(sorted(through)), found_reads.structured[name])
    outcomes_structured = found_reads.outcomes_structured
    met = program.constraints_met

    def constrained_inside(value: Any, known: dict[int, bool]) -> bool:
        """Whether a value holds a record with constraints, at any depth."""
        kind = type(value)
        if kind is not Record and kind is not tuple:
            return False
        free = known.get(id(value))
        if free is None:
            if kind is Record:
                free = not rules.kinds[value.shape.kind].constraints and not any(
                    constrained_inside(value.values[i], known) for i in layout[value.shape.kind])
            else:
                free = not any(constrained_inside(item, known) for item in value)
            known[id(value)] = free
        return not free

    def record_clear(record: Record, known: dict[int, bool], world: Frozen, outcomes: Frozen) -> bool:
        plan = plans.get(record.shape.kind)
        if plan is None:
            return False
        read, constraints, rows, structured = plan
        values = record.values
        for i in rows:  # read through: a row is a constant, an entity may change
            if type(values[i]) is not RowRef and values[i] is not None:
                return False
        if constraints:
            key = ("clear", record.shape.kind, None if read is None else read(values))
            holds = met.get(key)
            if holds is None:
                if len(met) >= _MEMO:
                    met.clear()
                holds = met[key] = _first_broken_in(program, constraints, record,
                                                    State((_NO_NAMES,), world, outcomes)) is None
            if not holds:
                return False
        for i in structured:
            value = values[i]
            kind = type(value)
            if (kind is Record or kind is tuple) and constrained_inside(value, known):
                return False
        return True

    def clear(world: Frozen, outcomes: Frozen, known: dict[int, bool]) -> bool:
        """`known`: what this check has found of records and values by identity (the states of one check
        share their unchanged ones, and keep them alive)."""
        if outcomes_structured:
            return False
        for entity_record in world.values():
            found = known.get(id(entity_record))
            if found is None:
                found = known[id(entity_record)] = record_clear(entity_record, known, world, outcomes)
            if not found:
                return False
        return True

    def alone(record: Record) -> bool:
        """Whether a record's constraints hold or not by its own values alone (those of rows are constants)."""
        plan = plans.get(record.shape.kind)
        return plan is not None and all(type(record.values[i]) is RowRef or record.values[i] is None
                                         for i in plan[2])

    readers: dict[tuple[str, str], tuple[Constraint, ...] | None] = {}

    def field_readers(kind: str, name: str) -> tuple[Constraint, ...] | None:
        """The constraints of a kind that read a field, where each reads nothing else of the record (but
        parameters); None where one reads more, or the field is read through or may hold a record."""
        key = (kind, name)
        if key in readers:
            return readers[key]
        found: tuple[Constraint, ...] | None = None
        plan = plans.get(kind)
        place = next((i for i, f in enumerate(rules.kinds[kind].fields) if f.name == name), None)
        if plan is not None and place is not None and place not in plan[2] and place not in plan[3]:
            reading = []
            for constraint in plan[1]:
                plain, through = own_reads(rules, constraint, kind)
                if place in plain or place in through:
                    if plain != (place,) or through:
                        break
                    reading.append(constraint)
            else:
                found = tuple(reading)
        readers[key] = found
        return found

    def field_clear(record: Record, name: str, value: Any, world: Frozen, outcomes: Frozen) -> bool | None:
        """Whether a record that meets its constraints still does with one field changed, told by the field's
        new value alone: where the constraints that read the field read nothing else of the record, the others
        hold as they did. None where one reads more (the whole record must be looked at)."""
        reading = field_readers(record.shape.kind, name)
        if not reading:
            return None if reading is None else True
        key = ("field clear", record.shape.kind, name, value)
        holds = met.get(key)
        if holds is None:
            try:
                holds = _first_broken_in(program, reading, record.replace(name, value),
                                         State((_NO_NAMES,), world, outcomes)) is None
            except RunError:
                # A constraint that cannot be evaluated here (a division by zero) may never be, where one
                # before it in the record's order is broken: the final states' check, record by record, says.
                holds = False
            if len(met) >= _MEMO:
                met.clear()
            met[key] = holds
        return holds  # type: ignore[no-any-return]

    program.clear_test = (clear, alone, field_clear)
    return clear


def _values_at(places: tuple[int, ...]) -> Callable[[tuple[Any, ...]], Any]:
    return operator.itemgetter(*places)


def _breach_in(program: Program, state: State) -> _Breach | None:
    """The first record of a state that breaks a constraint; the samples of a run mostly end in states seen before."""
    met = program.constraints_met
    outcomes = state.outcomes
    seen = ("state", state.world, tuple(outcomes.get(name) for name in _layout(program.rules)[""]))
    if seen not in met:
        if len(met) >= _MEMO:
            met.clear()
        met[seen] = _first_breach(program, state)
    return met[seen]


def _first_breach(program: Program, state: State) -> _Breach | None:
    layout = _layout(program.rules)
    met = program.constraints_met
    keys = _Keys(state.world, layout, program.rules.runtime_cache.setdefault("records without entities", set()))
    for id, entity_record in state.world.items():
        # What an entity breaks depends on its record and those of the entities it refers to (its key)
        # alone: the exact engine's final states share a few such keys between many worlds.
        key = keys.of(entity_record)
        alone = ("entity", id, key)
        if key is not None and alone in met:
            found = met[alone]
        else:
            found = _breach_among(program, state, _entity_records(id, entity_record, layout), keys)
            if key is not None:
                if len(met) >= _MEMO:
                    met.clear()
                met[alone] = found
        if found is not None:
            return found
    return _breach_among(program, state, _outcome_records(state, layout), keys)


def _breach_among(program: Program, state: State, records: Iterator[tuple[str, Record, bool]],
                  keys: _Keys) -> _Breach | None:
    """The first of these records of a state that breaks a constraint."""
    met = program.constraints_met
    for subject, checked, entity in records:
        constraints = _to_check(program.rules, checked, entity)
        if not constraints:
            continue
        key = keys.of(checked)
        if key is not None and key in met:
            broken = met[key]
        else:
            broken = _first_broken_in(program, constraints, checked, state)
            if key is not None:
                if len(met) >= _MEMO:
                    met.clear()
                met[key] = broken
        if broken is not None:
            found = tuple(readings(program, broken, dict(checked.items()), state))
            return _Breach(subject, checked.shape.kind, broken, found)
    return None


def _every_breach(program: Program, state: State) -> list[_Breach]:
    """Every constraint every record of a state breaks (a state found to break one: no memo needed). One that
    cannot be evaluated there counts as no way of breaking: the first breach was met without it, as it is
    without this count (the check of a record stops at its first broken constraint)."""
    layout = _layout(program.rules)
    records = [*(found for id, record in state.world.items() for found in _entity_records(id, record, layout)),
               *_outcome_records(state, layout)]
    breaches = []
    for subject, checked, entity in records:
        frame = dict(checked.items())
        for constraint in _to_check(program.rules, checked, entity):
            try:
                if _value(program, constraint.test, frame, state) is True:
                    continue
                found = tuple(readings(program, constraint, frame, state))
            except RunError:
                continue
            breaches.append(_Breach(subject, checked.shape.kind, constraint, found))
    return breaches


def _to_check(rules: Ruleset, record: Record, entity: bool) -> tuple[Constraint, ...]:
    """The constraints a record of a final state is checked against. A thing of the scenario (an entity) met
    every constraint when it was built; only those a statement could break need checking again. A record a
    rule wrote anew meets none yet."""
    return _changing(rules)[record.shape.kind] if entity else rules.kinds[record.shape.kind].constraints


_MEMO = 100_000  # states and records remembered as checked, per program


def _first_broken_in(program: Program, constraints: Iterable[Constraint], record: Record,
                     state: State) -> Constraint | None:
    """first_broken for a record's fields. A constraint that reads only fields of the record (and
    parameters) holds or not by those fields' values alone: each set of them is tested once."""
    met = program.constraints_met
    frame: dict[str, Any] | None = None
    values = record.values
    for constraint, own in _own_readers(program.rules, constraints, record.shape):
        if own is None:
            if frame is None:
                frame = dict(record.items())
            holds = _value(program, constraint.test, frame, state) is True
        else:
            key = ("constraint", id(constraint), own(values))
            holds = met.get(key)
            if holds is None:
                if frame is None:
                    frame = dict(record.items())
                holds = _value(program, constraint.test, frame, state) is True
                if len(met) >= _MEMO:
                    met.clear()
                met[key] = holds
        if not holds:
            return constraint
    return None


def _reads_nothing(values: tuple[Any, ...]) -> tuple[()]:
    return ()


def _own_readers(rules: Ruleset, constraints: Iterable[Constraint],
                 shape: Any) -> list[tuple[Constraint, Callable[[tuple[Any, ...]], Any] | None]]:
    """Each constraint with a getter of the values of the fields of `shape` it reads (None: see _own_fields),
    worked out once for each group of constraints and kind: a final state's records meet them by the hundred."""
    cache = rules.runtime_cache.setdefault("constraint readers", {})
    key = (id(constraints), shape.kind)
    found = cache.get(key)
    if found is None or found[0] is not constraints:
        readers = []
        for constraint in constraints:
            fields = _own_fields(rules, constraint, shape)
            # A key of the values read (one value alone, for one field; none for none): one constraint's keys alike.
            readers.append((constraint, None if fields is None else operator.itemgetter(*fields) if fields
                            else _reads_nothing))
        found = cache[key] = (constraints, readers)  # the group kept alive: its identity is in the key
    return found[1]


def _own_fields(rules: Ruleset, constraint: Constraint, shape: Any) -> tuple[int, ...] | None:
    """The places of the fields of `shape` a constraint reads, if it reads nothing else but parameters:
    plain fields only, none read through (see constraint_reads.Reads.own)."""
    reads = own_reads(rules, constraint, shape.kind)
    return None if reads is None or reads[1] else reads[0]


def _layout(rules: Ruleset) -> dict[str, tuple[Any, ...]]:
    """By kind (and "" for the outcomes), the places of the fields whose type may hold a record, an
    entity or a list: the only ones worth looking into for records inside records."""
    return reads_of(rules).layout


class _Keys:
    """What a constraint can read of a record: its values and the entities they refer to, at any depth
    (rows and parameters do not change). Records with equal keys meet the same constraints."""

    def __init__(self, world: Any, layout: dict[str, tuple[int, ...]], refless: set[Record]):
        self.world = world
        self.layout = layout
        self.done: dict[str, Any] = {}  # entity id -> its key
        self.open: set[str] = set()
        # Records found to refer to no entity at any depth, in earlier states too: their key is themselves.
        self.refless = refless

    def of(self, record: Record) -> Any:
        if record in self.refless:
            return record
        refs: list[Any] = []
        if not self._refs(record, refs):
            return None
        if refs:
            return (record, tuple(refs))
        if len(self.refless) >= _MEMO:
            self.refless.clear()
        self.refless.add(record)
        return record

    def _refs(self, record: Record, found: list[Any]) -> bool:
        """The keys of the entities a record refers to, into `found`; False if entities refer to each other."""
        values = record.values
        return all(self._refs_in(values[i], found) for i in self.layout[record.shape.kind])

    def _refs_in(self, value: Any, found: list[Any]) -> bool:
        kind = type(value)
        if kind is Ref:
            key = self._entity(value.id)
            found.append(key)
            return key is not None
        if kind is tuple:
            return all(self._refs_in(item, found) for item in value)
        if kind is Record:
            return self._refs(value, found)
        return True

    def _entity(self, id: str) -> Any:
        if id in self.done:
            return self.done[id]
        if id in self.open:  # a cycle: no key, checked every time
            return None
        self.open.add(id)
        key = self.of(self.world[id])
        self.open.discard(id)
        self.done[id] = key
        return key


def _entity_records(id: str, record: Record, layout: dict[str, tuple[int, ...]]) -> Iterator[tuple[str, Record, bool]]:
    """An entity's record (a thing of the scenario) and the records a rule wrote into it."""
    yield id, record, True
    for i in layout[record.shape.kind]:
        yield from _inside(f"{id}.{record.shape.names[i]}", record.values[i], layout)


def _outcome_records(state: State, layout: dict[str, tuple[int, ...]]) -> Iterator[tuple[str, Record, bool]]:
    """The records among the outcomes of a state."""
    for name in layout[""]:
        yield from _inside(name, state.outcomes.get(name), layout)


def _inside(where: str, value: Any, layout: dict[str, tuple[int, ...]]) -> Iterator[tuple[str, Record, bool]]:
    kind = type(value)
    if kind is Record:
        yield where, value, False
        for i in layout[value.shape.kind]:
            yield from _inside(f"{where}.{value.shape.names[i]}", value.values[i], layout)
    elif kind is tuple:
        for index, item in enumerate(value):
            if type(item) in (Record, tuple):
                yield from _inside(f"{where}[{index}]", item, layout)


def records_in(where: str, value: Any, rules: Ruleset) -> Iterator[tuple[str, Record, bool]]:
    """The records inside a value (itself included), each with its path from `where`."""
    return _inside(where, value, _layout(rules))


def _changing(rules: Ruleset) -> dict[str, tuple[Constraint, ...]]:
    """By kind, the constraints a statement could break: those that read a field some statement assigns,
    or call a function or modifier (which may read anything)."""
    return reads_of(rules).changing
