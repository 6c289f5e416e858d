"""The `fracas` command: check, run, odds and test rules files.

Exit codes: 0 success, 1 an example failed, 2 the input was wrong (rules,
scenario or flags). Every error a user can cause is printed as a located
message; none is a Python traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from fractions import Fraction
from typing import Any, NoReturn

from fracas import dsl
from fracas.dsl import nodes as n
from fracas.dsl.diagnostics import Diagnostic, RulesError, did_you_mean, listed, printable
from fracas.dsl.records import replace
from fracas.dsl.resources import shipped_rules_dir
from fracas.dsl.walk import descendants
from fracas.interpreter import api
from fracas.interpreter.tools import report
from fracas.interpreter.api import ScenarioError, as_float, exact_text, show_plain
from fracas.dsl.limits import DEFAULT as DEFAULT_LIMITS
from fracas.dsl.limits import Limits
from fracas.interpreter.tools.examples import check_problems, run_examples
from fracas.interpreter.tools.plots import FORMATS as PICTURE_FORMATS
from fracas.interpreter.tools.plots import PlotUnavailable, picture_format, plot_distributions, plot_heatmap
from fracas.interpreter.tools.files import not_a_regular_file, write_text_atomically
from fracas.interpreter.tools.scenario import combine, dump_state, load_scenario, parse_assignment
from fracas.interpreter.tools.words import counted

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 70, 130


class UsageError(Exception):
    pass


class _Version(argparse.Action):
    """--version, reading the installed version only when asked: importlib.metadata is slow to import."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *args: Any) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            found = version("fracas")
        except PackageNotFoundError:  # run from a checkout that was never installed
            found = "(not installed)"
        print(f"fracas {found}")
        parser.exit()


