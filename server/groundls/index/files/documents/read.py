"""Bytes of a document -> its text with structure, by format (in this process: see
:mod:`.bounded` for the bounded child process the index uses)."""

from __future__ import annotations

from .base import DocumentRefused, Extracted, document_format


def extract(path: str, data: bytes, *, ocr: bool = False) -> Extracted:
    """Read a document of a known format; raises :class:`DocumentRefused`. With ``ocr``, a
    PDF's pages without text and an image are read by OCR (:mod:`.scans`); without it an image
    is refused as waiting for OCR."""
    fmt = document_format(path)
    if fmt == "pdf":
        from .pdf import read_pdf

        if not ocr:
            return read_pdf(data)
        from .scans import Ocr

        reader = Ocr()
        return reader.finish(read_pdf(data, reader.pdf_page))
    if fmt == "image":
        from .scans import Ocr, read_image

        if not ocr:
            raise DocumentRefused("needs-ocr", "an image: its text waits for OCR")
        reader = Ocr()
        return reader.finish(read_image(data, reader))
    if fmt in ("docx", "pptx", "xlsx"):
        from . import ooxml

        return {"docx": ooxml.read_docx, "pptx": ooxml.read_pptx, "xlsx": ooxml.read_xlsx}[fmt](
            data
        )
    if fmt == "odt":
        from .odt import read_odt

        return read_odt(data)
    if fmt == "epub":
        from .epub import read_epub

        return read_epub(data)
    if fmt == "ipynb":
        from .notebook import read_notebook

        return read_notebook(data)
    raise DocumentRefused("unsupported-document", f"{path}: not a document groundls reads")
