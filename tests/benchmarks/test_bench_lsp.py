"""How fast `fracas lsp` answers an editor, over stdio, on every shipped rules file (target: 200 ms).

A real client (pygls's) opens each file, waits for its diagnostics, then times
hover, definition, references and completion at many names, and the outline,
code lenses and formatting of the file. Then it edits the file as a writer
does (a digit changed in a declaration, a letter typed into a name, a line
added) and times the first answer after each edit: hover, definition,
references, completion or formatting, sent right after the change. The
slowest answer of either kind is the verdict. The analysis after each change
runs in the background: its time is shown too.
"""

from __future__ import annotations

import asyncio
import re
import sys
import time
from pathlib import Path

import pytest

from bench import verdict

pytest.importorskip("pygls")
from lsprotocol import types as lsp  # noqa: E402
from pygls.lsp.client import LanguageClient  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted((ROOT / "rules").glob("*.rules"))
TARGET = 0.2


def _edits(text: str) -> list[tuple[str, int]]:
    """Edited texts, each with the line of the edit: spread over the file, as a writer moves through it."""
    lines = text.split("\n")
    numbers = [i for i, line in enumerate(lines) if re.search(r"\b\d", line) and not line.lstrip().startswith("#")]
    names = [i for i, line in enumerate(lines) if re.search(r"[a-z]_[a-z]", line) and not line.lstrip().startswith("#")]
    found = []
    for i in numbers[:: max(1, len(numbers) // 4)][:4]:  # a number retuned
        digit = re.search(r"\b\d", lines[i])
        assert digit is not None
        changed = lines[i][: digit.start()] + str((int(digit.group()) + 1) % 10) + lines[i][digit.start() + 1 :]
        found.append(("\n".join(lines[:i] + [changed] + lines[i + 1 :]), i))
    for i in names[len(names) // 3 :: max(1, len(names) // 3)][:2]:  # a letter typed into a name: an error
        at = re.search(r"[a-z]_[a-z]", lines[i])
        assert at is not None
        changed = lines[i][: at.start() + 1] + "x" + lines[i][at.start() + 1 :]
        found.append(("\n".join(lines[:i] + [changed] + lines[i + 1 :]), i))
    middle = len(lines) // 2  # a line added: every place below moves
    found.append(("\n".join(lines[:middle] + ["# a note"] + lines[middle:]), middle))
    return found


def _position_away(lines: list[str], edited: int) -> lsp.Position:
    """A name on a line some way from the edit: what the writer looks up next."""
    for offset in range(len(lines)):
        number = (edited + 7 + offset) % len(lines)
        found = re.search(r"\b[a-z][a-z_]*[a-z]\b", lines[number])
        if found and not lines[number].lstrip().startswith("#"):
            return lsp.Position(line=number, character=found.start() + 1)
    return lsp.Position(line=0, character=0)


async def _measure() -> tuple[dict[str, tuple[float, str]], dict[str, float], dict[str, tuple[float, str]]]:
    client = LanguageClient("bench", "1")
    published: dict[str, float] = {}

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def diagnostics(params: lsp.PublishDiagnosticsParams) -> None:
        published[params.uri] = time.perf_counter()

    await client.start_io(sys.executable, "-m", "fracas.interpreter.tools.cli", "lsp")
    await client.initialize_async(lsp.InitializeParams(capabilities=lsp.ClientCapabilities()))
    client.initialized(lsp.InitializedParams())
    slowest: dict[str, tuple[float, str]] = {}  # request -> its slowest time, and in which file
    analysis: dict[str, float] = {}
    after_edit: dict[str, tuple[float, str]] = {}  # file -> the slowest first answer after an edit, and which
    for path in SHIPPED:
        uri, text = path.as_uri(), path.read_text()
        start = time.perf_counter()
        client.text_document_did_open(lsp.DidOpenTextDocumentParams(
            text_document=lsp.TextDocumentItem(uri=uri, language_id="fracas", version=1, text=text)))
        while uri not in published:
            await asyncio.sleep(0.005)
        analysis[path.name] = published[uri] - start
        document = lsp.TextDocumentIdentifier(uri=uri)
        lines = text.split("\n")
        places = [lsp.Position(line=n, character=c) for n, line in enumerate(lines) for c in range(0, len(line), 7)
                  if line[c : c + 1].isalpha()][::9]
        requests = []
        for position in places:
            requests += [("hover", lambda p=position: client.text_document_hover_async(
                             lsp.HoverParams(text_document=document, position=p))),
                         ("definition", lambda p=position: client.text_document_definition_async(
                             lsp.DefinitionParams(text_document=document, position=p))),
                         ("references", lambda p=position: client.text_document_references_async(lsp.ReferenceParams(
                             text_document=document, position=p,
                             context=lsp.ReferenceContext(include_declaration=True)))),
                         ("completion", lambda p=position: client.text_document_completion_async(
                             lsp.CompletionParams(text_document=document, position=p)))]
        requests += [("outline", lambda: client.text_document_document_symbol_async(
                         lsp.DocumentSymbolParams(text_document=document))),
                     ("lenses", lambda: client.text_document_code_lens_async(
                         lsp.CodeLensParams(text_document=document))),
                     ("formatting", lambda: client.text_document_formatting_async(lsp.DocumentFormattingParams(
                         text_document=document, options=lsp.FormattingOptions(tab_size=4, insert_spaces=True))))]
        for what, request in requests:
            start = time.perf_counter()
            await request()
            took = time.perf_counter() - start
            if took > slowest.get(what, (0.0, ""))[0]:
                slowest[what] = (took, path.name)
        kinds = ["hover", "definition", "references", "completion", "formatting"]
        for version, (edited, line) in enumerate(_edits(text), 2):
            what = kinds[version % len(kinds)]
            position = _position_away(edited.split("\n"), line)
            start = time.perf_counter()
            client.text_document_did_change(lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=edited)]))
            await _first_answer(client, document, what, position)
            took = time.perf_counter() - start
            if took > after_edit.get(path.name, (0.0, ""))[0]:
                after_edit[path.name] = (took, what)
            await asyncio.sleep(0.6)  # the writer pauses: the analysis of this edit is done before the next
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return slowest, analysis, after_edit


