"""`fracas lsp` helping to write: highlights, signature help, quick fixes and renames, end to end (pytest-lsp)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

pytest_lsp = pytest.importorskip("pytest_lsp")
from lsprotocol import types as lsp  # noqa: E402
from pygls.exceptions import JsonRpcException  # noqa: E402
from pytest_lsp import LanguageClient  # noqa: E402

from test_lsp import (SCOPES, SCOPES_VARIANT, client, close, diagnostics_of, open_document,  # noqa: E402, F401
                      open_scopes, spans, where)

pytestmark = pytest.mark.asyncio(loop_scope="module")


def document(uri: str) -> lsp.TextDocumentIdentifier:
    return lsp.TextDocumentIdentifier(uri=uri)


def applied(text: str, edits: list[lsp.TextEdit]) -> str:
    """A text with edits made (each on one line, as the server's are; ASCII, so characters are code units)."""
    lines = text.split("\n")
    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        line = lines[edit.range.start.line]
        start, end = edit.range.start.character, edit.range.end.character
        lines[edit.range.start.line] = line[:start] + edit.new_text + line[end:]
    return "\n".join(lines)


# ---- highlights -----------------------------------------------------------------------------------


async def test_a_local_is_highlighted_where_it_is_bound_and_read_in_its_own_step_only(client: LanguageClient,
                                                                                      tmp_path):
    uri, _ = await open_scopes(client, tmp_path)
    found = await client.text_document_document_highlight_async(lsp.DocumentHighlightParams(
        text_document=document(uri), position=where(SCOPES, "total = sum\n", "sum")))
    marked = {(h.range.start.line, h.range.start.character, h.range.end.character, h.kind) for h in found}
    bound = where(SCOPES, "let sum = 0", "sum")
    assert marked == ({(line, start, end, lsp.DocumentHighlightKind.Read)
                       for _, line, start, end in spans(uri, SCOPES, "sum", "sum += p", "total = sum\n")}
                      | {(bound.line, bound.character, bound.character + 3, lsp.DocumentHighlightKind.Write)})
    close(client, uri)


# ---- signature help -------------------------------------------------------------------------------


CALLS = '''outcome hits: int = 0

# How many of `count` dice meet the target, and by how much.
step barrage(count: int, target: int = 4) {
    hits += successes(count, 6, at_least: target)
}

action fire() {
    barrage(3)
}
'''


async def signature_at(client: LanguageClient, uri: str, position: lsp.Position) -> lsp.SignatureHelp | None:
    return await client.text_document_signature_help_async(lsp.SignatureHelpParams(
        text_document=document(uri), position=position))


def parameter_shown(found: lsp.SignatureHelp) -> str:
    """The text of the active parameter, as its label's span shows it."""
    signature = found.signatures[found.active_signature or 0]
    start, end = signature.parameters[found.active_parameter].label
    return signature.label[start:end]


async def test_signature_help_shows_a_builtins_parameters_and_the_one_being_written(client: LanguageClient,
                                                                                    tmp_path):
    uri = await open_document(client, tmp_path / "calls.rules", CALLS)
    found = await signature_at(client, uri, where(CALLS, "count, 6", "6"))
    assert found is not None and found.signatures[0].label.startswith("successes(count: int, sides: int")
    assert parameter_shown(found) == "sides: int"
    assert "successes" in found.signatures[0].documentation.value.lower()
    close(client, uri)


async def test_signature_help_follows_an_argument_given_by_its_name(client: LanguageClient, tmp_path):
    uri = await open_document(client, tmp_path / "calls.rules", CALLS)
    found = await signature_at(client, uri, where(CALLS, "at_least: target", "target"))
    assert found is not None and parameter_shown(found).startswith("at_least")
    close(client, uri)


async def test_signature_help_shows_a_steps_parameters_and_the_comment_above_it(client: LanguageClient,
                                                                               tmp_path):
    uri = await open_document(client, tmp_path / "calls.rules", CALLS)
    found = await signature_at(client, uri, where(CALLS, "barrage(3)", "3"))
    assert found is not None and found.signatures[0].label == "step barrage(count: int, target: int = 4)"
    assert parameter_shown(found) == "count: int"
    assert found.signatures[0].documentation.value == "How many of `count` dice meet the target, and by how much."
    close(client, uri)


async def test_signature_help_shows_the_call_around_brackets_that_group(client: LanguageClient, tmp_path):
    text = CALLS.replace("barrage(3)", "barrage((1 + 2) * (if true then 1 else (2)))")
    uri = await open_document(client, tmp_path / "calls.rules", text)
    for inside in ("+ 2", "then", "(2)))"):
        found = await signature_at(client, uri, where(text, inside))
        assert found is not None and found.signatures[0].label.startswith("step barrage(")
        assert parameter_shown(found) == "count: int"
    close(client, uri)


async def test_signature_help_past_the_last_parameter_marks_none_of_them(client: LanguageClient, tmp_path):
    text = CALLS.replace("barrage(3)", "barrage(3, 4, 5)")
    uri = await open_document(client, tmp_path / "calls.rules", text)
    found = await signature_at(client, uri, where(text, "4, 5", "5"))
    assert found is not None and found.active_parameter == len(found.signatures[0].parameters) == 2
    close(client, uri)


COMMENTED = '''outcome hits: int = 0
fn pair(a: int, b: int) = a + b
action go() {
    # add the pair

    hits = pair(1, # first
        2)
}
'''


async def test_a_comment_ends_with_its_line_for_completion_and_signature_help(client: LanguageClient, tmp_path):
    uri = await open_document(client, tmp_path / "commented.rules", COMMENTED)
    below = lsp.Position(line=4, character=4)  # the blank line under the comment
    found = await client.text_document_completion_async(lsp.CompletionParams(text_document=document(uri),
                                                                              position=below))
    items = found.items if isinstance(found, lsp.CompletionList) else found
    assert "pair" in {item.label for item in items}
    found = await signature_at(client, uri, where(COMMENTED, "        2)", "2"))
    assert found is not None and parameter_shown(found) == "b: int"
    close(client, uri)


SAME_NAME = '''kind unit_type { figures: int  hitpoints: int }
unit_type gunner { figures 3  hitpoints 2 }
kind piece { size: int = 1  heavy: bool = false }
param p: unit_type = gunner
outcome hits: int = 0
step a(p: piece) { hits = p.size }
step b() { hits = p.figures }
'''


async def test_fields_after_a_dot_are_of_the_name_in_this_declaration_not_a_local_of_another(
        client: LanguageClient, tmp_path):
    uri = await open_document(client, tmp_path / "same.rules", SAME_NAME)
    found = await client.text_document_completion_async(lsp.CompletionParams(
        text_document=document(uri), position=where(SAME_NAME, "p.figures", "figures")))
    items = found.items if isinstance(found, lsp.CompletionList) else found
    assert [item.label for item in items] == ["figures", "hitpoints"]
    close(client, uri)


async def test_signature_help_is_not_offered_outside_a_call(client: LanguageClient, tmp_path):
    uri = await open_document(client, tmp_path / "calls.rules", CALLS)
    assert await signature_at(client, uri, where(CALLS, "hits += ", "+=")) is None
    assert await signature_at(client, uri, where(CALLS, "count: int, target", "target")) is None  # declared
    close(client, uri)


async def test_inlay_hints_name_the_parameter_an_argument_given_by_its_place_takes(client: LanguageClient,
                                                                                   tmp_path):
    uri = await open_document(client, tmp_path / "calls.rules", CALLS)
    hints = await client.text_document_inlay_hint_async(lsp.InlayHintParams(
        text_document=document(uri), range=lsp.Range(start=lsp.Position(line=0, character=0),
                                                      end=lsp.Position(line=len(CALLS.split("\n")), character=0))))
    shown = {(hint.position.line, hint.position.character, hint.label) for hint in hints}
    six, three = where(CALLS, "count, 6", "6"), where(CALLS, "barrage(3)", "3")
    # Not before `count`: the argument is a name alike.
    assert shown == {(six.line, six.character, "sides:"), (three.line, three.character, "count:")}
    close(client, uri)


# ---- quick fixes ----------------------------------------------------------------------------------


MISSPELT = SCOPES.replace("sum += p.strength + bonus", "sum += p.strenght + bonsu")


async def test_a_misspelt_name_has_a_quick_fix_to_the_name_it_meant(client: LanguageClient, tmp_path):
    uri = await open_document(client, tmp_path / "misspelt.rules", MISSPELT)
    problems = await diagnostics_of(client, uri)
    fixed = MISSPELT
    for problem in problems:
        actions = await client.text_document_code_action_async(lsp.CodeActionParams(
            text_document=document(uri), range=problem.range, context=lsp.CodeActionContext(diagnostics=[problem])))
        assert len(actions) == 1 and actions[0].kind == lsp.CodeActionKind.QuickFix, problem.message
        fixed = applied(fixed, actions[0].edit.changes[uri])
    assert len(problems) == 2 and fixed == SCOPES
    close(client, uri)


async def test_a_misspelt_kind_of_a_table_is_underlined_and_fixed_where_it_is_written(
        client: LanguageClient, tmp_path):
    # It underlined the table's name once, whose "fix" wrote the kind over the table's name.
    text = SCOPES.replace("piece knight { strength 3 }",
                          "piece knight { strength 3 }\nenum ground { open, rough }\n"
                          "table strength(peice, ground): int { [open rough] knight 1 2 }")
    uri = await open_document(client, tmp_path / "table.rules", text)
    [problem] = [p for p in await diagnostics_of(client, uri) if "peice" in p.message]
    assert "did you mean 'piece'" in problem.message
    assert problem.range.start == where(text, "strength(peice", "peice")
    actions = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=document(uri), range=problem.range, context=lsp.CodeActionContext(diagnostics=[problem])))
    [edit] = actions[0].edit.changes[uri]
    assert (edit.range, edit.new_text) == (problem.range, "piece")
    close(client, uri)


