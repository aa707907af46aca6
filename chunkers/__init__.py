"""Pure chunkers: text in, chunks out. Nothing here touches the database, network or models."""

from __future__ import annotations

from .base import Chunk, ChunkOptions, Piece, finalize, sentence_parts
from .code import MEMBERS
from .languages import DOCUMENT_SYNTAX, classify
from .reading import SYNTAXES, read_words

#: Raise when the same text comes out in other chunks (a new grammar, a new rule): every file's
#: chunks are made again on the next index run; unchanged chunks keep their vectors.
CHUNKER_VERSION = 25

__all__ = [
    "CHUNKER_VERSION",
    "DOCUMENT_SYNTAX",
    "MEMBERS",
    "Chunk",
    "ChunkOptions",
    "Piece",
    "chunk_file",
    "classify",
    "sentence_parts",
]


def chunk_file(path: str, text: str, options: ChunkOptions | None = None) -> list[Chunk]:
    """Chunk one file's text. ``path`` is workspace-relative POSIX; returns [] for unknown types."""
    options = options or ChunkOptions()
    kind_info = classify(path)
    if kind_info is None:
        return []
    language, kind = kind_info
    # a document (PDF, Word, ...) arrives as the text its reader made: Markdown, or HTML
    syntax = DOCUMENT_SYNTAX.get(language, language)
    pieces = _pieces_for(path, syntax, kind, text, options)
    if syntax in SYNTAXES:
        for piece in pieces:
            source = piece.search_text if piece.search_text is not None else piece.text
            piece.read_words = tuple(read_words(source, syntax))
    return finalize(path, language, kind, pieces)


def _pieces_for(
    path: str, language: str, kind: str, text: str, options: ChunkOptions
) -> list[Piece]:
    if kind == "code":
        from .code import code_pieces

        return code_pieces(path, language, text, options)
    if language == "markdown":
        from .markdown import markdown_pieces

        return markdown_pieces(path, text, options)
    if language == "rst":
        from .rst import rst_pieces

        return rst_pieces(path, text, options)
    if language == "html":
        from .html import html_pieces

        return html_pieces(path, text, options)
    if language == "text":
        from .text import text_pieces

        return text_pieces(path, text, options)
    if language == "xml":
        from .xml import xml_pieces

        return xml_pieces(path, text, options)
    from .windows import window_pieces

    return window_pieces(text.splitlines(), options, context=path)
