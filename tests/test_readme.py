"""The README's tour shows real output: each command in it runs, and prints the lines shown, in order."""

from __future__ import annotations

import shlex
from fractions import Fraction
import shutil
from pathlib import Path

import pytest

from fracas.interpreter.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent
ELIDED = "..."
# Files the README's reader is imagined to have written.
HAND_MADE = {
    "broken.rules": 'rules "broken"\nkind unit_type { figures: int  hitpoints: int }\n'
                    "unit_type gunner { figures 3  hitpoint 2 }\n",
    "messy.rules": 'rules "messy"\nkind unit_type {figures: int\n  hitpoints: int=1}\nunit_type rifleman {figures 3}\n'
                   "unit_type gunner {figures 3 hitpoints 2} # three shots\n",
}


def shown_commands(readme: str) -> list[tuple[str, list[str]]]:
    """Each `$ fracas ...` line of a fenced block, with the output lines shown under it."""
    commands: list[tuple[str, list[str]]] = []
    shown: list[str] | None = None  # the output lines of the command being read, if any
    in_block = False
    lines = iter(readme.splitlines())
    for line in lines:
        if line.startswith("```"):
            in_block, shown = not in_block, None
        elif in_block and line.startswith("$ fracas "):
            command = line[2:]
            while command.endswith("\\"):
                command = command[:-1] + next(lines).strip()
            shown = []
            commands.append((command, shown))
        elif shown is not None:
            shown.append(line)
    return commands


def in_order(expected: list[str], actual: list[str]) -> str | None:
    """The first shown line that the output lacks (after the previous one), if any.

    A shown line ending in "..." is cut short: the output's line need only begin with it.
    """
    rest = iter(actual)
    for line in expected:
        if line.strip() == ELIDED or not line.strip():
            continue
        if not any(_shows(line, candidate) for candidate in rest):
            return line
    return None


def _shows(shown: str, printed: str) -> bool:
    if shown.endswith(ELIDED):
        return printed.startswith(shown[: -len(ELIDED)].rstrip())
    return printed.rstrip() == shown.rstrip()


COMMANDS = shown_commands((ROOT / "README.md").read_text())


def exit_code_shown(argv: list[str]) -> int:
    """The README's `check` command shows a broken file (exit 2), `fmt --check` a file to format (exit 1)."""
    if argv[0] == "check":
        return 2
    return 1 if argv[:2] == ["fmt", "--check"] else 0


def test_the_readme_shows_commands():
    assert len(COMMANDS) >= 10


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    """A copy of the rules, so that commands writing state files write them there."""
    here = tmp_path_factory.mktemp("readme")
    shutil.copytree(ROOT / "rules", here / "rules")
    for name, text in HAND_MADE.items():
        (here / name).write_text(text)
    return here


@pytest.mark.parametrize("command, expected", COMMANDS, ids=[c for c, _ in COMMANDS])
def test_each_readme_command_prints_what_the_readme_shows(command, expected, workdir, capsys, monkeypatch):
    argv = shlex.split(command)[1:]
    monkeypatch.chdir(workdir)
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == exit_code_shown(argv), err
    lacking = in_order(expected, (out + err).splitlines())
    assert lacking is None, f"the README shows {lacking!r}, which `{command}` no longer prints"



def python_blocks(readme: str) -> list[str]:
    return [block.split("\n", 1)[1] for block in readme.split("```")[1::2] if block.startswith("python\n")]


def test_the_readme_python_runs_and_gives_the_values_its_comments_show(monkeypatch):
    """A line `expression  # value` must give that value; other lines only have to run."""
    monkeypatch.chdir(ROOT)
    blocks = python_blocks((ROOT / "README.md").read_text())
    assert blocks
    checked = 0
    for block in blocks:
        lines = []
        for line in block.splitlines():
            code, _, comment = line.partition("  # ")
            if comment and _is_value(comment) and _is_expression(code):
                lines.append(f"assert ({code.strip()}) == ({comment.strip()}), {line!r}")
                checked += 1
            else:
                lines.append(line)
        exec("\n".join(lines), {"Fraction": Fraction})
    assert checked >= 1


def _is_value(text: str) -> bool:
    try:
        eval(text, {"Fraction": Fraction})
    except Exception:  # prose, not a value
        return False
    return True


def _is_expression(text: str) -> bool:
    try:
        compile(text.strip(), "<readme>", "eval")
    except SyntaxError:
        return False
    return bool(text.strip())
