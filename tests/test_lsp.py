"""`fracas lsp` end to end: a real language client talks to the server over stdio (pytest-lsp)."""

from __future__ import annotations

import asyncio
import random
import re
import sys
from pathlib import Path
from typing import Any

import pytest

pytest_lsp = pytest.importorskip("pytest_lsp")
from lsprotocol import types as lsp  # noqa: E402
from pygls.exceptions import JsonRpcException  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "rules"
BASE = RULES / "epicinium.rules"
VARIANT = RULES / "epicinium-classic.rules"
SHIPPED = sorted(RULES.glob("*.rules"))

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_lsp.fixture(scope="module",
                    config=ClientServerConfig(server_command=[sys.executable, "-m", "fracas.interpreter.tools.cli", "lsp"]))
async def client(lsp_client: LanguageClient):
    refreshes: list[None] = []

    @lsp_client.feature(lsp.WORKSPACE_CODE_LENS_REFRESH)
    def refresh_code_lenses(params: None) -> None:
        refreshes.append(params)

    lsp_client.lens_refreshes = refreshes
    registered: list[lsp.RegistrationParams] = []

    @lsp_client.feature(lsp.CLIENT_REGISTER_CAPABILITY)
    def register_capability(params: lsp.RegistrationParams) -> None:
        registered.append(params)

    lsp_client.registered = registered
    capabilities = pytest_lsp.client_capabilities("visual-studio-code")
    await lsp_client.initialize_session(lsp.InitializeParams(capabilities=capabilities, root_uri=RULES.as_uri()))
    yield
    await lsp_client.shutdown_session()


# ---- helpers -------------------------------------------------------------------------------


async def open_document(client: LanguageClient, path: Path, text: str | None = None) -> str:
    """Open a document and wait until its diagnostics are published."""
    uri = path.as_uri()
    client.diagnostics.pop(uri, None)
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        lsp.TextDocumentItem(uri=uri, language_id="fracas", version=1,
                             text=path.read_text() if text is None else text)))
    await diagnostics_of(client, uri)
    return uri


async def diagnostics_of(client: LanguageClient, uri: str) -> list[lsp.Diagnostic]:
    """The diagnostics published for a document since they were last cleared (a minute at most)."""
    async def published() -> None:
        while uri not in client.diagnostics:
            await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)

    await asyncio.wait_for(published(), 60)
    return list(client.diagnostics[uri])


def change(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.diagnostics.pop(uri, None)
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
        [lsp.TextDocumentContentChangeWholeDocument(text=text)]))


def close(client: LanguageClient, uri: str) -> None:
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(uri=uri)))


def where(text: str, written: str, inside: str | None = None) -> lsp.Position:
    """The position of the start of `inside` (or of `written`) where `written` first occurs."""
    offset = text.index(written) + (written.index(inside) if inside else 0)
    line = text.count("\n", 0, offset)
    return lsp.Position(line=line, character=offset - (text.rfind("\n", 0, offset) + 1))


def line_of(path: Path, written: str) -> int:
    """The 0-based line where `written` first occurs in a file."""
    return where(path.read_text(), written).line


async def hover_text(client: LanguageClient, uri: str, position: lsp.Position) -> str:
    found = await client.text_document_hover_async(lsp.HoverParams(text_document=lsp.TextDocumentIdentifier(uri=uri), position=position))
    assert found is not None, server_errors(client)
    return found.contents.value


def server_errors(client: LanguageClient) -> str:
    """What the server logged as its own errors: an answer left empty by one explains itself."""
    return "\n".join(m.message for m in client.log_messages if "internal error" in m.message) or "no error logged"


# ---- diagnostics ------------------------------------------------------------------------------


async def test_a_broken_file_gets_the_checkers_messages_with_their_exact_ranges(client: LanguageClient, tmp_path):
    text = ('rules "broken"\nkind unit_type { figures: int  hitpoints: int }\n'
            "unit_type gunner { figures 3  hitpoint 2 }\n"
            "param wide = unknown_thing + 1\n")
    uri = await open_document(client, tmp_path / "broken.rules", text)
    found = sorted(await diagnostics_of(client, uri), key=lambda d: d.range.start.line)
    assert [d.message.splitlines()[0] for d in found] == [
        "unknown field 'hitpoint' of kind 'unit_type'", "unknown name 'unknown_thing'"]
    assert found[0].range == lsp.Range(start=lsp.Position(line=2, character=30), end=lsp.Position(line=2, character=38))
    assert "hint: did you mean 'hitpoints'?" in found[0].message
    assert found[1].range == lsp.Range(start=lsp.Position(line=3, character=13), end=lsp.Position(line=3, character=26))
    assert all(d.severity == lsp.DiagnosticSeverity.Error for d in found)
    close(client, uri)


async def test_a_syntax_error_is_a_diagnostic_and_fixing_it_clears_it(client: LanguageClient, tmp_path):
    uri = await open_document(client, tmp_path / "half.rules", "param a = \n")
    (found,) = await diagnostics_of(client, uri)
    assert found.message.startswith("unexpected end of file")
    change(client, uri, 2, "param a = 1\n")
    assert await diagnostics_of(client, uri) == []
    close(client, uri)


