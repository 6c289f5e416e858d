"""How long a request of the language server waits for an analysis (no client: the server's own method)."""

from __future__ import annotations

import asyncio
import gc
import threading
from collections.abc import Iterator

import pytest

pytest.importorskip("pygls")
from fracas.dsl.limits import Limits  # noqa: E402
from fracas.dsl.parse import keep_in_memory  # noqa: E402
from fracas.interpreter.tools.lsp import server as lsp_server  # noqa: E402
from fracas.interpreter.tools.lsp.analysis import Analysis, Place, analyze  # noqa: E402
from lsprotocol import types as lsp  # noqa: E402
from pygls.workspace import Workspace  # noqa: E402


@pytest.fixture
def server(monkeypatch) -> lsp_server.FracasServer:
    """A server whose waits are short, so that a test sees which one a request took."""
    monkeypatch.setattr(lsp_server, "QUICK", 0.01)
    monkeypatch.setattr(lsp_server, "WAIT", 0.02)
    made = lsp_server.FracasServer(Limits())
    made.protocol._workspace = Workspace(None)  # what initialize would make
    return made


def test_a_request_about_a_file_just_opened_waits_for_its_first_analysis_past_the_usual_wait(server):
    uri = "untitled:slow.rules"
    analysis = Analysis("slow.rules", "", 1)

    async def ask() -> Analysis | None:
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        server.pending[uri] = future
        future.add_done_callback(lambda done: server.analyses.__setitem__(uri, done.result()))
        loop.call_later(0.2, future.set_result, analysis)  # ten times the usual wait
        return await server.current(uri, quick=True)

    assert asyncio.run(ask()) is analysis


def test_a_request_about_a_file_with_an_analysis_does_not_wait_past_the_usual_wait(server):
    uri = "untitled:slow.rules"
    older = Analysis("slow.rules", "", 1)
    server.analyses[uri] = older

    async def ask() -> Analysis | None:
        future = asyncio.get_running_loop().create_future()
        server.pending[uri] = future  # never done: an analysis stuck in the worker
        return await asyncio.wait_for(server.current(uri), 5)

    assert asyncio.run(ask()) is older



def opened(server: lsp_server.FracasServer, name: str) -> str:
    """The uri of an empty document the editor has opened."""
    uri = f"untitled:{name}"
    server.workspace.put_text_document(lsp.TextDocumentItem(uri=uri, language_id="fracas", version=1, text=""))
    return uri


def test_a_request_right_after_an_analysis_ends_gets_it_before_its_callback_has_run(server):
    # A done future's callbacks run a turn of the event loop later: a request in between found no analysis.
    uri = opened(server, "quick.rules")
    analysis = Analysis("quick.rules", "", 1)

    async def ask() -> Analysis | None:
        future = asyncio.get_running_loop().create_future()
        server.expect(uri, future)
        future.set_result(analysis)  # done, its callback not yet run
        return await server.current(uri, quick=True)

    assert asyncio.run(ask()) is analysis


def test_an_analysis_begun_before_its_file_was_closed_and_opened_again_is_dropped(server):
    uri = opened(server, "reopened.rules")

    async def analysed_after_reopening() -> Analysis | None:
        future = asyncio.get_running_loop().create_future()
        server.openings[uri] = 1
        server.expect(uri, future)
        server.openings[uri] = 3  # closed and opened again: the text analysed is gone
        future.set_result(Analysis("reopened.rules", "", 1))
        await asyncio.sleep(0)  # its callback runs
        return server.analyses.get(uri)

    assert asyncio.run(analysed_after_reopening()) is None


