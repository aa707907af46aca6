"""``groundls mcp`` as an MCP client starts it: over stdio, from the real MCP SDK."""

from __future__ import annotations

import os
import sys

from mcp.client.stdio import StdioServerParameters

CLI = [sys.executable, "-m", "groundls.cli.main"]


def server(*args: str) -> StdioServerParameters:
    """``groundls mcp ARGS`` with this run's environment: the SDK passes a server only a few
    variables of its own unless told, and the run's cache folder must reach it."""
    return StdioServerParameters(
        command=CLI[0], args=[*CLI[1:], "mcp", *args], env=dict(os.environ)
    )
