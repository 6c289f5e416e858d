"""The rules files on disk a rename and workspace symbols read: found nearest first, within bounds."""

from __future__ import annotations

from pathlib import Path

from fracas.dsl import parse as cached_parse
from fracas.dsl.limits import Limits
from fracas.interpreter.tools.lsp import workspace


def nested(root: Path, depth: int) -> Path:
    """A .rules file `depth` folders below root, with one beside root's own."""
    (root / "top.rules").write_text("")
    folder = root
    for level in range(depth):
        folder = folder / f"level{level}"
    folder.mkdir(parents=True)
    (folder / "deep.rules").write_text("")
    return folder / "deep.rules"


def test_rules_files_are_found_nearest_first(tmp_path):
    deep = nested(tmp_path, 3)
    assert workspace.rules_files([tmp_path]) == [(tmp_path / "top.rules").resolve(), deep.resolve()]


def test_hidden_and_environment_folders_are_not_searched(tmp_path):
    for skipped in (".git", "node_modules", ".venv"):
        (tmp_path / skipped).mkdir()
        (tmp_path / skipped / "inside.rules").write_text("")
    assert workspace.rules_files([tmp_path]) == []


def test_a_search_stops_after_its_most_folders(tmp_path, monkeypatch):
    deep = nested(tmp_path, 6)
    monkeypatch.setattr(workspace, "MOST_FOLDERS", 4)
    assert workspace.rules_files([tmp_path]) == [(tmp_path / "top.rules").resolve()]
    monkeypatch.setattr(workspace, "MOST_FOLDERS", 7)
    assert deep.resolve() in workspace.rules_files([tmp_path])


def test_a_file_is_built_on_a_base_through_a_chain_of_extends_beside_it_or_above(tmp_path):
    (tmp_path / "sub").mkdir()
    texts = {"sub/base.rules": "", "a.rules": 'rules "a" extends "sub/base.rules"\n',
             "b.rules": '# extends "x.rules"\nextends\n    "a.rules"\n', "other.rules": 'extends "elsewhere.rules"\n',
             "sub/beside.rules": 'extends "base.rules"\n'}
    for name, text in texts.items():
        (tmp_path / name).write_text(text)
    base = (tmp_path / "sub" / "base.rules").resolve()
    found = workspace.built_on([base], workspace.read_text)
    assert {path.name: {p.name for p in bases} for path, bases in found.items()} == {
        "a.rules": {"base.rules"}, "b.rules": {"a.rules", "base.rules"}, "beside.rules": {"base.rules"}}


def test_a_file_below_a_base_is_not_built_on_it(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "base.rules").write_text("")
    (tmp_path / "sub" / "below.rules").write_text('extends "../base.rules"\n')  # refused by fracas: outside its tree
    assert workspace.built_on([(tmp_path / "base.rules").resolve()], workspace.read_text) == {}


def test_a_file_on_disk_read_for_its_outline_is_parsed_once_for_every_run_after(tmp_path, monkeypatch, cache_folder):
    # A workspace symbol search read every rules file through the parser at each start of a server (a second a
    # few files), and each took the place of an open file's reparser.
    from fracas.dsl import syntax
    from fracas.interpreter.tools.lsp import analysis

    path = tmp_path / "far.rules"
    path.write_text("outcome hits: int = 0\naction go() { hits = 1 }\n")
    parsed: list[str] = []
    real = syntax.parse
    monkeypatch.setattr(syntax, "parse", lambda text, where, limits: parsed.append(where) or real(text, where, limits))
    for _ in range(2):
        # A new process each time: no reparser, no tree kept in memory.
        monkeypatch.setattr(analysis, "_reparsers", {})
        monkeypatch.setattr(cached_parse, "_recent", {})
        outline = analysis.outlined(path.read_text(), str(path), Limits())
        assert outline is not None and [d.name for d in outline.module.decls] == ["hits", "go"]
        assert analysis._reparsers == {}
    assert parsed == [str(path)]
