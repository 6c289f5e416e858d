"""How fast `fracas lsp` answers an editor, over stdio, on every shipped rules file (target: 200 ms).

A real client (pygls's) opens each file, waits for its diagnostics, then times
hover, definition, references and completion at many names, and the outline,
code lenses and formatting of the file; the slowest answer is the verdict.
The analysis after each change runs in the background: its time is shown too.
"""

from __future__ import annotations

import asyncio
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


async def _measure() -> tuple[dict[str, tuple[float, str]], dict[str, float]]:
    client = LanguageClient("bench", "1")
    published: dict[str, float] = {}

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def diagnostics(params: lsp.PublishDiagnosticsParams) -> None:
        published[params.uri] = time.perf_counter()

    await client.start_io(sys.executable, "-m", "interpreter.cli", "lsp")
    await client.initialize_async(lsp.InitializeParams(capabilities=lsp.ClientCapabilities()))
    client.initialized(lsp.InitializedParams())
    slowest: dict[str, tuple[float, str]] = {}  # request -> its slowest time, and in which file
    analysis: dict[str, float] = {}
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
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return slowest, analysis


def test_the_language_server_answers_within_200_ms():
    slowest, analysis = asyncio.run(_measure())
    worst = max(seconds for seconds, _ in slowest.values())
    answers = ", ".join(f"{what} {seconds * 1e3:.0f} ms ({name})" for what, (seconds, name) in slowest.items())
    opened = ", ".join(f"{name} {seconds * 1e3:.0f} ms" for name, seconds in analysis.items())
    verdict("lsp-slowest-answer", worst / TARGET, 1,
            f"slowest answers: {answers}; from opening a file to its diagnostics: {opened}")
