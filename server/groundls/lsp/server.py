"""The groundls language server object: its state (folders, settings, pools) and how a command runs.

Beside it: ``folders`` (per-folder workspace and indexing worker), ``commands`` and ``args`` (the
``groundls.*`` commands), ``features`` (the LSP handlers), ``hover`` (related notes),
``progress`` ($/progress), ``settings`` (configuration and log forwarding) and ``main`` (the
process). Blocking work runs on worker threads; only JSON-RPC traffic happens on the event loop,
so hover and cancellation stay responsive.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, BinaryIO

import attrs
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

from groundls import __version__
from groundls.config import Config
from groundls.lsp.args import ArgError, one_object, parse
from groundls.lsp.calls import Call, NotFound
from groundls.lsp.commands import COMMANDS, Command
from groundls.lsp.folder_set import Folders
from groundls.lsp.folders import Folder, uri_to_path
from groundls.lsp.framing import Frames, StdioReader, StreamReaderLines, serve
from groundls.lsp.progress import IndexProgressSink, RequestProgress
from groundls.lsp.settings import (
    ClientLogHandler,
    Settings,
    index_settings_changed,
    log_level,
)
from groundls.redact import redact, redact_error_data
from groundls.results import Cancelled
from groundls.workspace import answering_now

log = logging.getLogger("groundls.lsp")

#: JSON-RPC error code for a well-formed id that is not indexed (LSP RequestFailed; seed 003's 404).
NOT_FOUND = int(types.LSPErrorCodes.RequestFailed)
#: Messages to the client whose text is redacted (see groundls.lsp.redact).
_SHOWN = frozenset(
    {types.WINDOW_LOG_MESSAGE, types.WINDOW_SHOW_MESSAGE, types.WINDOW_SHOW_MESSAGE_REQUEST}
)


class GroundProtocol(LanguageServerProtocol):
    """pygls protocol with two hooks: commands get their full params, and cancel reaches work."""

    def __init__(self, server: Any, converter: Any) -> None:
        super().__init__(server, converter)
        self.cancel_events: dict[Any, threading.Event] = {}

    def _roots(self) -> list[Path]:
        return [f.root for f in self._server.folders.all()]

    def _send_data(self, data: Any) -> None:
        """Everything sent passes here: shown text and errors lose machine paths and tracebacks."""
        if isinstance(data, types.ResponseErrorMessage) and data.error is not None:
            roots = self._roots()
            error = data.error
            data = attrs.evolve(
                data,
                error=types.ResponseError(
                    code=error.code,
                    message=redact(error.message, roots),
                    data=redact_error_data(error.data, roots),
                ),
            )
        elif isinstance(data, dict) and isinstance(data.get("error"), dict):
            roots = self._roots()
            error = dict(data["error"])
            error["message"] = redact(str(error.get("message", "")), roots)
            if "data" in error:
                error["data"] = redact_error_data(error["data"], roots)
            data = {**data, "error": error}
        elif getattr(data, "method", None) in _SHOWN and data.params is not None:
            params = attrs.evolve(data.params, message=redact(data.params.message, self._roots()))
            data = attrs.evolve(data, params=params)
        super()._send_data(data)

    def _handle_cancel_notification(self, msg_id: Any) -> None:
        event = self.cancel_events.pop(msg_id, None)
        if event is not None:
            event.set()
        super()._handle_cancel_notification(msg_id)

    @lsp_method(types.WORKSPACE_EXECUTE_COMMAND)
    def lsp_workspace__execute_command(self, params: types.ExecuteCommandParams) -> Any:
        handler = self.fm.commands.get(params.command)
        if handler is None:
            raise JsonRpcInvalidParams(
                message=f"unknown command {params.command!r}; groundls provides: "
                + ", ".join(c.name for c in COMMANDS)
            )
        result = yield handler, (params, self.msg_id), None
        return result


class GroundServer(LanguageServer):
    """The server object handlers receive; owns folders, settings and the worker pools."""

    def __init__(self) -> None:
        super().__init__("groundls", __version__, protocol_cls=GroundProtocol)
        self.settings = Settings()
        self.folders = Folders()
        self.index_dir: Path | None = None
        self.fallback_root: Path | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.query_pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="groundls-query")
        self.hover_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="groundls-hover")
        self.progress_tokens: dict[Any, Folder] = {}
        self.shutdown_requested = False
        self.stopped = False
        self.log_handler = ClientLogHandler(self._send_log)

    # -- plumbing ------------------------------------------------------------------------------

    @property
    def config(self) -> Config:
        return self.settings.config

    def call_soon(self, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn`` on the event loop (the only thread that writes to the client)."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            fn(*args)
        else:
            with contextlib.suppress(RuntimeError):  # the loop closed after the check
                loop.call_soon_threadsafe(fn, *args)

    def _send_log(self, kind: int, message: str) -> None:
        self.call_soon(
            self.window_log_message,
            types.LogMessageParams(type=types.MessageType(kind), message=message),
        )

    def show(self, kind: types.MessageType, message: str) -> None:
        self.call_soon(
            self.window_show_message, types.ShowMessageParams(type=kind, message=message)
        )

    def supports(self, dotted: str) -> bool:
        value: Any = self.client_capabilities
        for part in dotted.split("."):
            value = getattr(value, part, None)
            if value is None:
                return False
        return bool(value)

    # -- workspaces and folders -------------------------------------------------------------------

    def open_workspace(self, root: Path, config: Config) -> Any:
        from groundls.workspace import Workspace

        started = time.perf_counter()
        try:
            workspace = Workspace.open(root, config=config, index_dir=self.index_dir)
        except Exception as exc:
            self.show(
                types.MessageType.Error,
                f"groundls: cannot open the index for {root.name}: {type(exc).__name__}: {exc}",
            )
            raise
        log.info("opened index for %s in %.2f s", root.name, time.perf_counter() - started)
        workspace.answers.calibrates = True  # the model's pool votes, after a first answer
        return workspace

    def make_folder(self, uri: str, name: str | None = None) -> Folder | None:
        path = uri_to_path(uri)
        if path is None:
            log.warning("ignoring workspace folder %s: only file: URIs are supported", uri)
            return None
        root = path.resolve()
        if not root.is_dir():
            self.show(types.MessageType.Warning, f"groundls: workspace folder {uri} does not exist")
            return None
        return Folder(
            name=name or root.name,
            uri=root.as_uri(),
            root=root,
            config=self.config,
            open_workspace=self.open_workspace,
            make_sink=self.make_sink,
            busy_elsewhere=answering_now,
        )

    def start_folder(self, folder: Folder) -> None:
        folder.config = self.config
        folder.start()

    def make_sink(self, folder: Folder, token: Any) -> IndexProgressSink:
        return IndexProgressSink(self, folder, token)

    def apply_settings(self, **sources: Any) -> None:
        old, new, warnings = self.settings.update(**sources)
        logging.getLogger("groundls").setLevel(log_level(new))
        self.log_handler.setLevel(log_level(new))
        if warnings:
            text = "groundls settings: " + "; ".join(warnings)
            log.warning(text)
            self.show(types.MessageType.Warning, text)
        reindex = index_settings_changed(old, new)
        for folder in self.folders.all():
            if not folder.started:
                folder.config = new
                continue
            folder.reconfigure(new, reindex=reindex)

    # -- transport -------------------------------------------------------------------------------

    def _serve_frames(self, frames: Frames) -> Any:
        return serve(
            frames,
            self.protocol,
            self.protocol._send_data,
            stopped=lambda: self._stop_event is not None and self._stop_event.is_set(),
            shutting_down=lambda: self.shutdown_requested or self.protocol._shutdown,
        )

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """Serve over a pipe with groundls' bounded, checked frames (see groundls.lsp.framing)."""
        self._stop_event = threading.Event()
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        frames = Frames(StdioReader(stdin or sys.stdin.buffer, self.thread_pool))
        try:
            asyncio.run(self._serve_frames(frames))
        except BrokenPipeError:
            log.error("the connection to the client is lost; shutting down")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    def start_tcp(self, host: str, port: int) -> None:
        """Serve one client at a time on a TCP port, with the same frames as over a pipe."""
        self._stop_event = threading.Event()

        async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.protocol.set_writer(writer)  # type: ignore[arg-type]
            await self._serve_frames(Frames(StreamReaderLines(reader)))
            self.shutdown()

        async def listen() -> None:
            self._server = await asyncio.start_server(connection, host, port)
            async with self._server:
                await self._server.serve_forever()

        with contextlib.suppress(asyncio.CancelledError):
            asyncio.run(listen())

    def shutdown(self) -> None:
        """Stop serving without waiting for pygls' stdin reader (it blocks until the pipe closes)."""
        log.debug("stopping the transport")
        if self._stop_event is not None:
            self._stop_event.set()
        if self._thread_pool is not None:
            self._thread_pool.shutdown(wait=False, cancel_futures=True)
        if self._server is not None:
            self._server.close()

    def stop_all(self) -> None:
        """Cancel and join every worker, close every index; safe to call twice."""
        if self.stopped:
            return
        self.stopped = True
        for event in list(self.protocol.cancel_events.values()):
            event.set()
        for folder in self.folders.all():
            folder.cancel_current()
        for folder in self.folders.all():
            if not folder.stop(timeout=15.0):
                log.warning("%s: indexing thread did not stop in time", folder.name)
        self.query_pool.shutdown(wait=True, cancel_futures=True)
        self.hover_pool.shutdown(wait=True, cancel_futures=True)

    # -- commands ------------------------------------------------------------------------------

    async def run_command(
        self,
        params: types.ExecuteCommandParams,
        msg_id: Any,
        command: Command,
    ) -> Any:
        """Check arguments, run the command on a worker thread, map errors to JSON-RPC errors."""
        name = params.command
        try:
            args = parse(command.args, one_object(command.args, params.arguments))
        except ArgError as exc:
            raise JsonRpcInvalidParams(message=str(exc)) from None
        cancel = threading.Event()
        if msg_id is not None:
            self.protocol.cancel_events[msg_id] = cancel
        token = params.work_done_token
        reporter = RequestProgress(self, token, command.title) if token is not None else None
        call = Call(
            folders=self.folders,
            cancel=cancel,
            report=reporter.report if reporter else (lambda message: None),
            default_k=self.config.search.k,
        )
        loop = asyncio.get_running_loop()
        started = time.perf_counter()
        try:
            if reporter:
                reporter.begin()
            return await loop.run_in_executor(self.query_pool, command.run, call, args)
        except ArgError as exc:
            raise JsonRpcInvalidParams(message=str(exc)) from None
        except Cancelled:
            log.info("%s stopped: cancelled", name)
            raise JsonRpcException(
                message=f"{name} was cancelled", code=int(types.LSPErrorCodes.RequestCancelled)
            ) from None
        except NotFound as exc:
            raise JsonRpcException(
                message=str(exc.args[0]), code=NOT_FOUND, data={"status": 404}
            ) from None
        except JsonRpcException:
            raise
        except Exception as exc:
            log.exception("%s failed", name)
            why = str(exc) if type(exc) is RuntimeError else f"{type(exc).__name__}: {exc}"
            raise JsonRpcException(message=f"{name} failed: {why}", code=NOT_FOUND) from None
        finally:
            if msg_id is not None:
                self.protocol.cancel_events.pop(msg_id, None)
            if reporter:
                reporter.end("cancelled" if cancel.is_set() else "done")
            log.debug("%s took %.1f ms", name, (time.perf_counter() - started) * 1000)


def _close_quietly(obj: Any) -> None:
    try:
        obj.close()
    except Exception:  # noqa: BLE001 - closing must not raise during shutdown
        log.exception("closing %s failed", type(obj).__name__)
