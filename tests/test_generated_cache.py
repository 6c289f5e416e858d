"""The code generated for a ruleset is kept with it between runs, and never trusted past a change."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
from fractions import Fraction

import pytest

from fracas import dsl
from fracas.interpreter import Scenario, estimate, exact
from fracas.interpreter.core import carry, codegen, kept_code, liveness
from fracas.interpreter.core.codegen import generator_for

RULES = textwrap.dedent("""\
    param bonus: int = 2 - 1
    kind Fighter {
        skill: int
        wounds: int = bonus + 1
    }
    outcome hits: int = 0
    action strike(attacker: Fighter, tries: int = 2) {
        for _ in range(tries) {
            if 1d6 + attacker.skill + bonus >= 7 { hits += 1 }
        }
    }
    action rest(fighter: Fighter) { hits = fighter.wounds }
    """)
SCENARIO = Scenario("strike", {"attacker": {"skill": 3}})


@pytest.fixture
def compiles(monkeypatch):
    """Counts the modules of generated code that go through Python's compiler."""
    calls: list[str] = []
    real = codegen.Generator.compile

    def counting(self, filename, keep=False):
        if self.source:
            calls.append(filename)
        return real(self, filename, keep)

    monkeypatch.setattr(codegen.Generator, "compile", counting)
    return calls


def odds(rules: dsl.Ruleset) -> dict[int, Fraction]:
    return exact(rules, SCENARIO).marginal("hits")


def test_the_next_run_reads_the_code_instead_of_generating_it(tmp_path, cache_folder, compiles):
    path = tmp_path / "strike.rules"
    path.write_text(RULES)
    first = odds(dsl.load(path))
    made = len(compiles)
    again = dsl.load(path)  # read from the cache folder, as a new process would
    assert odds(again) == first == {2: Fraction(4, 9), 1: Fraction(4, 9), 0: Fraction(1, 9)}
    assert made > 0 and len(compiles) == made
    assert generator_for(again).code  # restored, not empty


def test_an_edited_rules_file_generates_its_code_afresh(tmp_path, cache_folder, compiles):
    path = tmp_path / "strike.rules"
    path.write_text(RULES)
    odds(dsl.load(path))
    path.write_text(RULES.replace("bonus: int = 2 - 1", "bonus: int = 2 + 1"))
    made = len(compiles)
    assert odds(dsl.load(path)) == {2: 1}
    assert len(compiles) > made


def test_code_another_version_of_fracas_made_is_generated_afresh(tmp_path, cache_folder, compiles, monkeypatch):
    path = tmp_path / "strike.rules"
    path.write_text(RULES)
    first = odds(dsl.load(path))
    made = len(compiles)
    monkeypatch.setattr(kept_code, "code_digest", lambda: b"another interpreter")
    assert odds(dsl.load(path)) == first
    assert len(compiles) > made


def test_damaged_kept_code_is_generated_afresh(tmp_path, cache_folder, compiles):
    path = tmp_path / "strike.rules"
    path.write_text(RULES)
    rules = dsl.load(path)
    first = odds(rules)
    damaged = generator_for(rules).kept(kept_code.code_digest())
    damaged.code = damaged.code[: len(damaged.code) // 2]
    dsl.checked.keep_with(rules, kept_code.KEY, damaged)
    made = len(compiles)
    assert odds(dsl.load(path)) == first
    assert len(compiles) > made


def test_kept_code_still_names_the_rules_lines(tmp_path, cache_folder):
    path = tmp_path / "strike.rules"
    path.write_text(RULES)
    odds(dsl.load(path))
    routine = generator_for(dsl.load(path)).routine("strike")
    code = [function.__code__ for function in routine.functions if function is not None]
    assert code and all(c.co_filename == str(path) for c in code)
    lines = {line for c in code for _, _, line in c.co_lines() if line is not None}
    assert 9 in lines  # the `if 1d6 + ...` line: what a traceback or a profile names


def test_rules_text_given_once_keeps_no_code(cache_folder):
    rules = dsl.loads(RULES, "strike.rules")  # their checked rules are kept, but not what a run makes of them
    odds(rules)
    assert rules.kept == {}


def test_rules_text_given_again_keeps_its_code_for_the_next_time(cache_folder, compiles):
    first = odds(dsl.loads(RULES, "strike.rules"))
    odds(dsl.loads(RULES, "strike.rules"))  # read back from the cache: given before, so worth keeping for
    made = len(compiles)
    assert odds(dsl.loads(RULES, "strike.rules")) == first
    assert made > 0 and len(compiles) == made


def test_a_second_process_runs_the_code_the_first_kept(tmp_path, cache_folder):
    path = tmp_path / "strike.rules"
    path.write_text(RULES)
    script = textwrap.dedent(f"""\
        from fracas import dsl
        from fracas.interpreter import Scenario, exact
        from fracas.interpreter.core import codegen
        rules = dsl.load({str(path)!r})
        read_back = len(codegen.generator_for(rules)) > 0
        odds = exact(rules, Scenario("strike", {{"attacker": {{"skill": 3}}}})).marginal("hits")
        print(read_back, sorted(odds.items()))
        """)
    env = {**os.environ, "XDG_CACHE_HOME": str(cache_folder.parent)}
    runs = [subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True).stdout
            for _ in range(2)]
    assert runs[0].startswith("False ") and runs[1].startswith("True ")
    assert runs[0].split(" ", 1)[1] == runs[1].split(" ", 1)[1]


