"""Embedding spaces: which model's vectors a chunk gets, by its kind and script."""

from __future__ import annotations

from dataclasses import dataclass

from groundls.chunkers import Chunk
from groundls.chunkers.textrules import is_cjk

#: The space that also keeps one vector per sentence of its Japanese prose (see sentence_parts):
#: USE is a sentence encoder, and ranking a passage by its best sentence lifted Japanese
#: nDCG@10 from 0.77 to 0.81 (BENCHMARKS.md). English prose has MiniLM beside it and gained
#: nothing, so it is left out (half the extra embedding work).
PARTS_SPACE = "use"


@dataclass(frozen=True)
class SpacePolicy:
    """Which embedding spaces a chunk is embedded in (config ``embedders``)."""

    name: str

    def spaces_for(self, chunk: Chunk) -> tuple[str, ...]:
        if self.name in ("minilm", "use"):
            return (self.name,)
        if self.name == "both":
            return ("minilm", "use")
        # default: code -> MiniLM (best on code); prose and config -> USE (multilingual),
        # and English prose also -> MiniLM, which is the stronger English embedder.
        if chunk.kind == "code":
            return ("minilm",)
        if is_cjk(chunk.text):
            return ("use",)
        return ("minilm", "use")

    def has_parts(self, chunk: Chunk) -> bool:
        """Whether the chunk also gets sentence vectors in ``PARTS_SPACE``."""
        return chunk.kind != "code" and is_cjk(chunk.text) and PARTS_SPACE in self.spaces_for(chunk)

    @property
    def all_spaces(self) -> tuple[str, ...]:
        return (self.name,) if self.name in ("minilm", "use") else ("minilm", "use")