async def test_a_parameter_that_breaks_a_constraint_is_a_diagnostic_as_fracas_check_reports_it(
        client: LanguageClient, tmp_path):
    text = "param most: int in 1..3 = 5\noutcome o: int = 0\naction go() { o = most }\n"
    uri = await open_document(client, tmp_path / "bounds.rules", text)
    (found,) = await diagnostics_of(client, uri)
    assert found.message.startswith("the parameters as written break the constraint 'most in 1..3'")
    assert found.severity == lsp.DiagnosticSeverity.Error
    change(client, uri, 2, text.replace("5", "2"))
    assert await diagnostics_of(client, uri) == []
    close(client, uri)


async def test_an_example_whose_input_breaks_a_constraint_is_a_diagnostic(client: LanguageClient, tmp_path):
    text = ('kind piece { hp: int in 1..9 }\noutcome o: int = 0\naction go(p: piece) { o = p.hp }\n'
            'example "too big" {\n    run go(p: {hp: 40})\n    expect o == 40\n}\n')
    uri = await open_document(client, tmp_path / "inputs.rules", text)
    (found,) = await diagnostics_of(client, uri)
    assert found.message.startswith("p.hp: 40 breaks the constraint") and found.range.start.line == 4
    close(client, uri)


async def test_a_file_that_declares_nothing_gets_the_warning_fracas_check_gives(client: LanguageClient, tmp_path):
    uri = await open_document(client, tmp_path / "empty.rules", "# to be written\n")
    (found,) = await diagnostics_of(client, uri)
    assert found.message.startswith("this rules file declares nothing")
    assert found.severity == lsp.DiagnosticSeverity.Warning
    close(client, uri)


async def test_editing_a_base_file_diagnoses_its_open_variants_again(client: LanguageClient):
    base_uri = await open_document(client, BASE)
    variant_uri = await open_document(client, VARIANT)
    assert await diagnostics_of(client, variant_uri) == []
    text = BASE.read_text()
    client.diagnostics.pop(variant_uri)
    change(client, base_uri, 2, re.sub(r"(?m)^tile_type farm .*\n", "", text))  # the row the variant overrides
    found = await diagnostics_of(client, variant_uri)
    assert [d.message.splitlines()[0] for d in found] == [f"override of row 'farm' names nothing in {BASE}"]
    assert found[0].range.start.line == line_of(VARIANT, "override tile_type farm")
    client.diagnostics.pop(variant_uri)
    change(client, base_uri, 3, text)
    assert await diagnostics_of(client, variant_uri) == []
    close(client, variant_uri)
    close(client, base_uri)


# ---- hover, definition and references across extends ---------------------------------------------


async def test_a_base_changed_on_disk_diagnoses_its_open_variant_again(client: LanguageClient, tmp_path):
    base = tmp_path / "base.rules"
    base.write_text("param bonus = 2\noutcome r: int = 0\naction go() { r = bonus }\n")
    (tmp_path / "variant.rules").write_text('extends "base.rules"\noverride param bonus = 3\n')
    variant = await open_document(client, tmp_path / "variant.rules")
    assert await diagnostics_of(client, variant) == []
    base.write_text("param extra = 2\noutcome r: int = 0\naction go() { r = extra }\n")  # edited elsewhere
    client.diagnostics.pop(variant, None)
    client.workspace_did_change_watched_files(lsp.DidChangeWatchedFilesParams(changes=[
        lsp.FileEvent(uri=base.as_uri(), type=lsp.FileChangeType.Changed)]))
    (found,) = await diagnostics_of(client, variant)  # the variant reads the base as it is now
    assert found.message.startswith("override of param 'bonus' names nothing")
    close(client, variant)


async def test_the_server_asks_to_be_told_of_rules_files_changed_on_disk(client: LanguageClient):
    watched = [r for params in client.registered for r in params.registrations
               if r.method == lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES]
    assert [w["globPattern"] for r in watched for w in r.register_options["watchers"]] == ["**/*.rules"]


async def test_hover_on_an_overridden_row_shows_its_values_both_places_and_its_comment(client: LanguageClient):
    uri = await open_document(client, VARIANT)
    text = VARIANT.read_text()
    shown = await hover_text(client, uri, where(text, "override tile_type city", "city"))
    assert "tile_type city {" in shown and "    hitpoints 3\n" in shown and "    stacks 5\n" in shown
    assert "trenches false    # the default" in shown
    assert "EPF-03 needs 3 hitpoints per City building" in shown
    declared = line_in(RULES / "epicinium.rules", "tile_type city")
    overridden = line_in(RULES / "epicinium-classic.rules", "tile_type city")
    assert f"Declared at epicinium.rules:{declared}; overridden at epicinium-classic.rules:{overridden}" in shown
    close(client, uri)


async def test_hover_on_names_declared_in_the_base(client: LanguageClient):
    uri = await open_document(client, VARIANT)
    text = VARIANT.read_text()
    modifier = await hover_text(client, uri, where(text, "= vulnerable(", "vulnerable"))
    assert "modifier vulnerable(hitpoints: int, where: space, air: bool, tile: bool = false)" in modifier
    assert f"Declared at epicinium.rules:{line_of(BASE, 'modifier vulnerable') + 1}" in modifier
    field = await hover_text(client, uri, where(text, "space.tile.hitpoints", "hitpoints"))
    assert "hitpoints: int = 1    # a field of kind tile_type" in field and "of one building or tree" in field
    builtin = await hover_text(client, uri, where(text, "damage_taken(pool"))
    assert "damage_taken(pool: pool" in builtin and "Damage the bodies took, each up to its hitpoints." in builtin
    param = await hover_text(client, uri, where(text, "override effect firestorm { damage firestorm_damage }",
                                                "firestorm_damage"))
    assert "param firestorm_damage: int = 1" in param and "set this to 2 for the game's number" in param
    close(client, uri)


