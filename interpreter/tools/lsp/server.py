"""The language server: the protocol's side, over stdio, on pygls.

Each open document is analysed in a worker thread whenever it changes (and
every open file built on it with it), and its diagnostics published; a
request waits briefly for the analysis of the text it is about, then answers
from the latest one. A request about a place (hover, definition, references,
completion) waits less: past QUICK it answers from the last analysis, its
places carried over to the newest text, so an answer never waits for a
slow analysis of a file being typed (where the file's last analysis took
longer than QUICK, it does not wait at all). Formatting has a thread of its
own: it needs no analysis. Every handler answers something, whatever the text: a
problem of ours is logged, never left to stop the server.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import itertools
import logging
import time
import traceback
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.workspace import TextDocument

from fracas.dsl.diagnostics import Diagnostic, RulesError
from fracas.dsl import syntax
from fracas.dsl.format import Reformatter, load_parser
from fracas.dsl.limits import Limits
from fracas.dsl.parse import keep_in_memory
from fracas.interpreter.tools.lsp.analysis import Analysis, Place, analyze, carry_over, outlined, parse_kept
from fracas.interpreter.tools.lsp.completion import call_at, complete
from fracas.interpreter.tools.lsp.features import (RenameTarget, call_signature, definition, highlights, hover, lenses,
                                                   lines_of, matches, named_in, parameter_hints, quick_fix, reading,
                                                   references, renameable, renamed, rewritten, symbols)
from fracas.interpreter.tools.lsp.workspace import built_on, read_text, rules_files

RUN_EXAMPLE = "fracas.runExample"
WAIT = 2.0  # seconds a request waits for the analysis of the text it is about
FIRST_WAIT = 30.0  # ... more, when the document has no analysis yet to answer from (just opened, behind others)
QUICK = 0.08  # ... and a request about a place, before it answers from the last analysis
IDLE = 2.0  # seconds without an edit before the server looks for garbage among everything it keeps
log = logging.getLogger("fracas.lsp")

_ITEM_KINDS = {"keyword": lsp.CompletionItemKind.Keyword, "row": lsp.CompletionItemKind.EnumMember,
               "field": lsp.CompletionItemKind.Field, "param": lsp.CompletionItemKind.Constant,
               "function": lsp.CompletionItemKind.Function, "builtin": lsp.CompletionItemKind.Function,
               "variable": lsp.CompletionItemKind.Variable, "value": lsp.CompletionItemKind.Value,
               "kind": lsp.CompletionItemKind.Class}
_SYMBOL_KINDS = {"kind": lsp.SymbolKind.Class, "enum": lsp.SymbolKind.Enum, "row": lsp.SymbolKind.Object,
                 "table": lsp.SymbolKind.Array, "param": lsp.SymbolKind.Constant, "choice": lsp.SymbolKind.Enum,
                 "outcome": lsp.SymbolKind.Variable, "modifier": lsp.SymbolKind.Operator,
                 "fn": lsp.SymbolKind.Function, "step": lsp.SymbolKind.Method, "action": lsp.SymbolKind.Event,
                 "example": lsp.SymbolKind.Module, "field": lsp.SymbolKind.Field}


def uri_to_path(uri: str) -> str:
    parsed = urlparse(uri)
    if parsed.scheme == "file":
        return str(Path(unquote(parsed.path)))
    return uri


def path_to_uri(path: str) -> str:
    return Path(path).resolve().as_uri() if not path.startswith(("untitled:", "<")) and "://" not in path else path


def normalized(text: str) -> str:
    """Line ends as fracas reads files; a line keeps its characters, so places do not move."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


class _Protocol(LanguageServerProtocol):
    """pygls's protocol, but a request it cannot read (its params of the wrong shape) is answered with the error:
    pygls only logs it, and the editor would wait for an answer for ever. A request refused (Refused) is
    answered with its message, and nothing logged."""

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            if "id" in data and "method" in data:
                self._send_response(data["id"], None, error.to_response_error())
            raise

    def _send_handler_result(self, future: Any, *, msg_id: Any) -> None:
        # A refusal is an answer, not a failure: sent as pygls sends an error, without its log of a traceback.
        if not future.cancelled() and isinstance(future.exception(), Refused):
            self._request_futures.pop(msg_id, None)
            self._send_response(msg_id, error=future.exception().to_response_error())
            return
        super()._send_handler_result(future, msg_id=msg_id)


class Refused(JsonRpcException):
    """A request the server declines, with why (a name it does not rename, say): the editor shows the message."""

    CODE = lsp.LSPErrorCodes.RequestFailed.value


