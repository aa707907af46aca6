"""The LSP handlers: lifecycle, settings, folders, saves and file events, hover, commands."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from pathlib import Path
from typing import Any

from lsprotocol import types

from groundls import __version__
from groundls.lsp import actions, definition, lenses, references, symbols
from groundls.lsp import hover as lsp_hover
from groundls.lsp.commands import COMMANDS, Command
from groundls.lsp.folders import Folder
from groundls.lsp.server import GroundServer
from groundls.lsp.settings import (
    SECTION,
    log_level,
)

log = logging.getLogger("groundls.lsp")

#: Seconds to wait for the client's answer to workspace/configuration before using defaults.
CONFIG_TIMEOUT_S = 5.0
#: The editor's standard requests beyond hover, one module each: its ``METHODS``, the
#: ``SETTING`` that turns it off and its ``register``.
SURFACES: tuple[Any, ...] = (symbols, references, definition, lenses, actions)


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
        _offer_surfaces(ls)

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

    for surface in SURFACES:
        surface.register(server)
    _register_commands(server)
    return server


def _offer_surfaces(ls: GroundServer) -> None:
    """Offer only the surfaces the settings keep on: pygls lists the capabilities of the
    features registered when ``initialize`` returns."""
    for surface in SURFACES:
        if not getattr(ls.config, surface.SETTING, True):
            for method in surface.METHODS:
                ls.protocol.fm.features.pop(method, None)


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
        if (folder.root / rel).is_dir():
            # A directory created, moved in or changed: the workspace's own walk finds its
            # files with every ignore rule, and never leaves the workspace (an incremental pass
            # re-reads only what changed).
            full[folder.uri] = folder
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
