"""Every outcome value is told apart from every other in the table, the CSV, the JSON and `explain --why`.

A `text?` outcome may hold none and the text "none": the text is shown in its
quotes, so neither's probability is lost where values are keys. Only numbers
have an "at least", and `--why` finds a number however it is written.
"""

from __future__ import annotations

import csv
import io
import json
from fractions import Fraction

import pytest

from fracas.interpreter.tools.cli import main
from fracas.interpreter.tools.report import percent

NONE_OR_TEXT = 'outcome label: text? = none\naction go() { if chance(1/4) { label = "none" } }\n'
NUMBERS = "outcome on: number = 0\naction go() { on = pick([3/2, 2, 1/3]) }\n"


def files(tmp_path, rules: str) -> list[str]:
    (tmp_path / "t.rules").write_text(rules)
    (tmp_path / "go.toml").write_text('action = "go"\n')
    return [str(tmp_path / "t.rules"), str(tmp_path / "go.toml")]


def out_of(capsys, *args: str) -> str:
    assert main(list(args)) == 0
    return capsys.readouterr().out


def test_none_and_the_text_none_are_two_values_in_json_each_with_its_probability(tmp_path, capsys):
    found = json.loads(out_of(capsys, "odds", *files(tmp_path, NONE_OR_TEXT), "--json"))
    assert found["outcomes"]["label"]["distribution"] == {"none": "3/4", '"none"': "1/4"}


def test_the_text_none_is_shown_in_its_quotes_in_the_table(tmp_path, capsys):
    out = out_of(capsys, "odds", *files(tmp_path, NONE_OR_TEXT))
    assert '  "none"   25.00%' in out and "    none   75.00%" in out


def test_explain_why_finds_the_text_none_in_its_quotes_and_none_bare(tmp_path, capsys):
    args = files(tmp_path, NONE_OR_TEXT)
    assert out_of(capsys, "explain", *args, "--why", 'label="none"').startswith(
        'why label = "none": probability 25.00% (1/4)')
    assert out_of(capsys, "explain", *args, "--why", "label=none").startswith("why label = none: probability 75.00%")


@pytest.mark.parametrize("written, shown", [("1.5", "3/2"), ("2/6", "1/3"), ("2.0", "2"), ("3/2", "3/2")])
def test_explain_why_finds_a_number_however_it_is_written(tmp_path, capsys, written, shown):
    out = out_of(capsys, "explain", *files(tmp_path, NUMBERS), "--why", f"on={written}")
    assert out.startswith(f"why on = {shown}: probability 33.33% (1/3)")


def test_only_a_number_has_an_at_least_in_the_csv(tmp_path, capsys):
    rows = list(csv.DictReader(io.StringIO(out_of(capsys, "odds", *files(tmp_path, NONE_OR_TEXT), "--csv"))))
    assert [(r["value"], r["at_least"]) for r in rows] == [("none", ""), ('"none"', "")]
    rows = list(csv.DictReader(io.StringIO(out_of(capsys, "odds", *files(tmp_path, NUMBERS), "--csv"))))
    assert [Fraction(r["at_least"]) for r in rows] == [1, Fraction(2, 3), Fraction(1, 3)]


def test_a_truth_has_no_at_least_in_the_table(tmp_path, capsys):
    out = out_of(capsys, "odds", *files(tmp_path, "outcome hit: bool = false\naction go() { hit = chance(1/3) }\n"))
    assert "at least" not in out


POOLS = ('outcome left: pool = bodies(2, 1)\noutcome shots: volley = volley(0)\n'
         'action go() { left = fire(volley(1), left + bodies(1, 3, owner: "red", tag: "cover"))\n'
         '  shots = volley(2, damage: 3, source: "gun") }\n')


def test_a_pool_outcome_shows_its_bodies_as_damage_of_hitpoints_alike_ones_counted(tmp_path, capsys):
    out = out_of(capsys, "odds", *files(tmp_path, POOLS))
    assert 'pool(2 × 0/1, 1/3 owner "red" tag "cover")   33.33%' in out
    assert 'pool(0/1, 1/1, 0/3 owner "red" tag "cover")   66.67%' in out


