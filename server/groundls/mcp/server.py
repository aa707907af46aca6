"""``groundls mcp``: the engine as a Model Context Protocol server over stdio, for coding agents.

The third face beside the command line and the language server, built on the official ``mcp``
SDK. Each tool is a few lines over one :class:`~groundls.workspace.Workspace`: arguments are
checked (typed by the SDK from the signatures, then the rules below), the workspace is brought up
to date with the files on disk (only what changed is re-indexed), the engine is called on a worker
thread, and its result is printed compactly by :mod:`groundls.mcp.text`. Nothing about search or
answers is decided here.

Every failure becomes a tool error with a readable message: no traceback, and no path outside the
workspace (:mod:`groundls.redact`); tracebacks go to stderr.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from groundls import __version__
from groundls.config import Config
from groundls.mcp import text
from groundls.redact import redact
from groundls.results import (
    MAX_ASK_K,
    MAX_K,
    AnswerError,
    InvalidChunkId,
    NotReadable,
    Related,
    SearchFilters,
)
from groundls.typed import clean_text
from groundls.workspace import CHUNK_ID_RE, KINDS, Workspace, answering_now

log = logging.getLogger("groundls.mcp")

#: The most lines ``read`` returns at once (an agent asks again for more).
MAX_READ_LINES = 400
#: ``path:12``, ``path:12-40`` or a bare path.
_PLACE = re.compile(r"^(?P<path>.+?)(?::(?P<start>\d+)(?:-(?P<end>\d+))?)?$")

INSTRUCTIONS = (
    "groundls searches this workspace's code and docs (English and Japanese) offline. "
    "Start with `search` (a question or a name); each hit is path:lines, a title, a one-line "
    "snippet and a chunk id. Then `read` a chunk id or path:start-end for the text, `related` "
    "for what is near a place, and `ask` only when a written, cited answer is worth its seconds. "
    + text.CONFIDENCE_MEANING
)

T = TypeVar("T")


class Engine:
    """The face's hold on one workspace: opened on the first call, kept up to date before each,
    its deep tier filled on a background thread between calls (as the language server does)."""

    #: Deep-tier chunks embedded between two looks at whether a call or an answer waits.
    DEEP_SLICE = 32

    def __init__(
        self, root: Path, config: Config, index_dir: Path | None = None, fill_deep: bool = True
    ) -> None:
        self.root = root
        self.config = config
        self.index_dir = index_dir
        self._workspace: Workspace | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._fill_deep = fill_deep
        self._filler: threading.Thread | None = None
        self.last_run = ""

    def fresh(self) -> Workspace:
        """The workspace, with files changed since the last call re-indexed first."""
        with self._lock:
            if self._workspace is None:
                self._workspace = Workspace.open(self.root, self.config, self.index_dir)
                self._workspace.answers.calibrates = True  # pool votes after a first answer
            report = self._workspace.refresh()
            if report is not None:
                self.last_run = report.summary
                log.info("index: %s", report.summary)
                if report.chunks:
                    # an agent searches what it just edited: when those chunks are all the deep
                    # tier lacks, fill them now (under a second) rather than rank them without
                    filled, wanted = self._workspace.deep_status()
                    if 0 < wanted - filled <= self.DEEP_SLICE:
                        self._workspace.fill_deep(max_chunks=self.DEEP_SLICE)
            if self._fill_deep and (self._filler is None or not self._filler.is_alive()):
                self._filler = threading.Thread(
                    target=self._fill,
                    args=(self._workspace,),
                    name="groundls-mcp-deep",
                    daemon=True,
                )
                self._filler.start()
            return self._workspace

    def _fill(self, workspace: Workspace) -> None:
        """Fill the deep tier a slice at a time until it is complete or the server stops; a
        search meanwhile waits for at most one small batch (``QueryFirst``), an answer being
        written makes it wait."""
        try:
            while not self._stop.is_set():
                if answering_now():
                    self._stop.wait(0.5)
                    continue
                if workspace.fill_deep(max_chunks=self.DEEP_SLICE, cancel=self._stop) == 0:
                    return
        except Exception:  # noqa: BLE001 - search goes on with what is filled
            log.exception("filling the deep tier failed")

    def close(self) -> None:
        self._stop.set()
        if self._filler is not None:
            self._filler.join(timeout=30)
        with self._lock:
            if self._workspace is not None:
                self._workspace.close()
                self._workspace = None


def _fail(message: str, engine: Engine) -> ToolError:
    return ToolError(redact(message, [engine.root]))


async def _run(engine: Engine, work: Callable[[Workspace], T]) -> T:
    """``work`` on a fresh workspace on a worker thread; errors become readable tool errors."""

    def call() -> T:
        return work(engine.fresh())

    try:
        return await anyio.to_thread.run_sync(call)
    except ToolError as exc:
        raise _fail(str(exc), engine) from None
    except (AnswerError, InvalidChunkId, NotReadable, ValueError) as exc:
        raise _fail(str(exc), engine) from None
    except Exception as exc:  # noqa: BLE001 - the traceback goes to stderr, not to the agent
        log.exception("tool failed")
        raise _fail(
            f"internal error ({type(exc).__name__}); see the server's stderr", engine
        ) from None


def _filters(
    k: int | None, paths: list[str] | None, languages: list[str] | None, kinds: list[str] | None
) -> SearchFilters:
    unknown = sorted(set(kinds or ()) - set(KINDS))
    if unknown:
        raise ToolError(f"unknown kind(s) {', '.join(unknown)}; use {', '.join(KINDS)}")
    return SearchFilters(k, tuple(paths or ()), tuple(languages or ()), tuple(kinds or ()))


def _text(value: str, name: str) -> str:
    value = clean_text(value).strip()
    if not value:
        raise ToolError(f'"{name}" must not be empty')
    return value


def _rel(engine: Engine, path: str) -> str:
    """A path from the agent as workspace-relative POSIX, or a tool error when it leads out."""
    given = Path(clean_text(path).strip())
    if not given.is_absolute():
        given = engine.root / given
    try:
        rel = given.resolve().relative_to(engine.root)
    except (ValueError, OSError):
        raise ToolError(f"{path} is outside the workspace") from None
    if ".." in rel.parts or not rel.parts:
        raise ToolError(f"{path} is not a file of the workspace")
    return rel.as_posix()


def _chunk_at(engine: Engine, workspace: Workspace, target: str) -> str:
    """The chunk id a target names: a chunk id, or ``path:line`` (the narrowest chunk there)."""
    target = clean_text(target).strip()
    if CHUNK_ID_RE.match(target):
        if workspace.get_chunk(target) is None:
            raise ToolError(f"no chunk {target} in the index (ids come from search results)")
        return target
    match = _PLACE.match(target)
    if not match or not match.group("start"):
        raise ToolError(f"expected a chunk id or path:line, got {target!r}")
    rel = _rel(engine, match.group("path"))
    hit = workspace.chunk_at(rel, int(match.group("start")))
    if hit is None:
        raise ToolError(f"no indexed chunk at {rel}:{match.group('start')}")
    return hit.chunk_id


def _result(body: str, structured: Any) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=body)], structured_content=structured
    )


def create_server(engine: Engine) -> MCPServer:
    server = MCPServer(
        "groundls", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING"
    )
    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)

    @server.tool(annotations=read_only)
    async def search(
        query: Annotated[str, Field(description="a question or a name, English or Japanese")],
        k: Annotated[int, Field(ge=1, le=MAX_K, description="how many hits")] = 10,
        paths: Annotated[
            list[str] | None, Field(description="glob filters, e.g. ['src/**']")
        ] = None,
        languages: Annotated[list[str] | None, Field(description="e.g. ['python']")] = None,
        kinds: Annotated[list[str] | None, Field(description=f"any of {', '.join(KINDS)}")] = None,
        explain: Annotated[
            bool,
            Field(description="with each hit, the ranked lists that found it and the signals"),
        ] = False,
    ) -> Annotated[CallToolResult, text.SearchRecord]:
        """Hybrid search (meaning + keywords + definitions) over the workspace's code and docs.
        Returns ranked places (path:lines, title, snippet, chunk id) and how sure it is."""
        query = _text(query, "query")
        filters = _filters(k, paths, languages, kinds)
        result = await _run(engine, lambda ws: ws.search(query, filters, explain=explain))
        return _result(text.search_text(result), text.search_record(result))

    @server.tool(annotations=read_only)
    async def related(
        target: Annotated[str, Field(description="a chunk id, or path:line")],
        k: Annotated[int, Field(ge=1, le=MAX_K, description="notes from other places")] = 5,
    ) -> Annotated[CallToolResult, text.RelatedRecord]:
        """What relates to a place, each with its relation: "doc" (a passage that names the
        function as code, first), "code" (the definitions a passage names, or code near in
        meaning), "test" (a test that exercises the function) and "caller" (code that calls
        it), with how many places call it. No model call."""

        def work(ws: Workspace) -> Related:
            return ws.related(_chunk_at(engine, ws, target), k)

        found = await _run(engine, work)
        return _result(text.related_text(found), text.related_record(found))

    @server.tool(annotations=read_only)
    async def read(
        target: Annotated[
            str,
            Field(description="a chunk id, or path:start-end (1-based lines), path:line or path"),
        ],
        max_lines: Annotated[int, Field(ge=1, le=MAX_READ_LINES)] = 200,
    ) -> Annotated[CallToolResult, text.ReadRecord]:
        """The text of a chunk or of a line range of a workspace file, with line numbers
        (bounded; secrets stay redacted)."""

        def work(ws: Workspace) -> text.ReadRecord:
            wanted = clean_text(target).strip()
            if CHUNK_ID_RE.match(wanted):
                hit = ws.get_chunk(wanted)
                if hit is None:
                    raise ToolError(
                        f"no chunk {wanted} in the index (ids come from search results)"
                    )
                path, start, end = hit.path, hit.start_line, hit.end_line
            else:
                match = _PLACE.match(wanted)
                if not match:
                    raise ToolError(f"expected a chunk id or path:start-end, got {target!r}")
                path = _rel(engine, match.group("path"))
                start = int(match.group("start") or 1)
                end = int(match.group("end") or (start + max_lines - 1))
                if end < start:
                    raise ToolError(f"the range {start}-{end} ends before it starts")
            end = min(end, start + max_lines - 1)
            lines, total = ws.read_lines(path, start, end)
            if not lines and total:
                raise ToolError(f"{path} has {total} lines; line {start} is past its end")
            return {
                "path": path,
                "start_line": start,
                "end_line": start + len(lines) - 1,
                "total_lines": total,
                "text": "\n".join(lines),
            }

        record = await _run(engine, work)
        shown = text.place(record["path"], record["start_line"], record["end_line"])
        more = (
            f" (of {record['total_lines']}; ask for more with path:start-end)"
            if record["end_line"] < record["total_lines"]
            else ""
        )
        body = f"{shown}{more}\n" + text.numbered(record["text"].split("\n"), record["start_line"])
        return _result(body, record)

    @server.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False))
    async def ask(
        question: Annotated[str, Field(description="a question, English or Japanese")],
        k: Annotated[int | None, Field(ge=1, le=MAX_ASK_K, description="excerpts to read")] = None,
        paths: Annotated[list[str] | None, Field(description="glob filters")] = None,
        thread: Annotated[
            int | None,
            Field(ge=1, description="continue a conversation: an earlier answer's thread"),
        ] = None,
        detail: Annotated[
            Literal["brief", "full"] | None,
            Field(description="brief: a few sentences; full: steps and code from the sources"),
        ] = None,
    ) -> Annotated[CallToolResult, text.AnswerRecord]:
        """A written answer from the workspace only, citing its sources as [n] -> path:lines, or
        "not found". Slower than search (a local model writes it: seconds to tens of seconds);
        prefer search + read when you can read code yourself."""
        question = _text(question, "question")
        filters = _filters(k, paths, None, None)
        answer = await _run(
            engine, lambda ws: ws.answers.ask(question, filters, thread=thread, detail=detail)
        )
        return _result(text.answer_text(answer), text.answer_record(answer))

    @server.tool(annotations=read_only)
    async def status() -> str:
        """The index (files, chunks, each tier's model and how much of it is filled), the
        answer model, and what search confidence means."""

        def work(ws: Workspace) -> dict[str, Any]:
            return {
                "workspace": ws.root.name,
                "index": ws.stats(),
                "tiers": ws.tiers(),
                "answers": ws.answers.status(),
                "last_run": engine.last_run,
                "sends_to": ws.sends_to(),
                "base": ws.base_status(),
            }

        return text.status_text(await _run(engine, work))

    return server


def serve(root: Path, config: Config, index_dir: Path | None = None) -> int:
    """Serve MCP over stdio until the client closes the pipe."""
    engine = Engine(root, config, index_dir)
    try:
        create_server(engine).run("stdio")
    finally:
        engine.close()
    return 0