async def test_a_misspelt_name_underlined_over_several_lines_has_a_quick_fix_where_it_is_written(
        client: LanguageClient, tmp_path):
    text = ("outcome total: int = 0\nfn double(x: int) = x * 2\naction go() {\n"
            "    total = 1 + doubel(\n        3)\n}\n")
    uri = await open_document(client, tmp_path / "call.rules", text)
    [problem] = await diagnostics_of(client, uri)
    assert problem.range.start.line != problem.range.end.line  # the whole call, over two lines
    actions = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=document(uri), range=problem.range, context=lsp.CodeActionContext(diagnostics=[problem])))
    [edit] = actions[0].edit.changes[uri]
    assert applied(text, [edit]) == text.replace("doubel", "double")
    close(client, uri)


async def test_a_problem_whose_hint_names_no_word_has_no_quick_fix(client: LanguageClient, tmp_path):
    text = SCOPES.replace("let sum = 0", "let sum = 0 + true")
    uri = await open_document(client, tmp_path / "typed.rules", text)
    [problem] = await diagnostics_of(client, uri)
    actions = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=document(uri), range=problem.range, context=lsp.CodeActionContext(diagnostics=[problem])))
    assert not actions
    close(client, uri)


# ---- renaming -------------------------------------------------------------------------------------


