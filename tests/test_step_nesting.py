"""A run's log says where each step ends, so that `explain` and `run` show a caller's events back under the caller."""

from __future__ import annotations

import json
import sys

from fracas import dsl
from fracas.interpreter import Scenario, forced, sample
from fracas.interpreter.tools.report import explain_text, run_text
from fracas.interpreter.tools.cli import main

RULES_TEXT = """
outcome total: int = 0
outcome laps: int = 0
step inner() {
    total += roll(1, 6)
}
step outer() {
    inner()
    total += 10
    if total > 12 {
        return "enough"
    }
    total += 100
}
step countdown(left: int) {
    laps += 1
    if left > 0 {
        countdown(left - 1)
    }
}
action go() {
    outer()
    total += 1000
    countdown(1)
    laps += 10
}
"""
RULES = dsl.loads(RULES_TEXT, "nest.rules")


def events_of(rolls: list[int]) -> list[tuple[str, int, str]]:
    run = forced(RULES, Scenario("go", {}), rolls)
    return [(event["kind"], event["line"], event["text"]) for event in run.events]


def indent_of(text: str, line: str) -> int:
    [found] = [row for row in text.splitlines() if line in row]
    return len(found) - len(found.lstrip())


def test_a_step_that_runs_to_its_last_line_logs_its_end_at_the_call():
    assert ("end", 8, "end of step inner") in events_of([1])


def test_a_step_that_returns_logs_its_end_after_the_return():
    kinds = [kind for kind, line, _ in events_of([5]) if line in (11, 22)]
    assert kinds[kinds.index("return"):] == ["return", "end"]


def test_a_step_that_calls_itself_logs_an_end_for_each_call():
    ends = [text for kind, _, text in events_of([1]) if kind == "end" and "countdown" in text]
    assert ends == ["end of step countdown", "end of step countdown"]


def test_each_end_closes_the_step_last_entered():
    open_steps: list[str] = []
    for kind, _, text in events_of([1]):
        if kind == "step":
            open_steps.append(text.removeprefix("step ").split("(")[0])
        elif kind == "end":
            assert open_steps.pop() == text.removeprefix("end of step ")
    assert open_steps == []


def test_explain_shows_a_callers_events_after_a_step_back_at_the_callers_depth():
    text = explain_text(forced(RULES, Scenario("go", {}), [1]))
    assert indent_of(text, "step inner") == 2
    assert indent_of(text, "total: 1 -> 11") == 2  # outer's own change, after inner ended
    assert indent_of(text, "total: 111 -> 1111") == 0  # the action's own, after outer ended


def test_explain_counts_the_events_without_the_ends_of_steps():
    run = forced(RULES, Scenario("go", {}), [1])
    shown = sum(1 for event in run.events if event["kind"] != "end")
    assert explain_text(run).splitlines()[0] == f"go (seed None): {shown} events"
    assert "end of step" not in explain_text(run)


def test_run_indents_a_steps_events_under_it():
    text = run_text(forced(RULES, Scenario("go", {}), [1]), "")
    assert "line    5      1d6: 1" in text  # under inner, within outer
    assert "line    9    total: 1 -> 11" in text  # outer's own, after inner ended
    assert "line   23  total: 111 -> 1111" in text  # the action's own


def test_run_json_carries_the_ends_of_steps(tmp_path, capsys):
    (tmp_path / "nest.rules").write_text(RULES_TEXT)
    (tmp_path / "go.toml").write_text('action = "go"\n')
    assert main(["run", str(tmp_path / "nest.rules"), str(tmp_path / "go.toml"), "--seed", "1", "--json"]) == 0
    ends = [event["step"] for event in json.loads(capsys.readouterr().out)["events"] if event["kind"] == "end"]
    assert ends == ["inner", "outer", "countdown", "countdown"]


def test_run_json_gives_what_each_step_was_given_by_its_parameters_names(tmp_path, capsys):
    (tmp_path / "nest.rules").write_text(RULES_TEXT)
    (tmp_path / "go.toml").write_text('action = "go"\n')
    assert main(["run", str(tmp_path / "nest.rules"), str(tmp_path / "go.toml"), "--seed", "1", "--json"]) == 0
    given = [event["given"] for event in json.loads(capsys.readouterr().out)["events"] if event["kind"] == "step"]
    assert given == [{}, {}, {"left": "1"}, {"left": "0"}]


SHOTS = dsl.loads("""
outcome lost: int = 0
step kill(p: pool): pool {
    return fire(volley(1), p)
}
step volley_at(p: pool): pool {
    return fire(volley(3), p)
}
action caller_shoots() {
    let p = bodies(1, 1, owner: "a")
    p = kill(p)
    p = fire(volley(2), p)
    lost = lethal(p, owner: "a")
}
action step_shoots_twice() {
    let p = bodies(1, 1, owner: "a")
    p = volley_at(p)
    p = volley_at(p)
    lost = lethal(p, owner: "a")
}
""", "shots.rules")


def test_explain_shows_the_callers_wasted_shots_at_the_callers_depth():
    text = explain_text(sample(SHOTS, Scenario("caller_shoots", {}), seed=1))
    assert indent_of(text, "shots 1 to 2: every body has taken lethal damage") == 0


def test_explain_shows_a_steps_wasted_shots_under_the_step():
    text = explain_text(sample(SHOTS, Scenario("step_shoots_twice", {}), seed=1))
    assert indent_of(text, "shots 2 to 3: every body has taken lethal damage") == 2  # the first call's last two
    assert indent_of(text, "shots 1 to 3: every body has taken lethal damage") == 2  # the second call's


def test_a_step_is_logged_with_what_it_was_given_each_time_it_is_called():
    steps = [text for kind, _, text in events_of([1]) if kind == "step"]
    assert steps == ["step outer()", "step inner()", "step countdown(left: 1)", "step countdown(left: 0)"]


def test_explain_says_where_a_step_was_called():
    text = explain_text(forced(RULES, Scenario("go", {}), [1]))
    assert "step countdown(left: 0)    (nest.rules:15, called at line 18)" in text


def test_bodies_and_shots_of_no_owner_or_source_are_logged_without_a_none():
    rules = dsl.loads("outcome lost: int = 0\naction go() {\n    let p = bodies(3, 3)\n    p = fire(volley(1, 3), p)\n"
                      "    lost = lethal(p)\n}\n", "plain.rules")
    texts = [event["text"] for event in forced(rules, Scenario("go", {}), [0]).events if event["kind"] in ("bodies", "shot")]
    assert texts == ["3 bodies of 3 hitpoints", "shot 1 (3 damage) hits a body: lethal"]


def test_a_step_given_a_number_past_python_s_digits_for_text_is_logged_as_others_are():
    rules = dsl.loads("outcome o: int = 0\nstep keep(n: int) { o = 1 }\naction go(n: int) { keep(n) }\n", "big.rules")
    scenario = Scenario("go", {"n": 10 ** 700})  # within the rules' limit of digits
    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(640)  # as a user's Python may be set, below that limit
    try:
        [step] = [event for event in forced(rules, scenario, []).events if event["kind"] == "step"]
    finally:
        sys.set_int_max_str_digits(before)
    assert step["text"].startswith("step keep(n: ")
