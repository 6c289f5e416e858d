"""An outcome that an action never sets is no result of it: reports list it apart, not as certain.

Whether an action sets an outcome is read from the rules: an assignment in the
action or in anything it calls, however indirectly, wherever the call is written.
"""

from __future__ import annotations

import json
from pathlib import Path

from fracas import dsl
from fracas.dsl.writes import outcomes_set_by
from fracas.interpreter import Scenario, exact
from fracas.interpreter.tools import report
from fracas.interpreter.tools.cli import main

ROOT = Path(__file__).resolve().parents[1]

RULES = """rules "Two actions"
outcome rounds: int = 0
outcome lost: int = 0
outcome best: int = 0
outcome flag: bool = false
outcome spare: int = 7

step strike(n: int) { lost += n }
step deepest(): int {
    best = 6
    return 1
}
step deeper() { strike(1d2) }
fn plain(x: int) = x + 1

action battle(n: int = 2) {
    while rounds < n {
        rounds += 1
        deeper()
    }
}

action scout() {
    let found = deepest()
    flag = found == plain(0)
}

kind tally { n: int = 0 }
step count_up(lost: tally) { lost.n += 1 }
action counted(t: tally = {}) {
    count_up(t)
    rounds = t.n
}
"""


def written(action: str) -> frozenset[str]:
    return outcomes_set_by(dsl.loads(RULES), action)


def test_an_outcome_set_in_a_step_called_through_another_is_set_by_the_action():
    assert written("battle") == {"rounds", "lost"}


def test_a_step_called_in_an_expression_sets_its_outcomes_too():
    assert written("scout") == {"best", "flag"}


def test_a_parameter_that_bears_an_outcome_s_name_is_not_the_outcome():
    assert written("counted") == {"rounds"}


def test_a_step_that_calls_itself_is_read_once():
    rules = dsl.loads('outcome left: int = 0\noutcome other: int = 0\n'
                      'step down(n: int) { if n > 0 { left += 1\n down(n - 1) } }\n'
                      'action go() { down(3) }\n')
    assert outcomes_set_by(rules, "go") == {"left"}


def test_the_odds_list_outcomes_never_set_apart_from_the_certain_ones(tmp_path):
    dist = exact(dsl.loads(RULES), Scenario("scout", {}))
    assert dist.outcomes_not_set == ("rounds", "lost", "spare")
    text = report.odds_table(dist)
    assert "\ncertain: best = 6, flag = true\n" in text
    assert text.endswith("\nnot set by scout: rounds = 0, lost = 0, spare = 7")


def test_an_outcome_that_varies_is_never_listed_as_not_set():
    text = report.odds_table(exact(dsl.loads(RULES), Scenario("battle", {"n": 2})))
    assert "\nlost    mean 3" in text
    assert text.endswith("\nnot set by battle: best = 0, flag = false, spare = 7")


def test_json_names_the_outcomes_not_set_and_still_gives_their_values(tmp_path, capsys):
    (tmp_path / "r.rules").write_text(RULES)
    (tmp_path / "s.toml").write_text('action = "scout"\n')
    assert main(["odds", str(tmp_path / "r.rules"), str(tmp_path / "s.toml"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["not_set"] == ["rounds", "lost", "spare"]
    assert data["outcomes"]["spare"]["distribution"] == {"7": "1"}


def test_choices_side_by_side_list_an_outcome_no_column_sets_apart(tmp_path, capsys):
    rules = RULES.replace('rules "Two actions"', 'rules "Two actions"\nchoice careful: bool = false')
    (tmp_path / "r.rules").write_text(rules)
    (tmp_path / "s.toml").write_text('action = "battle"\n')
    assert main(["odds", str(tmp_path / "r.rules"), str(tmp_path / "s.toml"), "--each-choice", "careful"]) == 0
    out = capsys.readouterr().out
    assert "\nnot set by battle: best = 0, flag = false, spare = 7\n" in out
    assert "\ncertain in every column: rounds = 2\n" in out


def test_check_warns_of_an_outcome_no_action_sets(tmp_path, capsys):
    (tmp_path / "r.rules").write_text('rules "t"\noutcome a: int = 0\noutcome b: int = 0\naction go() { a = 1d6 }\n')
    assert main(["check", str(tmp_path / "r.rules")]) == 0
    err = capsys.readouterr().err
    assert "r.rules:3:9: warning: outcome 'b' is never set: no action assigns it, nor any step one calls" in err
    assert "outcome 'a'" not in err


def test_an_outcome_set_by_any_one_action_is_not_warned_of():
    rules = dsl.loads(RULES)
    assert [w.message for w in rules.warnings] == ["outcome 'spare' is never set: no action assigns it, "
                                                   "nor any step one calls"]


def test_rules_without_an_action_are_not_judged():
    rules = dsl.loads('rules "a base"\noutcome a: int = 0\nstep s() { a = 1 }\n')
    assert rules.warnings == ()


def test_a_sampled_run_lists_the_outcomes_its_action_never_sets_apart(capsys):
    assert main(["run", str(ROOT / "rules" / "risk.rules"), str(ROOT / "rules" / "scenarios" / "risk-ten-against-ten.toml"),
                 "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "  not set by battle: attacker_lost = 0, defender_lost = 0" in out
    assert "  attacker_lost = 0\n" not in out


def test_a_sampled_run_s_json_names_the_outcomes_not_set(capsys):
    assert main(["run", str(ROOT / "rules" / "risk.rules"), str(ROOT / "rules" / "scenarios" / "risk-ten-against-ten.toml"),
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["not_set"] == ["attacker_lost", "defender_lost"]