def _parser() -> argparse.ArgumentParser:
    limits = argparse.ArgumentParser(add_help=False)
    limits.add_argument("--limit", action="append", default=[], metavar="NAME=N",
                        help="raise (or lower) a safety limit; names: " + ", ".join(
                            f"{name} (default {getattr(DEFAULT_LIMITS, name)})" for name in Limits.names()))
    parser = argparse.ArgumentParser(
        prog="fracas",
        description="Combat rules as data: check rules files, resolve attacks, see exact odds, run the examples.",
        epilog="Exit codes: 0 success, 1 an example failed, 2 bad rules, scenario or flags, 70 a bug in fracas.",
    )
    parser.add_argument("--version", action=_Version, help="print fracas's version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    check = sub.add_parser("check", parents=[limits], help="check rules files and report every problem",
                           description="Parse and check rules files; print every problem with its location. Nothing is "
                                       "resolved: what only a run meets (a row's field changed through a step's "
                                       "parameter, a division by zero) is found by 'fracas test', which runs the "
                                       "examples.")
    check.add_argument("files", nargs="+", metavar="FILE", help="rules files to check")
    check.add_argument("--json", action="store_true", help="print the diagnostics as JSON")

    def action_arg(p: argparse.ArgumentParser) -> None:
        p.add_argument("--action", metavar="NAME",
                       help="the action to resolve, in place of the one the scenario names (default: the scenario's, "
                            "else the rules' first)")

    def scenario_args(p: argparse.ArgumentParser, compare: bool = False) -> None:
        if compare:
            p.add_argument("rules", metavar="RULES", nargs="+",
                           help="the rules file; give two (a base and a variant) to see them side by side")
        else:
            p.add_argument("rules", metavar="RULES", help="the rules file")
        p.add_argument("scenario", metavar="SCENARIO", nargs="?",
                       help="a scenario file (TOML): action, params and inputs"
                       + ("; or a state file and the files that act on it, as run takes them" if compare else "")
                       + NO_SCENARIO_HELP)
        p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                       help="override a parameter of the rules (repeatable)")
        p.add_argument("--choose", action="append", default=[], metavar="NAME=OPTION",
                       help="make a player's choice declared by the rules (repeatable)")
        action_arg(p)

    run = sub.add_parser("run", parents=[limits], help="resolve a scenario once, sampled with a seed",
                         description="Resolve a scenario once: the events in order, the outcomes, the new state. "
                                     "Give a state file (a ship sheet) and then the files that act on it to play "
                                     "a battle file by file; --write-state writes the state alone.")
    run.add_argument("rules", metavar="RULES", help="the rules file")
    run.add_argument("scenario", metavar="SCENARIO", nargs="*",
                     help="a scenario file (TOML); or a state file followed by action files" + NO_SCENARIO_HELP)
    run.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                     help="override a parameter of the rules (repeatable)")
    run.add_argument("--choose", action="append", default=[], metavar="NAME=OPTION",
                     help="make a player's choice declared by the rules (repeatable)")
    action_arg(run)
    run.add_argument("--seed", type=int, default=0, help="seed of the random generator (default 0)")
    output = run.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print outcomes, events and state as JSON")
    output.add_argument("--toml", action="store_true", help="print only the new state, as TOML")
    run.add_argument("--write-state", metavar="FILE", help="write the new state to FILE (TOML), atomically")

    explain = sub.add_parser("explain", parents=[limits], help="one sampled resolution, explained rule by rule",
                             description="Resolve a scenario once and show every step entered (its events indented "
                                         "under it), every local named, every roll, every body made "
                                         "(with the modifiers that changed it), every shot, early exit and change, "
                                         "each with the file, line and text of the rule that caused it.")
    explain.add_argument("rules", metavar="RULES", help="the rules file")
    explain.add_argument("scenario", metavar="SCENARIO", nargs="*",
                         help="a scenario file (TOML), or a state file and action files" + NO_SCENARIO_HELP)
    explain.add_argument("--seed", type=int, default=0, help="seed of the random generator (default 0)")
    explain.add_argument("--why", metavar="NAME=VALUE",
                         help="instead of one run: the main ways the exact engine finds to that outcome, "
                              "with their probabilities")
    explain.add_argument("--fractions", action="store_true",
                         help="with --why: every exact probability whole, however long (without it, one longer than "
                              "30 characters is left to its percentage)")
    explain.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="override a parameter")
    explain.add_argument("--choose", action="append", default=[], metavar="NAME=OPTION", help="make a player's choice")
    action_arg(explain)

    odds = sub.add_parser("odds", parents=[limits], help="the exact distribution of every outcome",
                          description="The exact distribution of every declared outcome, with means and "
                                      "'at least' probabilities; or an estimate from --samples runs. "
                                      "With two rules files, the two distributions side by side.")
    scenario_args(odds, compare=True)
    printed = odds.add_mutually_exclusive_group()  # one way to print them
    printed.add_argument("--json", action="store_true", help="print the distributions as JSON (exact fractions)")
    odds.add_argument("--fractions", action="store_true", help="show exact fractions beside percentages")
    odds.add_argument("--samples", type=int, metavar="N",
                      help="estimate from N sampled runs instead of computing exactly")
    odds.add_argument("--seed", type=int, help="seed for --samples (default 0)")
    odds.add_argument("--jobs", type=int, metavar="N",
                      help="worker processes for --samples (default: every core; the result is the same for any N)")
    odds.add_argument("--each-choice", metavar="NAME",
                      help="the odds for every option of a choice, side by side")
    odds.add_argument("--joint", metavar="DOWN,ACROSS",
                      help="end the table with the joint distribution of these two outcomes, as a grid (without it, "
                           "of the two that vary, when only two do; --json always holds the whole joint)")
    printed.add_argument("--csv", action="store_true", help="print the distributions as CSV, for spreadsheets")
    odds.add_argument("--plot", metavar="FILE.png",
                      help="draw the distributions and 'at least' curves, as .png, .svg or .pdf by the suffix "
                           "(needs matplotlib: fracas[plot])")
    odds.add_argument("--max-states", type=int, metavar="N",
                      help=f"stop the exact engine beyond N states (the same as --limit states=N; "
                           f"default {DEFAULT_LIMITS.states})")

    sweep_ = sub.add_parser("sweep", parents=[limits], help="one metric over every combination of varied values",
                            description="The balance matrix: vary scenario values (PATH=V1,V2,... where PATH is "
                                        "like target.type, attackers[*].type, params.NAME or choices.NAME), compute "
                                        "a metric for every combination, exactly where possible and by sampling "
                                        "(with 95% intervals, marked ~) where not. Cases run in parallel.")
    sweep_.add_argument("rules", metavar="RULES", help="the rules file")
    sweep_.add_argument("scenario", metavar="SCENARIO", nargs="?", help="the base scenario (TOML)" + NO_SCENARIO_HELP)
    sweep_.add_argument("--vary", action="append", required=True, metavar="PATH=V1,V2,...",
                        help="a value to vary and its values (repeatable; two make a matrix)")
    sweep_.add_argument("--metric", metavar="EXPR",
                        help="an expression of the rules language over the outcomes, like 'mean(figures_lost)' or "
                             "'prob(units_killed > 0)'; one without prob, mean, always, never or possible is its "
                             "mean, or for a condition its probability (default: the mean of the first outcome)")
    sweep_.add_argument("--samples", type=int, default=2000, metavar="N",
                        help="runs to estimate a case too large to compute exactly (default 2000)")
    sweep_.add_argument("--jobs", type=int, metavar="N", help="worker processes (default: every core)")
    sweep_.add_argument("--csv", action="store_true", help="print the cases as CSV")
    sweep_.add_argument("--plot", metavar="FILE.png",
                        help="draw the matrix as a heatmap, as .png, .svg or .pdf by the suffix (needs matplotlib)")
    sweep_.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="override a parameter")
    sweep_.add_argument("--choose", action="append", default=[], metavar="NAME=OPTION", help="make a player's choice")
    action_arg(sweep_)

    diff = sub.add_parser("diff", parents=[limits], help="what a variant changes from its base",
                          description="List the parameters, rows, kinds, modifiers, functions, steps and actions "
                                      "that differ between two rules files, with their lines.")
    diff.add_argument("base", metavar="BASE", help="the base rules file")
    diff.add_argument("variant", metavar="VARIANT", help="the variant (or any other rules file)")
    diff.add_argument("--json", action="store_true", help="print the changes as JSON")

    test = sub.add_parser("test", parents=[limits], help="run the examples of rules files",
                          description="Run every example block; one PASS or FAIL line each.")
    test.add_argument("files", nargs="*", metavar="FILE", help="rules files (default: every shipped rules file)")
    test.add_argument("--json", action="store_true",
                      help="print each example's result, the counts and any problems of the files as JSON")

    fmt = sub.add_parser("fmt", parents=[limits], help="rewrite rules files in the one canonical layout",
                         description="Rewrite rules files in place in the canonical layout (indentation, spaces, "
                                     "aligned rows, tables and comments), keeping every comment and blank line "
                                     "group, and the wider gaps that group an example's forced rolls; a file "
                                     "already formatted is left untouched. '-' formats the standard "
                                     "input to the standard output.")
    fmt.add_argument("files", nargs="+", metavar="FILE", help="rules files to format, or '-'")
    fmt.add_argument("--check", action="store_true",
                     help="write nothing; show the diff of each file that would change, and exit 1 if any would")

    lsp = sub.add_parser("lsp", parents=[limits], help="run the language server for editors (on stdin and stdout)",
                         description="A Language Server Protocol server over stdin and stdout, for editors: "
                                     "diagnostics, hover, definitions, references, completion, outline, examples "
                                     "run in place, formatting. Needs the optional extra: pip install 'fracas[lsp]'.")
    lsp.add_argument("--stdio", action="store_true", help="talk over stdin and stdout (the default; for clients "
                                                           "that pass it)")
    return parser


