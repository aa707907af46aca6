"""What a served store was built from: its manifest in ``groundls_meta``."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

_KEY = "manifest"


@dataclass(frozen=True)
class Manifest:
    """The groundls, chunker and models a store was published with, the local index it was
    published from, the workspace's commit, and how many publishes it has seen."""

    groundls: str
    chunker: int
    #: space -> {model, version, dim[, parts]}
    spaces: dict[str, dict[str, Any]]
    source: str
    commit: str
    seq: int


def read_manifest(conn: Any) -> Manifest | None:
    row = conn.execute("SELECT value FROM groundls_meta WHERE key = %s", (_KEY,)).fetchone()
    return Manifest(**json.loads(row[0])) if row else None


def write_manifest(conn: Any, manifest: Manifest) -> None:
    conn.execute(
        "INSERT INTO groundls_meta (key, value) VALUES (%s, %s)"
        " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (_KEY, json.dumps(asdict(manifest))),
    )
