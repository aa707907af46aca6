"""A raw stdio peer for the real language server: sends any bytes, reads framed replies.

pytest-lsp's client only sends well-formed messages; the hostile-client tests need broken frames,
bad JSON-RPC and requests after shutdown, so they speak to ``groundls serve --stdio`` through this.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

SERVER_CMD = [sys.executable, "-m", "groundls.lsp", "--stdio"]


def frame(body: bytes | str | dict[str, Any], header: str = "Content-Length") -> bytes:
    if isinstance(body, dict):
        body = json.dumps(body)
    if isinstance(body, str):
        body = body.encode("utf-8")
    return f"{header}: {len(body)}\r\n\r\n".encode() + body


class RawServer:
    """``groundls serve --stdio`` in a subprocess; replies are parsed on a reader thread."""

    def __init__(self, index_dir: Path, cwd: Path | None = None) -> None:
        env = {**os.environ, "GROUNDLS_INDEX_DIR": str(index_dir)}
        self.proc = subprocess.Popen(
            SERVER_CMD,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=cwd,
        )
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        self.stderr = b""
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._drain_stderr, daemon=True).start()
        self._next_id = 1000

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                if not line.strip():
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            assert length is not None
            self.messages.put(json.loads(out.read(length)))

    def _drain_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr += line

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def request(self, method: str, params: Any = None, msg_id: Any = None) -> Any:
        if msg_id is None:
            self._next_id += 1
            msg_id = self._next_id
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(frame(message))
        return msg_id

    def notify(self, method: str, params: Any = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(frame(message))

    def wait_for(self, check: Any, timeout: float = 10.0) -> dict[str, Any]:
        """The first message (seen before or arriving within ``timeout``) that ``check`` accepts."""
        for message in self.seen:
            if check(message):
                return message
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no matching message from the server")
            try:
                message = self.messages.get(timeout=left)
            except queue.Empty:
                continue
            self.seen.append(message)
            if check(message):
                return message

    def reply(self, msg_id: Any, timeout: float = 10.0) -> dict[str, Any]:
        return self.wait_for(
            lambda m: (
                "method" not in m and m.get("id") == msg_id and ("result" in m or "error" in m)
            ),
            timeout,
        )

    def error(self, code: int, timeout: float = 10.0) -> dict[str, Any]:
        """The next unmatched error reply (id null) with ``code``."""
        found = self.wait_for(
            lambda m: (
                "method" not in m
                and m.get("id") is None
                and m.get("error", {}).get("code") == code
                and not m.get("_taken")
            ),
            timeout,
        )
        found["_taken"] = True
        return found

    def initialize(self, root: Path) -> None:
        msg_id = self.request(
            "initialize",
            {
                "processId": None,
                "rootUri": root.as_uri(),
                "capabilities": {},
                "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
            },
        )
        self.reply(msg_id, timeout=60)
        self.notify("initialized", {})

    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self) -> None:
        if self.alive():
            self.proc.kill()
        self.proc.wait(timeout=10)