def test_the_next_run_reads_back_what_the_exact_engine_may_forget_where(tmp_path, cache_folder, monkeypatch):
    path = tmp_path / "strike.rules"
    path.write_text(RULES)
    first = odds(dsl.load(path))
    analysed: list[object] = []
    real = liveness.analyse
    monkeypatch.setattr(liveness, "analyse", lambda *args: analysed.append(args) or real(*args))
    assert odds(dsl.load(path)) == first
    assert analysed == []


def test_the_next_run_reads_back_which_values_each_block_carries(tmp_path, cache_folder, monkeypatch):
    path = tmp_path / "strike.rules"
    path.write_text(RULES)
    worked_out: list[object] = []
    real = carry._changed_before
    monkeypatch.setattr(carry, "_changed_before", lambda *args: worked_out.append(args) or real(*args))
    first = odds(dsl.load(path))
    assert worked_out
    worked_out.clear()
    assert odds(dsl.load(path)) == first
    assert worked_out == []


def test_the_next_run_reads_back_where_states_go_past_blocks_and_what_each_block_forgets(tmp_path, cache_folder,
                                                                                         monkeypatch):
    path = tmp_path / "strike.rules"
    path.write_text(RULES)
    worked_out: list[object] = []
    real = liveness.Projection._dead
    monkeypatch.setattr(liveness.Projection, "_dead", lambda *args: worked_out.append(args) or real(*args))
    first = exact(dsl.load(path), SCENARIO, outcomes_only=True).joint()  # outcomes only: fields are forgotten
    assert worked_out
    worked_out.clear()
    again = dsl.load(path)
    kept = generator_for(again).routine("strike").projections
    assert any(key[0] == "through" for projection in kept.values() for key in projection.memo)
    assert exact(again, SCENARIO, outcomes_only=True).joint() == first
    assert worked_out == []


def test_code_read_back_but_not_needed_is_kept_for_a_later_run(tmp_path, cache_folder, compiles):
    path = tmp_path / "strike.rules"
    path.write_text(RULES)
    first = odds(dsl.load(path))  # makes the code of the default `bonus + 1`
    resting = exact(dsl.load(path), Scenario("rest", {"fighter": {"skill": 1, "wounds": 4}}))
    assert resting.marginal("hits") == {4: 1}  # made another action's code, and kept it with the default's unread
    made = len(compiles)
    assert odds(dsl.load(path)) == first
    assert len(compiles) == made


def test_an_exact_run_of_kept_code_leaves_the_samplers_code_unread(tmp_path, cache_folder):
    path = tmp_path / "strike.rules"
    path.write_text(RULES)
    odds(dsl.load(path))
    again = dsl.load(path)
    assert odds(again)
    routine = generator_for(again).routines["strike"]
    assert routine.sampled is None  # its module waits: half the code, which an exact run never calls