def _parsed(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line, its files wherever the flags fall among them (fracas odds r.rules --json s.toml).

    argparse settles a command's files at the first flag when the last of them may be left out (a scenario, a
    list of files): the files after the flag are handed back unread, and are put where they belong here.
    """
    parser = _parser()
    args, extra = parser.parse_known_args(argv)
    if not extra:
        return args
    files = "files" if args.command in ("check", "test", "fmt") else "scenario"  # where the leftovers go
    if any(text.startswith("-") and text != "-" for text in extra) or args.command not in (
            "check", "test", "fmt", "odds", "run", "explain", "sweep"):
        _unrecognized(parser, args.command, extra)
    if args.command == "odds":  # every file after the rules is sorted out as when none came after a flag
        args.rules, args.scenario = [*args.rules, *([args.scenario] if args.scenario else []), *extra], None
    elif args.command == "sweep":
        if args.scenario is not None or len(extra) > 1:
            _unrecognized(parser, args.command, extra)
        args.scenario = extra[0]
    else:
        setattr(args, files, [*getattr(args, files), *extra])
    return args


def _unrecognized(parser: argparse.ArgumentParser, command: str, extra: list[str]) -> NoReturn:
    """Arguments the command does not take, told with its own usage, and the flag meant where one is close."""
    [commands] = [action for action in parser._actions if isinstance(action, argparse._SubParsersAction)]
    own = commands.choices[command]
    flags = [flag for flag in own._option_string_actions if flag.startswith("--")]
    meant = [hint for text in extra if text.startswith("--")
             and (hint := did_you_mean(text.split("=")[0], flags))]
    own.error(f"unrecognized arguments: {' '.join(extra)}" + (f" ({'; '.join(meant)})" if meant else ""))


def main(argv: Sequence[str] | None = None) -> int:
    args = _parsed(argv)
    try:
        code = COMMANDS[args.command](args)
        sys.stdout.flush()  # here, so that a full disk or a closed pipe is reported like any error
        return code
    except (RulesError, ScenarioError) as error:
        _print_diagnostics(error.diagnostics, getattr(args, "json", False))
        return EXIT_USAGE
    except UsageError as error:
        if getattr(args, "json", False):  # a machine reading --json reads every refusal the same way
            _print_diagnostics([Diagnostic("command line", 0, 0, str(error))], True)
        else:
            _show(f"fracas: error: {error}", error=True)
        return EXIT_USAGE
    except KeyboardInterrupt:
        _progress.end()
        print("fracas: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (fracas odds ... | head): stop quietly, as Unix tools do.
        sys.stdout = open(os.devnull, "w")
        return EXIT_OK
    except OSError as error:  # the output cannot be written (a full disk, say)
        sys.stdout = open(os.devnull, "w")
        print(f"fracas: error: cannot write the output: {error.strerror or error}", file=sys.stderr)
        return EXIT_USAGE
    except RecursionError:
        print("fracas: error: the input nests too deeply to process", file=sys.stderr)
        return EXIT_USAGE
    except Exception as error:  # a bug in fracas: say so plainly instead of a traceback
        _show(f"fracas: internal error: {type(error).__name__}: {error}\n"
              "This is a bug in fracas, not in your rules; please report it with the files you used.",
              error=True)
        return EXIT_INTERNAL


def _show(text: str, end: str = "\n", error: bool = False) -> None:
    """Print text for a person: control characters from the inputs shown escaped, never obeyed by the terminal."""
    print(printable(text), end=end, file=sys.stderr if error else sys.stdout)


def _print_diagnostics(diagnostics: Sequence[Diagnostic], as_json: bool = False) -> None:
    errors = sum(1 for d in diagnostics if d.severity == "error")
    if as_json:
        print(json.dumps({"ok": not errors, "diagnostics": [d.as_dict() for d in diagnostics]}, indent=2))
        return
    for diagnostic in diagnostics:
        print(diagnostic.format(), file=sys.stderr)
    warnings = len(diagnostics) - errors
    counts = [counted(count, what) for count, what in ((errors, "error"), (warnings, "warning")) if count or what == "error"]
    print(", ".join(counts) if errors or not warnings else counts[-1], file=sys.stderr)


def _assignments(flag: str, assignments: list[str]) -> dict[str, Any]:
    values = {}
    for text in assignments:
        try:
            name, value = parse_assignment(text)
        except ValueError as error:
            raise UsageError(f"{flag}: {error}") from None
        values[name] = value
    return values


def _limits(args: argparse.Namespace) -> Limits:
    changes = _assignments("--limit", args.limit)
    for name, value in changes.items():
        if name not in Limits.names():
            raise UsageError(f"--limit: unknown limit '{name}'; the limits are: {', '.join(Limits.names())}")
        if isinstance(value, float) and value.is_integer():  # 1e9, as --set takes it for a whole number
            value = changes[name] = int(value)
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise UsageError(f"--limit {name}: expected a positive whole number, not {value!r}")
    try:
        return replace(DEFAULT_LIMITS, **changes)
    except ValueError as error:
        raise UsageError(f"--limit: {error}") from None


# With no scenario file: the rules' first action, its inputs and the parameters as the rules give them.
NO_SCENARIO = api.Scenario(None, {}, path="(no scenario file)")
NO_SCENARIO_HELP = "; left out, the rules' first action runs with its inputs' defaults"


def _rules(args: argparse.Namespace, path: str | Path) -> dsl.Ruleset:
    if _is_scenario_file(path) and Path(path).exists():  # read as rules, it would fail at its first '=' or '['
        told = f"{path} is a scenario file (TOML) where a rules file is wanted"
        if args.command in ("run", "explain", "odds", "sweep"):
            told += ": the rules file comes first, then the scenario files"
        raise UsageError(told)
    return dsl.load(path, _limits(args))


def _is_scenario_file(path: str | Path) -> bool:
    return str(path).lower().endswith(".toml")


def _scenarios_among_rules(args: argparse.Namespace) -> None:
    """odds RULES STATE ACTION...: the TOML files after the rules files are scenario files too, a state file and
    the files that act on it, as run and explain take them. The scenario may be left out (argparse then gives
    every file to the rules): the last file given is the scenario unless it is a rules file, or the only file."""
    if args.scenario is None and len(args.rules) > 1 and not _is_rules_file(args.rules[-1]):
        args.rules, args.scenario = args.rules[:-1], args.rules[-1]
    first = next((i for i, path in enumerate(args.rules) if _is_scenario_file(path)), None)
    if not first:  # none, or the first file given: loading it as the rules says what it is
        return
    args.rules, args.scenario = args.rules[:first], [*args.rules[first:], *_scenario_files(args)]


def _is_rules_file(path: str | Path) -> bool:
    return str(path).lower().endswith(".rules")


def _scenario_files(args: argparse.Namespace) -> list[str]:
    """The scenario files given: one, several (a state file and the files that act on it) or none."""
    if args.scenario is None:
        return []
    return args.scenario if isinstance(args.scenario, list) else [args.scenario]


def _load(args: argparse.Namespace, rules_path: str | None = None) -> tuple[dsl.Ruleset, api.Scenario]:
    rules = _rules(args, rules_path or args.rules)
    files = _scenario_files(args)
    scenario = combine([load_scenario(path, _limits(args)) for path in files]) if files else NO_SCENARIO
    # --set and --choose are checked like the scenario's own [params] and [choices] tables,
    # and a problem with one names the flag.
    params = {**scenario.params, **_assignments("--set", args.set)}
    choices = {**scenario.choices, **_assignments("--choose", args.choose)}
    flags = {f"{table}.{text.partition('=')[0].strip()}": f"{flag} {text}"
             for flag, table, given in (("--set", "params", args.set), ("--choose", "choices", args.choose))
             for text in given}
    action = scenario.action
    if args.action is not None:  # in place of the scenario's: the inputs it gives must still be the action's
        action, flags["action"] = args.action, f"--action {args.action}"
    return rules, replace(scenario, action=action, params=params, choices=choices, flags=flags)


def cmd_check(args: argparse.Namespace) -> int:
    problems: list[Diagnostic] = []
    for file in args.files:
        try:
            rules = _rules(args, file)
        except RulesError as error:
            problems.extend(error.diagnostics)
            continue
        found = check_problems(rules)  # warnings; rows, parameters or examples' inputs that break a constraint
        problems.extend(found)
        if any(d.severity == "error" for d in found):
            continue
        if not args.json:
            _show(f"{file}: ok ({counted(len(rules.actions), 'action')}, {counted(len(rules.examples), 'example')})")
    if problems or args.json:
        _print_diagnostics(problems, args.json)
    return EXIT_USAGE if any(d.severity == "error" for d in problems) else EXIT_OK


def _output(flag: str, name: str | None, args: argparse.Namespace, rules: list[dsl.Ruleset]) -> Path | None:
    """Where a flag asks fracas to write, checked before any work: never over a file it reads."""
    if name is None:
        return None
    if not name.strip():
        raise UsageError(f"{flag} needs a file name")
    if name.endswith(("/", os.sep)):  # Path would drop the slash, and write a file by the folder's name
        raise UsageError(f"{flag} {name} names a folder; give a file name")
    target = Path(name)
    scenarios = _scenario_files(args)
    rules_files = args.rules if isinstance(args.rules, list) else [args.rules]
    # The files each ruleset extends are inputs too.
    inputs = [*scenarios, *rules_files, *(source for r in rules for source in r.sources)]
    if target.resolve() in {Path(p).resolve() for p in inputs}:
        raise UsageError(f"{flag} {target} would overwrite an input file; choose another name")
    linked = next((p for p in inputs if _same_file(target, p)), None)
    if linked is not None:  # a hard link: another name for the same file
        raise UsageError(f"{flag} {target} would overwrite an input file: it is a link to {linked}; "
                         "choose another name")
    if flag == "--plot" and picture_format(target) is None:
        kinds = [f".{kind}" for kind in PICTURE_FORMATS]
        raise UsageError(f"--plot {target}: name a {', '.join(kinds[:-1])} or {kinds[-1]} file "
                         "(its suffix chooses the picture's format)")
    refused = not_a_regular_file(target)
    if refused == "a folder":
        raise UsageError(f"{flag} {target} is a folder; give a file name")
    if refused is not None:
        instead = "; print the state with --toml instead" if flag == "--write-state" else ""
        raise UsageError(f"{flag} {target} is {refused}, not a regular file: fracas writes only regular files"
                         + instead)
    return target


def _same_file(a: Path, b: str | Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # either is missing: then they are not one file
        return False


def _writing(target: Path, write: Callable[[], None], told: bool = False) -> None:
    """told: say on stderr what was written (a picture), its name on one line whatever it holds."""
    try:
        write()
    except PlotUnavailable as error:
        raise UsageError(str(error)) from None
    except OSError as error:
        raise UsageError(f"cannot write {target}: {error.strerror or error}") from None
    if told:
        _show(f"wrote {printable(str(target), lines=False)}", error=True)


def cmd_run(args: argparse.Namespace) -> int:
    rules, scenario = _load(args)
    target = _output("--write-state", args.write_state, args, [rules])
    result = api.sample(rules, scenario, seed=args.seed)
    try:
        state: str | ScenarioError = dump_state(result.new_state())
    except ScenarioError as error:
        if target is not None or args.toml:  # the state is what was asked for
            raise
        state = error  # shown for what it is; the run's events and outcomes stand
    if target is not None:
        _writing(target, lambda: write_text_atomically(target, state))  # type: ignore[arg-type]
    if args.json:
        print(json.dumps(result.as_json(), indent=2))
    elif args.toml:
        print(state, end="")
    else:
        _show(report.run_text(result, state))
    return EXIT_OK


def cmd_explain(args: argparse.Namespace) -> int:
    rules, scenario = _load(args)
    if args.why:
        compared = re.fullmatch(r"\s*([A-Za-z_][\w.]*)\s*(==|!=|>=|<=|>|<)\s*(.*)", args.why)
        if compared is not None:  # a condition: --why explains one value of one outcome
            name, op, value = compared.groups()
            one = f"{name}={value.strip() or 'VALUE'}"
            raise UsageError(f"--why explains one value of an outcome, written NAME=VALUE: --why {one}"
                             if op == "==" else f"--why explains one value of an outcome, written NAME=VALUE, "
                             f"not a comparison ('{op}'): --why {one} explains that value")
        try:
            name, _ = parse_assignment(args.why)
        except ValueError as error:
            raise UsageError(f"--why: {error}") from None
        written = args.why.partition("=")[2].strip()
        # What can be told before the exact run, which may be long, is told first.
        reasons = _stop_reasons(rules)
        if name not in rules.outcomes and name != "stopped":
            told = [*rules.outcomes, *(["stopped"] if reasons else [])]  # why a run stopped is asked of as one too
            raise UsageError(f"--why: unknown outcome '{name}'; "
                             + (did_you_mean(name, told) or "the outcomes are: " + ", ".join(told)))
        if name == "stopped" and not reasons:
            raise UsageError("--why stopped: these rules never stop a resolution early (they have no 'stop'); "
                             "the outcomes are: " + ", ".join(rules.outcomes))
        if not written:
            outcome = rules.outcomes.get(name)
            example = None if outcome is None else {"bool": "true", "int": "3", "number": "3"}.get(outcome.type.name)
            values = ""
            if example is None:  # a text, a row or a stop's reason: only the run knows which, so it runs to name them
                dist = api.exact(rules, scenario)
                if name not in dist.outcome_names:
                    raise UsageError(_NEVER_STOPS + ", ".join(dist.outcome_names))
                shown = [show_plain(value) for value in dist.marginal(name)]
                example = next((text for text in shown if not text.startswith('"')), shown[0])  # one bare
                values = "; its values are: " + ", ".join(shown[:_VALUES_LISTED]) + (
                    f" and {len(shown) - _VALUES_LISTED} more" if len(shown) > _VALUES_LISTED else "")
            written_as = (f"'{name}={example}'" if '"' in example else f'"{name}={example}"' if " " in example
                          else f"{name}={example}")  # for a shell
            raise UsageError(f"--why {name}=: give the value of {name} after '=', as in --why {written_as}{values}")
        dist = api.exact(rules, scenario)
        if name not in dist.outcome_names:
            raise UsageError(_NEVER_STOPS + ", ".join(dist.outcome_names))
        found = _value_written(written, list(dist.marginal(name)))
        if found is _NOT_FOUND:
            shown = [show_plain(v) for v in dist.marginal(name)]
            declared = rules.outcomes.get(name)
            kind = None if declared is None else declared.type.name
            rows = rules.rows_of(kind) if kind is not None else []
            plain = written.strip()
            numeric = kind in ("int", "number")
            told = (f"'{written}' is no value of {kind}" if rows and written not in rows
                    else f"'{written}': a number is written without an exponent"
                    if numeric and re.fullmatch(r"[+-]?[0-9]*\.?[0-9]+[eE][+-]?[0-9]+", plain)
                    else f"'{written}' is not a number, and {name} is one"
                    if numeric and api.number_written(plain) is None and plain != "none"
                    else f"{name} is never {written}")
            # A row misspelt is offered among all of its kind's (one this scenario never reaches too); a number is not.
            meant = did_you_mean(written, rows) if rows and written not in rows else ""
            never = [row for row in rows if row not in shown and row != written]
            listed = ", ".join(shown) + (f" (and {', '.join(never)}, which it never is here)" if never else "")
            raise UsageError(f"--why: {told}; {meant + ' ' if meant else ''}its values are: {listed}")
        _show(report.why_text(dist, name, found, fractions=args.fractions))
        return EXIT_OK
    if args.fractions:
        raise UsageError("--fractions shows the exact probabilities of --why's ways: give --why NAME=VALUE too")
    _show(report.explain_text(api.sample(rules, scenario, seed=args.seed)))
    return EXIT_OK


_NOT_FOUND = object()


def _stop_reasons(rules: dsl.Ruleset) -> list[str]:
    """The reasons the rules' `stop`s give, in the order written: the values `stopped` takes but ""."""
    decls = [*rules.steps.values(), *rules.actions.values()]
    return list(dict.fromkeys(node.reason for node in descendants(tuple(decls)) if isinstance(node, n.Stop)))


