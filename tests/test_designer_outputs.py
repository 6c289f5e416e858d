"""Odds for spreadsheets and pictures: CSV rows and plots (PNG, SVG or PDF, by the suffix)."""

from __future__ import annotations

import csv
import io
import struct
from fractions import Fraction
from pathlib import Path
from typing import Any


import pytest

from fracas.interpreter import api
from fracas.interpreter.tools import plots
from fracas.interpreter.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent
EPI = str(ROOT / "rules" / "epicinium.rules")
CLASSIC = str(ROOT / "rules" / "epicinium-classic.rules")
CITY = str(ROOT / "rules" / "scenarios" / "epicinium-riflemen-vs-city.toml")


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", data[16:24])


def test_csv_rows_give_exact_and_decimal_probabilities(capsys):
    assert main(["odds", EPI, CITY, "--csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    figures = [r for r in rows if r["outcome"] == "figures_lost"]
    assert sum(Fraction(r["probability"]) for r in figures) == 1
    assert {r["value"]: r["probability"] for r in figures}["1"] == "191/576"


def test_plot_writes_a_png_of_sensible_size(tmp_path, capsys):
    picture = tmp_path / "odds.png"
    assert main(["odds", EPI, CLASSIC, CITY, "--plot", str(picture)]) == 0
    width, height = png_size(picture)
    assert 400 <= width <= 2000 and 300 <= height <= 4000
    assert [p.name for p in tmp_path.iterdir()] == ["odds.png"]


def test_a_plot_of_many_outcomes_draws_its_title_clear_of_the_first_plot(tmp_path, capsys, monkeypatch):
    pytest.importorskip("matplotlib")
    drawn = []
    monkeypatch.setattr(plots, "_save", lambda figure, path: drawn.append(figure))
    rules, scenario = tmp_path / "six.rules", tmp_path / "six.toml"
    rules.write_text("".join(f"outcome {o}: int = 0\n" for o in "abcdef")
                     + "action shoot() { " + "  ".join(f"{o} = 1d2" for o in "abcdef") + " }\n")
    scenario.write_text('action = "shoot"\n')
    assert main(["odds", str(rules), str(scenario), "--plot", str(tmp_path / "six.png")]) == 0
    [figure] = drawn
    figure.canvas.draw()  # laid out as when saved
    title = figure._suptitle.get_window_extent()
    first = figure.axes[0].title.get_window_extent()
    assert title.y0 >= first.y1  # above the first plot's own title, not over it


def drawn_plot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, action: str) -> Any:
    pytest.importorskip("matplotlib")
    drawn = []
    monkeypatch.setattr(plots, "_save", lambda figure, path: drawn.append(figure))
    rules = tmp_path / "dealt.rules"
    rules.write_text(f"outcome dealt: int = 0\naction hit() {{\n    {action}\n}}\n")
    assert main(["odds", str(rules), "--plot", str(tmp_path / "dealt.png")]) == 0
    [figure] = drawn
    figure.canvas.draw()
    return figure.axes[0]


def test_a_plot_places_numbers_at_their_own_places_along_the_axis(tmp_path, monkeypatch):
    axis = drawn_plot(tmp_path, monkeypatch, "dealt = if chance(1/2) then 456 else 480 + roll(1, 2)")
    centres = sorted(bar.get_x() + bar.get_width() / 2 for bar in axis.patches)
    assert centres == [456, 481, 482]  # 456 stands 25 apart from 481, not next to it


def test_a_plot_of_many_numbers_labels_a_few_round_ones_rather_than_each_over_another(tmp_path, monkeypatch):
    axis = drawn_plot(tmp_path, monkeypatch, "dealt = roll(1, 121)")
    labels = [label.get_text() for label in axis.get_xticklabels() if label.get_text()]
    assert 3 <= len(labels) <= 12 and len(axis.patches) == 121


def test_plot_of_every_option_of_a_choice(tmp_path, capsys):
    picture = tmp_path / "choice.png"
    scenario = str(ROOT / "rules" / "scenarios" / "gilgamesh-broadside.toml")
    assert main(["odds", str(ROOT / "rules" / "gilgamesh.rules"), scenario, "--plot", str(picture)]) == 0
    assert png_size(picture)[0] >= 400


@pytest.mark.parametrize("suffix, opening", [(".svg", b"<?xml"), (".pdf", b"%PDF"), (".PNG", b"\x89PNG")])
def test_plot_draws_the_format_its_suffix_names(tmp_path, capsys, suffix, opening):
    picture = tmp_path / f"odds{suffix}"
    assert main(["odds", EPI, CITY, "--plot", str(picture)]) == 0
    assert picture.read_bytes().startswith(opening)


@pytest.mark.parametrize("command", [["odds", EPI, CITY], ["sweep", EPI, CITY, "--vary", "target.figures=1,2"]])
def test_plot_refuses_a_suffix_it_cannot_draw_before_any_work(tmp_path, capsys, command):
    picture = tmp_path / "odds.txt"
    assert main([*command, "--plot", str(picture)]) == 2
    assert capsys.readouterr().err == (f"fracas: error: --plot {picture}: name a .png, .svg or .pdf file "
                                       "(its suffix chooses the picture's format)\n")
    assert not picture.exists()


def test_sweep_help_shows_a_plain_percent_sign(capsys):
    with pytest.raises(SystemExit):
        main(["sweep", "--help"])
    out = capsys.readouterr().out
    assert "95%" in " ".join(out.split()) and "%%" not in out


def test_without_matplotlib_plot_says_how_to_install_it(tmp_path, capsys, monkeypatch):
    def unavailable():
        raise plots.PlotUnavailable(plots.INSTALL_HINT)

    monkeypatch.setattr(plots, "_pyplot", unavailable)
    assert main(["odds", EPI, CITY, "--plot", str(tmp_path / "x.png")]) == 2
    assert "pip install 'fracas[plot]'" in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()


def test_plot_refuses_to_overwrite_an_input(capsys):
    assert main(["odds", EPI, CITY, "--plot", CITY]) == 2
    assert "overwrite an input file" in capsys.readouterr().err


def test_sweep_plot_refuses_to_overwrite_an_input_before_any_work(capsys, tmp_path):
    scenario = tmp_path / "city.toml"
    scenario.write_text(Path(CITY).read_text())
    assert main(["sweep", EPI, str(scenario), "--vary", "target.figures=1,2", "--plot", str(scenario)]) == 2
    assert "overwrite an input file" in capsys.readouterr().err
    assert scenario.read_text() == Path(CITY).read_text()


def test_sweep_refuses_the_same_varied_value_twice(capsys):
    assert main(["sweep", EPI, CITY, "--vary", "target.figures=1,2", "--vary", "target.figures=3"]) == 2
    assert "--vary target.figures is given twice" in capsys.readouterr().err


def sweep_csv(capsys, *extra: str) -> list[dict]:
    assert main(["sweep", EPI, CITY, "--vary", "target.type=rifleman,tank", "--vary", "space.tile=city,forest",
                 "--csv", *extra]) == 0
    return list(csv.DictReader(io.StringIO(capsys.readouterr().out)))


def test_sweep_cells_are_the_exact_means(capsys):
    rows = sweep_csv(capsys)
    cell = {(r["target.type"], r["space.tile"]): r for r in rows}
    assert len(rows) == 4
    assert Fraction(cell[("rifleman", "city")]["value"]) == Fraction(673, 384)  # as fracas odds gives
    assert cell[("tank", "forest")]["estimated"] == "false"


def test_sweep_gives_the_same_cells_in_one_process_or_several(capsys):
    assert sweep_csv(capsys, "--jobs", "1") == sweep_csv(capsys, "--jobs", "2")


def test_sweep_estimates_a_case_beyond_the_state_limit(capsys):
    rows = sweep_csv(capsys, "--limit", "states=2", "--samples", "300")
    assert all(r["estimated"] == "true" and float(r["margin_95"]) >= 0 for r in rows)
    assert rows[0]["value"] == ""


def test_sweep_text_is_a_matrix(capsys):
    assert main(["sweep", EPI, CITY, "--vary", "target.type=rifleman,tank", "--vary", "space.tile=city,forest",
                 "--metric", "prob(units_killed > 0)"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "prob(units_killed > 0) over target.type by space.tile"
    assert "target.type \\ space.tile" in out


def test_sweep_heatmap_is_a_png(tmp_path, capsys):
    picture = tmp_path / "heat.png"
    assert main(["sweep", EPI, CITY, "--vary", "target.type=rifleman,tank,militia", "--vary", "space.tile=city,dirt",
                 "--plot", str(picture)]) == 0
    width, height = png_size(picture)
    assert 200 <= width <= 2000 and 150 <= height <= 2000


def test_sweep_heatmap_names_what_its_rows_and_columns_vary(tmp_path, capsys, monkeypatch):
    pytest.importorskip("matplotlib")
    drawn = []
    monkeypatch.setattr(plots, "_save", lambda figure, path: drawn.append(figure))
    assert main(["sweep", EPI, CITY, "--vary", "target.type=rifleman,tank", "--vary", "space.tile=city,dirt",
                 "--plot", str(tmp_path / "heat.png")]) == 0
    [figure] = drawn
    axis = figure.axes[0]
    assert (axis.get_ylabel(), axis.get_xlabel()) == ("target.type", "space.tile")


@pytest.mark.parametrize("args, message", [
    (["--vary", "target.typ e=rifleman"], "is not a name"),
    (["--vary", "target.type=rifelman"], "unknown unit_type 'rifelman'"),
    (["--vary", "target.type=rifleman", "--metric", "mean(figures_lots)"], "unknown name 'figures_lots'"),
    (["--vary", "target.type=rifleman", "--metric", "mean(("], "unexpected end of file"),
    (["--vary", "params.firestorm_damage=1,2", "--set", "firestorm_damage=3"],
     "--vary params.firestorm_damage and --set firestorm_damage=3 both set it; leave one out"),
    # A value the flag gave is blamed on the flag, not on the scenario file's line that it replaced.
    (["--vary", "target.figures=2,,3"],
     '--vary target.figures: error: target.figures: expected int, found the text ""'),
    (["--vary", "params.firestorm_damage=1"],
     "--vary params.firestorm_damage: error: params.firestorm_damage: unknown parameter"),
])
def test_sweep_mistakes_exit_2_with_a_message(capsys, args, message):
    assert main(["sweep", EPI, CITY, *args]) == 2
    assert message in capsys.readouterr().err


def test_sweep_of_a_field_of_list_items_that_are_not_tables_says_so(capsys, tmp_path):
    scenario = tmp_path / "names.toml"
    scenario.write_text('action = "targeted_attack"\nattackers = ["rifleman"]\ntarget = {type = "gunner"}\n'
                        'space = {tile = "city"}\n')
    assert main(["sweep", EPI, str(scenario), "--vary", "attackers[*].type=rifleman,gunner", "--jobs", "1"]) == 2
    assert "--vary attackers[*].type: 'attackers[0]' is not a table in the scenario" in capsys.readouterr().err


def test_a_dotted_name_given_to_set_is_blamed_on_the_flag(capsys):
    assert main(["odds", EPI, CITY, "--set", "a.b=1"]) == 2
    assert "--set a.b=1: error: params.a.b: unknown parameter 'a.b'" in capsys.readouterr().err


def test_an_action_s_input_given_to_set_is_told_where_an_input_goes(capsys, tmp_path):
    rules = tmp_path / "rn.rules"
    rules.write_text("outcome hits: bool = false\naction two_rn(hit: int = 50) {\n    hits = roll(2, 100) - 2 < 2 * hit\n}\n")
    assert main(["odds", str(rules), "--set", "hit=3"]) == 2
    assert ("hint: 'hit' is an input of two_rn, not a parameter: give it in a scenario file (hit = ...), or vary it "
            "with fracas sweep --vary hit=V1,V2,...") in capsys.readouterr().err


def test_explain_why_lists_the_ways_to_an_outcome_with_exact_probabilities(capsys):
    assert main(["explain", EPI, CITY, "--why", "figures_lost=3"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "why figures_lost = 3: probability 8.42% (97/1152), 1 way"
    assert "target 3/3 lethal" in out


WEEWAR = str(ROOT / "rules" / "weewar.rules")
GANGING_UP = str(ROOT / "rules" / "scenarios" / "weewar-tank-ganging-up.toml")


def test_explain_why_leaves_a_long_exact_probability_to_its_percentage_and_says_so(capsys):
    assert main(["explain", WEEWAR, GANGING_UP, "--why", "defender_loss=7"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "why defender_loss = 7: probability 61.99%, 11 ways"
    assert out.rstrip().endswith("(exact fractions longer than 30 characters are left out: --fractions shows them)")


def test_explain_why_with_fractions_shows_every_exact_probability_whole(capsys):
    assert main(["explain", WEEWAR, GANGING_UP, "--why", "defender_loss=7", "--fractions"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first == ("why defender_loss = 7: probability 61.99% "
                     "(823922361691242202185524322245232435/1329227995784915872903807060280344576), 11 ways")


def test_explain_why_says_once_what_every_way_shares(capsys):
    assert main(["explain", WEEWAR, GANGING_UP, "--why", "defender_loss=7"]) == 0
    out = capsys.readouterr().out
    shared = out.split("\n\n")[1].splitlines()
    assert shared[0] == "in all 11 ways:" and "     defender.health = 3" in shared and "     bonus = 4" in shared
    assert out.count("bonus = 4") == 1
    # What tells the likeliest way apart: the other outcome it sets, and the field behind it.
    assert out.split("\n\n")[2].splitlines()[1:] == ["     attacker_loss = 2", "     attacker.health = 8"]


def test_explain_why_shows_a_field_that_another_way_changes_as_it_began(capsys):
    assert main(["explain", WEEWAR, GANGING_UP, "--why", "defender_loss=7"]) == 0
    ways = capsys.readouterr().out.split("\n\n")
    assert ways[6].splitlines() == ["5. 0.06% of all resolutions, 0.10% of these", "     attacker_loss = 0",
                                    "     as they began: attacker.health = 10"]


def test_explain_why_shows_a_list_that_lost_items_by_the_items_taken_out(capsys, tmp_path):
    rules = tmp_path / "deck.rules"
    rules.write_text("kind deck { cards: list of int = [1, 1, 2, 3] }\noutcome total: int = 0\n"
                     "action deal(d: deck = {}) {\n    let card = pick(d.cards)\n    d.cards = without(d.cards, card)\n"
                     "    total = card\n}\n")
    assert main(["explain", str(rules), "--why", "total=1"]) == 0
    assert "     d.cards: 1 taken out (1 of its 4 items)" in capsys.readouterr().out


@pytest.mark.parametrize("written", ["[1,2]", "[1, 2]", "[ 1 , 2 ]"])
def test_explain_why_of_a_list_takes_it_written_with_spaces_or_without(capsys, tmp_path, written):
    rules = tmp_path / "hand.rules"
    rules.write_text("outcome hand: list of int = []\naction deal() {\n    hand = [1, roll(1, 2)]\n}\n")
    assert main(["explain", str(rules), "--why", f"hand={written}"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "why hand = [1, 2]: probability 50.00% (1/2), 1 way"


def test_explain_why_shows_the_other_outcomes_each_way_sets(capsys):
    assert main(["explain", WEEWAR, GANGING_UP, "--why", "defender_loss=7"]) == 0
    out = capsys.readouterr().out
    assert "     attacker_loss = 2" in out and "defender_loss = 7\n" not in out.split("\n", 1)[1]


def test_explain_why_of_one_way_shows_it_whole(capsys):
    assert main(["explain", EPI, CITY, "--why", "figures_lost=3"]) == 0
    out = capsys.readouterr().out
    assert "in all" not in out and "as they began" not in out and "     target.figures = 0" in out


def test_explain_fractions_without_why_is_refused_rather_than_ignored(capsys):
    assert main(["explain", EPI, CITY, "--fractions"]) == 2
    assert "give --why NAME=VALUE too" in capsys.readouterr().err


def test_explain_why_leaves_out_a_local_that_a_way_never_reached_and_shows_one_set_to_none(capsys, tmp_path):
    rules = tmp_path / "stops.rules"
    rules.write_text('outcome got: int = 0\naction go(high: bool) {\n    let maybe: int? = none\n'
                     '    if high {\n        stop "too high"\n    }\n    let die = roll(1, 6)\n    got = die\n}\n')
    scenario = tmp_path / "high.toml"
    scenario.write_text('action = "go"\nhigh = true\n')
    assert main(["explain", str(rules), str(scenario), "--why", "stopped=too high"]) == 0
    out = capsys.readouterr().out
    assert "maybe = none" in out and "die" not in out


def test_explain_why_of_a_value_that_never_happens_exits_2(capsys):
    assert main(["explain", EPI, CITY, "--why", "figures_lost=9"]) == 2
    assert "figures_lost is never 9; its values are: 1, 2, 3" in capsys.readouterr().err


@pytest.mark.parametrize("written, told", [("twowords", "w is never twowords"), ("1e1", "w is never 1e1")])
def test_explain_why_of_a_text_takes_it_as_written(capsys, tmp_path, written, told):
    rules = tmp_path / "words.rules"
    rules.write_text('outcome w: text = ""\naction go() { w = if chance(1/2) then "two words" else "one" }\n')
    assert main(["explain", str(rules), "--why", f"w={written}"]) == 2
    assert f"--why: {told}; its values are: " in capsys.readouterr().err


def test_explain_why_of_a_word_for_a_number_says_it_is_not_one(capsys):
    assert main(["explain", EPI, CITY, "--why", "figures_lost=abc"]) == 2
    assert "--why: 'abc' is not a number, and figures_lost is one; its values are: 1, 2, 3" in capsys.readouterr().err


@pytest.mark.parametrize("written, told", [
    ("figures_lost == 2", "--why explains one value of an outcome, written NAME=VALUE: --why figures_lost=2"),
    ("figures_lost>=2", "--why explains one value of an outcome, written NAME=VALUE, not a comparison ('>='): "
                        "--why figures_lost=2 explains that value")])
def test_explain_why_of_a_condition_shows_the_one_value_it_takes(capsys, written, told):
    assert main(["explain", EPI, CITY, "--why", written]) == 2
    assert told in capsys.readouterr().err


@pytest.mark.parametrize("written, told", [
    ("bogus", "--why: 'bogus' is no value of side; its values are: red, blue (and green, which it never is here)"),
    ("blu", "--why: 'blu' is no value of side; did you mean 'blue'? its values are: red, blue (and green, which it "
            "never is here)"),
    ("green", "--why: winner is never green; its values are: red, blue"),
    ("gren", "--why: 'gren' is no value of side; did you mean 'green'? its values are: red, blue (and green, which "
             "it never is here)"),
])
def test_explain_why_of_an_enum_value_names_the_values_it_may_be(capsys, tmp_path, written, told):
    rules = tmp_path / "toss.rules"
    rules.write_text("enum side { red blue green }\noutcome winner: side = red\n"
                     "action toss() { winner = if chance(1/2) then red else blue }\n")
    assert main(["explain", str(rules), "--why", f"winner={written}"]) == 2
    assert told in capsys.readouterr().err


def test_explain_why_without_a_value_asks_for_one_before_any_work(capsys, monkeypatch):
    monkeypatch.setattr(api, "exact", lambda *args, **kwargs: pytest.fail("the exact engine ran"))
    assert main(["explain", EPI, CITY, "--why", "figures_lost="]) == 2
    assert "--why figures_lost=: give the value of figures_lost after '=', as in --why figures_lost=3" in (
        capsys.readouterr().err)
    assert main(["explain", EPI, CITY, "--why", "tile_destroyed="]) == 2
    assert "as in --why tile_destroyed=true" in capsys.readouterr().err


def test_explain_why_of_a_text_without_a_value_names_the_values_the_run_gives(capsys):
    exalted = str(ROOT / "rules" / "exalted-war.rules")
    attack = str(ROOT / "rules" / "scenarios" / "exalted-commander-attack.toml")
    assert main(["explain", exalted, attack, "--why", "ended="]) == 2
    assert ('--why ended=: give the value of ended after \'=\', as in --why "ended=the attack misses"; its values '
            'are: "", the attack misses') in capsys.readouterr().err


def test_explain_why_of_an_unknown_outcome_is_refused_before_any_work(capsys, monkeypatch):
    monkeypatch.setattr(api, "exact", lambda *args, **kwargs: pytest.fail("the exact engine ran"))
    assert main(["explain", EPI, CITY, "--why", "figure_lost=2"]) == 2
    assert "unknown outcome 'figure_lost'; did you mean 'figures_lost'?" in capsys.readouterr().err


def test_explain_why_stopped_where_the_scenario_never_stops_says_so(capsys):
    weewar = str(ROOT / "rules" / "weewar.rules")
    assert main(["explain", weewar, str(ROOT / "rules" / "scenarios" / "weewar-tank-ganging-up.toml"),
                 "--why", "stopped=x"]) == 2
    assert "--why stopped: no resolution of this scenario stops early" in capsys.readouterr().err


def test_explain_why_stopped_where_the_rules_never_stop_says_so_before_any_work(capsys, monkeypatch):
    monkeypatch.setattr(api, "exact", lambda *args, **kwargs: pytest.fail("the exact engine ran"))
    assert main(["explain", EPI, CITY, "--why", "stopped=x"]) == 2
    assert "--why stopped: these rules never stop a resolution early (they have no 'stop')" in capsys.readouterr().err


def test_explain_why_stopped_without_a_value_offers_a_reason_the_scenario_stops_for(capsys):
    exalted = [str(ROOT / "rules" / "exalted-war.rules"), str(ROOT / "rules" / "scenarios" / "exalted-commander-attack.toml")]
    assert main(["explain", *exalted, "--why", "stopped="]) == 2
    assert ('as in --why "stopped=the attack\'s cycle of War Events has ended"; its values are: "", the attack\'s '
            'cycle of War Events has ended') in capsys.readouterr().err


def test_explain_why_stopped_without_a_value_says_so_where_the_scenario_never_stops(capsys, tmp_path):
    # The rules may stop, this scenario never does: no reason to offer, which --why would then refuse.
    rules, scenario = tmp_path / "stop.rules", tmp_path / "stop.toml"
    rules.write_text('rules "s"\nparam low = 0\noutcome x: int = 0\naction go() {\n    x = roll(1, 6)\n'
                     '    if x <= low { stop "not allowed" }\n}\n')
    scenario.write_text('action = "go"\n')
    assert main(["explain", str(rules), str(scenario), "--why", "stopped="]) == 2
    assert "--why stopped: no resolution of this scenario stops early; the outcomes are: x" in capsys.readouterr().err


@pytest.mark.parametrize("written", ["3e0", "1e999999999", "0.3e1"])
def test_explain_why_of_a_number_written_with_an_exponent_is_refused_at_once(capsys, written):
    # As in a scenario: no exponent, which could take minutes to make exact (1e999999999 ran away).
    assert main(["explain", EPI, CITY, "--why", f"figures_lost={written}"]) == 2
    assert f"'{written}': a number is written without an exponent; its values are: 1, 2, 3" in capsys.readouterr().err


def test_plot_of_every_option_of_a_choice_where_one_never_stops(tmp_path, capsys):
    # An option that never stops has no `stopped` outcome: drawn as always "", as the table shows it.
    picture = tmp_path / "responses.png"
    scenario = str(ROOT / "rules" / "scenarios" / "exalted-commander-attack.toml")
    assert main(["odds", str(ROOT / "rules" / "exalted-war.rules"), scenario, "--each-choice", "defender_response",
                 "--plot", str(picture)]) == 0
    assert png_size(picture)[0] >= 400


def test_plot_of_two_rules_where_only_the_first_declares_an_outcome(tmp_path, capsys):
    risk = ROOT / "rules" / "risk.rules"
    (tmp_path / "risk.rules").write_text(risk.read_text())
    variant = tmp_path / "variant.rules"
    variant.write_text('rules "a roll more"\nextends "risk.rules"\noutcome extra: int = 0\n'
                       "override action battle(attack: army, defence: army) {\n"
                       "    while attack.armies > 1 and defence.armies > 0 {\n        exchange(attack, defence)\n    }\n"
                       "    attackers_left = attack.armies\n    extra = 1d2\n}\n")
    picture = tmp_path / "two.png"
    scenario = str(ROOT / "rules" / "scenarios" / "risk-ten-against-ten.toml")
    assert main(["odds", str(variant), str(risk), scenario, "--plot", str(picture)]) == 0
    assert png_size(picture)[0] >= 400


def test_a_picture_named_with_a_newline_is_told_on_one_line(tmp_path, capsys):
    picture = tmp_path / "a\nb.png"
    assert main(["odds", EPI, CITY, "--plot", str(picture)]) == 0
    assert capsys.readouterr().err == f"wrote {tmp_path}/a\\x0ab.png\n"


def test_a_run_s_state_has_no_line_ending_in_blanks(capsys):
    assert main(["run", EPI, CITY, "--seed", "1"]) == 0
    assert [line for line in capsys.readouterr().out.splitlines() if line != line.rstrip()] == []


def test_one_final_state_and_one_event_are_counted_in_the_singular(capsys, tmp_path):
    rules, scenario = tmp_path / "one.rules", tmp_path / "one.toml"
    rules.write_text('rules "one"\noutcome x: int = 0\naction go() { x = 1 }\n')
    scenario.write_text('action = "go"\n')
    assert main(["odds", str(rules), str(scenario)]) == 0
    assert capsys.readouterr().out.startswith("go (exact, 1 final state)\n")
    assert main(["explain", str(rules), str(scenario)]) == 0
    assert capsys.readouterr().out.startswith("go (seed 0): 1 event\n")


def test_explain_says_stop_once_before_its_reason(capsys, tmp_path):
    rules, scenario = tmp_path / "stop.rules", tmp_path / "stop.toml"
    rules.write_text('rules "s"\noutcome x: int = 0\naction go() {\n    stop "not allowed: the odds are too low"\n}\n')
    scenario.write_text('action = "go"\n')
    assert main(["explain", str(rules), str(scenario)]) == 0
    assert "stop     not allowed: the odds are too low\n" in capsys.readouterr().out


@pytest.mark.parametrize("value, shown", [(0.9997, "0.9997"), (0.00004, "4e-05"), (12.0003, "12.0003"), (1.0, "1"),
                                          (0.5, "0.5"), (0.123456, "0.123"), (3.0, "3"), (0.99999999, "0.99999999"),
                                          (float("inf"), "inf"), (float("nan"), "nan"), (1e300, "1e+300")])
def test_a_heatmap_cell_never_shows_a_value_that_is_not_whole_as_whole(value, shown):
    assert plots.cell_text(value) == shown


def test_each_choice_says_so_when_every_option_gives_the_same_odds(tmp_path, capsys):
    rules = tmp_path / "unread.rules"
    rules.write_text('choice careful: bool = false "never read"\noutcome hit: bool = false\n'
                     "action shoot() { hit = chance(1/2) }\n")
    assert main(["odds", str(rules), "--each-choice", "careful"]) == 0
    assert capsys.readouterr().out.rstrip().endswith(
        "every option of 'careful' gives the same odds here: shoot and the steps it runs may not read it")


def test_each_choice_says_nothing_more_when_the_options_differ(tmp_path, capsys):
    rules = tmp_path / "read.rules"
    rules.write_text('choice careful: bool = false "aim"\noutcome hit: bool = false\n'
                     "action shoot() { hit = chance(if careful then 3/4 else 1/2) }\n")
    assert main(["odds", str(rules), "--each-choice", "careful"]) == 0
    assert "gives the same odds" not in capsys.readouterr().out


NESTED = ("kind inner { hp: int = 2  tags: list of int = [1, 2, 3] }\n"
          "kind outer { a: inner = {}  xs: list of int = [1, 2, 3] }\noutcome o: int = 0\n"
          "action go(w: outer = {}) {\n    let r = 1d3\n    if r == 1 { w.a.hp -= 1 }\n"
          "    if r == 2 { w.xs = [2, 1] }\n    if r == 3 { w.xs = [1, 2] }\n    o = 1\n}\n")


def test_explain_why_shows_a_list_whose_items_moved_whole(capsys, tmp_path):
    (tmp_path / "n.rules").write_text(NESTED)
    assert main(["explain", str(tmp_path / "n.rules"), "--why", "o=1"]) == 0
    out = capsys.readouterr().out
    assert "     w.xs = [2, 1]\n" in out and "     w.xs: 3 taken out (1 of its 3 items)\n" in out


def test_explain_why_shows_a_field_of_a_thing_within_a_thing_as_it_began(capsys, tmp_path):
    (tmp_path / "n.rules").write_text(NESTED)
    assert main(["explain", str(tmp_path / "n.rules"), "--why", "o=1"]) == 0
    assert "     as they began: w.a.hp = 2\n" in capsys.readouterr().out


def test_explain_of_one_run_lists_the_outcomes_its_action_never_sets_apart(capsys):
    assert main(["explain", str(ROOT / "rules" / "risk.rules"),
                 str(ROOT / "rules" / "scenarios" / "risk-ten-against-ten.toml")]) == 0
    lines = capsys.readouterr().out.rstrip().splitlines()
    assert lines[-1] == "not set by battle: attacker_lost = 0, defender_lost = 0"
    assert "attacker_lost" not in lines[-2]


@pytest.mark.parametrize("faces, told", [(6, "... and 1 more way, "), (7, "... and 2 more ways, ")])
def test_explain_why_counts_the_ways_left_out_in_the_singular_or_the_plural(capsys, tmp_path, faces, told):
    rules = tmp_path / "die.rules"
    rules.write_text(f"outcome big: bool = false\naction go() {{\n    let face = roll(1, {faces})\n"
                     "    big = face > 0\n}\n")
    assert main(["explain", str(rules), "--why", "big=true"]) == 0
    assert told in capsys.readouterr().out


def test_a_plot_draws_at_least_as_steps_that_hold_between_values(tmp_path, monkeypatch):
    axis = drawn_plot(tmp_path, monkeypatch, "dealt = if chance(1/2) then 0 else 9 + roll(1, 3)")
    [curve] = axis.get_lines()
    assert curve.get_drawstyle() == "steps-pre"  # P(dealt >= 5) is P(dealt >= 10): level from 0 to 10


def test_a_plot_of_numbers_too_far_apart_for_their_bars_places_them_one_step_apart(tmp_path, monkeypatch):
    axis = drawn_plot(tmp_path, monkeypatch, "dealt = if chance(1/2) then 10000 else roll(1, 2) - 1")
    assert [label.get_text() for label in axis.get_xticklabels()] == ["0", "1", "10000"]
    assert sorted(bar.get_x() + bar.get_width() / 2 for bar in axis.patches) == [0, 1, 2]


def test_explain_why_of_an_unknown_outcome_lists_stopped_where_the_rules_stop(capsys, tmp_path):
    rules = tmp_path / "stops.rules"
    rules.write_text('outcome hit: bool = false\naction go() {\n    if chance(1/2) { stop "missed" }\n    hit = true\n}\n')
    assert main(["explain", str(rules), "--why", "nosuch=1"]) == 2
    assert "--why: unknown outcome 'nosuch'; the outcomes are: hit, stopped" in capsys.readouterr().err


def test_a_plot_of_many_numbers_side_by_side_places_them_at_their_own_places(tmp_path, monkeypatch):
    axis = drawn_plot(tmp_path, monkeypatch, "dealt = roll(3, 100)")
    centres = sorted(bar.get_x() + bar.get_width() / 2 for bar in axis.patches)
    assert (centres[0], centres[-1], len(centres)) == (3, 300, 298)