async def test_definition_of_a_base_name_used_in_a_variant_is_in_the_base(client: LanguageClient):
    uri = await open_document(client, VARIANT)
    text = VARIANT.read_text()
    found = await client.text_document_definition_async(lsp.DefinitionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=where(text, "= vulnerable(", "vulnerable")))
    assert [(f.uri, f.range.start.line) for f in found] == [(BASE.as_uri(), line_of(BASE, "modifier vulnerable"))]
    close(client, uri)


async def test_right_after_an_edit_a_definition_is_not_also_at_the_place_the_text_before_had_it(
        client: LanguageClient, tmp_path):
    # While the edit is analysed the answer comes from the last analysis carried over to the new text; the last
    # analysis itself, still kept, is not a related file whose places count too.
    text = BASE.read_text()
    uri = await open_document(client, tmp_path / "epicinium.rules", text)
    edited = "# one\n# two\n" + text
    change(client, uri, 2, edited)
    called = where(edited, "lose_figures(", "lose_figures")
    found = await client.text_document_definition_async(lsp.DefinitionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(called.line, called.character)))
    assert [f.range.start.line for f in found] == [where(edited, "step lose_figures", "lose_figures").line]
    close(client, uri)


async def test_definition_of_an_overridden_row_shows_both_places(client: LanguageClient):
    uri = await open_document(client, VARIANT)
    text = VARIANT.read_text()
    found = await client.text_document_definition_async(lsp.DefinitionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=where(text, "override tile_type city", "city")))
    assert [(f.uri, f.range.start.line) for f in found] == [
        (BASE.as_uri(), line_of(BASE, "tile_type city ")), (uri, line_of(VARIANT, "override tile_type city"))]
    assert found[0].range.end.character - found[0].range.start.character == len("city")
    close(client, uri)


async def test_references_of_an_overridden_function_cover_the_base_and_the_variant(client: LanguageClient):
    uri = await open_document(client, VARIANT)
    text = VARIANT.read_text()
    found = await client.text_document_references_async(lsp.ReferenceParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri),
        position=where(text, "override fn collateral_bodies", "collateral_bodies"),
        context=lsp.ReferenceContext(include_declaration=True)))
    places = {(f.uri, f.range.start.line) for f in found}
    assert places == {(uri, line_of(VARIANT, "override fn collateral_bodies")),
                      (BASE.as_uri(), line_of(BASE, "fn collateral_bodies")),
                      (BASE.as_uri(), line_of(BASE, "pool += collateral_bodies(space)"))}, server_errors(client)
    close(client, uri)


async def test_references_from_a_base_include_its_open_variants(client: LanguageClient):
    base_uri = await open_document(client, BASE)
    variant_uri = await open_document(client, VARIANT)
    text = BASE.read_text()
    found = await client.text_document_references_async(lsp.ReferenceParams(
        text_document=lsp.TextDocumentIdentifier(uri=base_uri), position=where(text, "modifier vulnerable", "vulnerable"),
        context=lsp.ReferenceContext(include_declaration=False)))
    lines = {(f.uri, f.range.start.line) for f in found}
    assert (variant_uri, line_of(VARIANT, "fn building_hitpoints")) in lines
    assert (base_uri, line_of(BASE, "let hitpoints = vulnerable(")) in lines
    assert (base_uri, line_of(BASE, "modifier vulnerable")) not in lines
    close(client, variant_uri)
    close(client, base_uri)


# ---- every reference from the analysed tree, names resolved by their scope ----------------------------

SCOPES = '''rules "scopes"

param bonus: int = 1
outcome total: int = 0

kind piece { strength: int = 1 }
piece knight { strength 3 }

step count(pieces: list of piece) {
    let sum = 0
    for p in pieces {
        sum += p.strength + bonus
    }
    total = sum
}

step other() {
    let sum = 2
    total = sum + [p * 2 for p in [1, 2]][0]
}

action play(pieces: list of piece) {
    count(pieces: pieces)
    for p in pieces {
        total += p.strength
    }
}

example "T-01 a knight" {
    set bonus = 2
    run play(pieces: [knight])
    expect total == 8
}
'''

SCOPES_VARIANT = '''rules "a variant"
extends "scopes.rules"

override param bonus: int = 5
override piece knight { strength 4 }

example "V-01 a stronger knight" {
    set bonus = 0
    run play(pieces: [knight])
    expect total == 8
}
'''


async def open_scopes(client: LanguageClient, folder: Path, variant: bool = False) -> tuple[str, str | None]:
    (folder / "scopes.rules").write_text(SCOPES)
    (folder / "variant.rules").write_text(SCOPES_VARIANT)
    base = await open_document(client, folder / "scopes.rules")
    return base, (await open_document(client, folder / "variant.rules") if variant else None)


async def references_at(client: LanguageClient, uri: str, position: lsp.Position,
                        declaration: bool = True) -> set[tuple[str, int, int, int]]:
    found = await client.text_document_references_async(lsp.ReferenceParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=position,
        context=lsp.ReferenceContext(include_declaration=declaration)))
    return {(f.uri, f.range.start.line, f.range.start.character, f.range.end.character) for f in found}


