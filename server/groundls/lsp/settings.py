"""Language-server settings: initializationOptions + workspace/configuration -> one Config."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from typing import Any

from groundls.config import Config
from groundls.workspace import store_url

SECTION = "groundls"

#: Settings that change what is in the index; changing one of them re-opens and re-indexes.
INDEX_KEYS = (
    "include",
    "exclude",
    "max_file_bytes",
    "index_secrets",
    "chunk_max_tokens",
    "chunk_min_chars",
    "embedders",
    "embeddings",
    "index",  # the shared base index
)

_LEVELS = {
    "error": logging.ERROR,
    "warning": logging.WARNING,
    "info": logging.INFO,
    "debug": logging.DEBUG,
}


def unwrap(data: Any) -> Any:
    """Accept both ``{...settings}`` and ``{"groundls": {...settings}}`` from a client."""
    if isinstance(data, dict) and isinstance(data.get(SECTION), dict):
        return data[SECTION]
    return data


def merge(base: Any, override: Any) -> Any:
    """Deep-merge two settings objects; ``override`` wins, ``None`` leaves ``base`` alone."""
    if override is None:
        return base
    if isinstance(base, dict) and isinstance(override, dict):
        out = dict(base)
        for key, value in override.items():
            out[key] = merge(out.get(key), value) if key in out else value
        return out
    return override


class Settings:
    """The client's settings from both sources and the Config built from them."""

    def __init__(self) -> None:
        self.init_options: Any = None
        self.client_settings: Any = None
        self.config = Config()

    def update(
        self, *, init_options: Any = ..., client_settings: Any = ...
    ) -> tuple[Config, Config, list[str]]:
        """Replace one source, rebuild; return (old config, new config, warnings)."""
        if init_options is not ...:
            self.init_options = unwrap(init_options)
        if client_settings is not ...:
            self.client_settings = unwrap(client_settings)
        raw = merge(
            self.init_options if self.init_options is not None else {}, self.client_settings
        )
        old = self.config
        self.config, warnings = Config.from_dict(raw)
        self.config.index.store = store_url(self.config.index.store)  # or GROUNDLS_STORE
        return old, self.config, warnings


def index_settings_changed(old: Config, new: Config) -> bool:
    """True when the change needs the index rebuilt (include/exclude, sizes, model, secrets)."""
    return any(getattr(old, key) != getattr(new, key) for key in INDEX_KEYS)


def as_dict(config: Config) -> dict[str, Any]:
    return dataclasses.asdict(config)


def log_level(config: Config) -> int:
    return _LEVELS.get(config.log_level, logging.INFO)


class ClientLogHandler(logging.Handler):
    """Forward ``groundls`` log records to the client as ``window/logMessage``.

    ``send`` must be thread-safe: records come from indexing and query threads.
    """

    def __init__(self, send: Callable[[int, str], None], level: int = logging.INFO) -> None:
        super().__init__(level)
        self._send = send

    def format(self, record: logging.LogRecord) -> str:
        """The record's own message only: a traceback stays in the server's stderr log."""
        return f"{record.name}: {record.getMessage()}"

    def emit(self, record: logging.LogRecord) -> None:
        try:
            if record.levelno >= logging.ERROR:
                kind = 1
            elif record.levelno >= logging.WARNING:
                kind = 2
            elif record.levelno >= logging.INFO:
                kind = 3
            else:
                kind = 4
            self._send(kind, self.format(record))
        except Exception:  # a log record must never break the server
            self.handleError(record)