def test_a_volley_outcome_shows_its_shots_alike_ones_counted(tmp_path, capsys):
    assert 'certain: shots = volley(2 × 3 damage from "gun")' in out_of(capsys, "odds", *files(tmp_path, POOLS))


def test_an_empty_pool_and_volley_show_as_empty(tmp_path, capsys):
    out = out_of(capsys, "odds", *files(tmp_path, "outcome p: pool = bodies(0, 1)\noutcome v: volley = volley(0)\n"
                                                  "action go() {\n    p = p\n    v = v\n}\n"))
    assert "certain: p = pool(), v = volley()" in out


@pytest.mark.parametrize("p, shown", [(Fraction(1, 32), "  3.13%"), (Fraction(1, 8), " 12.50%"),
                                      (Fraction(1), "100.00%"), (Fraction(9998, 10000), " 99.98%"),
                                      (Fraction(19999, 20000), ">99.99%"), (Fraction(999999, 1000000), ">99.99%"),
                                      (Fraction(1, 1000000), " <0.01%"), (Fraction(0), "  0.00%")])
def test_a_probability_is_shown_to_a_hundredth_of_a_percent_halves_up_and_never_certain_unless_it_is(p, shown):
    assert percent(p) == shown


def test_a_text_is_read_with_its_escapes_and_shown_as_written_where_it_needs_them(tmp_path, capsys):
    rules = 'outcome t: text = ""\naction go() { if chance(1/2) { t = "say \\"hi\\"\\nnow\\\\" } }\n'
    out = out_of(capsys, "odds", *files(tmp_path, rules), "--json")
    assert json.loads(out)["outcomes"]["t"]["distribution"] == {'""': "1/2", '"say \\"hi\\"\\nnow\\\\"': "1/2"}


def test_an_event_shows_a_changed_text_on_one_line(tmp_path, capsys):
    rules = 'outcome t: text = "plain"\naction go() { t = "two\\nlines" }\n'
    out = out_of(capsys, "run", *files(tmp_path, rules))
    assert 't: plain -> "two\\nlines"' in out or 't: "plain" -> "two\\nlines"' in out


def test_a_sampled_share_shows_its_wilson_interval_lopsided_near_0_and_never_below_it():
    from fracas.interpreter.api import wilson_interval

    low, high = wilson_interval(Fraction(2, 100), 200)  # 4 runs of 200
    assert (round(low * 100, 2), round(high * 100, 2)) == (0.78, 5.03) and low > 0
    assert wilson_interval(Fraction(0), 50)[0] == 0 and wilson_interval(Fraction(1), 50)[1] == 1


def test_a_sampled_table_shows_each_share_with_its_interval(tmp_path, capsys):
    out = out_of(capsys, "odds", *files(tmp_path, "outcome hit: bool = false\naction go() { hit = chance(1/50) }\n"),
                 "--samples", "200", "--seed", "3")
    assert "   true    1.50%  [0.51, 4.32]  " in out  # 3 runs of 200: not 1.50% give or take 1.68


def test_sampled_odds_as_json_give_each_share_its_interval(tmp_path, capsys):
    out = out_of(capsys, "odds", *files(tmp_path, "outcome hit: bool = false\naction go() { hit = chance(1/50) }\n"),
                 "--samples", "200", "--seed", "3", "--json")
    hit = json.loads(out)["outcomes"]["hit"]
    assert hit["distribution"]["true"] == "3/200"
    assert hit["interval95"]["true"] == [0.005114, 0.043166]  # 0.51% to 4.32%, as the table shows it


