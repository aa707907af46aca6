"""Scanned pages and images, read by OCR: RapidOCR running PP-OCRv6's text detector and
recognizer (Japanese and English in one model), whose weights ship inside the ``rapidocr``
wheel (the ``ocr`` extra; nothing is downloaded). Runs in the bounded child process of
:mod:`.bounded`, like every reader.

The recognised lines become :class:`~.layout.Line` rows, in PDF points as a text layer's are, so a
scanned page is composed as any PDF page is: headings by size, wrapped lines joined into
paragraphs, running headers dropped. A stretch in two columns is read column by column
(:mod:`.columns`); boxes on one row (a table's cells) are one line, cells joined by " | ".

Each page is cited as "p. 3 (scanned)", an image as "scanned"; a page the recognizer read with
little confidence (``PAGE_FLOOR``) as "p. 3 (scanned, unsure)", kept out of answers' excerpts.
"""

from __future__ import annotations

import importlib.util
import io
import math
import statistics
import time
from typing import Any

from .base import DocumentRefused, Extracted, place_label
from .columns import Span, reading_blocks
from .layout import Line, compose

#: Pages are rendered for OCR at this resolution (PP-OCR reads body text well from 150 up).
OCR_DPI = 200
#: The longest side, in pixels, of the page the text detector looks at (an A4 page at about
#: 110 dpi); the recognizer reads each line found from the page at ``OCR_DPI``.
DET_SIDE = 1280
#: Pages read by OCR at most per file; the rest wait with their reason listed.
MAX_OCR_PAGES = 300
#: Seconds of OCR per file; the pages after it are left unread, with the reason listed.
OCR_TIME_S = 600.0
#: Address space of the child that runs OCR: ONNX Runtime reserves about 2 GB for a page of long
#: lines (its resident memory stays near 1.1 GB), more than the other readers' bound.
OCR_MEMORY = 4 * 1024**3
#: An image file smaller than this is left out unread, as files of unknown type are (icons,
#: badges, thumbnails: a scanned page or a screenshot of text is larger).
MIN_IMAGE_BYTES = 16 * 1024
#: An image or page with a shorter side than this many pixels holds no page of text.
MIN_SIDE = 160
#: More pixels than this is refused (a decompression bomb, or a poster no OCR reads whole).
MAX_PIXELS = 80_000_000
#: A rendered page whose share of dark pixels is below this is blank: not read.
INK_SHARE = 0.002
#: A box this many times as tall as it is wide is a vertical line of text (its reading turns).
TALL = 1.5
#: The share of a vertical column's box, across the column, that its letters fill.
COLUMN_CORE = 0.5
#: Recognised lines below this confidence are dropped (RapidOCR's own default floor).
MIN_SCORE = 0.5
#: A page whose characters the recognizer read with less confidence than this, on average, is
#: cited "(scanned, unsure)": searched, listed by ``status``, never an answer's excerpt. Pages
#: more than a tenth wrong fall below it, pages read right stay above (BENCHMARKS.md).
PAGE_FLOOR = 0.92

OCR_EXTRA = "bash scripts/install.sh --ocr"


def ocr_available() -> bool:
    """Whether the OCR engine is installed (the ``ocr`` extra)."""
    return importlib.util.find_spec("rapidocr") is not None


def ocr_note() -> str:
    """How to install OCR where it is not installed ("" where it is)."""
    return "" if ocr_available() else f"OCR is not installed: {OCR_EXTRA}"


def waiting_note(what: str) -> str:
    """Why a file waits for OCR, in words, and how to install it where it is not."""
    return what if ocr_available() else f"{what}; OCR is not installed: {OCR_EXTRA}"


