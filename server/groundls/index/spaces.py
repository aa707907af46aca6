"""Embedding spaces: which model's vectors a chunk gets, by its kind and script (config ``embedders``)."""

from __future__ import annotations

from dataclasses import dataclass

from groundls.chunkers import Chunk
from groundls.chunkers.textrules import is_cjk

#: The space that also keeps one vector per sentence of its Japanese prose (see sentence_parts):
#: USE is a sentence encoder, and ranking a passage by its best sentence lifted Japanese
#: nDCG@10 from 0.77 to 0.81 (BENCHMARKS.md). English prose gained nothing, so it is left out.
PARTS_SPACE = "use"

#: policy -> (spaces of code, of English prose and config, of Japanese prose).
#: "default": the static model (distilled from MiniLM, thousands of chunks a second) for code and
#: English text, USE (multilingual) for prose, so Japanese questions reach English docs too.
#: "deep": the transformer MiniLM instead of the static model (slower, see BENCHMARKS.md).
POLICIES: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "default": (("static",), ("static", "use"), ("use",)),
    "deep": (("minilm",), ("minilm", "use"), ("use",)),
    "static": (("static",), ("static",), ("static",)),
    "minilm": (("minilm",), ("minilm",), ("minilm",)),
    "use": (("use",), ("use",), ("use",)),
    "both": (("minilm", "use"), ("minilm", "use"), ("minilm", "use")),
}


@dataclass(frozen=True)
class SpacePolicy:
    """Which embedding spaces a chunk is embedded in."""

    name: str

    @property
    def _table(self) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
        return POLICIES.get(self.name, POLICIES["default"])

    def spaces_for(self, chunk: Chunk) -> tuple[str, ...]:
        code, latin, cjk = self._table
        if chunk.kind == "code":
            return code
        return cjk if is_cjk(chunk.text) else latin

    def has_parts(self, chunk: Chunk) -> bool:
        """Whether the chunk also gets sentence vectors in ``PARTS_SPACE``."""
        return chunk.kind != "code" and is_cjk(chunk.text) and PARTS_SPACE in self.spaces_for(chunk)

    @property
    def all_spaces(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(s for group in self._table for s in group))
