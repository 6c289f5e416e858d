"""Where fracas writes: only regular files or new names, never over an input, keeping a file's mode.

Renaming a new file into place would turn /dev/null or a named pipe into a
regular file (as root, for every program on the machine), so anything but a
regular file is refused before any work, with exit code 2.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from fracas.interpreter.tools.cli import main
from fracas.interpreter.tools.files import write_text_atomically

ROOT = Path(__file__).resolve().parent.parent
GILGAMESH = str(ROOT / "rules" / "gilgamesh.rules")
SHEET = ROOT / "rules" / "gilgamesh" / "corvette.toml"
BROADSIDE = str(ROOT / "rules" / "gilgamesh" / "1-broadside.toml")


def write_state(capsys, sheet: Path, target: Path) -> tuple[int, str]:
    code = main(["run", GILGAMESH, str(sheet), BROADSIDE, "--write-state", str(target)])
    return code, capsys.readouterr().err


def a_sheet(tmp_path: Path) -> Path:
    sheet = tmp_path / "corvette.toml"
    sheet.write_text(SHEET.read_text())
    return sheet


def test_a_named_pipe_is_refused_and_stays_a_pipe(capsys, tmp_path):
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    code, err = write_state(capsys, a_sheet(tmp_path), pipe)
    assert code == 2
    assert err == (f"fracas: error: --write-state {pipe} is a named pipe, not a regular file: "
                   "fracas writes only regular files; print the state with --toml instead\n")
    assert stat.S_ISFIFO(os.stat(pipe).st_mode)


@pytest.mark.parametrize("name, device", [("null", (1, 3)), ("full", (1, 7))])
def test_a_device_is_refused_and_stays_a_device(capsys, tmp_path, name, device):
    node = tmp_path / name
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(*device))
    except PermissionError:
        pytest.skip("making a device node needs root")
    code, err = write_state(capsys, a_sheet(tmp_path), node)
    assert code == 2
    assert err == (f"fracas: error: --write-state {node} is a device, not a regular file: "
                   "fracas writes only regular files; print the state with --toml instead\n")
    assert stat.S_ISCHR(os.stat(node).st_mode)


def test_a_hard_link_to_an_input_is_refused(capsys, tmp_path):
    sheet = a_sheet(tmp_path)
    link = tmp_path / "next.toml"
    os.link(sheet, link)
    code, err = write_state(capsys, sheet, link)
    assert code == 2
    assert err == (f"fracas: error: --write-state {link} would overwrite an input file: it is a link to "
                   f"{sheet}; choose another name\n")
    assert sheet.read_text() == SHEET.read_text() and os.stat(link).st_ino == os.stat(sheet).st_ino


def test_a_replaced_file_keeps_its_mode(capsys, tmp_path):
    target = tmp_path / "next.toml"
    target.write_text("old\n")
    target.chmod(0o640)
    code, _ = write_state(capsys, a_sheet(tmp_path), target)
    assert code == 0 and "[ship]" in target.read_text()
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_a_symbolic_link_stays_a_link_to_the_file_written(tmp_path):
    real = tmp_path / "real.toml"
    real.write_text("old\n")
    link = tmp_path / "link.toml"
    link.symlink_to(real)
    write_text_atomically(link, "new\n")
    assert link.is_symlink() and real.read_text() == "new\n"


def test_the_writer_itself_refuses_what_is_not_a_regular_file(tmp_path):
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    with pytest.raises(OSError, match="is a named pipe, not a regular file"):
        write_text_atomically(pipe, "x")
    assert stat.S_ISFIFO(os.stat(pipe).st_mode) and os.listdir(tmp_path) == ["pipe"]
