"""pytest collects the examples of rules files: a modder runs `pytest my_mod/`."""

from __future__ import annotations

MOD = """
kind piece { size: int }
outcome total: int = 0
action weigh(p: piece) { total = p.size * 2 }
example "M-01 a piece weighs twice its size" { run weigh(p: {size: 3}) expect total == 6 }
example "M-02 a wrong expectation" { run weigh(p: {size: 3}) expect total == 7 }
"""


def test_examples_of_a_rules_file_are_collected_and_run(pytester):
    pytester.makefile(".rules", mod=MOD)
    # The inner runs test our plugin alone; pytest-asyncio (for the lsp tests) would warn there.
    result = pytester.runpytest("-v", "-p", "no:asyncio")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*mod.rules::M-01 a piece weighs twice its size PASSED*",
                                 "*mod.rules:5: example 'M-02 a wrong expectation' failed*",
                                 "  expect total == 7 (line 5) is false:",
                                 "    total    6"])


def test_a_rules_file_that_does_not_load_is_one_failure_with_its_diagnostics(pytester):
    pytester.makefile(".rules", broken="kind piece { size: in }\n")
    result = pytester.runpytest("-p", "no:asyncio")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*broken.rules:1:20: error: unknown type 'in'*"])


def test_an_example_whose_title_holds_a_double_colon_can_be_picked_by_its_node_id(pytester):
    pytester.makefile(".rules", mod=MOD.replace("M-01 a piece", "M-01 a::piece"))
    result = pytester.runpytest("-v", "-p", "no:asyncio", "mod.rules::M-01 a:piece weighs twice its size")
    result.assert_outcomes(passed=1)


def test_a_files_examples_write_the_cache_once_after_the_last(pytester, cache_folder, monkeypatch):
    from fracas.dsl import cache

    writes: list[str] = []
    real = cache.store_object
    monkeypatch.setattr(cache, "store_object", lambda name, value: (writes.append(name), real(name, value))[1])
    passing = MOD.replace("expect total == 7", "expect total == 6") + (
        'example "M-03 a bigger piece" { run weigh(p: {size: 5}) expect total == 10 }\n')
    pytester.makefile(".rules", mod=passing)
    pytester.runpytest("-p", "no:asyncio").assert_outcomes(passed=3)
    checked = [name for name in writes if name.startswith("checked-")]
    assert len(checked) == 2  # the checked rules as first loaded, and what the three examples made, once