async def rename(client: LanguageClient, uri: str, position: lsp.Position, new_name: str) -> lsp.WorkspaceEdit:
    return await client.text_document_rename_async(lsp.RenameParams(
        text_document=document(uri), position=position, new_name=new_name))


async def refused_rename(client: LanguageClient, uri: str, position: lsp.Position, new_name: str) -> str:
    """The message of a rename the server refuses."""
    with pytest.raises(JsonRpcException) as refused:
        await rename(client, uri, position, new_name)
    assert refused.value.code == lsp.LSPErrorCodes.RequestFailed
    return refused.value.message


async def test_renaming_a_local_renames_where_it_is_bound_and_read_in_its_own_step_only(client: LanguageClient,
                                                                                     tmp_path):
    uri, _ = await open_scopes(client, tmp_path)
    place = await client.text_document_prepare_rename_async(lsp.PrepareRenameParams(
        text_document=document(uri), position=where(SCOPES, "sum += p", "sum")))
    bound = where(SCOPES, "sum += p", "sum")
    assert (place.start.line, place.start.character, place.end.character) == (bound.line, bound.character,
                                                                              bound.character + 3)
    edit = await rename(client, uri, where(SCOPES, "sum += p", "sum"), "subtotal")
    renamed = applied(SCOPES, edit.changes[uri])
    assert renamed == SCOPES.replace("let sum = 0", "let subtotal = 0").replace(
        "sum += p", "subtotal += p").replace("total = sum\n", "total = subtotal\n")
    assert "let sum = 2" in renamed and "total = sum +" in renamed  # the other step's own sum
    close(client, uri)


