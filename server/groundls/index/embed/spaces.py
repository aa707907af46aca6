"""Embedding spaces: which model's vectors a chunk gets, by its kind and script (config ``embedders``)."""

from __future__ import annotations

from dataclasses import dataclass

from groundls.chunkers import Chunk
from groundls.chunkers.textrules import is_cjk

#: The space that also keeps one vector per sentence of its Japanese prose (see sentence_parts):
#: USE is a sentence encoder, so a Japanese passage also ranks by its best sentence. English
#: prose gained nothing from it, so it is left out.
PARTS_SPACE = "use"

#: policy -> (spaces of code, of English prose and config, of Japanese prose).
#: "default": the static model (distilled from MiniLM, thousands of chunks a second) for code and
#: English text, USE (multilingual) for prose, so Japanese questions reach English docs too; then
#: the transformer MiniLM for code and English text as a deep tier, filled after the fast index
#: (see DEFERRED).
#: "deep": the transformer MiniLM instead of the static model (slower, see BENCHMARKS.md).
POLICIES: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "default": (("static", "minilm"), ("static", "minilm", "use", "e5"), ("use", "e5")),
    "fast": (("static",), ("static", "use"), ("use",)),
    "deep": (("minilm",), ("minilm", "use"), ("use",)),
    "static": (("static",), ("static",), ("static",)),
    "minilm": (("minilm",), ("minilm",), ("minilm",)),
    "use": (("use",), ("use",), ("use",)),
    "both": (("minilm", "use"), ("minilm", "use"), ("minilm", "use")),
}

#: policy -> its deep tier: spaces an index run does not wait for. They are filled afterwards, a
#: slice at a time (the language server in the background, ``groundls index --deep`` at once),
#: and searched as far as they are filled. MiniLM embeds tens of chunks a second on two cores
#: against the static model's thousands, and reads code and English text better.
#: multilingual-e5-small (``e5``, a few prose chunks a second) joins it for prose, English and
#: Japanese: it reads paraphrase, where the question's words are not the
#: manual's.
DEFERRED: dict[str, tuple[str, ...]] = {"default": ("minilm", "e5")}


#: A fast space that stands in for a deep one until that one is filled: the static model is
#: distilled from MiniLM, so once MiniLM holds every chunk its list says what the static one
#: approximates (see ``Searcher._english_lists``).
STAND_INS = {"static": "minilm"}

#: Spaces that read prose only: multilingual-e5-small, the slowest model, is there for paraphrase
#: in docs. A config file's chunks (YAML, JSON, XML and SVG, INI) are not prose, and cost e5 its
#: time for nothing.
PROSE_ONLY = ("e5",)

#: The multilingual space that also reads every code chunk, by its gloss (its names as words, its
#: comments, its Japanese lines: ``chunkers.gloss``): a question in people's words, in Japanese or
#: English, meets what the code says of itself. It is a deep space, filled in the background, so
#: the first index waits for nothing more.
GLOSS_SPACES = ("e5",)

#: The space of a model server's embeddings (``embeddings.served``): every chunk, deep tier.
SERVED_SPACE = "served"


#: The languages each space's model reads ("*": any). The packaged MiniLM and the static model
#: distilled from it read English; USE and multilingual-e5 read Japanese and English alike. A
#: served space reads what its configuration says (``embeddings.served.languages``).
READS: dict[str, tuple[str, ...]] = {
    "static": ("en",),
    "minilm": ("en",),
    "use": ("*",),
    "e5": ("*",),
}


def chunk_language(kind: str, text: str) -> str:
    """A chunk's language as the models read it: "ja" for Japanese prose, "en" for the rest
    (code is read by its names, which are English whatever language its comments are in)."""
    return "ja" if kind != "code" and is_cjk(text) else "en"


@dataclass(frozen=True)
class SpacePolicy:
    """Which embedding spaces a chunk is embedded in; ``served``: a model server's space too,
    for every chunk, in the deep tier."""

    name: str
    served: bool = False
    #: the languages the served space's model reads
    served_reads: tuple[str, ...] = ("en",)

    def reads(self, space: str) -> tuple[str, ...]:
        """The languages ``space``'s model reads ("*": any); unknown is read as English."""
        if space == SERVED_SPACE:
            return self.served_reads
        return READS.get(space, ("en",))

    def holds_unread(self, space: str) -> bool:
        """Whether ``space`` embeds chunks in a language its model does not read (a served
        English model embeds Japanese prose too; the packaged English models embed only code
        and English text)."""
        reads = self.reads(space)
        if "*" in reads:
            return False
        code, latin, cjk = self._table
        held = {"en", "ja"} if space == SERVED_SPACE else set()
        if space in code or space in latin:
            held.add("en")
        if space in cjk:
            held.add("ja")
        return not held <= set(reads)

    def reads_both(self, space: str, question: str, chunk: str) -> bool:
        """Whether ``space``'s model reads both a question in ``question`` and a chunk in
        ``chunk`` (languages as "en", "ja", "de", ...)."""
        reads = self.reads(space)
        return "*" in reads or (question in reads and chunk in reads)

    @property
    def _table(self) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
        return POLICIES.get(self.name, POLICIES["default"])

    def spaces_for(self, chunk: Chunk) -> tuple[str, ...]:
        return self.spaces_of(chunk.kind, chunk.text)

    def spaces_of(self, kind: str, text: str) -> tuple[str, ...]:
        """The spaces of a chunk of this kind and text (deep tier included)."""
        code, latin, cjk = self._table
        extra = (SERVED_SPACE,) if self.served else ()
        if kind == "code":
            return code + self.gloss_spaces + extra
        spaces = cjk if is_cjk(text) else latin
        if kind != "doc":
            spaces = tuple(s for s in spaces if s not in PROSE_ONLY)
        return spaces + extra

    @property
    def gloss_spaces(self) -> tuple[str, ...]:
        """This policy's spaces that read code by its gloss (see ``GLOSS_SPACES``): those of its
        Japanese prose that its code spaces are not."""
        code, _, cjk = self._table
        return tuple(s for s in cjk if s in GLOSS_SPACES and s not in code)

    def text_for(self, space: str, chunk: Chunk) -> str:
        """What ``space``'s model reads of a chunk: a code chunk's gloss in a gloss space, else
        its embed text."""
        if chunk.kind == "code" and chunk.gloss and space in self.gloss_spaces:
            return chunk.gloss
        return chunk.embed_text

    @property
    def deferred(self) -> tuple[str, ...]:
        """The deep tier: spaces filled after the index run (see DEFERRED)."""
        name = self.name if self.name in POLICIES else "default"
        return DEFERRED.get(name, ()) + ((SERVED_SPACE,) if self.served else ())

    def has_parts(self, chunk: Chunk) -> bool:
        """Whether the chunk also gets sentence vectors in ``PARTS_SPACE``."""
        return chunk.kind != "code" and is_cjk(chunk.text) and PARTS_SPACE in self.spaces_for(chunk)

    @property
    def all_spaces(self) -> tuple[str, ...]:
        spaces = tuple(dict.fromkeys(s for group in self._table for s in group))
        return spaces + ((SERVED_SPACE,) if self.served else ())
