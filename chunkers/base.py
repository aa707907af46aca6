"""The chunk model shared by every chunker: pieces in, stable-id chunks out."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from .gloss import code_gloss
from .reading import readable

KINDS = ("code", "doc", "config")

_MEANINGFUL = re.compile(r"[0-9A-Za-z\u00c0-\uffff]")
CHUNK_ID_RE = re.compile(r"^[0-9a-f]{16}$")


@dataclass(frozen=True)
class ChunkOptions:
    """Size budget, in estimated tokens (see :func:`~.textrules.estimate_encoder_tokens`)."""

    max_tokens: int = 400
    min_chars: int = 50
    overlap_tokens: int = 30
    window_lines: int = 40


@dataclass
class Piece:
    """What a format-specific chunker produces before ids and hashes are assigned.

    ``key`` is the structural position (qualified name, heading path, element path) that
    makes the chunk id stable when other parts of the file change.
    """

    start_line: int
    end_line: int
    text: str
    title: str
    key: str
    breadcrumb: tuple[str, ...] = ()
    text_type: str = "paragraph"
    context: str = ""
    search_text: str | None = None
    #: words a reader of the page sees that the source does not spell (see ``reading.read_words``)
    read_words: tuple[str, ...] = ()
    symbol: str = ""
    signature: str = ""
    #: other names the piece binds at module level (``g = LocalProxy(...)``, ``const Max = 10``)
    names: tuple[str, ...] = ()


@dataclass(frozen=True)
class Chunk:
    id: str
    path: str
    start_line: int
    end_line: int
    language: str
    kind: str
    text_type: str
    title: str
    breadcrumb: tuple[str, ...]
    text: str
    embed_text: str
    content_hash: str
    symbol: str = ""
    signature: str = ""
    extra: dict[str, str] = field(default_factory=dict)
    #: names bound at module level in the chunk's lines (the symbol table holds them too)
    names: tuple[str, ...] = ()
    #: where a document's chunk stands in it ("p. 12", "slide 4"); set by the index, which
    #: knows the document's places ("" for text files)
    place: str = ""
    #: words the keyword index holds beside ``embed_text`` (see ``reading.read_words``)
    read_words: tuple[str, ...] = ()
    #: a code chunk's names as words, its comments and its Japanese lines: what the multilingual
    #: model reads of it (see ``gloss.code_gloss``; "" for other chunks)
    gloss: str = ""


def is_meaningful(text: str) -> bool:
    """False for whitespace- or symbol-only text."""
    return bool(_MEANINGFUL.search(text))


def make_chunk_id(path: str, key: str, ordinal: int) -> str:
    digest = hashlib.sha256(f"{path}\x00{key}\x00{ordinal}".encode()).hexdigest()
    return digest[:16]


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def finalize(path: str, language: str, kind: str, pieces: list[Piece]) -> list[Chunk]:
    """Turn pieces into chunks: drop empty ones, assign stable ids and content hashes."""
    seen: dict[str, int] = {}
    chunks: list[Chunk] = []
    for piece in pieces:
        if not is_meaningful(piece.text):
            continue
        ordinal = seen.get(piece.key, 0)
        seen[piece.key] = ordinal + 1
        body = piece.search_text if piece.search_text is not None else piece.text
        header = piece.context or _default_context(path, piece)
        embed_text = f"{header}\n{body}" if header else body
        # the words are the keyword index's, the gloss the multilingual models' reading: a chunk
        # whose reading changes is stored anew
        gloss = (
            code_gloss(embed_text, piece.text, piece.breadcrumb, piece.title)
            if kind == "code"
            else ""
        )
        hashed = "\x00".join([embed_text, *piece.read_words, *([gloss] if gloss else [])])
        chunks.append(
            Chunk(
                id=make_chunk_id(path, piece.key, ordinal),
                path=path,
                start_line=piece.start_line,
                end_line=piece.end_line,
                language=language,
                kind=kind,
                text_type=piece.text_type,
                title=piece.title,
                breadcrumb=piece.breadcrumb,
                text=piece.text,
                embed_text=embed_text,
                content_hash=content_hash(hashed),
                symbol=piece.symbol,
                signature=piece.signature,
                names=piece.names,
                read_words=piece.read_words,
                gloss=gloss,
            )
        )
    return chunks


def _default_context(path: str, piece: Piece) -> str:
    trail = " > ".join(piece.breadcrumb) if piece.breadcrumb else piece.title
    return f"{path}: {trail}" if trail else path


#: Sentence vectors per chunk at most (more sentences are packed together).
MAX_SENTENCE_PARTS = 48
#: Shorter fragments (a closing fence, "```text", "- [x]") carry no meaning of their own.
_MIN_SENTENCE_CHARS = 8
_SENTENCE_OR_LINE = re.compile(r"(?<=[。！？!?])|(?<=\. )|\n+")


def sentence_parts(chunk: Chunk, max_parts: int = MAX_SENTENCE_PARTS) -> list[str]:
    """The chunk's sentences (and lines), each prefixed with its section path, for embedding.

    A sentence encoder gives a long passage one averaged vector, in which a single relevant
    sentence is diluted; one vector per sentence keeps it findable (the chunk scores as its
    best sentence). A one-sentence chunk gets its one part too, so every chunk of the space
    takes part in the sentence ranking.
    """
    headings = set(chunk.breadcrumb)
    sentences = [
        s.strip()
        for s in _SENTENCE_OR_LINE.split(readable(chunk.text, chunk.language))
        if s
        and len(s.strip()) >= _MIN_SENTENCE_CHARS
        and s.strip().lstrip("#").strip() not in headings  # the section path says it already
    ]
    if len(sentences) > max_parts:
        per = -(-len(sentences) // max_parts)
        sentences = [" ".join(sentences[i : i + per]) for i in range(0, len(sentences), per)]
    trail = " > ".join(chunk.breadcrumb) if chunk.breadcrumb else chunk.title
    return [f"{trail}\n{s}" if trail else s for s in sentences]
