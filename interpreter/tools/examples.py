"""Running `example` blocks: rulebook statements proved against the rules.

An example runs its action exactly (or under forced rolls) and checks each
`expect` over the resulting distribution. prob, mean, always, never and
possible read the whole distribution; an expectation without them must hold
in every outcome.
"""

from __future__ import annotations

import textwrap
from fractions import Fraction
from typing import Any

from fracas.dsl import nodes as n
from fracas.dsl.diagnostics import Diagnostic
from fracas.dsl.reads import free_names
from fracas.dsl.statements import children
from fracas.dsl.records import record
from fracas.dsl.ruleset import Ruleset
from fracas.interpreter.tools.aggregates import aggregate_calls, substitute_aggregates
from fracas.interpreter.api import (Prepared, RunError, Scenario, ScenarioError, State, exact, final_value, forced,
                                    kept_once, prepare, program_problems, reads_only_outcomes, run_diagnostic, stable_key)
from fracas.interpreter.tools.failures import explain, shown_value


@record(frozen=True)
class ExampleResult:
    """How one rulebook example fared, shown as one line of `fracas test`."""

    example: n.ExampleDecl
    passed: bool
    message: str = ""

    @property
    def title(self) -> str:
        """The example's name without its ID."""
        example = self.example
        return example.name[len(example.example_id):].strip() if example.example_id else example.name

    @property
    def line(self) -> str:
        ident = self.example.example_id or "-"
        title = self.title
        status = "PASS" if self.passed else "FAIL"
        shown = f"{status} {ident} {title}".rstrip()  # an example named by its ID alone has no title to show
        if "\n" in self.message:  # the parts of failed expectations, each under its own line
            return f"{shown}\n" + textwrap.indent(self.message, "  ")
        return shown + ("" if self.passed else f": {self.message}")

    def as_json(self, path: str) -> dict[str, Any]:
        """The result for a machine: where the example is written, its ID (None without one), and why it failed."""
        pos = self.example.pos
        return {"path": path, "line": pos.line, "column": pos.column, "id": self.example.example_id or None,
                "title": self.title, "passed": self.passed, "message": self.message}


def scenario_of(example: n.ExampleDecl, rules: Ruleset) -> Scenario:
    assert example.run is not None
    action = rules.actions[example.run.func]
    inputs: dict[str, Any] = {p.name: a for p, a in zip(action.params, example.run.args)}
    inputs.update({kw.name: kw.value for kw in example.run.keywords})
    params = {name: value for name, value in example.sets if name in rules.params}
    choices = {name: value for name, value in example.sets if name in rules.choices}
    return Scenario(example.run.func, inputs, params, path=rules.path, choices=choices)


def run_example(rules: Ruleset, example: n.ExampleDecl) -> ExampleResult:
    try:
        scenario = scenario_of(example, rules)
        if example.rolls is not None:
            prepared = prepare(rules, scenario)
            rolls = [prepared.constant(item) for item in example.rolls.items]
            result = forced(rules, scenario, rolls, rolls_at=tuple(item.pos for item in example.rolls.items))
            states: dict[State, Any] = {result.state: Fraction(1)}
        else:
            dist = exact(rules, scenario, outcomes_only=reads_only_outcomes(rules, list(example.expects)))
            prepared, states = dist.prepared, dist.states
        failures = [check_expectation(rules, prepared, states, expect) for expect in example.expects]
    except ScenarioError as error:
        return ExampleResult(example, False, "; ".join(map(_with_hint, error.diagnostics)))
    except RunError as error:
        return ExampleResult(example, False, _with_hint(run_diagnostic(rules, error)))
    failed = [f for f in failures if f]
    return ExampleResult(example, not failed, "\n".join(failed))


def _with_hint(diagnostic: Diagnostic) -> str:
    """A problem as `fracas test` tells it on the example's line: where, what, and the hint, as check gives it."""
    return diagnostic.brief() + (f" (hint: {diagnostic.hint})" if diagnostic.hint else "")


def check_expectation(rules: Ruleset, prepared: Prepared, states: dict[State, Any], expect: n.Expr) -> str:
    """'' when the expectation holds, else why not: the expectation and the value of each of its parts."""
    values: list[tuple[n.Call, Any]] = []
    substituted = substitute_aggregates(expect, prepared, states, values)
    known = {call.pos: value for call, value in values}
    head = f"expect {rules.full_text_of(expect)} (line {expect.pos.line})"
    # What the expectation reads of each final state besides its aggregates (which read them all): where nothing,
    # its value is the same in every state, and one tells it; else it must hold in every state.
    read = sorted({name.name for name in free_names(substituted)} & _per_state_names(rules, prepared))
    if not read:
        first = next(iter(states))
        if final_value(substituted, prepared, first, once=True) is True:
            return ""
        return _block(f"{head} is false:", explain(rules, prepared, first, expect, known)
                      + _counterexamples(rules, prepared, states, values, _not_negated(expect)))
    failing = {state: p for state, p in states.items() if final_value(substituted, prepared, state) is not True}
    if not failing:
        return ""
    tail, lines = _where(rules, prepared, states, failing, read, expect, known)
    return _block(f"{head} is false{tail}", lines)


