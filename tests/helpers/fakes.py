"""Test doubles for fast unit tests of logic around the real models."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np


class FakeEmbedder:
    """Bag of hashed words -> unit vector. Only for unit tests of logic around the real models."""

    def __init__(self, name: str = "fake", dim: int = 64) -> None:
        self.name = name
        self.version = "1"
        self.dim = dim
        self.calls: list[int] = []
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(len(texts))
        self.texts.extend(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().split():
                h = int(hashlib.md5(word.encode()).hexdigest(), 16)
                out[i, h % self.dim] += 1.0
            norm = np.linalg.norm(out[i])
            out[i] = out[i] / norm if norm else 1.0 / np.sqrt(self.dim)
        return out

    @property
    def embedded(self) -> int:
        return sum(self.calls)
