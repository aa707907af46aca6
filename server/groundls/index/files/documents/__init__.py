"""Documents that are not plain text: PDF, Word, PowerPoint, Excel, OpenDocument text, EPUB and
Jupyter notebooks. A reader turns a document's bytes into text with structure (Markdown, or
HTML for EPUB) and the places in it (page, slide, sheet, cell); the pure chunkers chunk that text
like any other document. Reading runs in a child process with a time and memory bound
(:mod:`.bounded`), so one hostile file cannot stall or kill the index or the language server.
"""

from __future__ import annotations

from .base import (
    DOCUMENT_FORMATS,
    EXTRACTOR_VERSION,
    LEGACY_FORMATS,
    DocumentRefused,
    Extracted,
    document_format,
    place_at,
)
from .bounded import extract_bounded
from .read import extract

__all__ = [
    "DOCUMENT_FORMATS",
    "EXTRACTOR_VERSION",
    "LEGACY_FORMATS",
    "DocumentRefused",
    "Extracted",
    "document_format",
    "extract",
    "extract_bounded",
    "place_at",
]