def spans(uri: str, text: str, name: str, *places: str) -> set[tuple[str, int, int, int]]:
    """The ranges of `name` where each of `places` is first written in a text."""
    found = set()
    for written in places:
        position = where(text, written, name)
        found.add((uri, position.line, position.character, position.character + len(name)))
    return found


CONSTRAINED = """param bonus = 1
param cap = 3
require bonus <= cap "the bonus stays under the cap"
kind piece_type { size: int  require size >= 1 }
kind piece { type: piece_type  health: int in 0..type.size = 1 }
piece_type pawn { size 2 }
outcome o: int = 0
action go(p: piece, n: int in 0..cap) require p.health > 0 { o = p.health + n + bonus }
"""


@pytest.mark.parametrize("name, written", [
    ("bonus", "require bonus <= cap"), ("cap", "bonus <= cap"), ("size", "require size >= 1"),
    ("type", "0..type.size"), ("size", "type.size"), ("cap", "0..cap)"), ("p", "require p.health"),
    ("health", "p.health > 0"),
])
async def test_a_name_in_a_require_or_bounds_is_a_reference_to_what_it_names(client: LanguageClient, tmp_path,
                                                                                 name, written):
    uri = await open_document(client, tmp_path / "constrained.rules", CONSTRAINED)
    found = await references_at(client, uri, where(CONSTRAINED, written, name))
    assert spans(uri, CONSTRAINED, name, written) < found  # itself and the declaration at least
    close(client, uri)


async def test_references_of_a_local_are_its_binding_and_its_uses_in_its_own_step_only(client: LanguageClient,
                                                                                     tmp_path):
    uri, _ = await open_scopes(client, tmp_path)
    found = await references_at(client, uri, where(SCOPES, "let sum = 0", "sum"))
    assert found == spans(uri, SCOPES, "sum", "let sum = 0", "sum += p", "total = sum\n")
    other = await references_at(client, uri, where(SCOPES, "total = sum +", "sum"))
    assert other == spans(uri, SCOPES, "sum", "let sum = 2", "total = sum +")
    close(client, uri)


async def test_references_of_a_for_variable_stay_inside_its_loop(client: LanguageClient, tmp_path):
    uri, _ = await open_scopes(client, tmp_path)
    found = await references_at(client, uri, where(SCOPES, "for p in pieces", "p"))
    assert found == spans(uri, SCOPES, "p", "for p in pieces", "p.strength + bonus")
    in_the_action = await references_at(client, uri, where(SCOPES, "total += p.strength", "p"), declaration=False)
    assert in_the_action == spans(uri, SCOPES, "p", "total += p.strength")
    comprehension = await references_at(client, uri, where(SCOPES, "[p * 2 for p in", "p"))
    assert comprehension == spans(uri, SCOPES, "p", "[p * 2", "for p in [1")
    close(client, uri)


async def test_a_parameter_set_in_an_example_is_a_reference_to_it(client: LanguageClient, tmp_path):
    uri, variant = await open_scopes(client, tmp_path, variant=True)
    found = await references_at(client, uri, where(SCOPES, "param bonus", "bonus"))
    assert found == (spans(uri, SCOPES, "bonus", "param bonus", "+ bonus", "set bonus")
                     | spans(variant, SCOPES_VARIANT, "bonus", "override param bonus", "set bonus"))
    close(client, variant)
    close(client, uri)


async def test_an_assignment_target_is_a_reference_to_what_it_assigns(client: LanguageClient, tmp_path):
    uri, _ = await open_scopes(client, tmp_path)
    found = await references_at(client, uri, where(SCOPES, "total = sum\n", "total"))
    assert found == spans(uri, SCOPES, "total", "outcome total", "total = sum\n", "total = sum +",
                          "total += p", "expect total")
    close(client, uri)


async def test_an_assigned_field_is_a_reference_to_the_field_of_its_kind(client: LanguageClient):
    uri = await open_document(client, BASE)
    text = BASE.read_text()
    assigned = where(text, "where.stacks -= stacks", "stacks")
    found = await references_at(client, uri, assigned)
    field = where(text, "    stacks: int in 0..tile.stacks", "stacks")
    assert {(uri, assigned.line, assigned.character, assigned.character + len("stacks")),
            (uri, field.line, field.character, field.character + len("stacks"))} <= found
    local = where(text, "-= stacks", "stacks")
    assert (uri, local.line, local.character, local.character + len("stacks")) not in found  # the parameter is not
    assert all(line != line_of(BASE, "stacks: int = 0") for _, line, _, _ in found)  # nor tile_type's field
    close(client, uri)


async def test_an_overridden_parameter_and_row_show_both_places_across_extends(client: LanguageClient, tmp_path):
    uri, variant = await open_scopes(client, tmp_path, variant=True)
    for name, written, base_written in (("bonus", "override param bonus", "param bonus"),
                                        ("knight", "override piece knight", "piece knight")):
        found = await client.text_document_definition_async(lsp.DefinitionParams(
            text_document=lsp.TextDocumentIdentifier(uri=variant), position=where(SCOPES_VARIANT, written, name)))
        assert [(f.uri, f.range.start.line, f.range.start.character) for f in found] == [
            (uri, *astuple(where(SCOPES, base_written, name))), (variant, *astuple(where(SCOPES_VARIANT, written, name)))]
        shown = await hover_text(client, variant, where(SCOPES_VARIANT, written, name))
        assert (f"Declared at scopes.rules:{where(SCOPES, base_written, name).line + 1}; "
                f"overridden at variant.rules:{where(SCOPES_VARIANT, written, name).line + 1}") in shown
    knights = await references_at(client, variant, where(SCOPES_VARIANT, "[knight]", "knight"))
    assert knights == (spans(uri, SCOPES, "knight", "piece knight", "[knight]")
                       | spans(variant, SCOPES_VARIANT, "knight", "override piece knight", "[knight]"))
    close(client, variant)
    close(client, uri)


