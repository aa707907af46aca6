"""Markdown documents the server writes and opens in the editor (``window/showDocument``): an
answer, streamed in as the model writes it (``workspace/applyEdit``), its citations links that
open the cited lines; a symbol's related places, each a link. They live in a folder of this
server process (removed when it exits), never in the workspace."""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import logging
import re
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Any

from lsprotocol import types

from groundls.lsp.folders import Folder

log = logging.getLogger("groundls.lsp.documents")

#: Seconds to wait for the editor to open a document before streaming into it.
SHOW_TIMEOUT_S = 5.0
#: Seconds between two edits that stream an answer in.
STREAM_EVERY_S = 0.5
_CITED = re.compile(r"\[(\d{1,3})\]")
_UNSAFE = re.compile(r"[^\w.-]+")


class Documents:
    """The server's Markdown documents: a folder of its own, made on first use."""

    def __init__(self, ls: Any) -> None:
        self.ls = ls
        self._folder: Path | None = None
        self._count = 0
        self._lock = threading.Lock()

    def new(self, stem: str, text: str) -> Path:
        """A new document named after ``stem`` holding ``text``."""
        with self._lock:
            if self._folder is None:
                self._folder = Path(tempfile.mkdtemp(prefix="groundls-docs-"))
                atexit.register(shutil.rmtree, self._folder, True)
            self._count += 1
            name = _UNSAFE.sub("-", stem)[:40].strip("-") or "groundls"
            path = self._folder / f"{self._count:03d}-{name}.md"
        path.write_text(text, encoding="utf-8")
        return path

    def show(self, path: Path) -> bool:
        """Ask the editor to open ``path``; whether it did (False when it cannot)."""
        if not self.ls.supports("window.show_document.support"):
            return False
        params = types.ShowDocumentParams(uri=path.as_uri(), take_focus=True)
        try:
            result = self._request(self.ls.window_show_document_async(params))
        except Exception as exc:  # noqa: BLE001 - the command's result still carries it
            log.info("window/showDocument failed: %s", exc)
            return False
        return bool(getattr(result, "success", False))

    def replace(self, path: Path, text: str, *, final: bool = False) -> None:
        """Put ``text`` in the open document (an edit the editor applies), and on disk when
        ``final``."""
        if final:
            path.write_text(text, encoding="utf-8")
        if not self.ls.supports("workspace.apply_edit"):
            return
        whole = types.Range(start=types.Position(0, 0), end=types.Position(1_000_000, 0))
        edit = types.WorkspaceEdit(changes={path.as_uri(): [types.TextEdit(whole, text)]})
        params = types.ApplyWorkspaceEditParams(edit=edit, label="groundls answer")
        self.ls.call_soon(self._send_edit, params)

    def _send_edit(self, params: types.ApplyWorkspaceEditParams) -> None:
        with contextlib.suppress(Exception):
            self.ls.workspace_apply_edit(params)

    def _request(self, awaitable: Any) -> Any:
        loop = self.ls.loop
        if loop is None:
            raise RuntimeError("the server is not running")

        async def wait() -> Any:
            return await awaitable

        return asyncio.run_coroutine_threadsafe(wait(), loop).result(SHOW_TIMEOUT_S)


def link(folder: Folder, path: str, line: int, text: str) -> str:
    return f"[{_escape(text)}]({folder.uri_for(path)}#L{line})"


def _escape(text: str) -> str:
    return re.sub(r"([\\`*_\[\]<>#|])", r"\\\1", text)


def answer_markdown(question: str, answer: dict[str, Any] | None, folder: Folder) -> str:
    """An answer as a document: the question, the answer with its citations as links to the
    cited lines, its sources."""
    head = f"# {_escape(' '.join(question.split())[:200])}\n\n"
    if answer is None:
        return head + "_Answering..._\n"
    by_n = {c["n"]: c for c in answer.get("citations", [])}

    def cited(match: re.Match[str]) -> str:
        c = by_n.get(int(match.group(1)))
        return f"[[{match.group(1)}]]({c['uri']}#L{c['startLine']})" if c else match.group()

    body = _CITED.sub(cited, answer.get("answer", ""))
    lines = [head + body.strip(), ""]
    if answer.get("notice"):
        lines += [f"_{_escape(answer['notice'])}_", ""]
    if by_n:
        lines += ["## Sources", ""]
        for n, c in sorted(by_n.items()):
            where = f"{c['path']}:{c['startLine']}"
            lines.append(
                f"{n}. [{_escape(where)}]({c['uri']}#L{c['startLine']}) {_escape(c.get('title', ''))}"
            )
    return "\n".join(lines).rstrip() + "\n"
