"""The wire under the language server: bounded frames and checked JSON-RPC messages.

pygls' own reader trusts the client: a ``Content-Length`` of a terabyte is allocated, a lowercase
header is never seen, and a body that is not JSON, a batch or a message of the wrong shape is
logged and dropped, so a request waits forever. This loop reads each frame within bounds and
answers every malformed one with the error the JSON-RPC spec names, then hands well-formed
messages to the protocol:

- a header line over ``MAX_HEADER_LINE`` or a ``Content-Length`` over ``MAX_FRAME`` is refused
  (-32700) and the stream resynchronised at the next ``Content-Length`` header;
- a body that is not UTF-8 or not JSON: -32700 parse error;
- a batch, a wrong ``jsonrpc``, a bad ``id`` or ``method``: -32600 invalid request;
- a request after ``shutdown`` (but ``exit``): -32600, as the LSP spec asks;
- params that do not fit the method: -32602 invalid params, with the request's id.

Lone surrogates (``"\\ud800"`` escapes) become U+FFFD before any handler sees the text.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor
from typing import Any, BinaryIO, Protocol

from cattrs.errors import ClassValidationError
from pygls.exceptions import JsonRpcException

from groundls.typed import clean_text

log = logging.getLogger("groundls.lsp.framing")

#: Largest body accepted (the biggest real message is a didOpen of a large file).
MAX_FRAME = 64 * 1024 * 1024
#: Longest header line; anything longer is not a header.
MAX_HEADER_LINE = 8 * 1024
#: Bytes read at a time while looking for the next frame after a refused one.
RESYNC_CHUNK = 64 * 1024

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

_CONTENT_LENGTH = re.compile(rb"content-length[ \t]*:", re.IGNORECASE)


class LineReader(Protocol):
    """Where frames come from: a stdio pipe or a TCP stream, both async."""

    async def readline(self, limit: int) -> bytes: ...

    async def read(self, n: int) -> bytes: ...


class StdioReader:
    """Blocking reads of a binary stream on an executor thread (stdin cannot be awaited)."""

    def __init__(self, stream: BinaryIO, executor: Executor | None = None) -> None:
        self._stream = stream
        self._executor = executor

    def _run(self, fn: Callable[..., bytes], *args: Any) -> Awaitable[bytes]:
        return asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)

    async def readline(self, limit: int) -> bytes:
        return await self._run(self._stream.readline, limit)

    async def read(self, n: int) -> bytes:
        return await self._run(self._read_exactly, n)

    def _read_exactly(self, n: int) -> bytes:
        parts: list[bytes] = []
        while n > 0:
            part = self._stream.read(min(n, RESYNC_CHUNK * 16))
            if not part:
                break
            parts.append(part)
            n -= len(part)
        return b"".join(parts)


class StreamReaderLines:
    """An ``asyncio.StreamReader`` (TCP) read the same way."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader

    async def readline(self, limit: int) -> bytes:
        try:
            return await self._reader.readuntil(b"\n")
        except asyncio.IncompleteReadError as exc:
            return exc.partial
        except asyncio.LimitOverrunError as exc:
            # no newline within the stream's buffer limit: hand back what is there, as a
            # bounded readline does
            return await self._reader.read(min(limit, max(exc.consumed, 1)))

    async def read(self, n: int) -> bytes:
        try:
            return await self._reader.readexactly(n)
        except asyncio.IncompleteReadError as exc:
            return exc.partial


class FrameError(ValueError):
    """A frame that cannot be read as a message (JSON-RPC parse error)."""


class Frames:
    """Read one frame body at a time, refusing oversized or malformed frames."""

    def __init__(self, reader: LineReader) -> None:
        self._reader = reader
        #: bytes already read that begin the next header (left over from a resync)
        self._pending = b""
        #: a refused frame's rest is still to be skipped (after its error has been sent)
        self._skip: bytes | None = None

    async def _line(self) -> bytes:
        if self._pending:
            line, sep, rest = self._pending.partition(b"\n")
            if sep:
                self._pending = rest
                return line + sep
            self._pending = b""
            more = await self._reader.readline(MAX_HEADER_LINE)
            return line + more
        return await self._reader.readline(MAX_HEADER_LINE + 2)

    async def next(self) -> bytes | FrameError | None:
        """The next body, a :class:`FrameError` for a refused frame, None at end of stream."""
        if self._skip is not None:
            seen, self._skip = self._skip, None
            await self._resync(seen)
        length: int | None = None
        bad: str | None = None
        seen_header = False
        while True:
            line = await self._line()
            if not line:
                return None
            if len(line) > MAX_HEADER_LINE:
                self._skip = line[-32:]
                return FrameError(f"a header line is longer than {MAX_HEADER_LINE} bytes")
            text = line.strip()
            if not text:
                if seen_header:
                    break
                continue  # blank lines between frames
            seen_header = True
            name, colon, value = text.partition(b":")
            if not colon:
                bad = bad or "a header line without ':'"
                continue
            if name.strip().lower() != b"content-length":
                continue  # Content-Type and anything else
            digits = value.strip()
            if not digits.isdigit():
                bad = bad or f"Content-Length is not a number: {digits[:40]!r}"
                continue
            if len(digits) > 12 or int(digits) > MAX_FRAME:
                self._skip = b""
                return FrameError(
                    f"Content-Length {digits[:20].decode()} is over the limit of {MAX_FRAME} bytes"
                )
            length = int(digits)
        if length is None:
            return FrameError(bad or "a frame without a Content-Length header")
        body = await self._reader.read(length) if length else b""
        if len(body) < length:
            return None  # the stream ended inside the body
        if bad:
            return FrameError(bad)
        return body

    async def _resync(self, seen: bytes) -> None:
        """Skip input until the next ``Content-Length`` header, kept for :meth:`next`."""
        tail = seen
        while True:
            match = _CONTENT_LENGTH.search(tail)
            if match:
                self._pending = tail[match.start() :]
                return
            chunk = await self._reader.readline(RESYNC_CHUNK)
            if not chunk:
                self._pending = b""
                return
            tail = tail[-32:] + chunk


