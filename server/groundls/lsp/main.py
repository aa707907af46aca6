"""``groundls serve`` / ``python -m groundls.lsp``: run the language server over stdio or TCP."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path

from groundls.lsp.features import create_server


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
