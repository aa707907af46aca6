"""User configuration: a small tree of dataclasses with defaults; bad values warn and fall back."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field, fields
from typing import Any

from groundls.chunkers import ChunkOptions


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
        warnings: list[str] = []
        config = _build(cls, data, "groundls", warnings)
        return config, warnings


_LOG_LEVELS = ("error", "warning", "info", "debug")


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name)


def _build(cls: Any, data: Any, where: str, warnings: list[str]) -> Any:
    obj = cls()
    if data is None:
        return obj
    if not isinstance(data, dict):
        warnings.append(f"{where}: expected an object, got {type(data).__name__}; using defaults")
        return obj
    known = {f.name: f for f in fields(cls)}
    for raw_key, value in data.items():
        key = _snake(str(raw_key))
        f = known.get(key)
        if f is None:
            warnings.append(f"{where}.{raw_key}: unknown setting, ignored")
            continue
        default = getattr(obj, key)
        if dataclasses.is_dataclass(default):
            setattr(obj, key, _build(type(default), value, f"{where}.{raw_key}", warnings))
            continue
        checked = _check(default, value)
        if checked is None:
            warnings.append(
                f"{where}.{raw_key}: invalid value {value!r}; using default {default!r}"
            )
            continue
        setattr(obj, key, checked)
    if isinstance(obj, Config) and obj.log_level not in _LOG_LEVELS:
        warnings.append(f"{where}.logLevel: must be one of {', '.join(_LOG_LEVELS)}; using info")
        obj.log_level = "info"
    return obj


def _check(default: Any, value: Any) -> Any:
    """Return ``value`` converted to the type of ``default``, or None when it does not fit."""
    if isinstance(default, bool):
        return value if isinstance(value, bool) else None
    if isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            return None
        return value
    if isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            return None
        return float(value)
    if isinstance(default, str):
        return value if isinstance(value, str) else None
    if isinstance(default, list):
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return list(value)
        return None
    return None