def test_a_sampled_run_of_kept_code_reads_the_samplers_code_when_it_first_samples(tmp_path, cache_folder, compiles):
    path = tmp_path / "strike.rules"
    path.write_text(RULES)
    first = estimate(dsl.load(path), SCENARIO, 300, seed=5).marginal("hits")
    made = len(compiles)
    again = dsl.load(path)
    assert estimate(again, SCENARIO, 300, seed=5).marginal("hits") == first
    assert len(compiles) == made  # read back, not generated again
    assert generator_for(again).routines["strike"].sampled


def test_a_call_reads_back_only_the_routines_it_runs(tmp_path, cache_folder, compiles):
    # A file's code kept by calls of each of its actions: the next call of one runs that one's module alone.
    path = tmp_path / "strike.rules"
    path.write_text(RULES)
    resting = Scenario("rest", {"fighter": {"skill": 1, "wounds": 4}})
    first, rested = odds(dsl.load(path)), exact(dsl.load(path), resting).marginal("hits")
    made = len(compiles)
    again = dsl.load(path)
    assert odds(again) == first
    assert "rest" not in generator_for(again).routines  # its module waits
    assert exact(again, resting).marginal("hits") == rested == {4: 1}
    assert "rest" in generator_for(again).routines and len(compiles) == made  # read back, not generated


def test_an_action_whose_rules_functions_were_written_for_it_waits_too(tmp_path, cache_folder, compiles):
    # `rest` calls a function of the rules that nothing else called before it: written with its blocks, in a module
    # of its own before them, so that the blocks' module still waits for a call that runs `rest`.
    path = tmp_path / "strike.rules"
    doubled = "fn doubled(n: int) = 2 * n\naction rest(fighter: Fighter) { hits = doubled(fighter.wounds) }"
    path.write_text(RULES.replace("action rest(fighter: Fighter) { hits = fighter.wounds }", doubled))
    resting = Scenario("rest", {"fighter": {"skill": 1, "wounds": 4}})
    first, rested = odds(dsl.load(path)), exact(dsl.load(path), resting).marginal("hits")
    made = len(compiles)
    again = dsl.load(path)
    assert odds(again) == first
    assert "rest" not in generator_for(again).routines  # its blocks' module waits
    assert exact(again, resting).marginal("hits") == rested == {8: 1}
    assert "rest" in generator_for(again).routines and len(compiles) == made  # read back, not generated


def test_a_routine_that_waits_is_kept_again_by_a_call_that_did_not_run_it(tmp_path, cache_folder, compiles):
    path = tmp_path / "strike.rules"
    path.write_text(RULES)
    resting = Scenario("rest", {"fighter": {"skill": 1, "wounds": 4}})
    odds(dsl.load(path)), exact(dsl.load(path), resting)
    again = dsl.load(path)
    odds(again)
    generator = generator_for(again)
    assert "rest" not in generator.routines
    generator.grown = True  # as a call that made code of its own: it keeps the generator again
    kept_code.keep_if_grown(generator)
    made = len(compiles)
    assert exact(dsl.load(path), resting).marginal("hits") == {4: 1}
    assert len(compiles) == made


def test_threads_that_first_ask_for_a_waiting_routine_at_once_share_one_read_back(tmp_path, cache_folder, compiles,
                                                                                   monkeypatch):
    path = tmp_path / "strike.rules"
    path.write_text(RULES)
    odds(dsl.load(path)), exact(dsl.load(path), Scenario("rest", {"fighter": {"skill": 1, "wounds": 4}}))
    generator = generator_for(dsl.load(path))
    made, start, found = len(compiles), threading.Barrier(8), []
    unmarshal = codegen._unmarshal

    def slowly(data: bytes):  # a long module: the other threads ask while it is read back
        time.sleep(0.05)
        return unmarshal(data)

    monkeypatch.setattr(codegen, "_unmarshal", slowly)

    def ask() -> None:
        start.wait()
        found.append(generator.routine("rest"))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(found) == 8 and len({id(routine) for routine in found}) == 1 and len(compiles) == made
    assert generator.kept(b"made by") is not None  # every function is the one the namespace holds