_VALUES_LISTED = 8  # values of an outcome a message lists at most
_NEVER_STOPS = "--why stopped: no resolution of this scenario stops early; the outcomes are: "


def _value_written(written: str, values: list[Any]) -> Any:
    """The outcome value that `written` names: as the odds table shows it ("none", a text "none" in its quotes),
    as the same number written otherwise (1.5 for 3/2, 2/6 for 1/3), as a text in quotes, or with its spaces
    written otherwise; else _NOT_FOUND."""
    shown = {show_plain(value): value for value in values}
    for text in (written, written.lower()):  # true, or True as Python writes it
        if text in shown:
            return shown[text]
    number = api.number_written(written.strip())  # never an exponent: 1e999999999 would take minutes to make exact
    for value in values:
        if number is not None and type(value) in (int, Fraction) and value == number:
            return value
    if len(written) >= 2 and written[0] == written[-1] == '"' and written[1:-1] in shown:
        return shown[written[1:-1]]
    # A list or a record written with its spaces left out, or more of them ([2,2] for [2, 2]), where that names one;
    # never a text, whose spaces are its own.
    squeezed = "".join(written.split())
    alike = [value for text, value in shown.items()
             if not isinstance(value, str) and "".join(text.split()) == squeezed]
    return alike[0] if len(alike) == 1 else _NOT_FOUND