class Ocr:
    """The engine, loaded once per child process, with the file's time budget."""

    def __init__(self, time_s: float = OCR_TIME_S, max_pages: int = MAX_OCR_PAGES) -> None:
        if not ocr_available():
            raise DocumentRefused("needs-ocr", f"scanned: OCR is not installed ({OCR_EXTRA})")
        from rapidocr import LangRec, RapidOCR

        self.engine = RapidOCR(
            params={
                "Global.log_level": "error",
                # the line-rotation classifier turns right lines upside down: off, Japanese
                # errors fall from 3.4 % to 0.4 % of characters and a page takes half the time
                "Global.use_cls": False,
                "Rec.lang_type": LangRec.JAPAN,  # PP-OCRv6's one model: Japanese, English, ...
                # lines are found on the page scaled to DET_SIDE, read from the full page
                "Det.limit_type": "max",
                "Det.limit_side_len": DET_SIDE,
                "EngineConfig.onnxruntime.intra_op_num_threads": 2,
            }
        )
        self.deadline = time.monotonic() + time_s
        self.pages_left = max_pages
        self.cut = ""
        #: each page's confidence: the recognizer's scores, weighted by characters (0..1)
        self.confidence: dict[int, float] = {}

    @property
    def unsure(self) -> set[int]:
        """The pages read below ``PAGE_FLOOR``."""
        return {page for page, c in self.confidence.items() if c < PAGE_FLOOR}

    def finish(self, read: Extracted) -> Extracted:
        """``read`` with why OCR stopped early, if it did (a page or time limit), and its pages
        read below the confidence floor cited as unsure."""
        read.cut = self.cut
        unsure = self.unsure
        relabel = {place_label("scan", p): place_label("unsure scan", p) for p in unsure}
        if 1 in unsure:
            relabel[place_label("image", 1)] = place_label("unsure image", 1)
        read.places = [(line, relabel.get(label, label)) for line, label in read.places]
        return read

    def image_lines(self, image: Any, page: int) -> list[Line]:
        """The text lines of a PIL ``image`` (rendered at ``OCR_DPI``), as page ``page``'s."""
        import numpy as np

        if min(image.size) < MIN_SIDE or _ink(image) < INK_SHARE:
            return []
        if time.monotonic() > self.deadline:
            self.cut = self.cut or f"OCR stopped at p. {page}: over {OCR_TIME_S:.0f} s a file"
            return []
        if self.pages_left <= 0:
            self.cut = self.cut or f"OCR stopped at p. {page}: {MAX_OCR_PAGES} pages a file"
            return []
        self.pages_left -= 1
        try:
            found = self.engine(np.asarray(image.convert("RGB")))
        except Exception as exc:  # noqa: BLE001 - the engine's own errors: this page is lost, not the file
            self.cut = self.cut or f"OCR could not read p. {page}: {type(exc).__name__}"
            return []
        if found.boxes is None:
            return []
        read = [
            (box, text.strip(), score)
            for box, text, score in zip(found.boxes, found.txts, found.scores, strict=True)
            if text.strip()
        ]
        chars = sum(len(text) for _, text, _ in read)
        if chars:
            self.confidence[page] = sum(len(text) * score for _, text, score in read) / chars
        boxes = [(box, text) for box, text, score in read if score >= MIN_SCORE]
        if is_vertical(boxes):
            boxes, height = turned_for_reading(boxes, image.size[0]), image.size[0]
        else:
            height = image.size[1]
        return rows_as_lines(boxes, height, page)

    def pdf_page(self, pdf: Any, index: int) -> list[Line]:
        """A PDF page without a text layer, rendered and read (a ``pdf.PageReader``)."""
        page = pdf[index]
        try:
            image = page.render(scale=OCR_DPI / 72).to_pil()
        finally:
            page.close()
        return self.image_lines(image, index + 1)


def is_vertical(boxes: list[tuple[Any, str]]) -> bool:
    """Whether a page is set vertically (縦書き): most of its characters are in boxes at least
    ``TALL`` times as tall as they are wide. PP-OCR's recognizer reads such a box turned."""
    chars = tall = 0
    for box, text in boxes:
        xs, ys = [p[0] for p in box], [p[1] for p in box]
        chars += len(text)
        if len(text) >= 2 and max(ys) - min(ys) >= TALL * (max(xs) - min(xs)):
            tall += len(text)
    return tall * 2 > chars


def turned_for_reading(boxes: list[tuple[Any, str]], width: float) -> list[tuple[Any, str]]:
    """A vertical page's boxes turned a quarter to the left, so its columns, read right to left
    and each top to bottom, become rows read top to bottom and each left to right: a point (x, y)
    goes to (y, width - x), and each box's corners start again at its new top left.

    Vertical columns are set closer than PP-OCR's boxes are wide, so a column's box reaches into
    its neighbours'; each is kept to its middle half across the column (``COLUMN_CORE``), where
    its letters are, so neighbouring columns are rows apart and a paragraph's gap shows."""
    turned = []
    for box, text in boxes:
        corners = [(float(p[0]), float(p[1])) for p in box]
        rows = [(y, width - x) for x, y in corners[1:] + corners[:1]]
        middle = sum(y for _, y in rows) / 4
        core = [(x, middle + (y - middle) * COLUMN_CORE) for x, y in rows]
        turned.append((core, text))
    return turned