# -- messages ----------------------------------------------------------------------------------


def _valid_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def error_response(msg_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}}


def check_message(data: Any, shutting_down: bool) -> dict[str, Any] | None:
    """The error response a message deserves before any handler runs, or None if it may run."""
    if isinstance(data, list):
        return error_response(
            None,
            INVALID_REQUEST,
            "JSON-RPC batches are not supported by the Language Server Protocol",
        )
    if not isinstance(data, dict):
        return error_response(None, INVALID_REQUEST, "a message must be a JSON object")
    has_id = "id" in data
    msg_id = data.get("id")
    if has_id and msg_id is not None and not _valid_id(msg_id):
        return error_response(None, INVALID_REQUEST, '"id" must be a string or an integer')
    reply_id = msg_id if has_id else None
    if data.get("jsonrpc") != "2.0":
        return error_response(reply_id, INVALID_REQUEST, '"jsonrpc" must be "2.0"')
    if "method" in data:
        method = data["method"]
        if not isinstance(method, str) or not method:
            return error_response(reply_id, INVALID_REQUEST, '"method" must be a non-empty string')
        if has_id and msg_id is None:
            return error_response(None, INVALID_REQUEST, 'a request\'s "id" must not be null')
        if (
            "params" in data
            and data["params"] is not None
            and not isinstance(data["params"], (dict, list))
        ):
            return error_response(reply_id, INVALID_REQUEST, '"params" must be an object or array')
        if shutting_down and has_id and method != "exit":
            return error_response(
                reply_id, INVALID_REQUEST, f"{method}: the server is shutting down"
            )
        return None
    if has_id and ("result" in data or "error" in data):
        return None  # a response to one of our requests
    return error_response(reply_id, INVALID_REQUEST, 'a message needs a "method" or a "result"')


class Dispatch(Protocol):
    """The pygls side: how a checked message is structured, handled, and an answer sent."""

    def structure_message(self, data: dict[str, Any]) -> Any: ...

    def handle_message(self, message: Any) -> None: ...


def _short(exc: BaseException) -> str:
    """A validation failure in a few words, without the nested detail cattrs prints."""
    if isinstance(exc, ClassValidationError):
        leaves = [e for e in exc.exceptions if not isinstance(e, ClassValidationError)]
        nested = [e for e in exc.exceptions if isinstance(e, ClassValidationError)]
        if leaves:
            return str(leaves[0])[:200]
        if nested:
            return _short(nested[0])
    if isinstance(exc, KeyError):
        return f"{exc.args[0]!r} is missing" if exc.args else "a field is missing"
    if isinstance(exc, TypeError) and "NoneType" in str(exc):
        return "params must be an object, not null"
    if isinstance(exc, TypeError) and "list indices" in str(exc):
        return "params must be an object, not an array"
    return (str(exc) or type(exc).__name__)[:200]


def dispatch(
    body: bytes,
    protocol: Dispatch,
    send: Callable[[dict[str, Any]], None],
    shutting_down: bool,
) -> None:
    """Parse, check, structure and hand one body to the protocol; answer what cannot run."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        send(error_response(None, PARSE_ERROR, "the message body is not UTF-8"))
        return
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        why = exc.msg if isinstance(exc, json.JSONDecodeError) else "nested too deeply"
        send(error_response(None, PARSE_ERROR, f"the message body is not JSON: {why}"))
        return
    data = clean_text(data)
    refused = check_message(data, shutting_down)
    if refused is not None:
        send(refused)
        return
    is_request = "method" in data and "id" in data
    try:
        message = protocol.structure_message(data)
    except Exception as exc:  # noqa: BLE001 - any shape pygls cannot take
        cause = exc.__cause__ or exc
        log.info("invalid params for %s: %s", data.get("method"), _short(cause))
        if is_request:
            send(
                error_response(
                    data["id"],
                    INVALID_PARAMS,
                    f"invalid params for {data['method']}: {_short(cause)}",
                )
            )
        return
    if isinstance(message, dict):
        return  # pygls passes through what it cannot type; check_message refused those
    try:
        protocol.handle_message(message)
    except JsonRpcException as exc:
        if is_request:
            send(error_response(data["id"], exc.code, exc.message))
    except Exception:  # noqa: BLE001 - the traceback goes to our log, never to the client
        log.exception("handling %s failed", data.get("method"))
        if is_request:
            send(error_response(data["id"], INTERNAL_ERROR, f"{data['method']} failed"))


async def serve(
    frames: Frames,
    protocol: Dispatch,
    send: Callable[[dict[str, Any]], None],
    stopped: Callable[[], bool],
    shutting_down: Callable[[], bool],
) -> None:
    """Read frames until the stream ends or the server stops; no frame ends the loop early."""
    while not stopped():
        body = await frames.next()
        if body is None:
            return
        if isinstance(body, FrameError):
            log.warning("refused a frame: %s", body)
            send(error_response(None, PARSE_ERROR, str(body)))
            continue
        dispatch(body, protocol, send, shutting_down())
