"""fracas installed into a fresh venv finds its grammar and rules files from anywhere.

Both ways of installing are covered: a wheel (the data packages fracas.grammars
and fracas.rules land in site-packages) and an editable install (they stay the
checkout's grammars/ and rules/ folders). Each builds from a copy of the
checkout, so the working tree gets no build/ or *.egg-info, and runs the
installed `fracas` from a folder outside it. The wheel carries every file of
rules/ and grammars/, the language reference included, and runs every command
of the README's tour.
"""

from __future__ import annotations

import importlib.util
import os
import shlex
import shutil
import subprocess
import sys
import venv
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from test_readme import COMMANDS, HAND_MADE, exit_code_shown, in_order

ROOT = Path(__file__).resolve().parent.parent
COPY_IGNORES = shutil.ignore_patterns(
    ".venv", ".git", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache", ".hypothesis"
)
# The children see only what they install: no PYTHONPATH pointing back at the checkout.
CHILD_ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
CHILD_ENV["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"

pytestmark = pytest.mark.slow


def run(args: list[str | Path], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run a command; a failure shows its output."""
    done = subprocess.run([str(a) for a in args], cwd=cwd, env=CHILD_ENV, capture_output=True, text=True)
    assert done.returncode == 0, f"{' '.join(map(str, args))} exited {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done


def new_venv(env_dir: Path) -> Path:
    """A new venv with pip at `env_dir`; skips only if this Python cannot make one."""
    for module in ("venv", "ensurepip", "pip"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"this Python has no {module!r}: cannot build and install into a fresh venv")
    try:
        venv.EnvBuilder(with_pip=True).create(env_dir)
    except (subprocess.CalledProcessError, OSError) as error:
        pytest.skip(f"cannot create a venv with pip here: {error}")
    return env_dir


def clean_copy(folder: Path) -> Path:
    """A clean copy of the checkout, at `folder`, to build from."""
    shutil.copytree(ROOT, folder, ignore=COPY_IGNORES)
    return folder


@pytest.fixture
def fresh_venv(tmp_path: Path) -> Path:
    return new_venv(tmp_path / "venv")


@pytest.fixture
def source(tmp_path: Path) -> Path:
    return clean_copy(tmp_path / "source")


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A working directory with no checkout in it."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    return folder


@dataclass(frozen=True)
class Installed:
    wheel: Path
    venv: Path
    checkout: Path  # the copy the wheel was built from


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """A wheel built from a copy of the checkout, installed (with the tested versions
    of its dependencies, constraints.txt) into a fresh venv: built once for the module."""
    here = tmp_path_factory.mktemp("wheel")
    checkout = clean_copy(here / "source")
    env_dir = new_venv(here / "venv")
    wheels = here / "wheels"
    run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", wheels, checkout])
    (wheel,) = wheels.glob("fracas-*.whl")
    run([env_dir / "bin" / "python", "-m", "pip", "install", "--quiet", "-c", checkout / "constraints.txt", wheel])
    return Installed(wheel, env_dir, checkout)


def test_a_wheel_carries_the_grammar_and_rules(installed: Installed, outside: Path) -> None:
    python, fracas = installed.venv / "bin" / "python", installed.venv / "bin" / "fracas"

    # The data packages, through importlib.resources, as any user of the wheel would.
    run([python, "-c",
         "from importlib.resources import files\n"
         "names = [p.name for p in files('fracas.grammars').iterdir()]\n"
         "assert 'fracas.lark' in names, names\n"
         "assert (files('fracas.grammars') / 'fracas.lark').read_text(encoding='utf-8').strip()\n"
         "assert any(p.name.endswith('.toml') for p in files('fracas.rules.scenarios').iterdir())\n"],
        cwd=outside)
    where = run([python, "-c",
                 "from importlib.resources import files\n"
                 "from fracas.dsl.resources import grammar_text, grammars_dir, shipped_rules_dir\n"
                 "rules = files('fracas.rules').joinpath('epicinium.rules')\n"
                 "assert rules.parent == shipped_rules_dir(), (rules, shipped_rules_dir())\n"
                 "assert grammar_text().strip()\n"
                 "print(shipped_rules_dir()); print(grammars_dir())"],
                cwd=outside).stdout.splitlines()
    rules_dir, grammars_dir = (Path(line).resolve() for line in where)
    site = installed.venv.resolve()
    assert rules_dir.is_relative_to(site) and grammars_dir.is_relative_to(site), where

    run([fracas, "check", rules_dir / "epicinium.rules"], cwd=outside)
    tested = run([fracas, "test"], cwd=outside)  # default: every shipped rules file
    assert tested.stdout.splitlines()[-1].endswith(" passed, 0 failed"), tested.stdout


def test_an_installed_wheel_finds_its_grammar_without_importlib_resources(installed: Installed, outside: Path) -> None:
    # importlib.resources imports tempfile and random: about 5 ms of every run, where the package's
    # folder names the grammar already.
    shown = run([installed.venv / "bin" / "python", "-c",
                 "import sys\n"
                 "from fracas.dsl.resources import grammar_text, shipped_rules_dir\n"
                 "assert grammar_text().strip() and (shipped_rules_dir() / 'epicinium.rules').is_file()\n"
                 "print('importlib.resources' in sys.modules)"],
                cwd=outside).stdout.strip()
    assert shown == "False"


def test_the_wheel_holds_every_file_of_rules_and_grammars(installed: Installed) -> None:
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    missing = []
    for folder, package in (("rules", "fracas/rules"), ("grammars", "fracas/grammars")):
        base = installed.checkout / folder
        missing += [f"{folder}/{path.relative_to(base).as_posix()}" for path in sorted(base.rglob("*"))
                    if path.is_file() and f"{package}/{path.relative_to(base).as_posix()}" not in names]
    assert not missing, f"the wheel leaves out {missing}"


def test_the_installed_language_reference_is_found(installed: Installed, outside: Path) -> None:
    run([installed.venv / "bin" / "python", "-c",
         "from importlib.resources import files\n"
         "from fracas.dsl.resources import grammars_dir\n"
         "assert (grammars_dir() / 'language.md').read_text(encoding='utf-8').startswith('# ')\n"
         "assert (files('fracas.grammars') / 'language.md').is_file()"],
        cwd=outside)


def test_the_installed_wheel_runs_the_readme_tour(installed: Installed, outside: Path) -> None:
    """Every `$ fracas` command of the README, the Gilgamesh battle's included, run in
    order by the installed `fracas` in a folder outside the checkout whose rules/ is
    the installed data package, prints what the README shows."""
    python, fracas = installed.venv / "bin" / "python", installed.venv / "bin" / "fracas"
    where = run([python, "-c", "from fracas.dsl.resources import shipped_rules_dir; print(shipped_rules_dir())"],
                cwd=outside).stdout.strip()
    (outside / "rules").symlink_to(Path(where), target_is_directory=True)
    for name, text in HAND_MADE.items():
        (outside / name).write_text(text)
    for command, shown in COMMANDS:
        argv = shlex.split(command)[1:]
        done = subprocess.run([fracas, *argv], cwd=outside, env=CHILD_ENV, capture_output=True, text=True)
        assert done.returncode == exit_code_shown(argv), f"`{command}` exited {done.returncode}\n{done.stderr}"
        lacking = in_order(shown, (done.stdout + done.stderr).splitlines())
        assert lacking is None, f"installed, `{command}` does not print {lacking!r}"


def test_an_editable_install_uses_the_checkout_folders(source: Path, fresh_venv: Path, outside: Path) -> None:
    python, fracas = fresh_venv / "bin" / "python", fresh_venv / "bin" / "fracas"
    run([python, "-m", "pip", "install", "--quiet", "-e", source])

    # fracas.dsl.resources, and its way round importlib.resources.files() failing on
    # Python 3.11 for the namespace packages of an editable install.
    found = run([python, "-c",
                 "from fracas.dsl.resources import _installed_dir, grammar_text, grammars_dir, shipped_rules_dir\n"
                 "assert grammar_text().strip()\n"
                 "print(grammars_dir()); print(shipped_rules_dir())\n"
                 "print(_installed_dir('fracas.grammars', '.lark')); print(_installed_dir('fracas.rules', '.rules'))"],
                cwd=outside).stdout.splitlines()
    expected = [source / "grammars", source / "rules"] * 2
    assert [Path(line).resolve() for line in found] == [p.resolve() for p in expected], found

    run([fracas, "check", source / "rules" / "epicinium.rules"], cwd=outside)