async def test_a_text_that_does_not_parse_keeps_the_last_names_moved_with_the_lines(client: LanguageClient, tmp_path):
    uri, _ = await open_scopes(client, tmp_path)
    broken = "# a new first line\n" + SCOPES.replace("let sum = 2", "let sum = = 2")
    change(client, uri, 2, broken)
    (problem,) = await diagnostics_of(client, uri)
    assert problem.range.start.line == where(broken, "= = 2").line
    found = await client.text_document_definition_async(lsp.DefinitionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=where(broken, "+ bonus", "bonus")))
    assert [(f.range.start.line, f.range.start.character) for f in found] == [astuple(where(broken, "param bonus", "bonus"))]
    uses = await references_at(client, uri, where(broken, "total = sum\n", "sum"))
    assert uses == spans(uri, broken, "sum", "let sum = 0", "sum += p", "total = sum\n")
    typing = broken.replace("p.strength + bonus", "p.strengt + bonus")  # a name being retyped
    change(client, uri, 3, typing)
    await diagnostics_of(client, uri)
    uses = await references_at(client, uri, where(typing, "param bonus", "bonus"))
    assert uses == spans(uri, typing, "bonus", "param bonus", "+ bonus", "set bonus")  # moved with the line
    assert await references_at(client, uri, where(typing, "p.strengt", "strengt")) == set()  # no longer that name
    close(client, uri)


def astuple(position: lsp.Position) -> tuple[int, int]:
    return position.line, position.character


# ---- completion -------------------------------------------------------------------------------------


COMPLETING = VARIANT.read_text() + '\nexample "new" {\n    run targeted_attack(attackers: [{type: '


async def complete_at_end(client: LanguageClient, uri: str, text: str) -> list[str]:
    end = where(text + "\0", "\0")
    found = await client.text_document_completion_async(lsp.CompletionParams(text_document=lsp.TextDocumentIdentifier(uri=uri), position=end))
    items = found.items if isinstance(found, lsp.CompletionList) else found
    return [item.label for item in items]


async def test_completion_offers_only_the_rows_of_the_kind_a_field_expects(client: LanguageClient, tmp_path):
    path = tmp_path / "epicinium-classic.rules"  # beside a copy of its base, as a modder's file would be
    (tmp_path / "epicinium.rules").write_text(BASE.read_text())
    uri = await open_document(client, path, VARIANT.read_text())
    change(client, uri, 2, COMPLETING)
    assert await complete_at_end(client, uri, COMPLETING) == [
        "rifleman", "gunner", "sapper", "militia", "tank", "settler", "zeppelin"]
    tiles = COMPLETING + "rifleman}], target: {type: gunner}, space: {tile: "
    change(client, uri, 3, tiles)
    offered = await complete_at_end(client, uri, tiles)
    assert "trenches" in offered and "city" in offered and "rifleman" not in offered
    close(client, uri)


async def test_completion_offers_fields_after_a_dot_and_parameters_after_set(client: LanguageClient, tmp_path):
    (tmp_path / "epicinium.rules").write_text(BASE.read_text())
    path = tmp_path / "epicinium-classic.rules"
    uri = await open_document(client, path, VARIANT.read_text())
    dotted = VARIANT.read_text() + "\nfn q(s: space) = s.tile."
    change(client, uri, 2, dotted)
    assert await complete_at_end(client, uri, dotted) == [
        "stacks", "hitpoints", "power", "becomes", "trenches", "leaks_gas"]
    setting = VARIANT.read_text() + '\nexample "n" {\n    set '
    change(client, uri, 3, setting)
    assert "firestorm_damage" in await complete_at_end(client, uri, setting)
    anywhere = VARIANT.read_text() + "\nfn q(s: space) = "
    change(client, uri, 4, anywhere)
    offered = await complete_at_end(client, uri, anywhere)
    assert {"successes", "if", "collateral_bodies", "firestorm_damage"} <= set(offered)
    close(client, uri)


LOCALS = """kind piece { health: int  armour: int = 0 }
outcome dealt: int = 0
action go(a: piece, squad: list of piece) {
    let lead = a
    for q in squad {
        dealt += 1
    }
    dealt += 0
}
"""


@pytest.mark.parametrize("typed, inside", [("    dealt += lead.", "    dealt += 0\n"),
                                           ("        dealt += q.", "        dealt += 1\n")])
async def test_completion_offers_the_fields_of_a_new_local_used_nowhere_yet(client: LanguageClient, tmp_path,
                                                                            typed, inside):
    uri = await open_document(client, tmp_path / "locals.rules", LOCALS)
    await diagnostics_of(client, uri)
    typing = LOCALS[: LOCALS.index(inside)] + typed
    change(client, uri, 2, typing + "\n" + LOCALS[LOCALS.index(inside):])
    end = where(typing + "\0", "\0")
    found = await client.text_document_completion_async(lsp.CompletionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=end))
    items = found.items if isinstance(found, lsp.CompletionList) else found
    assert [item.label for item in items] == ["health", "armour"]
    close(client, uri)


