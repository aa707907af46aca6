"""The ``groundls`` command line: a thin face over the workspace (index, search, ask, serve...)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from groundls import __version__
from groundls.cli import ask, commands, places, store
from groundls.cli.common import CliError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="groundls", description="Index a workspace offline and search or ask it."
    )
    parser.add_argument("--version", action="version", version=f"groundls {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.register(sub)
    places.register(sub)
    ask.register(sub)
    store.register(sub)
    # Listed for --help only: main() hands `serve ...` to the language server's own parser.
    sub.add_parser("serve", help="run the language server (`groundls serve --help` for options)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["serve"]:
        # The language server parses its own options (--stdio, --tcp, --index-dir, ...); it is
        # imported only here so the other subcommands do not load pygls.
        from groundls.lsp.main import main as lsp_main

        return int(lsp_main(args_list[1:]) or 0)
    parser = build_parser()
    args = parser.parse_args(args_list)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except CliError as exc:
        print(f"groundls: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("groundls: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - the CLI prints one line, never a traceback
        print(f"groundls: error: {type(exc).__name__}: {exc}", file=sys.stderr)
        if os.environ.get("GROUNDLS_DEBUG"):
            raise
        return 1


if __name__ == "__main__":
    sys.exit(main())
