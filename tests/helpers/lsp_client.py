"""Shared pieces of the language-server end-to-end tests: start the real server, wait, call."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

FIXTURE_WS = Path(__file__).parents[1] / "fixtures" / "lsp_ws"
CLIENTS = ["neovim", "visual-studio-code"]
SERVER_CMD = [sys.executable, "-m", "groundls.lsp", "--stdio"]
INDEX_TIMEOUT_S = 180.0


@dataclass
class Session:
    client: LanguageClient
    client_name: str
    folders: list[Path]
    index_dir: Path
    init_result: types.InitializeResult
    registrations: list[types.Registration] = field(default_factory=list)

    @property
    def root(self) -> Path:
        return self.folders[0]

    def uri(self, rel: str, folder: int = 0) -> str:
        return (self.folders[folder] / rel).as_uri()


def copy_workspace(dest: Path, name: str = "lsp_ws") -> Path:
    target = dest / name
    shutil.copytree(FIXTURE_WS, target)
    return target


async def start_session(
    client_name: str,
    folders: list[Path],
    index_dir: Path,
    *,
    init_options: Any = None,
    client_config: Any = None,
    wait: bool = True,
) -> Session:
    """Start ``groundls.lsp`` over stdio as ``client_name`` would; optionally wait for indexing."""
    env = {**os.environ, "GROUNDLS_INDEX_DIR": str(index_dir)}
    config = ClientServerConfig(server_command=SERVER_CMD, server_env=env)
    client: LanguageClient = await config.start()  # type: ignore[assignment]
    registrations: list[types.Registration] = []

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        registrations.extend(params.registrations)

    if client_config is not None:
        client.set_configuration(client_config, section="groundls")
    capabilities = client_capabilities(client_name)
    init = await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities,
            root_uri=folders[0].as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=f.as_uri(), name=f.name) for f in folders],
            initialization_options=init_options,
        )
    )
    session = Session(client, client_name, folders, index_dir, init, registrations)
    if wait:
        await wait_for_index(session, len(folders))
    return session


def index_tokens(client: LanguageClient) -> list[Any]:
    return [t for t in client.progress_reports if str(t).startswith("groundls/index/")]


def finished(client: LanguageClient, token: Any) -> bool:
    reports = client.progress_reports.get(token, [])
    return bool(reports) and isinstance(reports[-1], types.WorkDoneProgressEnd)


async def wait_for_index(session: Session, jobs: int = 1, timeout: float = INDEX_TIMEOUT_S) -> None:
    """Wait until ``jobs`` indexing progress sequences have ended (or the status says ready)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        tokens = index_tokens(session.client)
        if len(tokens) >= jobs and all(finished(session.client, t) for t in tokens):
            return
        if not _supports_progress(session):
            status = await command(session, "groundls.status", {})
            if all(not f["indexing"] for f in status["folders"]):
                return
        await asyncio.sleep(0.1)
    raise AssertionError(f"indexing did not finish in {timeout:.0f} s")


def _supports_progress(session: Session) -> bool:
    caps = session.client.capabilities
    return bool(caps and caps.window and caps.window.work_done_progress)


async def command(session: Session, name: str, *arguments: Any, token: Any = None) -> Any:
    return await session.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=name, arguments=list(arguments), work_done_token=token)
    )


async def command_error(session: Session, name: str, arguments: list[Any]) -> JsonRpcException:
    """Run a command that must fail; return the JSON-RPC error."""
    try:
        result = await session.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=name, arguments=arguments)
        )
    except JsonRpcException as exc:
        return exc
    raise AssertionError(f"{name} {arguments!r} should have failed, returned {result!r}")


async def eventually(check: Any, timeout: float = 30.0, every: float = 0.2) -> Any:
    """Poll an async ``check`` until it returns something truthy."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        last = await check()
        if last:
            return last
        await asyncio.sleep(every)
    raise AssertionError(f"condition not met in {timeout:.0f} s (last: {last!r})")


def path_fields(value: Any) -> list[str]:
    """Every string in a ``path``/``*Path`` field of a JSON-like value."""
    out: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, str) and (key == "path" or key.endswith("Path")):
                out.append(item)
            else:
                out.extend(path_fields(item))
    elif isinstance(value, list):
        for item in value:
            out.extend(path_fields(item))
    return out


async def stop_session(session: Session, timeout: float = 30.0) -> int | None:
    """Clean shutdown + exit; the server's exit code."""
    client = session.client
    await asyncio.wait_for(client.shutdown_session(), timeout)
    code = client._server.returncode if client._server else None
    await client.stop()
    return code


async def hover(session: Session, rel: str, line: int) -> types.Hover | None:
    return await session.client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=session.uri(rel)),
            position=types.Position(line=line, character=2),
        )
    )