def _labels(paths: list[str]) -> list[str]:
    """What names each rules file in a comparison: its name without the suffix, or its path where the names
    are the same (a/x.rules against b/x.rules)."""
    stems = [Path(p).stem for p in paths]
    return stems if len(set(stems)) == len(stems) else [str(Path(p).with_suffix("")) for p in paths]


def cmd_odds(args: argparse.Namespace) -> int:
    _scenarios_among_rules(args)
    if len(args.rules) > 2:
        raise UsageError("odds compares at most two rules files")
    if args.joint is not None and (args.each_choice or len(args.rules) > 1 or args.json or args.csv):
        other = ("--each-choice" if args.each_choice else "two rules files" if len(args.rules) > 1
                 else "--json" if args.json else "--csv")
        raise UsageError(f"--joint ends one odds table with a grid, so it does not go with {other}"
                         + (" (whose output holds the whole joint distribution already)" if args.json else ""))
    if args.fractions and (args.each_choice or len(args.rules) > 1) and not (args.json or args.csv):
        raise UsageError(f"--fractions adds the fractions to one odds table, not to a comparison "
                         f"({'--each-choice' if args.each_choice else 'two rules files'}): --json or --csv gives "
                         "every probability of each as a fraction")
    if args.each_choice:
        return _odds_each_choice(args)
    loaded = [_load(args, path) for path in args.rules]
    joint = _joint_outcomes(args.joint, loaded[0][0]) if args.joint is not None else None
    target = _output("--plot", args.plot, args, [rules for rules, _ in loaded])
    results = [_odds_of(args, rules, scenario) if len(loaded) == 1 else _compared(args, rules, scenario)
               for rules, scenario in loaded]
    labels = _labels(args.rules)
    _plot(target, results, labels, f"{results[0].prepared.action.name}")
    if args.csv:
        _show(report.odds_csv(results, labels), end="")
        return EXIT_OK
    if len(results) == 2:
        before, after = results
        if args.json:
            means = {name: exact_text(after.mean(name) - before.mean(name))
                     for name in after.outcome_names if name in before.outcome_names
                     and report.comparable(results, name)
                     and before.mean(name) is not None and after.mean(name) is not None}
            print(json.dumps({"compare": [{"rules": path, **dist.as_json()} for path, dist in zip(args.rules, results)],
                              "mean_difference": means}, indent=2))
        else:
            title = f"{before.prepared.action.name}: {args.rules[0]} against {args.rules[1]}"
            _show(report.side_by_side(results, labels, title))
        return EXIT_OK
    (dist,) = results
    if args.json:
        print(json.dumps(dist.as_json(), indent=2))
    else:
        _show(report.odds_table(dist, fractions=args.fractions, joint=joint))
    return EXIT_OK