@pytest.mark.parametrize("tail", ["param p: ", "kind k { f: int  g: ", "fn f(x: int, y: ", "fn f(x: int): ",
                                  "param q: list of ", "action go() { let x: ", "fn power(a: piece, t: ",
                                  "table t(int, piece): "])
async def test_completion_offers_types_where_a_type_is_written(client: LanguageClient, tmp_path, tail):
    uri = await open_document(client, tmp_path / "locals.rules", LOCALS)
    await diagnostics_of(client, uri)
    typing = LOCALS + tail
    change(client, uri, 2, typing)
    assert await complete_at_end(client, uri, typing) == [
        "int", "number", "bool", "text", "dice", "pool", "volley", "piece", "list of"]
    close(client, uri)


@pytest.mark.parametrize("tail", ["table t(", "table t(int, "])
async def test_completion_offers_int_and_the_kinds_where_a_table_s_key_is_written(client: LanguageClient, tmp_path,
                                                                                  tail):
    uri = await open_document(client, tmp_path / "locals.rules", LOCALS)
    await diagnostics_of(client, uri)
    typing = LOCALS + tail
    change(client, uri, 2, typing)
    assert await complete_at_end(client, uri, typing) == ["int", "piece"]
    close(client, uri)


@pytest.mark.parametrize("tail", ["# a comment on ", 'param s = "a text with '])
async def test_completion_offers_nothing_inside_a_comment_or_a_text(client: LanguageClient, tmp_path, tail):
    uri = await open_document(client, tmp_path / "locals.rules", LOCALS)
    await diagnostics_of(client, uri)
    typing = LOCALS + tail
    change(client, uri, 2, typing)
    assert await complete_at_end(client, uri, typing) == []
    close(client, uri)


async def test_hover_on_a_local_used_nowhere_yet_shows_its_type(client: LanguageClient, tmp_path):
    uri = await open_document(client, tmp_path / "locals.rules", LOCALS)
    assert "lead: piece" in await hover_text(client, uri, where(LOCALS, "let lead", "lead"))
    close(client, uri)


BOUNDED = """kind piece {
    size: int in 1..6 = 2
}
param reach: int in 0..5 = 3
outcome moved: int = 0
action go(lead: piece, steps: int in 0..reach) {
    moved = lead.size + steps + reach
}
"""


@pytest.mark.parametrize("written, name, shown", [
    ("+ reach", "reach", "param reach: int in 0..5 = 3"),
    ("lead.size", "size", "size: int in 1..6 = 2"),
    ("go(", "go", "steps: int in 0..reach"),
    ("kind piece", "piece", "size: int in 1..6 = 2"),
])
async def test_hover_shows_the_bounds_a_value_is_written_with(client: LanguageClient, tmp_path, written, name, shown):
    uri = await open_document(client, tmp_path / "bounded.rules", BOUNDED)
    assert shown in await hover_text(client, uri, where(BOUNDED, written, name))
    close(client, uri)


TYPED = """fn out(size: int): bool = size > 3
fn half(size: int) = size / 2
outcome gone: bool = false
action go(size: int = 4) {
    gone = out(size) and half(size) > 1 and chance(1/2)
}
"""


@pytest.mark.parametrize("written, name, shown", [
    ("= out(", "out", "fn out(size: int): bool"),
    ("and half(", "half", "fn half(size: int): number"),
    ("and chance(", "chance", "chance(p: number): bool"),
])
async def test_hover_writes_a_function_s_type_as_the_rules_write_it(client: LanguageClient, tmp_path, written, name,
                                                                    shown):
    uri = await open_document(client, tmp_path / "typed.rules", TYPED)
    found = await hover_text(client, uri, where(TYPED, written, name))
    assert shown in found and "->" not in found
    close(client, uri)


# ---- outline, examples and formatting -----------------------------------------------------------------


async def test_the_outline_lists_kinds_with_their_fields_rows_actions_and_examples(client: LanguageClient):
    uri = await open_document(client, BASE)
    found = await client.text_document_document_symbol_async(
        lsp.DocumentSymbolParams(text_document=lsp.TextDocumentIdentifier(uri=uri)))
    by_name = {symbol.name: symbol for symbol in found}
    assert by_name["unit_type"].kind == lsp.SymbolKind.Class
    assert [child.name for child in by_name["unit_type"].children][:3] == ["figures", "hitpoints", "shots"]
    assert by_name["rifleman"].kind == lsp.SymbolKind.Object
    assert by_name["targeted_attack"].kind == lsp.SymbolKind.Event
    assert by_name["targeted_attack"].range.end.line > by_name["targeted_attack"].range.start.line + 10
    examples = [s.name for s in found if s.kind == lsp.SymbolKind.Module]
    assert examples[0] == "EPI-01 each shot hits one body chosen uniformly among the living"
    close(client, uri)


async def test_fields_written_on_one_line_have_outline_ranges_apart(client: LanguageClient, tmp_path):
    text = "kind die { sides: int in 1..20 = 6  bonus: int = 2 }\n"
    uri = await open_document(client, tmp_path / "die.rules", text)
    [die] = await client.text_document_document_symbol_async(
        lsp.DocumentSymbolParams(text_document=lsp.TextDocumentIdentifier(uri=uri)))
    sides, bonus = die.children
    assert (sides.range.start.character, sides.range.end.character) == (text.index("sides"), text.index(" 6") + 2)
    assert (bonus.range.start.character, bonus.range.end.character) == (text.index("bonus"), text.index(" 2 }") + 2)
    close(client, uri)