def test_a_sampled_table_heads_its_intervals_and_keeps_its_columns_under_their_headings(tmp_path, capsys):
    out = out_of(capsys, "odds", *files(tmp_path, "outcome n: int = 0\naction go() { n = roll(1, 3) }\n"),
                 "--samples", "300", "--seed", "3")
    lines = out.splitlines()
    heading = next(line for line in lines if "95% interval" in line)
    rows = [line for line in lines if line.strip()[:1] in "123" and "%" in line]
    assert len(rows) == 3
    for row in rows:  # each column ends where its heading does
        assert row.index("]") + 1 <= heading.index("at least") - 2
        assert row.index("%", row.index("]")) == heading.index("at least") + len("at least") - 1


def test_a_sampled_table_bounds_the_values_no_sample_gave(tmp_path, capsys):
    rules = files(tmp_path, "outcome hit: bool = false\naction go() { hit = chance(1/1000000) }\n")
    out = out_of(capsys, "odds", *rules, "--samples", "2000", "--seed", "1")
    assert "true" not in out  # never drawn: left out of the table
    # The bound is 0.1917%, rounded up.
    assert out.rstrip().endswith("values no sample gave are not shown: each has a probability below 0.20% (95%)")
    assert "no sample gave" not in out_of(capsys, "odds", *rules)  # exact odds leave nothing out


def test_a_comparison_of_files_of_one_name_labels_them_by_their_paths(tmp_path, capsys):
    for folder, sides in (("a", 4), ("b", 6)):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "x.rules").write_text(f"outcome dmg: int = 0\naction go() {{ dmg = 1d{sides} }}\n")
    (tmp_path / "go.toml").write_text('action = "go"\n')
    paths = [str(tmp_path / "a" / "x.rules"), str(tmp_path / "b" / "x.rules"), str(tmp_path / "go.toml")]
    header = out_of(capsys, "odds", *paths).splitlines()[2]
    assert header.split() == [str(tmp_path / "a" / "x"), str(tmp_path / "b" / "x")]
    rows = list(csv.DictReader(io.StringIO(out_of(capsys, "odds", *paths, "--csv"))))
    assert {r["rules_or_option"] for r in rows} == {str(tmp_path / "a" / "x"), str(tmp_path / "b" / "x")}


def test_a_sampled_comparison_and_csv_say_they_are_estimates(tmp_path, capsys):
    rules = files(tmp_path, "outcome dmg: int = 0\naction go() { dmg = 1d4 }\n")
    title = out_of(capsys, "odds", rules[0], rules[0], rules[1], "--samples", "300").splitlines()[0]
    assert title.endswith("(estimated from 300 samples each)")
    rows = list(csv.DictReader(io.StringIO(out_of(capsys, "odds", *rules, "--samples", "300", "--csv"))))
    assert {r["samples"] for r in rows} == {"300"}
    rows = list(csv.DictReader(io.StringIO(out_of(capsys, "odds", *rules, "--csv"))))
    assert {r["samples"] for r in rows} == {""}


def test_a_plot_puts_numbers_by_size_whole_or_not():
    from fracas.interpreter.tools.plots import _plot_order

    assert sorted([Fraction(1, 2), 1, Fraction(3, 2), 2], key=_plot_order) == [Fraction(1, 2), 1, Fraction(3, 2), 2]


def test_a_text_with_spaces_at_its_end_is_shown_in_its_quotes_and_found_so_by_why(tmp_path, capsys):
    args = files(tmp_path, 'outcome trail: text = ""\n'
                           'action go() { trail = "a "\n if chance(1/2) { trail = trail + "b" } }\n')
    assert '   "a "   50.00%' in out_of(capsys, "odds", *args)
    assert out_of(capsys, "explain", *args, "--why", 'trail="a "').startswith('why trail = "a ": probability 50.00%')


def test_a_plot_keeps_true_apart_from_1_as_the_comparison_does():
    from fracas.interpreter.tools.plots import _plot_order

    assert _plot_order(True) != _plot_order(1) and _plot_order(False) != _plot_order(0)
    assert len({_plot_order(v) for v in (0, 1, False, True)}) == 4
