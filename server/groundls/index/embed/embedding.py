"""Vectors for a batch of chunks: the one embedding step of a local index run and of a Ray
worker (``groundls.index.cluster``).

Chunks that share a content hash are embedded once; a vector the index already holds for that
hash (``stored``) is reused instead of embedded again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from groundls.chunkers import Chunk, sentence_parts
from groundls.index.embed.embedders import Embedders
from groundls.index.embed.spaces import PARTS_SPACE, SpacePolicy
from groundls.results import IndexReport


@dataclass
class ChunkVectors:
    """Vectors by (space, content hash), sentence vectors by content hash, and counts."""

    vectors: dict[tuple[str, str], bytes] = field(default_factory=dict)
    parts: dict[str, list[bytes]] = field(default_factory=dict)
    embedded: int = 0
    embedded_parts: int = 0
    reused: int = 0
    by_space: dict[str, int] = field(default_factory=dict)

    def count_into(self, report: IndexReport) -> None:
        """Add what was embedded and reused to an index run's report."""
        report.embedded += self.embedded
        report.embedded_parts += self.embedded_parts
        report.reused += self.reused
        for space, n in self.by_space.items():
            report.by_space[space] = report.by_space.get(space, 0) + n

    def of(
        self, chunk: Chunk, policy: SpacePolicy
    ) -> tuple[tuple[str, ...], dict[str, bytes], dict[str, list[bytes]]]:
        """One chunk's spaces that hold a vector, those vectors, and its sentence vectors: what
        ``Store.replace_file`` takes per chunk."""
        h = chunk.content_hash
        spaces = tuple(s for s in policy.spaces_for(chunk) if (s, h) in self.vectors)
        parts = {PARTS_SPACE: self.parts[h]} if policy.has_parts(chunk) else {}
        return spaces, {s: self.vectors[(s, h)] for s in spaces}, parts

    def only(self, chunks: Iterable[Chunk]) -> ChunkVectors:
        """The vectors of these chunks alone (one file's share of a batch)."""
        hashes = {c.content_hash for c in chunks}
        return ChunkVectors(
            {key: v for key, v in self.vectors.items() if key[1] in hashes},
            {h: v for h, v in self.parts.items() if h in hashes},
        )


def embed_chunks(
    chunks: Iterable[Chunk],
    policy: SpacePolicy,
    models: Embedders,
    *,
    embed: Callable[[str], bool],
    stored: Callable[[str, str], bytes | None] = lambda space, h: None,
    stored_parts: Callable[[str, str], list[bytes] | None] = lambda space, h: None,
) -> ChunkVectors:
    """The chunks' vectors in their spaces (``policy``) and the sentence vectors of those that
    keep them: what ``stored`` already holds is reused in any space, the rest is embedded in the
    spaces ``embed`` says (a local run leaves the deep tier to be filled afterwards)."""
    out = ChunkVectors()
    missing: dict[str, dict[str, str]] = {}
    missing_parts: dict[str, list[str]] = {}
    for chunk in chunks:
        h = chunk.content_hash
        if policy.has_parts(chunk) and h not in out.parts and h not in missing_parts:
            held = stored_parts(PARTS_SPACE, h)
            if held is not None:
                out.parts[h] = held
            else:
                missing_parts[h] = sentence_parts(chunk)
        for space in policy.spaces_for(chunk):
            if (space, h) in out.vectors or h in missing.get(space, {}):
                continue
            blob = stored(space, h)
            if blob is None:
                if embed(space):
                    missing.setdefault(space, {})[h] = policy.text_for(space, chunk)
            else:
                out.vectors[(space, h)] = blob
                out.reused += 1
    for space, texts in missing.items():
        hashes = list(texts)
        vectors = models.get(space).embed([texts[h] for h in hashes])
        for h, vec in zip(hashes, vectors, strict=True):
            out.vectors[(space, h)] = blob_of(vec)
        out.embedded += len(hashes)
        out.by_space[space] = len(hashes)
    if missing_parts:
        texts = [t for part_texts in missing_parts.values() for t in part_texts]
        vectors_iter = iter(models.get(PARTS_SPACE).embed(texts))
        for h, part_texts in missing_parts.items():
            out.parts[h] = [blob_of(next(vectors_iter)) for _ in part_texts]
        out.embedded_parts += len(texts)
    return out


def blob_of(vector: np.ndarray) -> bytes:
    """A vector as the index stores it (float32 bytes)."""
    return np.asarray(vector, dtype=np.float32).tobytes()
