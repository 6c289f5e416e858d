"""A wheel installed outside the checkout finds its grammar and rules files."""

from __future__ import annotations

import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_an_installed_wheel_checks_and_tests_its_shipped_rules(tmp_path):
    if shutil.which("git") is None:
        pytest.skip("git is needed to copy the checkout")
    try:
        import build  # noqa: F401
    except ImportError:
        pytest.skip("the 'build' package is not installed")
    # Build from a clean copy so nothing of the working tree's caches leaks in.
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".venv", ".git", "*.egg-info", "build", "dist",
                                                                "__pycache__", ".pytest_cache", ".hypothesis"))
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", str(wheels), str(source)],
                   check=True, capture_output=True, text=True)
    (wheel,) = wheels.glob("fracas-*.whl")
    env_dir = tmp_path / "env"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", str(wheel)], check=True,
                   capture_output=True, text=True)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    where = subprocess.run([str(python), "-c", "from dsl.resources import shipped_rules_dir as d; print(d())"],
                           cwd=outside, check=True, capture_output=True, text=True).stdout.strip()
    assert "site-packages" in where
    fracas = env_dir / "bin" / "fracas"
    checked = subprocess.run([str(fracas), "check", f"{where}/epicinium.rules"], cwd=outside,
                             capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
    tested = subprocess.run([str(fracas), "test"], cwd=outside, capture_output=True, text=True)
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert tested.stdout.splitlines()[-1].endswith(" passed, 0 failed")