class FracasServer(LanguageServer):
    def __init__(self, limits: Limits):
        super().__init__("fracas", "0.1.0", text_document_sync_kind=lsp.TextDocumentSyncKind.Full,
                         protocol_cls=_Protocol)
        self.limits = limits
        self.analyses: dict[str, Analysis] = {}
        self.pending: dict[str, asyncio.Future] = {}
        # uri -> how many times it was opened or closed: an analysis begun before the document was closed (and
        # opened again, perhaps) is of a text that is gone, and its result is dropped.
        self.openings: dict[str, int] = {}
        # Each analysis is numbered when scheduled; uri -> the number of the last whose result was taken, so that
        # an older result never replaces a later one.
        self.tickets = itertools.count()
        self.taken: dict[str, int] = {}
        # An analysis not taken yet -> what takes its result (once: when it is done, or sooner by current()).
        self.takers: dict[asyncio.Future, Callable[[asyncio.Future], None]] = {}
        self.results: dict[str, dict[str, tuple[bool, str]]] = {}  # uri -> example title -> (passed, message)
        self.worker = ThreadPoolExecutor(1, thread_name_prefix="fracas-analysis")  # one at a time
        self.failures: list[str] = []  # analyses that failed (bugs of ours), reported from the event loop
        self.formatters: dict[str, Reformatter] = {}  # uri -> what formats its texts, keeping what did not change
        self.collection: asyncio.TimerHandle | None = None
        self.asking = 0  # requests being answered
        self.unreadable: dict[str, str] = {}  # uri -> its last text analysed, if that does not parse (worker's)
        self.preparer = ThreadPoolExecutor(1, thread_name_prefix="fracas-prepare")  # work that can wait
        self.took: dict[str, float] = {}  # uri -> seconds its last analysis took (worker's)
        # Format Document in a thread of its own: behind the worker it would wait for the analysis of the edit
        # just made (hundreds of ms on a long file), which formatting does not need.
        self.formatter = ThreadPoolExecutor(1, thread_name_prefix="fracas-format")

    # ---- documents and their analyses

    def document(self, uri: str) -> TextDocument | None:
        """The open document of this URI as the client writes it: pygls keeps them by the URI unquoted (a space, an
        accent, Windows' c%3A), so a look-up by the client's URI itself found none and the file got no answers."""
        return self.workspace.text_documents.get(unquote(uri))

    def open_documents(self) -> list[TextDocument]:
        """The open documents, each with its URI as the client wrote it (`.uri`)."""
        return list(self.workspace.text_documents.values())

    def text(self, uri: str) -> str | None:
        document = self.document(uri)
        return normalized(document.source) if document is not None else None

    def open_texts(self) -> dict[Path, str]:
        found = {}
        for document in self.open_documents():
            uri = document.uri
            if uri.startswith("file:"):
                found[Path(uri_to_path(uri)).resolve()] = normalized(document.source)
        return found

    def schedule(self, uri: str, dependents: bool = True) -> None:
        document = self.document(uri)
        if document is None:
            return
        text, version, texts = normalized(document.source), document.version, self.open_texts()
        previous = self.analyses.get(uri)
        future = asyncio.get_running_loop().run_in_executor(
            self.worker, self._analyze, uri, text, version, texts, previous)
        self.expect(uri, future)
        self._collect_when_idle()
        if dependents:
            for other in self.dependents(uri):
                self.results.pop(other, None)  # what its examples gave was with the file as it was
                self.schedule(other, dependents=False)

    def dependents(self, uri: str) -> list[str]:
        """The other open documents that may read this file: those whose last analysis did, and those whose
        first analysis is under way (it may have read the file's text from before a change)."""
        path = str(Path(uri_to_path(uri)).resolve())
        found = []
        for other in [document.uri for document in self.open_documents()]:
            analysis = self.analyses.get(other)
            if other != uri and (path in analysis.depends if analysis is not None else other in self.pending):
                found.append(other)
        return found

    def expect(self, uri: str, future: asyncio.Future) -> None:
        """Make `future` the analysis the document waits for: its result is taken when it is done."""
        self.pending[uri] = future
        take = self.takers[future] = functools.partial(self._analysed, uri, self.openings.get(uri, 0), next(self.tickets))
        future.add_done_callback(take)

    def format(self, uri: str, text: str) -> str | None:
        """The text laid out by fracas fmt, or None if it cannot be; in the formatting thread."""
        if self.unreadable.get(uri) == text:
            return None  # its analysis found it does not parse: no need to read it again to know
        formatter = self.formatters.get(uri)
        if formatter is None:
            formatter = self.formatters[uri] = Reformatter(uri_to_path(uri), self.limits)
        try:
            return formatter.format(text)
        except RulesError:
            return None
        except RecursionError:  # brackets nested past what the layout follows: left as it is, as fracas fmt refuses it
            return None

    def _ready_to_format(self, uri: str, text: str) -> None:
        """Read a newly opened file for formatting, so that Format Document answers at once.

        In a thread of its own, a declaration at a time, stepping aside
        while a request is answered or a file analysed.
        """
        formatter = self.formatters.get(uri)
        if formatter is None:
            formatter = self.formatters[uri] = Reformatter(uri_to_path(uri), self.limits)
        try:
            formatter.prepare(text, self._step_aside)
        except Exception:  # a bug of ours: in the log; Format Document will say it again
            log.error("reading %s for formatting failed: %s", uri, traceback.format_exc())

    def _step_aside(self) -> None:
        waited = 0.0
        while waited < 1.0 and (self.asking or any(not f.done() for f in list(self.pending.values()))):
            time.sleep(0.005)
            waited += 0.005

    # A full garbage collection walks every object the server keeps (trees, tokens, indexes of the open
    # files): 50-100 ms, too long to happen in the middle of an answer. The server turns the automatic one
    # off (build) and collects once the editor has neither edited nor asked anything for IDLE seconds.

    def _collect_when_idle(self) -> None:
        if self.collection is not None:
            self.collection.cancel()
        self.collection = asyncio.get_running_loop().call_later(IDLE, self._collect)

    def _collect(self) -> None:
        self.collection = None
        if any(not future.done() for future in self.pending.values()):
            self._collect_when_idle()
            return
        gc.collect()

    def _analyze(self, uri: str, text: str, version: int | None, texts: dict[Path, str],
                 previous: Analysis | None) -> Analysis | None:
        document = self.document(uri)
        if document is not None and document.version != version:
            return None  # a newer text is on its way
        try:
            start = time.perf_counter()
            analysis = analyze(text, uri_to_path(uri), self.limits, version, lambda p: texts.get(p.resolve()), previous)
            self.took[uri] = time.perf_counter() - start
            if analysis.readable:
                self.unreadable.pop(uri, None)
            else:
                self.unreadable[uri] = text
            return analysis
        except Exception as error:  # a bug of ours: said in the editor, not a dead server
            log.error("analysis of %s failed: %s", uri, traceback.format_exc())
            self.failures.append(f"analysis of {uri}: {error}")
            failed = Analysis(uri_to_path(uri), text, version)
            failed.diagnostics = [Diagnostic(failed.path, 1, 1, f"internal error in fracas: {error}",
                                             "this is a bug in fracas, please report it")]
            return failed

    def _analysed(self, uri: str, opening: int, ticket: int, future: asyncio.Future) -> None:
        # Called when the future is done, and by current() if it finds it done first: a done future's
        # callbacks run a turn of the event loop later, and a request in between would find no analysis.
        if self.takers.pop(future, None) is None or future.cancelled() or future.exception() is not None:
            return
        analysis = future.result()
        while self.failures:
            self.window_log_message(lsp.LogMessageParams(type=lsp.MessageType.Error,
                                                         message=f"fracas: internal error: {self.failures.pop(0)}"))
        document = self.document(uri)
        if (analysis is None or document is None or self.openings.get(uri, 0) != opening
                or ticket <= self.taken.get(uri, -1)):
            return
        self.taken[uri] = ticket
        self.analyses[uri] = analysis
        if document.version == analysis.version:  # an older text's problems would only flicker past
            self.publish(uri, analysis)

    async def at_cursor(self, params: Any, quick: bool = True) -> tuple[Analysis, int, int] | None:
        """The analysis a request about a place is answered from (see current), and the place, as fracas counts
        lines and columns; None where the document has none."""
        analysis = await self.current(params.text_document.uri, quick=quick)
        if analysis is None:
            return None
        return analysis, *self.cursor(params.text_document.uri, params.position)

    async def rename_target(self, params: Any) -> tuple[Analysis, RenameTarget]:
        """The newest analysis of the document, and the name at the cursor, if it may be renamed; else Refused."""
        found = await self.at_cursor(params, quick=False)
        if found is None:
            raise Refused("the file is not open")
        document = self.document(params.text_document.uri)
        if document is None or found[0].version != document.version:
            raise Refused("the file is still being read: try again in a moment")
        target = renameable(*found)
        if isinstance(target, str):
            raise Refused(target)
        return found[0], target

    async def newest_related(self, analysis: Analysis) -> list[Analysis]:
        """The analyses of the other open files that share a chain with this one (related), each of the text the
        editor holds now; Refused where one is still being made."""
        found = []
        for other in self.related(analysis):
            uri = next((uri for uri, known in list(self.analyses.items()) if known is other), None)
            newest = await self.current(uri) if uri is not None else None
            document = self.document(uri) if uri is not None else None
            if newest is None or document is None or newest.version != document.version or newest.stale:
                raise Refused(f"{Path(other.path).name} is still being read: try again in a moment")
            found.append(newest)
        return found

    def broken_by(self, analyses: list[Analysis], places: dict[Path, list[Place]], new_name: str) -> str | None:
        """What a rename would break, as the first problem it would add to a file that reads the name (a local
        it would hide, a name the language keeps); None where it adds none. In the worker's thread."""
        texts = self.open_texts()
        for analysis in analyses:  # the places were found in these texts: an edit since moves them
            now = texts.get(Path(analysis.path).resolve())
            if now is not None and now != analysis.text:
                return f"{Path(analysis.path).name} changed while it was being renamed: try again"
        for path, found in places.items():
            text = texts.get(path)
            if text is None:
                text = next((a.sources[p.path].text for a in analyses for p in found[:1] if p.path in a.sources), None)
            if text is not None:
                texts[path] = rewritten(text, found, new_name)
        for analysis in analyses:
            path = Path(analysis.path).resolve()
            before = {d.message for d in analysis.diagnostics if d.severity != "warning"}
            text = texts.get(path, analysis.text)
            after = analyze(text, analysis.path, self.limits, None, lambda p: texts.get(p.resolve()))
            added = [d for d in after.diagnostics if d.severity != "warning" and d.message not in before]
            if added:
                return f"renaming would break {Path(added[0].path).name}: {added[0].message}"
        return None

    def unopened(self, analyses: list[Analysis]) -> list[Analysis]:
        """The rules files on disk that the editor has not opened and that are built on a file of the analyses'
        chains, at any depth, analysed (open files read as the editor holds them): one that does not parse
        depends on the files its `extends` name. In the worker's thread."""
        texts = self.open_texts()
        known = {Path(p).resolve() for analysis in analyses for p in (analysis.path, *analysis.chain)}
        found = []
        for path, bases in built_on(known, read_text).items():
            text = read_text(path) if path not in texts else None  # an open file is analysed already
            if text is not None:
                analysis = analyze(text, str(path), self.limits, None, lambda p: texts.get(p.resolve()),
                                   parsing=parse_kept)
                if not analysis.readable:
                    analysis.depends = {str(base) for base in bases}
                found.append(analysis)
        return found

    def folders(self) -> list[Path]:
        """The workspace's folders, as the editor gave them."""
        found = [Path(uri_to_path(folder.uri)) for folder in self.workspace.folders.values()]
        if self.workspace.root_path:
            found.append(Path(self.workspace.root_path))
        return found

    def workspace_symbols(self, query: str) -> list[lsp.SymbolInformation]:
        """The declarations whose names match a query, in the open files and in the workspace's other rules
        files (each read for its outline only). In the worker's thread."""
        analyses = [analysis for analysis in list(self.analyses.values()) if not analysis.stale]
        opened = {Path(analysis.path).resolve() for analysis in analyses}
        for path in rules_files(self.folders()):
            text = read_text(path) if path not in opened else None
            outline = outlined(text, str(path), self.limits) if text is not None else None
            if outline is not None:
                analyses.append(outline)
        found = []
        for analysis in analyses:
            for symbol, container in named_in(symbols(analysis)):
                if matches(query, symbol.name):
                    found.append(lsp.SymbolInformation(
                        name=symbol.name, kind=_SYMBOL_KINDS.get(symbol.kind, lsp.SymbolKind.Variable),
                        location=self.location(symbol.selection, [analysis]),
                        container_name=container or Path(analysis.path).name))
        return found

    async def current(self, uri: str, quick: bool = False) -> Analysis | None:
        """The analysis of the document's newest text; quick: or the last one carried over to that text."""
        self._collect_when_idle()  # not while the editor is asking
        future = self.pending.get(uri)
        if future is not None and not future.done():
            # A file whose analyses take longer than QUICK answers a quick request from the last one at once:
            # waiting would only make the answer later (and the analysis itself, sharing the interpreter).
            slow = quick and self.took.get(uri, 0.0) > QUICK and self.analyses.get(uri) is not None
            if not slow:
                await asyncio.wait({future}, timeout=QUICK if quick else WAIT)  # waits without cancelling it
            last, document = self.analyses.get(uri), self.document(uri)
            if not future.done() and quick and last is not None and document is not None:
                return carry_over(last, normalized(document.source), document.version)
            if not future.done():
                # An answer from nothing is worse than a late one: a file just opened waits for its first analysis.
                await asyncio.wait({future}, timeout=WAIT if self.analyses.get(uri) is not None else FIRST_WAIT)
        take = self.takers.get(future) if future is not None and future.done() else None
        if take is not None:  # done, and its callback not run yet
            take(future)
        return self.analyses.get(uri)

    def related(self, analysis: Analysis) -> list[Analysis]:
        """The other open files that share a chain with this one (its bases, and the variants built on it)."""
        here = str(Path(analysis.path).resolve())
        found = []
        for other in list(self.analyses.values()):
            # Not the file itself: while an edit is analysed, `analysis` is its last one carried over to the new
            # text, and its last one, still kept, holds the places of the text before.
            if str(Path(other.path).resolve()) == here:
                continue
            if other is not analysis and (here in {str(Path(p).resolve()) for p in other.chain}
                                          or str(Path(other.path).resolve()) in
                                          {str(Path(p).resolve()) for p in analysis.chain}):
                found.append(other)
        return found

    # ---- diagnostics

    def publish(self, uri: str, analysis: Analysis) -> None:
        lines = analysis.text.split("\n")
        found = []
        here = str(Path(analysis.path).resolve())
        elsewhere: list[Diagnostic] = []
        for diagnostic in analysis.diagnostics:
            if str(Path(diagnostic.path).resolve()) != here and diagnostic.path != analysis.path:
                elsewhere.append(diagnostic)
                continue
            found.append(self.lsp_diagnostic(diagnostic, lines))
        if elsewhere:
            module = analysis.module
            line = module.extends[0].pos.line if module is not None and module.extends else 1
            first = elsewhere[0]
            message = (f"{len(elsewhere)} error{'s' if len(elsewhere) != 1 else ''} in the files this one extends; "
                       f"the first: {first.brief()}")
            found.append(lsp.Diagnostic(range=self.range(lines, line, 1, line, len(lines[line - 1]) + 1 if lines else 1),
                                        message=message, severity=lsp.DiagnosticSeverity.Error, source="fracas"))
        self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=found,
                                                                            version=analysis.version))

    def lsp_diagnostic(self, diagnostic: Diagnostic, lines: list[str]) -> lsp.Diagnostic:
        line = max(1, diagnostic.line)
        column = max(1, diagnostic.column)
        if diagnostic.end_line and (diagnostic.end_line, diagnostic.end_column) > (line, column):
            end_line, end_column = diagnostic.end_line, diagnostic.end_column
        else:
            end_line, end_column = line, column + max(1, diagnostic.width)
        message = diagnostic.message + (f"\nhint: {diagnostic.hint}" if diagnostic.hint else "")
        severity = lsp.DiagnosticSeverity.Warning if diagnostic.severity == "warning" else lsp.DiagnosticSeverity.Error
        return lsp.Diagnostic(range=self.range(lines, line, column, end_line, end_column), message=message,
                              severity=severity, source="fracas")

    # ---- places, as the client counts them

    def client_column(self, line_text: str, column: int) -> int:
        """A 1-based column in characters -> a 0-based one as the client counts (its position encoding)."""
        prefix = line_text[: max(0, column - 1)]
        encoding = self.workspace.position_encoding
        if encoding == lsp.PositionEncodingKind.Utf8:
            return len(prefix.encode("utf-8", "surrogatepass")) + max(0, column - 1 - len(line_text))
        if encoding == lsp.PositionEncodingKind.Utf32:
            return max(0, column - 1)
        return len(prefix.encode("utf-16-le", "surrogatepass")) // 2 + max(0, column - 1 - len(line_text))

    def column(self, line_text: str, client_column: int) -> int:
        """A 0-based column as the client counts -> a 1-based one in characters."""
        encoding = self.workspace.position_encoding
        if encoding == lsp.PositionEncodingKind.Utf32:
            return client_column + 1
        counted = 0
        for index, char in enumerate(line_text):
            if counted >= client_column:
                return index + 1
            if encoding == lsp.PositionEncodingKind.Utf8:
                counted += len(char.encode("utf-8", "surrogatepass"))
            else:
                counted += 2 if ord(char) > 0xFFFF else 1
        return len(line_text) + 1

    def position(self, lines: list[str], line: int, column: int) -> lsp.Position:
        line = min(max(1, line), max(1, len(lines)))
        text = lines[line - 1] if lines else ""
        return lsp.Position(line=line - 1, character=self.client_column(text, min(column, len(text) + 1)))

    def range(self, lines: list[str], line: int, column: int, end_line: int, end_column: int) -> lsp.Range:
        return lsp.Range(start=self.position(lines, line, column), end=self.position(lines, end_line, end_column))

    def location(self, place: Place, analyses: list[Analysis]) -> lsp.Location:
        text = next((a.sources[place.path].text for a in analyses if place.path in a.sources), "")
        lines = lines_of(text)
        return lsp.Location(uri=path_to_uri(place.path),
                            range=self.range(lines, place.line, place.column, place.line, place.end_column))

    def cursor(self, uri: str, position: lsp.Position) -> tuple[int, int]:
        lines = (self.text(uri) or "").split("\n")
        text = lines[position.line] if 0 <= position.line < len(lines) else ""
        return position.line + 1, self.column(text, position.character)