def test_a_routines_module_read_back_that_is_not_its_own_is_refused(tmp_path, cache_folder):
    # Damaged kept data: the strike's module where the rest's should be. Run, it would rebind the strike's
    # functions, already running, and nothing of the process could be kept again.
    path = tmp_path / "strike.rules"
    path.write_text(RULES)
    resting = Scenario("rest", {"fighter": {"skill": 1, "wounds": 4}})
    odds(dsl.load(path)), exact(dsl.load(path), resting)
    again = dsl.load(path)
    generator = generator_for(again)
    waiting = generator._routines_waiting
    waiting["rest"] = (waiting["rest"][0], waiting["strike"][1])
    assert odds(again) and exact(again, resting).marginal("hits") == {4: 1}
    assert generator.kept(b"made by") is not None


def test_a_samplers_module_read_back_is_kept_again_apart(tmp_path, cache_folder):
    path = tmp_path / "strike.rules"
    path.write_text(RULES)
    estimate(dsl.load(path), SCENARIO, 100)
    sampled = dsl.load(path)
    estimate(sampled, SCENARIO, 100)  # the sampler's module run in this process
    kept = generator_for(sampled).kept(kept_code.code_digest())
    assert kept is not None and set(kept.parts["sampled waiting"]) == {"strike"}


def test_a_damaged_samplers_module_is_written_again(tmp_path, cache_folder, compiles):
    path = tmp_path / "strike.rules"
    path.write_text(RULES)
    first = estimate(dsl.load(path), SCENARIO, 300, seed=5).marginal("hits")
    again = dsl.load(path)
    gen = generator_for(again)
    names, _ = gen._sampled_waiting["strike"]
    gen._sampled_waiting["strike"] = (names, b"not marshalled code")
    made = len(compiles)
    assert estimate(again, SCENARIO, 300, seed=5).marginal("hits") == first
    assert len(compiles) > made


def test_what_a_later_run_works_out_of_the_flow_is_kept_too(tmp_path, cache_folder):
    path = tmp_path / "strike.rules"
    path.write_text(RULES)
    odds(dsl.load(path))  # the code kept, with what a run that reads whole states works out
    exact(dsl.load(path), SCENARIO, outcomes_only=True).joint()  # the code read back: only the outcomes' flow is new
    kept = generator_for(dsl.load(path)).routine("strike").projections
    assert any(not observe_all for observe_all, _ in kept)
    assert all(projection.carried is not False for projection in kept.values())


def test_a_builtin_the_code_calls_reads_back_as_the_builtin_itself(tmp_path, cache_folder, compiles):
    path = tmp_path / "pool.rules"
    path.write_text('outcome total: int = 0\naction throw() { total = keep_highest(4, 6, 3) }\n')
    first = exact(dsl.load(path), Scenario("throw", {})).marginal("total")
    made = len(compiles)
    again = dsl.load(path)
    assert exact(again, Scenario("throw", {})).marginal("total") == first
    assert len(compiles) == made  # read back, not generated again
    namespace = generator_for(again).namespace
    bound = [value for value in namespace.values() if value is codegen.IMPLEMENTATIONS["keep_highest"]]
    assert bound, "the kept code names keep_highest's implementation as a constant, read back as that function"


EXAMPLES = RULES + textwrap.dedent("""\
    example "one try" { run strike(attacker: {skill: 3}, tries: 1)  expect prob(hits == 1) == 2/3 }
    example "two tries" { run strike(attacker: {skill: 3})  expect mean(hits) == 4/3 }
    example "a rest" { run rest(fighter: {skill: 1})  expect hits == 2 }
    example "many tries" { run strike(attacker: {skill: 3}, tries: 3)  expect prob(hits == 0) == 1/27 }
    """)


def test_a_files_examples_write_the_cache_once_when_they_are_done(tmp_path, cache_folder, monkeypatch):
    from fracas.dsl import cache
    from fracas.interpreter.tools.examples import run_examples

    path = tmp_path / "strike.rules"
    path.write_text(EXAMPLES)
    rules = dsl.load(path)
    writes: list[str] = []
    real = cache.store_object
    monkeypatch.setattr(cache, "store_object", lambda name, value: (writes.append(name), real(name, value))[1])
    assert all(result.passed for result in run_examples(rules))
    assert len(writes) == 1  # the code and programs of all four, pickled with the rules once
    monkeypatch.undo()
    again = dsl.load(path)
    compiled = generator_for(again).code
    assert all(result.passed for result in run_examples(again)) and generator_for(again).code == compiled