async def test_a_for_variable_is_renamed_inside_its_loop(client: LanguageClient, tmp_path):
    uri, _ = await open_scopes(client, tmp_path)
    edit = await rename(client, uri, where(SCOPES, "for p in pieces {\n        sum", "p"), "each")
    assert applied(SCOPES, edit.changes[uri]) == SCOPES.replace(
        "for p in pieces {\n        sum += p.strength", "for each in pieces {\n        sum += each.strength")
    close(client, uri)


async def refusal_to_rename(client: LanguageClient, uri: str, position: lsp.Position) -> JsonRpcException:
    with pytest.raises(JsonRpcException) as refused:
        await client.text_document_prepare_rename_async(lsp.PrepareRenameParams(text_document=document(uri),
                                                                                 position=position))
    assert refused.value.code == lsp.LSPErrorCodes.RequestFailed
    return refused.value


@pytest.mark.parametrize("name, written", [("bonus", "+ bonus"), ("play", "action play"),
                                           ("pieces", "play(pieces: list"), ("strength", "p.strength +"),
                                           ("p", "total += p"), ("knight", "knight {"), ("total", "total = sum\n")])
async def test_a_name_scenarios_may_read_is_not_renamed_and_the_editor_is_told_why(client: LanguageClient,
                                                                                  tmp_path, name, written):
    uri, _ = await open_scopes(client, tmp_path)
    refused = await refusal_to_rename(client, uri, where(SCOPES, written, name))
    assert "scenarios, sweeps or the command line" in refused.message
    close(client, uri)


ON_DISK = '''rules "a variant the editor has not opened"
extends "scopes.rules"

override step other() {
    count(pieces: [knight, knight])
}
'''

UNRELATED = '''rules "rules of their own, built on nothing"
outcome total: int = 0
step count(pieces: int) { total = pieces }
action go() { count(pieces: 1) }
'''


async def open_scopes_beside_others(client: LanguageClient, folder: Path) -> str:
    """The scopes rules open; beside them on disk, a variant of them and rules of their own (neither open)."""
    (folder / "on-disk.rules").write_text(ON_DISK)
    (folder / "unrelated.rules").write_text(UNRELATED)
    uri, _ = await open_scopes(client, folder)
    return uri


async def test_renaming_a_step_renames_its_calls_in_every_file_built_on_it_open_or_not(client: LanguageClient,
                                                                                      tmp_path):
    uri = await open_scopes_beside_others(client, tmp_path)
    edit = await rename(client, uri, where(SCOPES, "count(pieces: pieces)", "count"), "muster")
    assert set(edit.changes) == {uri, (tmp_path / "on-disk.rules").as_uri()}
    assert applied(SCOPES, edit.changes[uri]) == SCOPES.replace("step count(", "step muster(").replace(
        "count(pieces: pieces)", "muster(pieces: pieces)")
    assert applied(ON_DISK, edit.changes[(tmp_path / "on-disk.rules").as_uri()]) == ON_DISK.replace("count(", "muster(")
    close(client, uri)


