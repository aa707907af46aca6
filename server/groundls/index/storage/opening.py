"""Which store a workspace reads: its own index, an overlay over a shared base file, or an
overlay over a served store (``index.base``, ``index.store``)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from groundls.config import Config
from groundls.index.embed.embedders import Embedders
from groundls.index.embed.spaces import SERVED_SPACE, SpacePolicy
from groundls.index.storage import base as base_index
from groundls.index.storage.layered import LayeredStore
from groundls.index.storage.served.connection import StoreUnavailable
from groundls.index.storage.served.connection import describe as describe_store
from groundls.index.storage.served.reads import ServedReads
from groundls.index.storage.served.store import ServedStore
from groundls.index.storage.store import Store

log = logging.getLogger("groundls.index")


@dataclass
class Opened:
    store: Store
    base: Path | None = None
    base_manifest: base_index.Manifest | None = None
    #: the served store's URL ("" when none is read)
    served: str = ""


def wanted_models(
    policy: SpacePolicy, models: Embedders, recorded: dict[str, Any]
) -> dict[str, dict[str, Any]]:
    """space -> {model, version, dim} of this groundls's models, for the spaces an index
    built elsewhere recorded."""
    wanted = {}
    for space in policy.all_spaces:
        if space in recorded and space != SERVED_SPACE:
            model = models.get(space)
            wanted[space] = {"model": model.name, "version": model.version, "dim": model.dim}
    return wanted


def open_store(config: Config, index_path: Path, policy: SpacePolicy, models: Embedders) -> Opened:
    """The store the workspace's configuration names."""
    url = config.index.store
    if config.index.base:
        base = Path(config.index.base).expanduser().resolve()
        manifest = base_index.read_manifest(base)
        wanted = wanted_models(policy, models, manifest.spaces)
        base_index.check_models(manifest, wanted, f"base {base.name}")
        if base_index.start_overlay(index_path, manifest.id):
            log.info("index reads base %s (commit %s)", base.name, manifest.commit or "-")
        return Opened(LayeredStore(index_path, base), base, manifest)
    if url:
        return Opened(_served_store(url, index_path, policy, models), served=url)
    return Opened(Store(index_path))


def served_overlay_path(index_path: Path) -> Path:
    """Where an editor keeps its overlay of a served store: beside its own index."""
    return index_path.with_name(f"{index_path.stem}.served{index_path.suffix}")


def _served_store(url: str, index_path: Path, policy: SpacePolicy, models: Embedders) -> Store:
    reads = ServedReads(url)
    try:
        manifest = reads.manifest
        wanted = wanted_models(policy, models, manifest.spaces)
        base_index.check_models(manifest, wanted, "the store", "publish it again", StoreUnavailable)
        overlay = served_overlay_path(index_path)
        base_index.start_overlay(overlay, manifest.source)  # anew after a store replaced whole
        return ServedStore(overlay, reads)
    except Exception:
        reads.close()
        raise


def status(opened: Opened) -> dict[str, Any] | None:
    """The base index or served store a workspace reads, and how many files differ from it
    (changed, new or deleted); None for an index of its own."""
    store = opened.store
    if opened.served and isinstance(store, ServedStore):
        manifest = store.served.manifest
        return {
            "store": describe_store(opened.served),
            "commit": manifest.commit,
            "published": manifest.seq,
            "overlaid": store.overlaid(),
            "problem": store.problem,
        }
    if opened.base is None or opened.base_manifest is None:
        return None
    return {
        "file": opened.base.name,
        "commit": opened.base_manifest.commit,
        "dirty": opened.base_manifest.dirty,
        "created": opened.base_manifest.created,
        "overlaid": store.overlaid() if isinstance(store, LayeredStore) else 0,
        "stale_keyword_totals": isinstance(store, LayeredStore) and store.base_totals_stale,
    }


def describe(status: dict[str, Any]) -> str:
    """One line for a person: what the workspace reads besides its own files."""
    if "store" not in status:
        return base_index.describe(status)
    problem = f"; {status['problem']}" if status.get("problem") else ""
    return (
        f"served store: {status['store']} at {status['commit'][:12] or 'no git commit'}"
        f" (publish {status['published']}), {status['overlaid']} file(s) differ from it"
        f" (indexed here){problem}"
    )