def _joint_outcomes(written: str, rules: dsl.Ruleset) -> tuple[str, str]:
    """The two outcomes `--joint DOWN,ACROSS` names, known to the rules and not the same."""
    names = [name.strip() for name in written.split(",")]
    outcomes = list(rules.outcomes)
    if len(names) != 2 or not all(names):
        example = ",".join(outcomes[:2]) if len(outcomes) >= 2 else "down,across"
        raise UsageError(f"--joint takes two outcomes with a comma between them, as in --joint {example}")
    for name in names:
        if name not in rules.outcomes:
            raise UsageError(f"--joint: unknown outcome '{name}'; "
                             + (did_you_mean(name, outcomes) or listed("the outcomes", outcomes, "there are none")))
    if names[0] == names[1]:
        raise UsageError(f"--joint names {names[0]} twice: give two outcomes to see together")
    return names[0], names[1]


def _odds_each_choice(args: argparse.Namespace) -> int:
    if len(args.rules) != 1:
        raise UsageError("--each-choice works on one rules file")
    rules, scenario = _load(args, args.rules[0])
    target = _output("--plot", args.plot, args, [rules])
    name = args.each_choice
    choice = rules.choices.get(name)
    if choice is None:
        hint = did_you_mean(name, rules.choices) or (
            "the choices are: " + ", ".join(rules.choices) if rules.choices else "these rules declare no choices")
        raise UsageError(f"--each-choice: unknown choice '{name}'; {hint}")
    chosen = scenario.flags.get(f"choices.{name}")
    if chosen is not None:  # every option is run: the one chosen would be silently set aside
        raise UsageError(f"--each-choice {name} and {chosen} both set it; leave one out")
    options: list[Any] = [False, True] if choice.type.name == "bool" else rules.rows_of(choice.type.name)
    if choice.type.optional:
        options.append("none")  # as a scenario names it
    # An option that breaks a constraint is reported at the flag that ran it, as one --choose gave would be.
    flags = {**scenario.flags, f"choices.{name}": f"--each-choice {name}"}
    dists = [_odds_of(args, rules, replace(scenario, choices={**scenario.choices, name: option}, flags=flags))
             for option in options]
    labels = [f"{str(o).lower() if isinstance(o, bool) else o}" for o in options]
    _plot(target, dists, labels, f"{dists[0].prepared.action.name}: every option of {name}")
    if args.csv:
        _show(report.odds_csv(dists, labels), end="")
    elif args.json:
        print(json.dumps({"choice": name, "options": {label: dist.as_json() for label, dist in zip(labels, dists)}},
                         indent=2))
    else:
        title = f"{dists[0].prepared.action.name}: every option of the choice '{name}'"
        text = report.side_by_side(dists, labels, title)
        if args.samples is None and all(dist.joint() == dists[0].joint() for dist in dists[1:]):
            text += (f"\n\nevery option of '{name}' gives the same odds here: {dists[0].prepared.action.name} and "
                     "the steps it runs may not read it")
        _show(text)
    return EXIT_OK