async def test_no_symbol_in_the_outline_or_the_workspace_is_without_a_name(client: LanguageClient):
    # A top-level require is a condition, not a name: VS Code refuses a symbol without one, and the whole outline.
    uri = await open_document(client, RULES / "risk.rules")
    found = await client.text_document_document_symbol_async(
        lsp.DocumentSymbolParams(text_document=lsp.TextDocumentIdentifier(uri=uri)))
    assert found and all(symbol.name for symbol in found)
    assert all(symbol.name for symbol in await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="")))
    close(client, uri)


async def test_a_file_whose_path_the_uri_writes_quoted_gets_every_answer(client: LanguageClient, tmp_path):
    # pygls keeps documents by the URI unquoted; a space, an accent (or Windows' c%3A) is quoted by the client.
    text = "outcome hits: int = 0\naction go() { hits = 1 + hit }\n"
    uri = await open_document(client, tmp_path / "my rules" / "épée.rules", text)
    assert "%20" in uri
    assert any("unknown name 'hit'" in d.message for d in await diagnostics_of(client, uri))
    assert "hits" in await hover_text(client, uri, where(text, "hits = 1", "hits"))
    close(client, uri)


EXAMPLES = """outcome total: int = 0
action add(a: int, b: int) { total = a + b }
example "T-01 adds" {
    run add(a: 1, b: 2)
    expect total == 3
}
example "T-02 a wrong sum" {
    run add(a: 1, b: 2)
    expect total == 4
}
"""


async def test_workspace_symbols_find_declarations_in_open_files_and_in_the_workspace_on_disk(
        client: LanguageClient, tmp_path):
    uri, _ = await open_scopes(client, tmp_path)
    exalted = RULES / "exalted-war.rules"  # in the workspace folder, not open
    found = await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="WAR_ATT"))
    assert ("war_attack", exalted.as_uri(), line_of(exalted, "action war_attack")) in {
        (s.name, s.location.uri, s.location.range.start.line) for s in found}
    found = await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="knght"))
    assert ("knight", uri, where(SCOPES, "piece knight", "knight").line) in {
        (s.name, s.location.uri, s.location.range.start.line) for s in found}
    close(client, uri)


async def test_a_lens_runs_one_example_and_then_shows_pass_or_fail(client: LanguageClient, tmp_path):
    uri = await open_document(client, tmp_path / "sums.rules", EXAMPLES)
    identifier = lsp.TextDocumentIdentifier(uri=uri)
    found = await client.text_document_code_lens_async(lsp.CodeLensParams(text_document=identifier))
    assert [(lens.range.start.line, lens.command.title) for lens in found] == [(2, "▶ run example"),
                                                                               (6, "▶ run example")]
    results = []
    for lens in found:
        results.append(await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
            command=lens.command.command, arguments=lens.command.arguments)))
    assert results[0] == {"passed": True, "message": ""}
    assert len(client.lens_refreshes) >= 2  # the editor is asked to show the lenses anew
    assert results[1]["passed"] is False and "expect total == 4 (line 9) is false" in results[1]["message"]
    shown = [lens.command.title for lens in await client.text_document_code_lens_async(lsp.CodeLensParams(text_document=identifier))]
    assert shown[0] == "PASS ✓ (run again)"
    assert shown[1] == "FAIL ✗ expect total == 4 (line 9) is false (run again)"  # one line, as a lens is
    close(client, uri)


async def test_a_lens_forgets_its_result_when_the_base_of_its_file_changes(client: LanguageClient, tmp_path):
    (tmp_path / "base.rules").write_text("param bonus = 2\noutcome r: int = 0\naction go() { r = bonus }\n")
    variant_text = 'extends "base.rules"\nexample "V-1" {\n    run go()\n    expect r == 2\n}\n'
    (tmp_path / "variant.rules").write_text(variant_text)
    base = await open_document(client, tmp_path / "base.rules")
    variant = await open_document(client, tmp_path / "variant.rules")
    identifier = lsp.TextDocumentIdentifier(uri=variant)
    (lens,) = await client.text_document_code_lens_async(lsp.CodeLensParams(text_document=identifier))
    await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command=lens.command.command, arguments=lens.command.arguments))
    change(client, base, 2, "param bonus = 3\noutcome r: int = 0\naction go() { r = bonus }\n")
    await diagnostics_of(client, variant)
    (lens,) = await client.text_document_code_lens_async(lsp.CodeLensParams(text_document=identifier))
    assert lens.command.title == "▶ run example"  # not the PASS the base as it was gave
    close(client, variant)
    close(client, base)


def careless(text: str) -> str:
    """A shipped file as a hurried writer would leave it: no indentation, doubled blank lines."""
    return "\n".join(line.strip() for line in text.splitlines()).replace("\n\n", "\n\n\n")


@pytest.mark.parametrize("path", SHIPPED, ids=[p.name for p in SHIPPED])
async def test_formatting_gives_back_every_shipped_file(client: LanguageClient, path: Path):
    text = path.read_text()
    uri = await open_document(client, path, careless(text))
    edits = await client.text_document_formatting_async(lsp.DocumentFormattingParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), options=lsp.FormattingOptions(tab_size=4, insert_spaces=True)))
    assert len(edits) == 1 and edits[0].range.start == lsp.Position(line=0, character=0)
    assert edits[0].new_text == text
    change(client, uri, 2, text)
    again = await client.text_document_formatting_async(lsp.DocumentFormattingParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), options=lsp.FormattingOptions(tab_size=4, insert_spaces=True)))
    assert list(again) == []
    close(client, uri)


