"""What every standard surface does with an editor's request: nothing while its setting is
off, the work in the query pool (off the event loop), and nothing rather than an error when the
work fails (logged)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, TypeVar

log = logging.getLogger("groundls.lsp")

T = TypeVar("T")


async def served(
    ls: Any, setting: str | None, empty: T, failed: str, work: Callable[..., T], *args: Any
) -> T:
    """``work(*args)`` run in ``ls.query_pool``; ``empty`` when the surface's ``setting`` (a
    :class:`~groundls.config.Config` attribute; None: always on) is turned off, or when the
    work raises (logged as ``failed``)."""
    if setting is not None and not getattr(ls.config, setting, True):
        return empty
    try:
        return await asyncio.get_running_loop().run_in_executor(ls.query_pool, work, *args)
    except Exception:  # noqa: BLE001 - an editor's request gets nothing rather than an error
        log.exception(failed)
        return empty
