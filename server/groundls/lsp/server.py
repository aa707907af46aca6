"""The groundls language server: thin pygls handlers over the workspace, one index per folder.

Features live beside this file: ``lsp_folders`` (per-folder workspace and indexing worker),
``lsp_commands`` (the ``groundls.*`` commands), ``lsp_hover`` (related notes) and
``lsp_settings`` (configuration and log forwarding). Blocking work runs on worker threads; only
JSON-RPC traffic happens on the event loop, so hover and cancellation stay responsive.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import sys
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

from groundls import __version__
from groundls.config import Config
from groundls.lsp import hover as lsp_hover
from groundls.lsp.args import ArgError, one_object, parse
from groundls.lsp.commands import COMMANDS, Call, Command, NotFound
from groundls.lsp.folders import Folder, Folders, uri_to_path
from groundls.lsp.settings import (
    SECTION,
    ClientLogHandler,
    Settings,
    index_settings_changed,
    log_level,
)
from groundls.results import IndexProgress

log = logging.getLogger("groundls.lsp")

#: JSON-RPC error code for a well-formed id that is not indexed (LSP RequestFailed; seed 003's 404).
NOT_FOUND = int(types.LSPErrorCodes.RequestFailed)
#: Seconds to wait for the client's answer to workspace/configuration before using defaults.
CONFIG_TIMEOUT_S = 5.0
#: Minimum seconds between two ``$/progress`` reports of one indexing job.
REPORT_EVERY_S = 0.2


class GroundProtocol(LanguageServerProtocol):
    """pygls protocol with two hooks: commands get their full params, and cancel reaches work."""

    def __init__(self, server: Any, converter: Any) -> None:
        super().__init__(server, converter)
        self.cancel_events: dict[Any, threading.Event] = {}

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
        reporter = _RequestProgress(self, token, command.title) if token is not None else None
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


class _RequestProgress:
    """``$/progress`` on a token the client passed with its request (``workDoneToken``)."""

    def __init__(self, server: GroundServer, token: Any, title: str) -> None:
        self.server = server
        self.token = token
        self.title = title

    def _notify(self, value: Any) -> None:
        self.server.call_soon(
            self.server.progress, types.ProgressParams(token=self.token, value=value)
        )

    def begin(self) -> None:
        self._notify(types.WorkDoneProgressBegin(title=self.title, cancellable=False))

    def report(self, message: str) -> None:
        self._notify(types.WorkDoneProgressReport(message=message))

    def end(self, message: str) -> None:
        self._notify(types.WorkDoneProgressEnd(message=message))


class IndexProgressSink:
    """Reports one indexing job with ``window/workDoneProgress/create`` + ``$/progress``."""

    def __init__(self, server: GroundServer, folder: Folder, token: Any) -> None:
        self.server = server
        self.folder = folder
        self.token = token
        self.enabled = token is not None
        self._last = 0.0
        self._last_pct = -1

    def _notify(self, value: Any) -> None:
        self.server.call_soon(
            self.server.progress, types.ProgressParams(token=self.token, value=value)
        )

    def begin(self, title: str) -> None:
        server = self.server
        if self.token is None and server.supports("window.work_done_progress") and server.loop:
            token = f"groundls/index/{self.folder.name}/{uuid.uuid4().hex[:8]}"
            try:
                fut = asyncio.run_coroutine_threadsafe(
                    server.work_done_progress.create_async(token), server.loop
                )
                fut.result(timeout=10)
                self.token = token
                self.enabled = True
            except Exception as exc:  # noqa: BLE001 - progress is optional
                log.info("client refused progress token: %s", exc)
        if not self.enabled:
            log.info("%s", title)
            return
        server.progress_tokens[self.token] = self.folder
        self._notify(
            types.WorkDoneProgressBegin(
                title=title, message="scanning files", percentage=0, cancellable=True
            )
        )

    def report(self, progress: IndexProgress) -> None:
        if not self.enabled:
            return
        total = max(progress.total_files, 0)
        pct = min(100, round(100 * progress.done_files / total)) if total else 0
        now = time.monotonic()
        last = total > 0 and progress.done_files >= total
        if not last and pct == self._last_pct and now - self._last < REPORT_EVERY_S:
            return
        self._last, self._last_pct = now, pct
        message = f"{progress.done_files} of {total} files"
        if progress.current_path:
            message += f" ({progress.current_path})"
        self._notify(types.WorkDoneProgressReport(message=message, percentage=pct))

    def end(self, message: str) -> None:
        log.info("%s: %s", self.folder.name, message)
        if not self.enabled:
            return
        self.server.progress_tokens.pop(self.token, None)
        self._notify(types.WorkDoneProgressEnd(message=message))


# -- handlers -----------------------------------------------------------------------------------


def create_server() -> GroundServer:
    """A new server with every feature registered (one per test or process)."""
    server = GroundServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: GroundServer, params: types.InitializeParams) -> None:
        ls.settings.update(init_options=params.initialization_options)
        folders = list(params.workspace_folders or [])
        if not folders:
            root_uri = params.root_uri or (
                Path(params.root_path).resolve().as_uri() if params.root_path else None
            )
            if root_uri is None and ls.fallback_root is not None:
                root_uri = ls.fallback_root.as_uri()
            if root_uri:
                folders = [types.WorkspaceFolder(uri=root_uri, name=Path(root_uri).name)]
        for wf in folders:
            folder = ls.make_folder(wf.uri, wf.name)
            if folder is not None:
                ls.folders.add(folder)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: GroundServer, params: types.InitializedParams) -> None:
        ls.loop = asyncio.get_running_loop()
        root_logger = logging.getLogger("groundls")
        root_logger.addHandler(ls.log_handler)
        root_logger.setLevel(log_level(ls.config))
        client_settings: Any = None
        if ls.supports("workspace.configuration"):
            client_settings = await _pull_configuration(ls)
        ls.apply_settings(client_settings=client_settings)
        await _register_dynamic(ls)
        for folder in ls.folders.all():
            ls.start_folder(folder)
        log.info("groundls %s serving %d folder(s)", __version__, len(ls.folders.all()))

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(
        ls: GroundServer, params: types.DidChangeConfigurationParams
    ) -> None:
        settings = params.settings
        if isinstance(settings, dict) and SECTION in settings:
            ls.apply_settings(client_settings=settings[SECTION])
        elif ls.supports("workspace.configuration"):
            ls.apply_settings(client_settings=await _pull_configuration(ls))
        elif isinstance(settings, dict):
            ls.apply_settings(client_settings=settings)

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    async def did_change_folders(
        ls: GroundServer, params: types.DidChangeWorkspaceFoldersParams
    ) -> None:
        loop = asyncio.get_running_loop()
        for wf in params.event.removed or []:
            folder = ls.folders.remove(wf.uri)
            if folder is not None:
                log.info("folder removed: %s", folder.name)
                await loop.run_in_executor(None, folder.stop)
        for wf in params.event.added or []:
            folder = ls.make_folder(wf.uri, wf.name)
            if folder is not None and ls.folders.add(folder):
                log.info("folder added: %s", folder.name)
                ls.start_folder(folder)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    def did_save(ls: GroundServer, params: types.DidSaveTextDocumentParams) -> None:
        located = ls.folders.for_uri(params.text_document.uri)
        if located is not None and located[1]:
            located[0].request_paths([located[1]])

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    async def did_change_watched_files(
        ls: GroundServer, params: types.DidChangeWatchedFilesParams
    ) -> None:
        # Looks at the disk and the index, so off the event loop.
        await asyncio.get_running_loop().run_in_executor(
            ls.query_pool, _queue_file_events, ls, params.changes
        )

    @server.feature(types.WINDOW_WORK_DONE_PROGRESS_CANCEL)
    def progress_cancel(ls: GroundServer, params: types.WorkDoneProgressCancelParams) -> None:
        folder = ls.progress_tokens.get(params.token)
        if folder is not None:
            log.info("%s: indexing cancelled by the user", folder.name)
            folder.cancel_current()

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: GroundServer, params: types.HoverParams) -> types.Hover | None:
        if not ls.config.hover.enabled or ls.config.hover.count <= 0:
            return None
        located = ls.folders.for_uri(params.text_document.uri)
        if located is None or located[0].workspace is None or not located[1]:
            return None
        folder, rel = located
        started = time.perf_counter()
        loop = asyncio.get_running_loop()
        try:
            found = await loop.run_in_executor(
                ls.hover_pool,
                lsp_hover.related,
                folder,
                rel,
                params.position.line,
                ls.config.hover.count,
            )
        except Exception:  # noqa: BLE001 - a hover never fails loudly
            log.exception("hover failed for %s:%d", rel, params.position.line + 1)
            return None
        log.debug(
            "hover %s:%d in %.1f ms",
            rel,
            params.position.line + 1,
            (time.perf_counter() - started) * 1000,
        )
        if found is None:
            return None
        return types.Hover(
            contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=found.markdown),
            range=types.Range(
                start=types.Position(**found.range["start"]),
                end=types.Position(**found.range["end"]),
            ),
        )

    @server.feature(types.SHUTDOWN)
    async def shutdown(ls: GroundServer, params: Any = None) -> None:
        ls.shutdown_requested = True
        await asyncio.get_running_loop().run_in_executor(None, ls.stop_all)

    _register_commands(server)
    return server


def _register_commands(server: GroundServer) -> None:
    for command in COMMANDS:

        def bind(command: Command = command) -> Any:
            async def handler(
                ls: GroundServer, params: types.ExecuteCommandParams, msg_id: Any
            ) -> Any:
                return await ls.run_command(params, msg_id, command)

            return handler

        server.command(command.name)(bind())


async def _pull_configuration(ls: GroundServer) -> Any:
    """Ask the client for the ``groundls`` section; None when it has none or does not answer."""
    try:
        result = await asyncio.wait_for(
            ls.workspace_configuration_async(
                types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])
            ),
            CONFIG_TIMEOUT_S,
        )
    except Exception as exc:  # noqa: BLE001 - settings fall back to initializationOptions
        log.info("workspace/configuration failed (%s); using initializationOptions", exc)
        return None
    if isinstance(result, (list, tuple)) and result:
        return result[0]
    return None


async def _register_dynamic(ls: GroundServer) -> None:
    registrations = []
    if ls.supports("workspace.did_change_watched_files.dynamic_registration"):
        registrations.append(
            types.Registration(
                id=f"groundls-watch-{uuid.uuid4().hex[:8]}",
                method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=types.DidChangeWatchedFilesRegistrationOptions(
                    watchers=[types.FileSystemWatcher(glob_pattern="**/*")]
                ),
            )
        )
    if ls.supports("workspace.did_change_configuration.dynamic_registration"):
        registrations.append(
            types.Registration(
                id=f"groundls-config-{uuid.uuid4().hex[:8]}",
                method=types.WORKSPACE_DID_CHANGE_CONFIGURATION,
                register_options={"section": SECTION},
            )
        )
    if not registrations:
        return
    try:
        await asyncio.wait_for(
            ls.client_register_capability_async(
                types.RegistrationParams(registrations=registrations)
            ),
            CONFIG_TIMEOUT_S,
        )
    except Exception as exc:  # noqa: BLE001 - saves still re-index without watchers
        log.info("dynamic registration failed: %s", exc)


def _queue_file_events(ls: GroundServer, changes: Any) -> None:
    by_folder: dict[str, tuple[Folder, set[str]]] = {}
    full: dict[str, Folder] = {}
    for change in changes:
        located = ls.folders.for_uri(change.uri)
        if located is None or not located[1]:
            continue
        folder, rel = located
        if rel == ".git" or rel.startswith(".git/") or "/.git/" in rel:
            continue  # VCS bookkeeping: never indexed, often very busy
        path = folder.root / rel
        if path.is_dir():
            rels = [folder.rel_path(p) or "" for p in sorted(path.rglob("*"))[:5000] if p.is_file()]
            by_folder.setdefault(folder.uri, (folder, set()))[1].update(r for r in rels if r)
            continue
        if (
            change.type == types.FileChangeType.Deleted
            and not Path(rel).suffix
            and folder.workspace is not None
            and folder.workspace.chunk_at(rel, 1) is None
        ):
            # Probably a deleted directory: an incremental full pass removes its files.
            full[folder.uri] = folder
            continue
        by_folder.setdefault(folder.uri, (folder, set()))[1].add(rel)
    for folder, rels in by_folder.values():
        if folder.uri not in full:
            folder.request_paths(sorted(rels))
    for folder in full.values():
        folder.request_full()


# -- entry point --------------------------------------------------------------------------------


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="groundls serve", description="Run the groundls language server."
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--stdio", action="store_true", help="speak LSP on stdin/stdout (default)")
    mode.add_argument("--tcp", metavar="HOST:PORT", help="listen on a TCP port instead")
    parser.add_argument(
        "--index-dir", help="where indexes are stored (default: $GROUNDLS_INDEX_DIR or user cache)"
    )
    parser.add_argument(
        "--workspace", help="folder to serve when the client sends no workspace folder"
    )
    parser.add_argument(
        "--log-level",
        choices=["error", "warning", "info", "debug"],
        default="warning",
        help="level of the log written to stderr (the client's log follows settings.logLevel)",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run the server until the client exits; the process ends with 0 after shutdown + exit.

    Argument errors return 2 instead of serving.
    """
    try:
        args = _parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    host = port = None
    if args.tcp:
        host, _, port_text = args.tcp.rpartition(":")
        if not host or not port_text.isdigit():
            print(f"groundls serve: --tcp wants HOST:PORT, got {args.tcp!r}", file=sys.stderr)
            return 2
        port = int(port_text)
    logging.basicConfig(
        stream=sys.stderr,
        level=getattr(logging, args.log_level.upper()),
        format="groundls %(levelname)s %(name)s: %(message)s",
    )
    server = create_server()
    index_dir = args.index_dir or os.environ.get("GROUNDLS_INDEX_DIR")
    server.index_dir = Path(index_dir).expanduser() if index_dir else None
    server.fallback_root = Path(args.workspace).resolve() if args.workspace else None
    try:
        if host is not None and port is not None:
            server.start_tcp(host, port)
        else:
            # The protocol owns the real stdout; stray prints from libraries go to stderr.
            protocol_out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
            os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
            server.start_io(sys.stdin.buffer, protocol_out)
    finally:
        server.stop_all()
    code = 0 if server.shutdown_requested else 1
    # Every index is closed and every worker joined; only pygls' stdin reader may still be
    # blocked in read(), and it would keep the process alive until the client closes the pipe.
    logging.shutdown()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    sys.exit(main())