async def test_formatting_brackets_nested_past_what_the_layout_follows_changes_nothing_and_logs_no_error(
        client: LanguageClient, tmp_path):
    text = "param a = " + "(" * 1000 + "1" + ")" * 1000 + "\n"
    uri = await open_document(client, tmp_path / "deep.rules", text)
    errors_before = sum(1 for m in client.log_messages if m.type == lsp.MessageType.Error)
    edits = await client.text_document_formatting_async(lsp.DocumentFormattingParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), options=lsp.FormattingOptions(tab_size=4, insert_spaces=True)))
    assert edits is None
    assert [m.message for m in client.log_messages if m.type == lsp.MessageType.Error][errors_before:] == []
    close(client, uri)


# ---- any text at all ----------------------------------------------------------------------------------


def half_typed(text: str, rng: random.Random) -> str:
    """A file cut short, or with a fragment of itself typed somewhere else."""
    cut = rng.randrange(len(text))
    if rng.random() < 0.5:
        return text[:cut]
    start = rng.randrange(len(text))
    return text[:cut] + text[start : start + rng.randrange(1, 40)] + text[cut:]


async def test_a_request_whose_params_do_not_fit_is_answered_with_the_error(client: LanguageClient):
    from pygls.exceptions import JsonRpcInvalidParams

    uri = await open_document(client, BASE)
    # A hover without its position, sent as it is (the client would not send it): the editor waits for an
    # answer, which must come, as an error.
    asked = asyncio.get_running_loop().create_future()
    client.protocol._request_futures["no-position"] = asked
    client.protocol._send_data({"jsonrpc": "2.0", "id": "no-position", "method": lsp.TEXT_DOCUMENT_HOVER,
                                "params": {"textDocument": {"uri": uri}}})
    with pytest.raises(JsonRpcInvalidParams):
        await asyncio.wait_for(asked, 30)
    assert await hover_text(client, uri, where(BASE.read_text(), "kind unit", "unit")) != ""  # and it goes on


@pytest.mark.parametrize("path", SHIPPED, ids=[p.name for p in SHIPPED])
async def test_half_typed_edits_never_crash_the_server_and_every_request_is_answered(client: LanguageClient,
                                                                                   path: Path):
    rng = random.Random(path.name)
    text = path.read_text()
    uri = await open_document(client, path, text)
    identifier = lsp.TextDocumentIdentifier(uri=uri)
    errors_before = sum(1 for m in client.log_messages if m.type == lsp.MessageType.Error)
    for version in range(2, 10):
        edited = half_typed(text, rng)
        change(client, uri, version, edited)
        lines = edited.split("\n")
        line = rng.randrange(len(lines))
        position = lsp.Position(line=line, character=rng.randrange(len(lines[line]) + 1))
        await client.text_document_hover_async(lsp.HoverParams(text_document=identifier, position=position))
        await client.text_document_completion_async(lsp.CompletionParams(text_document=identifier, position=position))
        await client.text_document_definition_async(lsp.DefinitionParams(text_document=identifier, position=position))
        await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(text_document=identifier))
        await client.text_document_document_highlight_async(lsp.DocumentHighlightParams(
            text_document=identifier, position=position))
        await client.text_document_signature_help_async(lsp.SignatureHelpParams(
            text_document=identifier, position=position))
        await client.text_document_inlay_hint_async(lsp.InlayHintParams(
            text_document=identifier, range=lsp.Range(start=lsp.Position(line=0, character=0), end=position)))
        try:  # a refusal is an answer
            await client.text_document_rename_async(lsp.RenameParams(
                text_document=identifier, position=position, new_name="renamed"))
        except JsonRpcException as refused:
            assert refused.code == lsp.LSPErrorCodes.RequestFailed, refused.message
        await client.text_document_formatting_async(lsp.DocumentFormattingParams(
            text_document=identifier, options=lsp.FormattingOptions(tab_size=4, insert_spaces=True)))
        await diagnostics_of(client, uri)
    errors = [m.message for m in client.log_messages if m.type == lsp.MessageType.Error][errors_before:]
    assert errors == []
    change(client, uri, 10, text)
    assert await diagnostics_of(client, uri) == []
    close(client, uri)


def line_in(path: Any, text: str) -> int:
    """The first line of a file that holds `text`: the tests need not change when the rules move."""
    return next(number for number, line in enumerate(path.read_text().splitlines(), 1) if text in line)


CHART = """enum result { hit miss }
table chart(int, int): result default miss {
        [1    2]
    1:  hit  miss
    2:  miss hit
}
outcome got: result = hit
action go() { got = chart[roll(1, 2), 1] }
"""


async def test_references_of_an_enum_value_include_the_table_cells_that_name_it(client: LanguageClient, tmp_path):
    uri = await open_document(client, tmp_path / "chart.rules", CHART)
    found = await references_at(client, uri, where(CHART, "result { hit", "hit"))
    assert found == spans(uri, CHART, "hit", "result { hit", "1:  hit", "2:  miss hit", "result = hit")
    close(client, uri)