def _where(rules: Ruleset, prepared: Prepared, states: dict[State, Any], failing: dict[State, Any],
           read: list[str], expect: n.Expr, known: dict[n.Pos, Any] | None = None,
           word: str = "false") -> tuple[str, list[str]]:
    """How likely an expectation read in each final state is `word` there (in the `failing` states, which the `read`
    names tell apart), to follow the words saying so; and the parts of it in the likeliest outcome where it is."""
    likeliest = _likeliest(prepared, failing, read) if read else next(iter(failing))
    lines = explain(rules, prepared, likeliest, expect, known)
    if len(states) == 1:
        return ":", lines
    p = Fraction(sum(failing.values())) / sum(states.values())
    return f" with probability {shown_value(p)}; the likeliest outcome where it is {word}:", lines


def _not_negated(expr: n.Expr, negated: bool = False) -> list[n.Expr]:
    """The parts of an expectation but those under a `not`, which it wants false."""
    if isinstance(expr, n.Unary) and expr.op == "not":
        return _not_negated(expr.operand, not negated)
    return ([] if negated else [expr]) + [part for child in children(expr) for part in _not_negated(child, negated)]


def _counterexamples(rules: Ruleset, prepared: Prepared, states: dict[State, Any],
                     values: list[tuple[n.Call, Any]], parts: list[n.Expr]) -> list[str]:
    """For each `always(c)` found false, or `never(c)`, that is one of the `parts` the expectation wants to hold
    (not one under a `not`), the outcomes where c is false (or true), as an expectation of c alone would
    show them: how likely, and the likeliest. A condition that reads nothing of an outcome has none to show."""
    lines: list[str] = []
    for call, value in values:
        condition = call.args[0] if call.args else call.keywords[0].value if call.keywords else None
        if (call.func not in ("always", "never") or value is not False or condition is None
                or not any(call is part for part in parts) or aggregate_calls(condition)):
            continue
        read = sorted({name.name for name in free_names(condition)} & _per_state_names(rules, prepared))
        word = "false" if call.func == "always" else "true"
        broken = {state: p for state, p in states.items()
                  if (final_value(condition, prepared, state) is True) is (word == "true")}
        if not broken or not read:
            continue
        tail, parts_shown = _where(rules, prepared, states, broken, read, condition, word=word)
        lines.append(f"{rules.full_text_of(condition)} is {word}{tail}")
        lines.extend("  " + line for line in parts_shown)
    return lines


def _per_state_names(rules: Ruleset, prepared: Prepared) -> set[str]:
    """The names an expectation reads of one final state: the outcomes, `stopped`, the action's inputs and locals."""
    action = prepared.action
    return ({*rules.outcomes, "stopped"} | {param.name for param in action.params}
            | set(rules.action_locals.get(action.name, {})))


def _likeliest(prepared: Prepared, failing: dict[State, Any], read: list[str]) -> State:
    """A final state of the likeliest of the combinations of values the expectation reads, where it fails: states
    that differ only in what it does not read (a local, a field) count together, as the outcomes' table shows them.
    The first such state, as the states are ordered."""
    ways: dict[tuple[Any, ...], list[Any]] = {}
    for state, p in failing.items():
        key = tuple(stable_key(final_value(n.Name(n.NOWHERE, name=name), prepared, state, once=True)) for name in read)
        found = ways.setdefault(key, [Fraction(0), state])
        found[0] += p
    return max(ways.values(), key=lambda way: way[0])[1]  # type: ignore[no-any-return]


def _block(head: str, lines: list[str]) -> str:
    return "\n".join([head] + ["  " + line for line in lines])


def input_problems(rules: Ruleset) -> list[Diagnostic]:
    """What no run could start from: rows or parameters that break a constraint, examples' bad inputs.

    Nothing is resolved; `fracas check` reports these with the rules' own errors.
    """
    problems = program_problems(rules)
    if problems:
        return problems
    for example in rules.examples:
        if example.run is None or example.run.func not in rules.actions:
            continue
        try:
            prepare(rules, scenario_of(example, rules))
        except ScenarioError as error:
            problems.extend(error.diagnostics)
    return problems


def check_problems(rules: Ruleset) -> list[Diagnostic]:
    """What `fracas check` reports of rules that check clean: their warnings, then what no run could start from
    (input_problems). The one list the command line and an editor both show."""
    return [*rules.warnings, *input_problems(rules)]


def run_examples(rules: Ruleset) -> list[ExampleResult]:
    with kept_once(rules):  # the code the examples make, kept once: not the whole ruleset again after each
        return [run_example(rules, example) for example in rules.examples]