def test_an_older_analysis_taken_by_a_waiting_request_leaves_the_newer_one_to_come(server):
    uri = opened(server, "typed.rules")
    older, newer = Analysis("typed.rules", "", 1), Analysis("typed.rules", "x", 2)

    async def analysed_after_typing() -> Analysis | None:
        loop = asyncio.get_running_loop()
        first = loop.create_future()
        server.expect(uri, first)

        async def typed() -> asyncio.Future:
            await asyncio.sleep(0.001)
            second = loop.create_future()
            server.expect(uri, second)  # a change: the newer text's analysis is scheduled
            first.set_result(older)  # the older one ends while a request waits on it
            return second

        typing = asyncio.ensure_future(typed())
        await server.current(uri, quick=True)
        (await typing).set_result(newer)
        await asyncio.sleep(0)  # its callback runs
        return server.analyses.get(uri)

    assert asyncio.run(analysed_after_typing()) is newer


def test_a_file_still_waiting_for_its_first_analysis_counts_among_the_files_that_may_read_another(server):
    # Its analysis under way may have read the other's text from before a change: it is analysed again.
    waiting, analysed, unrelated = opened(server, "variant.rules"), opened(server, "base.rules"), opened(server, "x.rules")
    server.analyses[unrelated] = Analysis("x.rules", "", 1)

    async def readers() -> list[str]:
        server.pending[waiting] = asyncio.get_running_loop().create_future()
        return server.dependents(analysed)

    assert asyncio.run(readers()) == [waiting]


def test_a_quick_request_about_a_file_whose_analyses_are_slow_answers_at_once_from_the_last(server, monkeypatch):
    monkeypatch.setattr(lsp_server, "QUICK", 60.0)  # a wait would outlast the test's patience below
    uri = opened(server, "long.rules")
    server.analyses[uri] = Analysis("long.rules", "", 1)
    server.took[uri] = 61.0  # its last analysis took longer than QUICK

    async def ask() -> Analysis | None:
        server.pending[uri] = asyncio.get_running_loop().create_future()  # the new text's, under way
        return await asyncio.wait_for(server.current(uri, quick=True), 5)

    answered = asyncio.run(ask())
    assert answered is not None and answered.stale


@pytest.fixture
def built() -> Iterator[lsp_server.FracasServer]:
    """A server with its features, as `fracas lsp` builds it; what building sets for the whole process is put
    back after (trees kept in memory, the garbage collector's thresholds), as other tests count parses."""
    thresholds = gc.get_threshold()
    made = lsp_server.build(Limits())
    made.protocol._workspace = Workspace(None)
    yield made
    keep_in_memory(0)
    gc.set_threshold(*thresholds)


def test_formatting_does_not_wait_behind_an_analysis(built):
    server = built
    uri = opened(server, "laid_out.rules")
    server.workspace.get_text_document(uri).apply_change(
        lsp.TextDocumentContentChangeWholeDocument(text="outcome  x: int = 0\n"))
    released = threading.Event()
    server.worker.submit(released.wait, 30)  # an analysis that takes its time
    formatting = server.protocol.fm.features[lsp.TEXT_DOCUMENT_FORMATTING]

    async def ask() -> list[lsp.TextEdit] | None:
        params = lsp.DocumentFormattingParams(text_document=lsp.TextDocumentIdentifier(uri=uri),
                                              options=lsp.FormattingOptions(tab_size=4, insert_spaces=True))
        return await asyncio.wait_for(formatting(params), 10)

    try:
        edits = asyncio.run(ask())
    finally:
        released.set()
    assert edits is not None and edits[0].new_text == "outcome x: int = 0\n"


def test_a_rename_whose_file_changed_since_its_places_were_found_says_so(server, tmp_path):
    path = tmp_path / "edited.rules"
    before = "outcome hits: int = 0\naction go() { hits = 1 }\n"
    uri = path.as_uri()
    server.workspace.put_text_document(lsp.TextDocumentItem(uri=uri, language_id="fracas", version=1, text=before))
    analysis = analyze(before, str(path), Limits(), 1)
    places = {path.resolve(): [Place(str(path), 1, 9, 13), Place(str(path), 2, 15, 19)]}
    assert server.broken_by([analysis], places, "dealt") is None
    server.workspace.get_text_document(uri).apply_change(
        lsp.TextDocumentContentChangeWholeDocument(text="# a line typed above\n" + before))
    assert server.broken_by([analysis], places, "dealt") == "edited.rules changed while it was being renamed: try again"