async def _first_answer(client: LanguageClient, document: lsp.TextDocumentIdentifier, what: str,
                        position: lsp.Position) -> None:
    if what == "hover":
        await client.text_document_hover_async(lsp.HoverParams(text_document=document, position=position))
    elif what == "definition":
        await client.text_document_definition_async(lsp.DefinitionParams(text_document=document, position=position))
    elif what == "references":
        await client.text_document_references_async(lsp.ReferenceParams(
            text_document=document, position=position, context=lsp.ReferenceContext(include_declaration=True)))
    elif what == "completion":
        await client.text_document_completion_async(lsp.CompletionParams(text_document=document, position=position))
    else:
        await client.text_document_formatting_async(lsp.DocumentFormattingParams(
            text_document=document, options=lsp.FormattingOptions(tab_size=4, insert_spaces=True)))


def test_the_language_server_answers_within_200_ms():
    slowest, analysis, after_edit = asyncio.run(_measure())
    worst = max(seconds for seconds, _ in [*slowest.values(), *after_edit.values()])
    answers = ", ".join(f"{what} {seconds * 1e3:.0f} ms ({name})" for what, (seconds, name) in slowest.items())
    edited = ", ".join(f"{name} {seconds * 1e3:.0f} ms ({what})" for name, (seconds, what) in after_edit.items())
    opened = ", ".join(f"{name} {seconds * 1e3:.0f} ms" for name, seconds in analysis.items())
    verdict("lsp-slowest-answer", worst / TARGET, 1,
            f"slowest answers on an analysed file: {answers}; the slowest first answer after an edit: {edited}; "
            f"from opening a file to its diagnostics: {opened}")