async def test_renaming_a_steps_parameter_renames_the_arguments_given_by_its_name(client: LanguageClient, tmp_path):
    uri = await open_scopes_beside_others(client, tmp_path)
    edit = await rename(client, uri, where(SCOPES, "count(pieces: list", "pieces"), "army")
    assert applied(SCOPES, edit.changes[uri]) == SCOPES.replace("count(pieces: list", "count(army: list").replace(
        "for p in pieces {\n        sum", "for p in army {\n        sum").replace("count(pieces: pieces)",
                                                                                 "count(army: pieces)")
    assert applied(ON_DISK, edit.changes[(tmp_path / "on-disk.rules").as_uri()]) == ON_DISK.replace(
        "count(pieces:", "count(army:")
    close(client, uri)


async def test_a_parameter_of_a_step_a_variant_overrides_is_not_renamed(client: LanguageClient, tmp_path):
    (tmp_path / "overriding.rules").write_text(
        'extends "scopes.rules"\noverride step count(pieces: list of piece) {\n    total = 1\n}\n')
    uri = await open_scopes_beside_others(client, tmp_path)
    refused = await refused_rename(client, uri, where(SCOPES, "count(pieces: list", "pieces"), "army")
    assert "parameter of step count is overridden" in refused
    close(client, uri)


async def test_a_parameter_is_renamed_from_the_file_that_declares_it(client: LanguageClient, tmp_path):
    base = await open_scopes_beside_others(client, tmp_path)
    uri = await open_document(client, tmp_path / "on-disk.rules")
    refused = await refused_rename(client, uri, where(ON_DISK, "count(pieces:", "pieces"), "army")
    assert "rename the parameter where it is declared, in scopes.rules" in refused
    close(client, uri)
    close(client, base)


async def test_renaming_a_kind_renames_its_rows_and_types_in_every_file_built_on_it(client: LanguageClient,
                                                                                   tmp_path):
    uri = await open_scopes_beside_others(client, tmp_path)
    edit = await rename(client, uri, where(SCOPES, "kind piece", "piece"), "token")
    assert applied(SCOPES, edit.changes[uri]) == SCOPES.replace("kind piece", "kind token").replace(
        "piece knight", "token knight").replace("list of piece", "list of token")
    variant = (tmp_path / "variant.rules").as_uri()
    assert applied(SCOPES_VARIANT, edit.changes[variant]) == SCOPES_VARIANT.replace("piece knight", "token knight")
    assert set(edit.changes) == {uri, variant}
    close(client, uri)


async def test_a_file_built_on_the_declaration_that_does_not_parse_stops_a_rename(client: LanguageClient,
                                                                                  tmp_path):
    (tmp_path / "broken.rules").write_text('extends "scopes.rules"\noverride step other( {\n')
    uri = await open_scopes_beside_others(client, tmp_path)
    refused = await refused_rename(client, uri, where(SCOPES, "step count", "count"), "muster")
    assert "broken.rules does not parse" in refused
    close(client, uri)


@pytest.mark.parametrize("name, written, new_name, why", [
    ("count", "step count", "pieces", "'pieces' is a local or a parameter in scopes.rules"),
    ("piece", "kind piece", "int", "renaming would break scopes.rules: 'int' is a built-in type"),
    ("count", "step count", "stopped", "renaming would break scopes.rules: 'stopped' is kept"),
])
async def test_a_rename_that_would_break_the_rules_is_refused(client: LanguageClient, tmp_path, name, written,
                                                              new_name, why):
    uri = await open_scopes_beside_others(client, tmp_path)
    assert why in await refused_rename(client, uri, where(SCOPES, written, name), new_name)
    close(client, uri)