def _report(ls: FracasServer, what: str) -> None:
    """A problem of ours, in the editor's log (and on stderr): the server goes on."""
    message = f"fracas: internal error: {what}: {traceback.format_exc()}"
    log.error(message)
    try:
        ls.window_log_message(lsp.LogMessageParams(type=lsp.MessageType.Error, message=message))
    except Exception:
        pass


def _answers(default: Any):
    """Every handler answers: with its default when something of ours goes wrong, logged."""

    def decorate(handler):
        if asyncio.iscoroutinefunction(handler):
            @functools.wraps(handler)
            async def guarded(ls: FracasServer, params):
                ls.asking += 1
                try:
                    return await handler(ls, params)
                except Refused:
                    raise
                except Exception:
                    _report(ls, f"{handler.__name__} failed")
                    return default
                finally:
                    ls.asking -= 1
        else:
            @functools.wraps(handler)
            def guarded(ls: FracasServer, params):
                try:
                    return handler(ls, params)
                except Exception:
                    _report(ls, f"{handler.__name__} failed")
                    return default
        return guarded

    return decorate


def _about_a_place(default: Any):
    """_answers for a request about a place: the handler is also given the analysis to answer from and the place
    (FracasServer.at_cursor); the default answers where the document has no analysis."""

    def decorate(handler):
        @_answers(default)
        @functools.wraps(handler)
        async def answer(ls: FracasServer, params):
            found = await ls.at_cursor(params)
            return default if found is None else await handler(ls, params, *found)

        return answer

    return decorate