def rows_as_lines(boxes: list[tuple[Any, str]], height: int, page: int) -> list[Line]:
    """Recognised boxes (four corner points in pixels, y down; their text) as lines in reading
    order (two columns one after the other, :mod:`.columns`), each block top to bottom: boxes
    whose middles fall within one row's height are one line, left to right, joined by " | "
    where a gap wider than two characters parts them (a table's cells)."""
    scale = 72 / OCR_DPI
    spans = [
        (
            min(p[1] for p in box),
            max(p[1] for p in box),
            min(p[0] for p in box),
            max(p[0] for p in box),
            text,
        )
        for box, text in _upright(boxes)
    ]
    rows: list[list[Span]] = []
    for block in reading_blocks(spans):
        opened = len(rows)
        for span in sorted(block, key=lambda s: (s[0] + s[1]) / 2):
            middle = (span[0] + span[1]) / 2
            if len(rows) > opened and rows[-1][0][0] <= middle <= rows[-1][0][1]:
                rows[-1].append(span)
            else:
                rows.append([span])
    heights = [row[0][1] - row[0][0] for row in rows]
    body = statistics.median(heights) if heights else 0.0
    lines = []
    for row, h in zip(rows, heights, strict=True):
        row.sort(key=lambda s: s[2])
        text = row[0][4]
        for before, span in zip(row, row[1:], strict=False):
            char = (before[3] - before[2]) / max(1, len(before[4]))
            text += (" | " if span[2] - before[3] > 2 * char else " ") + span[4]
        top, bottom = min(s[0] for s in row), max(s[1] for s in row)
        size = body if abs(h - body) <= 0.3 * body else h  # a line's box varies by its letters
        lines.append(
            Line(
                page,
                text,
                round(size * scale * 2) / 2,
                400,
                row[0][2] * scale,
                max(s[3] for s in row) * scale,
                (height - top) * scale,
                (height - bottom) * scale,
            )
        )
    return lines


def _upright(boxes: list[tuple[Any, str]]) -> list[tuple[Any, str]]:
    """The boxes turned back by the page's skew: the median slope of the long boxes' top edges
    (PP-OCR's boxes follow their line: top left, top right, bottom right, bottom left). A page
    scanned a degree askew rises a line's height across its width; upright, a row is a row."""
    slopes = []
    for box, _ in boxes:
        (x0, y0), (x1, y1) = box[0][:2], box[1][:2]
        height = abs(box[3][1] - box[0][1])
        if x1 - x0 > 4 * max(1.0, height):
            slopes.append(math.atan2(y1 - y0, x1 - x0))
    angle = statistics.median(slopes) if slopes else 0.0
    if not angle:
        return boxes
    cos, sin = math.cos(angle), math.sin(angle)
    return [
        ([(x * cos + y * sin, y * cos - x * sin) for x, y, *_ in box], text) for box, text in boxes
    ]


def read_image(data: bytes, ocr: Ocr) -> Extracted:
    """An image's text by OCR, cited as "scanned"; refused when it cannot be decoded, is too
    large to decode safely, or holds no text."""
    from PIL import Image, UnidentifiedImageError

    Image.MAX_IMAGE_PIXELS = MAX_PIXELS  # a bomb raises rather than decodes
    try:
        with Image.open(io.BytesIO(data)) as image:
            if image.size[0] * image.size[1] > MAX_PIXELS:
                raise DocumentRefused(
                    "document-too-large", f"an image of {image.size[0]}×{image.size[1]} pixels"
                )
            image.load()
            lines = ocr.image_lines(_at_ocr_dpi(image), 1)
    except Image.DecompressionBombError:
        raise DocumentRefused("document-too-large", "an image too large to decode safely") from None
    except (UnidentifiedImageError, OSError, SyntaxError) as exc:
        raise DocumentRefused(
            "corrupt-document", f"cannot read the image: {type(exc).__name__}"
        ) from None
    if not lines:
        raise DocumentRefused("no-text-layer", "no text found in the image")
    result = compose([lines], {})
    result.places = [(1, "scanned")]
    return result


def _at_ocr_dpi(image: Any) -> Any:
    """A screenshot or photo as OCR reads it: EXIF rotation applied, small text enlarged so a
    line is at least as tall as a 200 dpi page's (an image has no dpi of its own that counts)."""
    from PIL import ImageOps

    image = ImageOps.exif_transpose(image)
    short = min(image.size)
    if short < 1000:
        factor = min(2.0, 1000 / short)
        image = image.resize((int(image.size[0] * factor), int(image.size[1] * factor)))
    return image


def _ink(image: Any) -> float:
    """The share of a page's pixels that are dark (0..1): a blank page has next to none."""
    histogram = image.convert("L").histogram()
    return sum(histogram[:128]) / max(1, sum(histogram))