async def test_a_variant_whose_extends_or_override_fails_is_renamed_too(client: LanguageClient, tmp_path):
    erring = 'extends "scopes.rules"\noverride step cuont() {\n}\naction more() {\n    count(pieces: [knight])\n}\n'
    (tmp_path / "erring.rules").write_text(erring)
    uri = await open_scopes_beside_others(client, tmp_path)
    edit = await rename(client, uri, where(SCOPES, "step count", "count"), "muster")
    assert applied(erring, edit.changes[(tmp_path / "erring.rules").as_uri()]) == erring.replace(
        "    count(", "    muster(")
    close(client, uri)


async def test_a_file_opened_through_a_link_is_edited_once(client: LanguageClient, tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real, target_is_directory=True)
    (real / "on-disk.rules").write_text(ON_DISK)
    (real / "scopes.rules").write_text(SCOPES)
    uri = await open_document(client, tmp_path / "link" / "scopes.rules")
    edit = await rename(client, uri, where(SCOPES, "step count", "count"), "muster")
    assert set(edit.changes) == {uri, (real / "on-disk.rules").as_uri()}
    assert applied(SCOPES, edit.changes[uri]).count("muster") == 2  # each place once: applied twice, 4
    close(client, uri)


async def test_a_rename_edits_an_open_variant_as_the_editor_holds_it_now(client: LanguageClient, tmp_path):
    uri = await open_scopes_beside_others(client, tmp_path)
    slow = ON_DISK + "".join(f"\nstep filler{i}() {{\n    total = {i}\n}}\n" for i in range(800))
    variant = await open_document(client, tmp_path / "on-disk.rules", slow)
    edited = slow.replace('extends "scopes.rules"\n', 'extends "scopes.rules"\n# a\n# b\n# c\n')
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        lsp.VersionedTextDocumentIdentifier(uri=variant, version=2), [lsp.TextDocumentContentChangeWholeDocument(
            text=edited)]))
    for _ in range(60):  # as a person would: again, while the server says the variant is still being read
        try:
            edit = await rename(client, uri, where(SCOPES, "step count", "count"), "muster")
            break
        except JsonRpcException as refused:
            assert "still being read" in refused.message
            await asyncio.sleep(0.5)
    assert applied(edited, edit.changes[variant]) == edited.replace("    count(pieces: [knight",
                                                                    "    muster(pieces: [knight")
    close(client, variant)
    close(client, uri)


async def test_renaming_where_no_name_is_written_is_refused(client: LanguageClient, tmp_path):
    uri, _ = await open_scopes(client, tmp_path)
    refused = await refusal_to_rename(client, uri, where(SCOPES, "sum += p", "+="))
    assert "no name here" in refused.message
    close(client, uri)


@pytest.mark.parametrize("new_name, why", [("if", "is not a name"), ("2x", "is not a name"),
                                           ("knight", "declared already"), ("roll", "declared already"),
                                           ("p", "a name in this declaration already")])
async def test_a_rename_to_a_keyword_or_a_name_in_use_is_refused(client: LanguageClient, tmp_path, new_name, why):
    uri, _ = await open_scopes(client, tmp_path)
    assert why in await refused_rename(client, uri, where(SCOPES, "sum += p", "sum"), new_name)
    close(client, uri)


async def test_a_local_may_be_renamed_to_a_word_that_may_be_a_name(client: LanguageClient, tmp_path):
    uri, _ = await open_scopes(client, tmp_path)
    edit = await rename(client, uri, where(SCOPES, "sum += p", "sum"), "rolls")
    assert "let rolls = 0" in applied(SCOPES, edit.changes[uri])
    close(client, uri)


async def test_signature_help_shows_a_step_named_with_a_word_that_may_be_a_name(client: LanguageClient, tmp_path):
    text = CALLS.replace("barrage", "replace")
    uri = await open_document(client, tmp_path / "calls.rules", text)
    found = await signature_at(client, uri, where(text, "replace(3)", "3"))
    assert found is not None and found.signatures[0].label == "step replace(count: int, target: int = 4)"
    close(client, uri)