def _plot(target: Path | None, dists: list[api.Distribution], labels: list[str], title: str) -> None:
    if target is None:
        return
    _writing(target, lambda: plot_distributions(dists, labels, target, title), told=True)


def _compared(args: argparse.Namespace, rules: dsl.Ruleset, scenario: api.Scenario) -> api.Distribution:
    """_odds_of one of two rules files compared: a problem of the scenario with these rules says which they are."""
    try:
        return _odds_of(args, rules, scenario)
    except ScenarioError as error:
        raise ScenarioError([replace(d, message=f"{d.message} (with {rules.path})") for d in error.diagnostics]) \
            from None


def _odds_of(args: argparse.Namespace, rules: dsl.Ruleset, scenario: api.Scenario) -> api.Distribution:
    if args.samples is not None:
        if args.samples < 1:
            raise UsageError("--samples needs a positive number")
        _within_samples_limit(args)
        if args.jobs is not None and args.jobs < 1:
            raise UsageError("--jobs needs a positive number")
        return api.estimate(rules, scenario, args.samples, seed=args.seed or 0, jobs=args.jobs or os.cpu_count() or 1,
                            progress=_progress if sys.stderr.isatty() else None, outcomes_only=True)
    for flag, given, what in (("--jobs", args.jobs, "the worker processes"), ("--seed", args.seed, "the seed")):
        if given is not None:  # exact odds run in one process and roll nothing
            raise UsageError(f"{flag} sets {what} of --samples, and exact odds are computed: give --samples N too, "
                             f"or leave {flag} out")
    if args.max_states is not None and args.max_states < 1:
        raise UsageError("--max-states needs a positive number")
    if args.max_states is not None and "states" in _assignments("--limit", args.limit):
        raise UsageError("--max-states and --limit states both set the exact engine's states limit; give one")
    progress = _ExactProgress() if sys.stderr.isatty() else None
    try:
        return api.exact(rules, scenario, max_states=args.max_states, outcomes_only=True, progress=progress)
    finally:
        if progress is not None:
            progress.end()


def cmd_sweep(args: argparse.Namespace) -> int:
    # Imported by the commands that use them, as fmt and lsp are below: every other command starts sooner.
    from fracas.interpreter.tools.sweep import SweepError, metric_expression, metric_title, parse_vary
    from fracas.interpreter.tools.sweep import sweep as run_sweep

    if args.metric is not None and not args.metric.strip():
        raise UsageError("--metric is empty; give an expression, or leave the flag out for the default metric")
    rules, scenario = _load(args)
    target = _output("--plot", args.plot, args, [rules])
    api.check_action(rules, scenario)  # an unknown one refused at the flag or the scenario's key, before any case
    try:
        varies = [parse_vary(text, lambda v: parse_assignment(f"v={v}")[1]) for text in args.vary]
        metric_expression(args.metric, rules, scenario.action_in(rules))  # before any work
    except SweepError as error:
        raise UsageError(str(error)) from None
    paths = [vary.path for vary in varies]
    action = rules.actions.get(scenario.action_in(rules) or "")
    inputs = [param.name for param in action.params] if action is not None else []
    for path in paths:  # a misspelt input told at its flag, before any case runs
        top = path.split(".")[0].split("[")[0]
        if action is not None and top not in ("params", "choices") and top not in inputs:
            raise UsageError(f"--vary {path}: the action '{action.name}' has no input '{top}'; "
                             + (did_you_mean(top, inputs) or listed("its inputs", inputs, "it takes none")))
    twice = next((path for path in paths if paths.count(path) > 1), None)
    if twice is not None:
        raise UsageError(f"--vary {twice} is given twice; give all its values in one --vary")
    both = next((path for path in paths if path in scenario.flags), None)
    if both is not None:
        raise UsageError(f"--vary {both} and {scenario.flags[both]} both set it; leave one out")
    if args.samples < 1 or (args.jobs is not None and args.jobs < 1):
        raise UsageError("--samples and --jobs need positive numbers")
    _within_samples_limit(args)
    if target is not None and len(varies) > 2:
        raise UsageError("--plot draws a matrix of one or two varied values")
    results = run_sweep(args.rules, _limits(args), scenario, varies, args.metric, args.samples, args.jobs,
                        _progress if sys.stderr.isatty() else None)
    failed = [case for case in results if case.error]
    if failed:
        case = failed[0]
        shown = ", ".join(f"{vary.path}={show_plain(value)}" for vary, value in zip(varies, case.settings))
        if not case.diagnostics:
            raise UsageError(f"sweep: the case {shown} failed: {case.error}")
        _show(f"fracas: error: sweep: the case {shown} failed:", error=True)
        _print_diagnostics(case.diagnostics)
        return EXIT_USAGE
    metric = metric_title(args.metric, rules, scenario.action_in(rules))
    if target is not None:
        rows, columns, cells = report.sweep_matrix(varies, results)
        values = [[None if c is None else as_float(c.value) for c in row] for row in cells]
        down, across = varies[0].path, (varies[1].path if len(varies) > 1 else "")
        _writing(target, lambda: plot_heatmap(rows, columns, values, target, metric, down, across), told=True)
    if args.csv:
        _show(report.sweep_csv(varies, results, metric), end="")
    else:
        _show(report.sweep_text(varies, results, metric))
    return EXIT_OK