def build(limits: Limits) -> FracasServer:
    keep_in_memory(64)
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, 1_000_000)  # the oldest objects are collected when idle (_collect_when_idle)
    server = FracasServer(limits)
    server.preparer.submit(_load_parsers)  # before the first file comes, not while it is asked about

    @server.feature(lsp.INITIALIZED)
    @_answers(None)
    def initialized(ls: FracasServer, params: lsp.InitializedParams):
        # Told of rules files changed on disk (a base of an open variant, edited elsewhere), where the editor can.
        workspace = ls.client_capabilities.workspace
        watched = workspace.did_change_watched_files if workspace is not None else None
        if watched is not None and watched.dynamic_registration:
            ls.client_register_capability(lsp.RegistrationParams(registrations=[lsp.Registration(
                id="fracas-rules-files", method=lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=lsp.DidChangeWatchedFilesRegistrationOptions(
                    watchers=[lsp.FileSystemWatcher(glob_pattern="**/*.rules")]))]))

    @server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    @_answers(None)
    def did_change_watched_files(ls: FracasServer, params: lsp.DidChangeWatchedFilesParams):
        for change in params.changes:
            if ls.document(change.uri) is not None:
                continue  # open: the editor's text is the file, and its own edits say when it changes
            for other in ls.dependents(change.uri):  # the open files that read it from disk: read again
                ls.results.pop(other, None)
                ls.schedule(other, dependents=False)

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    @_answers(None)
    def did_open(ls: FracasServer, params: lsp.DidOpenTextDocumentParams):
        ls.openings[params.text_document.uri] = ls.openings.get(params.text_document.uri, 0) + 1
        ls.schedule(params.text_document.uri)
        text = ls.text(params.text_document.uri)
        if text is not None:
            ls.preparer.submit(ls._ready_to_format, params.text_document.uri, text)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    @_answers(None)
    def did_change(ls: FracasServer, params: lsp.DidChangeTextDocumentParams):
        ls.results.pop(params.text_document.uri, None)
        ls.schedule(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    @_answers(None)
    def did_save(ls: FracasServer, params: lsp.DidSaveTextDocumentParams):
        ls.schedule(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    @_answers(None)
    def did_close(ls: FracasServer, params: lsp.DidCloseTextDocumentParams):
        uri = params.text_document.uri
        ls.openings[uri] = ls.openings.get(uri, 0) + 1
        ls.pending.pop(uri, None)
        ls.taken.pop(uri, None)
        ls.analyses.pop(uri, None)
        ls.results.pop(uri, None)
        ls.formatters.pop(uri, None)
        ls.unreadable.pop(uri, None)
        ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
        for other in ls.dependents(uri):  # variants now read the file from disk again
            ls.results.pop(other, None)
            ls.schedule(other, dependents=False)

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    @_about_a_place(None)
    async def on_hover(ls: FracasServer, params: lsp.HoverParams, analysis: Analysis, line: int, column: int):
        text = hover(analysis, ls.related(analysis), line, column)
        if text is None:
            return None
        return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text))

    @server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    @_about_a_place([])
    async def on_definition(ls: FracasServer, params: lsp.DefinitionParams, analysis: Analysis, line: int,
                            column: int):
        related = ls.related(analysis)
        return [ls.location(p, [analysis, *related]) for p in definition(analysis, related, line, column)]

    @server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
    @_about_a_place([])
    async def on_references(ls: FracasServer, params: lsp.ReferenceParams, analysis: Analysis, line: int,
                            column: int):
        related = ls.related(analysis)
        places = references(analysis, related, line, column, params.context.include_declaration)
        return [ls.location(p, [analysis, *related]) for p in places]

    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT)
    @_about_a_place([])
    async def on_highlight(ls: FracasServer, params: lsp.DocumentHighlightParams, analysis: Analysis, line: int,
                           column: int):
        return [lsp.DocumentHighlight(range=ls.location(place, [analysis]).range,
                                      kind=lsp.DocumentHighlightKind.Write if bound else lsp.DocumentHighlightKind.Read)
                for place, bound in highlights(analysis, line, column)]

    @server.feature(lsp.TEXT_DOCUMENT_SIGNATURE_HELP,
                    lsp.SignatureHelpOptions(trigger_characters=["(", ","], retrigger_characters=[":"]))
    @_about_a_place(None)
    async def on_signature_help(ls: FracasServer, params: lsp.SignatureHelpParams, analysis: Analysis, line: int,
                                column: int):
        text = ls.text(params.text_document.uri)
        found = call_at(analysis, text, line, column) if text is not None else None
        shown = call_signature(analysis, found[0]) if found is not None else None
        if found is None or shown is None:
            return None
        _, written, named = found
        active = 0 if shown.variadic else shown.names.index(named) if named in shown.names else written
        return lsp.SignatureHelp(
            signatures=[lsp.SignatureInformation(
                label=shown.label,
                documentation=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=shown.documentation)
                if shown.documentation else None,
                parameters=[lsp.ParameterInformation(label=(ls.client_column(shown.label, start + 1),
                                                            ls.client_column(shown.label, end + 1)))
                            for start, end in shown.spans])],
            # Past the last parameter, no parameter is written: a place past them all, not none, which LSP 3.17
            # reads as the first (clients that highlight by the place given, as VS Code does, highlight none).
            active_signature=0, active_parameter=min(active, len(shown.spans)))

    @server.feature(lsp.TEXT_DOCUMENT_INLAY_HINT)
    @_answers([])
    async def on_inlay_hint(ls: FracasServer, params: lsp.InlayHintParams):
        analysis = await ls.current(params.text_document.uri, quick=True)
        if analysis is None:
            return []
        lines = analysis.text.split("\n")
        first, last = params.range.start.line + 1, params.range.end.line + 1
        return [lsp.InlayHint(position=ls.position(lines, line, column), label=f"{name}:",
                              kind=lsp.InlayHintKind.Parameter, padding_right=True)
                for line, column, name in parameter_hints(analysis, first, last)]

    @server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION,
                    lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix]))
    @_answers([])
    async def on_code_action(ls: FracasServer, params: lsp.CodeActionParams):
        uri = params.text_document.uri
        text = ls.text(uri)
        if text is None:
            return []
        lines = text.split("\n")
        actions = []
        for diagnostic in params.context.diagnostics:
            where = diagnostic.range
            if diagnostic.source != "fracas" or where.end.line < where.start.line or where.end.line >= len(lines):
                continue
            message, _, hint = diagnostic.message.partition("\nhint: ")
            # The text it underlines, over one line or several, each line from its first column (1) on.
            top, bottom = where.start.line, where.end.line
            start = ls.column(lines[top], where.start.character)
            end = ls.column(lines[bottom], where.end.character)
            below = len("\n".join(lines[top:bottom])) + 1 if bottom > top else 0  # where the last line begins
            covered = "\n".join(lines[top : bottom + 1])[start - 1 : below + end - 1]
            fix = quick_fix(message, hint, covered)
            if fix is None:
                continue
            first, last, new = fix
            line = top + 1 + covered.count("\n", 0, first)
            column = first - covered.rfind("\n", 0, first) if line > top + 1 else start + first
            edit = lsp.TextEdit(range=ls.range(lines, line, column, line, column + last - first), new_text=new)
            actions.append(lsp.CodeAction(title=f"Change to '{new}'", kind=lsp.CodeActionKind.QuickFix,
                                          diagnostics=[diagnostic], is_preferred=True,
                                          edit=lsp.WorkspaceEdit(changes={uri: [edit]})))
        return actions

    @server.feature(lsp.TEXT_DOCUMENT_PREPARE_RENAME)
    @_answers(None)
    async def on_prepare_rename(ls: FracasServer, params: lsp.PrepareRenameParams):
        analysis, target = await ls.rename_target(params)
        return ls.location(target.place, [analysis]).range

    @server.feature(lsp.TEXT_DOCUMENT_RENAME, lsp.RenameOptions(prepare_provider=True))
    @_answers(None)
    async def on_rename(ls: FracasServer, params: lsp.RenameParams):
        analysis, target = await ls.rename_target(params)
        analyses = [analysis]
        if target.shared:
            # Every rules file built on the declaration's: the open ones, then those on disk (read in the worker).
            others = await ls.newest_related(analysis)
            others += await asyncio.get_running_loop().run_in_executor(ls.worker, ls.unopened, [analysis, *others])
            analyses += reading(analysis, others, target.key)
        places = renamed(analyses, target, params.new_name)
        if isinstance(places, str):
            raise Refused(places)
        by_file: dict[Path, dict[tuple[int, int], Place]] = {}  # a file reached by two paths (a link) is edited once
        for place in places:
            by_file.setdefault(Path(place.path).resolve(), {})[(place.line, place.column)] = place
        edited = {path: list(found.values()) for path, found in by_file.items()}
        broken = await asyncio.get_running_loop().run_in_executor(ls.worker, ls.broken_by, analyses, edited,
                                                                  params.new_name)
        if broken is not None:
            raise Refused(broken)
        uris = {Path(uri_to_path(document.uri)).resolve(): document.uri for document in ls.open_documents()}
        return lsp.WorkspaceEdit(changes={
            uris.get(path) or path_to_uri(str(path)): [
                lsp.TextEdit(range=ls.location(place, analyses).range, new_text=params.new_name) for place in found]
            for path, found in edited.items()})

    @server.feature(lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=[".", ":", " ", "(", "{"]))
    @_answers(lsp.CompletionList(is_incomplete=False, items=[]))
    async def on_completion(ls: FracasServer, params: lsp.CompletionParams):
        uri = params.text_document.uri
        analysis = await ls.current(uri, quick=True)
        text = ls.text(uri)
        if analysis is None or text is None:
            return lsp.CompletionList(is_incomplete=False, items=[])
        line, column = ls.cursor(uri, params.position)
        items = []
        for item in complete(analysis, text, line, column):
            items.append(lsp.CompletionItem(
                label=item.label, kind=_ITEM_KINDS.get(item.kind), detail=item.detail or None,
                documentation=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=item.documentation)
                if item.documentation else None,
                insert_text=item.insert, insert_text_format=lsp.InsertTextFormat.Snippet if item.insert else None))
        return lsp.CompletionList(is_incomplete=False, items=items)

    @server.feature(lsp.WORKSPACE_SYMBOL)
    @_answers([])
    async def on_workspace_symbol(ls: FracasServer, params: lsp.WorkspaceSymbolParams):
        return await asyncio.get_running_loop().run_in_executor(ls.worker, ls.workspace_symbols, params.query)

    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    @_answers([])
    async def on_symbols(ls: FracasServer, params: lsp.DocumentSymbolParams):
        analysis = await ls.current(params.text_document.uri)
        if analysis is None:
            return []
        source = analysis.sources.get(analysis.path)
        lines = (source.text if source is not None else analysis.text).split("\n")

        def convert(symbol) -> lsp.DocumentSymbol:
            whole = ls.range(lines, *symbol.start, *symbol.end)
            place = symbol.selection
            selection = ls.range(lines, place.line, place.column, place.line, place.end_column)
            if not (whole.start.line <= selection.start.line and selection.end.line <= whole.end.line):
                whole = selection
            return lsp.DocumentSymbol(name=symbol.name, kind=_SYMBOL_KINDS.get(symbol.kind, lsp.SymbolKind.Variable),
                                      range=whole, selection_range=selection, detail=symbol.detail or None,
                                      children=[convert(child) for child in symbol.children])

        return [convert(symbol) for symbol in symbols(analysis)]

    @server.feature(lsp.TEXT_DOCUMENT_CODE_LENS)
    @_answers([])
    async def on_code_lens(ls: FracasServer, params: lsp.CodeLensParams):
        uri = params.text_document.uri
        analysis = await ls.current(uri)
        if analysis is None or analysis.stale:
            return []
        lines = analysis.text.split("\n")
        found = []
        for lens in lenses(analysis, ls.results.get(uri, {})):
            where = ls.range(lines, lens.line, lens.column, lens.line, lens.column)
            found.append(lsp.CodeLens(range=where, command=lsp.Command(title=lens.shown, command=RUN_EXAMPLE,
                                                                      arguments=[uri, lens.title])))
        return found

    @server.command(RUN_EXAMPLE)
    async def run_example_command(ls: FracasServer, uri: str, title: str):
        """Run one example of an open file; its lens then shows PASS or FAIL, and the answer says it too."""
        try:
            analysis = await ls.current(uri)
            if analysis is None or analysis.rules is None:
                return {"passed": False, "message": "the file is not open"}
            if not analysis.checked:
                return {"passed": False, "message": "the rules have errors: fix them first"}
            result = await asyncio.get_running_loop().run_in_executor(ls.worker, _run_one, analysis, title)
        except Exception as error:
            _report(ls, f"running {title!r} failed")
            return {"passed": False, "message": f"internal error in fracas: {error}"}
        ls.results.setdefault(uri, {})[title] = result
        passed, message = result
        ls.window_show_message(lsp.ShowMessageParams(
            type=lsp.MessageType.Info if passed else lsp.MessageType.Error,
            message=f"{'PASS' if passed else 'FAIL'} {title}" + ("" if passed else f": {message}")))
        if _refreshes_lenses(ls):
            ls.workspace_code_lens_refresh(None)
        return {"passed": passed, "message": message}

    @server.feature(lsp.TEXT_DOCUMENT_FORMATTING)
    @_answers(None)
    async def on_formatting(ls: FracasServer, params: lsp.DocumentFormattingParams):
        uri = params.text_document.uri
        text = ls.text(uri)
        if text is None:
            return None
        formatted = await asyncio.get_running_loop().run_in_executor(ls.formatter, ls.format, uri, text)
        if formatted is None:
            return None  # the diagnostics say why; nothing is changed
        if formatted == text:
            return []
        lines = text.split("\n")
        whole = lsp.Range(start=lsp.Position(line=0, character=0), end=ls.position(lines, len(lines), len(lines[-1]) + 1))
        return [lsp.TextEdit(range=whole, new_text=formatted)]

    return server


def _load_parsers() -> None:
    try:
        syntax.parser()
        load_parser()
    except Exception:  # the first file will say what is wrong
        log.error("loading the parsers failed: %s", traceback.format_exc())


def _refreshes_lenses(ls: FracasServer) -> bool:
    capabilities = ls.client_capabilities.workspace
    lens = capabilities.code_lens if capabilities is not None else None
    return bool(lens is not None and lens.refresh_support)


def _run_one(analysis: Analysis, title: str) -> tuple[bool, str]:
    from fracas.interpreter.tools.examples import run_example

    rules = analysis.rules
    example = next((e for e in rules.examples if e.name == title), None) if rules is not None else None
    if example is None:
        return False, f"no example titled {title!r} in this file"
    result = run_example(rules, example)
    return result.passed, result.message
