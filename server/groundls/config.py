"""User configuration: a small tree of dataclasses with defaults; bad values warn and fall back
(structured by :mod:`groundls.typed`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from groundls.chunkers import ChunkOptions
from groundls.typed import structure_lenient


@dataclass
class SearchConfig:
    k: int = 10
    vector_weight: float = 1.0
    keyword_weight: float = 2.0
    #: 0 = no cap. Measured: a cap of 3 cost 0.03 nDCG@10 on a small doc corpus, gained nothing on code.
    max_per_file: int = 0
    #: Below this best cosine similarity (over the embedding spaces) a query gets "nothing
    #: relevant" instead of noise. Calibrated on the unanswerable eval questions: see BENCHMARKS.md.
    min_similarity: float = 0.34


@dataclass
class HoverConfig:
    enabled: bool = True
    count: int = 3


@dataclass
class AnswerConfig:
    model_path: str = ""
    use_packaged_model: bool = True
    k: int = 6
    max_tokens: int = 320
    time_limit_s: float = 30.0
    idle_unload_s: float = 600.0
    context_tokens: int = 900


@dataclass
class Config:
    include: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    max_file_bytes: int = 1_000_000
    index_secrets: bool = False
    chunk_max_tokens: int = 400
    chunk_min_chars: int = 50
    embedders: str = "default"
    log_level: str = "info"
    search: SearchConfig = field(default_factory=SearchConfig)
    hover: HoverConfig = field(default_factory=HoverConfig)
    answer: AnswerConfig = field(default_factory=AnswerConfig)

    @property
    def chunk_options(self) -> ChunkOptions:
        return ChunkOptions(max_tokens=self.chunk_max_tokens, min_chars=self.chunk_min_chars)

    @classmethod
    def from_dict(cls, data: Any) -> tuple[Config, list[str]]:
        """Build a config from camelCase or snake_case keys; return it with warnings for bad values."""
        config, warnings = structure_lenient(cls, data, "groundls")
        if config.log_level not in LOG_LEVELS:
            warnings.append(
                f"groundls.logLevel: must be one of {', '.join(LOG_LEVELS)}; using info"
            )
            config.log_level = "info"
        return config, warnings


LOG_LEVELS = ("error", "warning", "info", "debug")