def cmd_diff(args: argparse.Namespace) -> int:
    from fracas.dsl.diff import compare

    changes = compare(_rules(args, args.base), _rules(args, args.variant))
    if args.json:
        print(json.dumps([{"change": c.what, "category": c.category, "name": c.name, "path": c.where.path,
                           "line": c.where.line, "details": list(c.details)} for c in changes], indent=2))
        return EXIT_OK
    _show(f"{args.variant} against {args.base}: {counted(len(changes), 'change')}")
    for change in changes:
        _show(change.line())
    return EXIT_OK


def _within_samples_limit(args: argparse.Namespace) -> None:
    limit = _limits(args).samples
    if args.samples > limit:
        raise UsageError(f"--samples {args.samples} is over the limit of {limit} runs ({_limits(args).hint('samples')})")


class _ProgressLine:
    """A progress bar redrawn on one line of a terminal, ended with a newline when done or interrupted."""

    def __init__(self) -> None:
        self.open = False

    def __call__(self, done: int, total: int) -> None:
        if done % max(1, min(1000, total // 1000)) and done != total:  # a long run still moves
            return
        filled = done * 30 // total
        self.open = True  # first: Ctrl-C may come in the middle of the printing
        print(f"\r  sampling [{'#' * filled}{'.' * (30 - filled)}] {done}/{total}", end="", file=sys.stderr,
              flush=True)
        if done == total:
            self.end()

    def end(self) -> None:
        if self.open:
            print(file=sys.stderr)
            self.open = False


_progress = _ProgressLine()


class _ExactProgress:
    """For an exact run past a second: the rule being worked on and the states waiting, on one line."""

    def __init__(self) -> None:
        self.start = time.monotonic()
        self.shown = 0.0
        self.open = False

    def __call__(self, pos: Any, states: int) -> None:
        now = time.monotonic()
        if now - self.start < 1 or now - self.shown < 0.1:
            return
        self.shown, self.open = now, True
        where = f"{Path(pos.path).name}:{pos.line}" if pos is not None else ""
        print(f"\r  exact odds: {where}, {states} states waiting, {now - self.start:.0f} s \x1b[K", end="",
              file=sys.stderr, flush=True)

    def end(self) -> None:
        if self.open:
            print(file=sys.stderr)
            self.open = False


def cmd_test(args: argparse.Namespace) -> int:
    files = [Path(f) for f in args.files] or sorted(shipped_rules_dir().glob("*.rules"))
    passed = failed = 0
    broken: list[Diagnostic] = []
    warnings: list[Diagnostic] = []
    results: list[dict[str, Any]] = []
    not_run: list[str] = []  # the files whose errors left their examples unrun
    for file in files:
        try:
            rules = _rules(args, file)
        except RulesError as error:
            broken.extend(error.diagnostics)
            not_run.append(str(file))
            continue
        if len(files) > 1 and not args.json:
            _show(f"# {file}")
        warnings.extend(rules.warnings)
        if not args.json:
            for warning in rules.warnings:
                print(warning.format(), file=sys.stderr)
        for result in run_examples(rules):
            if args.json:
                results.append(result.as_json(str(file)))
            else:
                _show(result.line)
            if result.passed:
                passed += 1
            else:
                failed += 1
    if args.json:
        print(json.dumps({"ok": not failed and not broken, "passed": passed, "failed": failed, "examples": results,
                          "not_run": not_run, "diagnostics": [d.as_dict() for d in [*warnings, *broken]]}, indent=2))
        return EXIT_USAGE if broken else EXIT_FAILED if failed else EXIT_OK
    if broken:
        _print_diagnostics(broken)
    # A file that does not load runs no example: said beside the counts, which would otherwise read as all well.
    unrun = f"; {counted(len(not_run), 'file')} not run, for the errors above" if not_run else ""
    print(f"{passed} passed, {failed} failed{unrun}")
    if broken:
        return EXIT_USAGE
    return EXIT_FAILED if failed else EXIT_OK


def cmd_fmt(args: argparse.Namespace) -> int:
    from fracas.interpreter.tools.fmt import STDIN, format_files

    outcome = format_files(args.files, args.check, _limits(args), lambda text: _show(text, end=""))
    if outcome.problems:
        _print_diagnostics(outcome.problems)
    if args.files != [STDIN] and (outcome.changed or outcome.unchanged):
        _show(outcome.summary(args.check), error=True)
    if outcome.problems:
        return EXIT_USAGE
    return EXIT_FAILED if args.check and outcome.changed else EXIT_OK


def cmd_lsp(args: argparse.Namespace) -> int:
    from fracas.interpreter.tools.lsp import serve

    return serve(_limits(args))


COMMANDS = {"check": cmd_check, "run": cmd_run, "explain": cmd_explain, "odds": cmd_odds, "sweep": cmd_sweep,
            "diff": cmd_diff, "test": cmd_test, "fmt": cmd_fmt, "lsp": cmd_lsp}


if __name__ == "__main__":
    sys.exit(main())
