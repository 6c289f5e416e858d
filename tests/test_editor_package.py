"""The VS Code package and the Neovim snippet start `fracas lsp` for `.rules` files, with the project's grammar."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "editors" / "vscode"


def manifest() -> dict:
    return json.loads((PACKAGE / "package.json").read_text())


def test_the_package_contributes_the_language_for_rules_files():
    (language,) = manifest()["contributes"]["languages"]
    assert language["id"] == "fracas" and language["extensions"] == [".rules"]
    assert (PACKAGE / language["configuration"]).is_file()
    json.loads((PACKAGE / language["configuration"]).read_text())


def test_the_package_grammar_is_the_projects_textmate_grammar():
    (grammar,) = manifest()["contributes"]["grammars"]
    assert grammar["language"] == "fracas"
    shipped = (PACKAGE / grammar["path"]).read_text()
    assert shipped == (ROOT / "grammars" / "fracas.tmLanguage.json").read_text(), (
        "copy grammars/fracas.tmLanguage.json to editors/vscode/grammars/")
    assert json.loads(shipped)["scopeName"] == grammar["scopeName"]


def test_the_client_starts_fracas_lsp_by_default():
    setting = manifest()["contributes"]["configuration"]["properties"]["fracas.server.command"]
    assert setting["default"] == ["fracas", "lsp"]
    code = (PACKAGE / manifest()["main"]).read_text()
    assert '"fracas.server.command"' not in code and 'get("server.command", ["fracas", "lsp"])' in code
    assert "vscode-languageclient" in manifest()["dependencies"]


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_client_is_valid_javascript():
    subprocess.run(["node", "--check", str(PACKAGE / manifest()["main"])], check=True)


def test_the_neovim_snippet_starts_fracas_lsp_for_rules_files():
    snippet = (ROOT / "editors" / "neovim.lua").read_text()
    assert 'cmd = { "fracas", "lsp" }' in snippet and "rules = \"fracas\"" in snippet


def test_fracas_lsp_without_pygls_says_how_to_install_it(monkeypatch, capsys):
    import sys

    from fracas.interpreter.tools.cli import main

    monkeypatch.setitem(sys.modules, "pygls.lsp.server", None)  # as if the extra were not installed
    monkeypatch.delitem(sys.modules, "fracas.interpreter.tools.lsp.server", raising=False)
    assert main(["lsp"]) == 2
    assert "pip install 'fracas[lsp]'" in capsys.readouterr().err
