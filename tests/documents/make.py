"""Make the test documents with real tools: Chromium prints HTML to PDF, pandoc writes Word,
OpenDocument and EPUB, LibreOffice (over UNO) exports PDF with bookmarks and saves
password-protected Office files, qpdf encrypts a PDF, Pillow writes a scanned-image PDF, and
python-pptx, openpyxl and pypdf write slides, workbooks and a 50,000-page PDF.

Each tool is looked for first; a missing one skips the tests that need it, unless
``GROUNDLS_DOC_TOOLS=required`` (``scripts/test.sh`` installs them and sets it).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import textwrap
import zipfile
from pathlib import Path

import pytest

from tests.documents import sources

SYSTEM_PYTHON = "/usr/bin/python3"  # Debian's, which has LibreOffice's UNO bridge


def need(*tools: str) -> None:
    """Skip (or, under ``GROUNDLS_DOC_TOOLS=required``, fail) when a tool is missing; "uno" is
    LibreOffice's Python bridge in Debian's Python."""
    missing = [t for t in tools if t != "uno" and shutil.which(t) is None]
    if "uno" in tools and not _has_uno():
        missing.append("python3-uno")
    if missing:
        message = f"document tools missing: {', '.join(missing)} (tests/documents/tools.sh)"
        if os.environ.get("GROUNDLS_DOC_TOOLS") == "required":
            pytest.fail(message)
        pytest.skip(message)


def need_module(name: str) -> None:
    """A writer library of the ``doctools`` extra (``scripts/test.sh`` installs it)."""
    try:
        __import__(name)
    except ImportError:
        message = f"document writer missing: {name} (pip install -e '.[doctools]')"
        if os.environ.get("GROUNDLS_DOC_TOOLS") == "required":
            pytest.fail(message)
        pytest.skip(message)


def _has_uno() -> bool:
    if not os.path.exists(SYSTEM_PYTHON):
        return False
    probe = subprocess.run([SYSTEM_PYTHON, "-c", "import uno"], capture_output=True)
    return probe.returncode == 0


def chromium_pdf(html: str, out: Path, *, header_footer: bool = False) -> Path:
    """Print HTML to PDF with Chromium (with its running header and footer when asked)."""
    need("chromium")
    src = out.with_suffix(".html")
    src.write_text(html, encoding="utf-8")
    args = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", f"--print-to-pdf={out}"]
    if not header_footer:
        args.append("--no-pdf-header-footer")
    with tempfile.TemporaryDirectory() as home:  # Chromium's profile, not beside the PDF
        subprocess.run(
            [*args, src.as_uri()],
            check=True,
            capture_output=True,
            timeout=120,
            env={**os.environ, "HOME": home},
        )
    src.unlink()
    return out


def pandoc(markdown: str, out: Path) -> Path:
    """Markdown to .docx, .odt or .epub with pandoc."""
    need("pandoc")
    subprocess.run(
        ["pandoc", "-f", "markdown", "-o", str(out), "--metadata", "title=manual"],
        input=markdown.encode("utf-8"),
        check=True,
        capture_output=True,
        timeout=120,
    )
    return out


_UNO_SCRIPT = textwrap.dedent(
    """
    import json, subprocess, sys, time, uno
    from com.sun.star.beans import PropertyValue

    def props(**kw):
        out = []
        for k, v in kw.items():
            p = PropertyValue(); p.Name = k; p.Value = v; out.append(p)
        return tuple(out)

    jobs, profile, pipe = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
    office = subprocess.Popen(["soffice", "--headless", "--norestore", "--nologo",
        f"--accept=pipe,name={pipe};urp;", f"-env:UserInstallation={profile}"])
    try:
        local = uno.getComponentContext()
        resolver = local.ServiceManager.createInstanceWithContext(
            "com.sun.star.bridge.UnoUrlResolver", local)
        for _ in range(240):
            try:
                ctx = resolver.resolve(f"uno:pipe,name={pipe};urp;StarOffice.ComponentContext")
                break
            except Exception:
                time.sleep(0.25)
        desktop = ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
        for source, target, filter_name, password in jobs:
            doc = desktop.loadComponentFromURL(source, "_blank", 0, props(Hidden=True))
            extra = {"Password": password} if password else {}
            doc.storeToURL(target, props(FilterName=filter_name, **extra))
            doc.close(True)
        desktop.terminate()
    finally:
        office.wait(timeout=60) if office.poll() is None else None
    """
)


def libreoffice(jobs: list[tuple[Path, Path, str, str]], work: Path) -> None:
    """Save documents with LibreOffice: (source, target, filter name, password or "")."""
    need("soffice", "uno")
    script = work / "lo_save.py"
    script.write_text(_UNO_SCRIPT, encoding="utf-8")
    payload = json.dumps([(s.as_uri(), t.as_uri(), f, p) for s, t, f, p in jobs])
    subprocess.run(
        [SYSTEM_PYTHON, str(script), payload, (work / "lo-profile").as_uri(), f"gls{os.getpid()}"],
        check=True,
        capture_output=True,
        timeout=300,
    )


def office_encrypted(src: Path, out: Path) -> Path:
    """A password-protected .docx, .pptx or .xlsx, as Office writes it (msoffcrypto-tool)."""
    need_module("msoffcrypto")
    from msoffcrypto.format.ooxml import OOXMLFile

    with open(src, "rb") as fh, open(out, "wb") as dst:
        OOXMLFile(fh).encrypt("pw", dst)
    return out


def slides(out: Path) -> Path:
    need_module("pptx")
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    first = deck.slides.add_slide(deck.slide_layouts[1])
    first.shapes.title.text = "四半期レビュー"
    body = first.placeholders[1].text_frame
    body.text = "売上は前期比で一割増えました"
    body.add_paragraph().text = "新しい顧客は関西に多い"
    first.notes_slide.notes_text_frame.text = "質問が出たら物流倉庫の移転計画を説明する"
    second = deck.slides.add_slide(deck.slide_layouts[5])
    second.shapes.title.text = "Next steps"
    table = second.shapes.add_table(2, 2, Inches(1), Inches(2), Inches(6), Inches(1)).table
    for (r, c), text in {
        (0, 0): "owner",
        (0, 1): "task",
        (1, 0): "Aiko",
        (1, 1): "migrate the billing database to the new cluster",
    }.items():
        table.cell(r, c).text = text
    deck.save(str(out))
    return out


def workbook(out: Path) -> Path:
    need_module("openpyxl")
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "テスト項目"
    sheet.append(["ID", "手順", "期待結果"])
    for i in range(1, 46):
        sheet.append([i, f"ログイン画面で手順{i}を行う", "成功する" if i % 2 else "エラーが出ない"])
    sheet.append([46, "パスワードを五回間違える", "アカウントが十五分ロックされる"])
    summary = book.create_sheet("Summary")
    summary.append(["total", 46])
    summary.append(["passed", 40])
    book.save(str(out))
    return out


def notebook(out: Path) -> Path:
    """A notebook as Jupyter writes it (nbformat 4), with an output that must be left out."""
    cells = [
        {
            "cell_type": "markdown",
            "metadata": {},
            "source": ["# 売上の分析\n", "\n", "月ごとの売上を集計します。"],
        },
        {
            "cell_type": "code",
            "execution_count": 1,
            "metadata": {},
            "source": [
                "import pandas as pd\n",
                "sales = pd.read_csv('sales.csv')\n",
                "monthly = sales.groupby('month').sum()",
            ],
            "outputs": [
                {"output_type": "stream", "name": "stdout", "text": ["OUTPUT-ONLY-WORD\n"]}
            ],
        },
        {
            "cell_type": "markdown",
            "metadata": {},
            "source": "## 季節による変動\n\n冬の売上は夏のおよそ二倍です。",
        },
    ]
    doc = {
        "cells": cells,
        "metadata": {
            "kernelspec": {"name": "python3", "language": "python", "display_name": "Python 3"}
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    out.write_text(json.dumps(doc, ensure_ascii=False, indent=1), encoding="utf-8")
    return out


def scanned_pdf(out: Path) -> Path:
    """A PDF of page images only (as a scanner makes), written by Pillow."""
    from PIL import Image, ImageDraw

    pages = []
    for n in range(2):
        page = Image.new("RGB", (850, 1100), "white")
        ImageDraw.Draw(page).text((80, 80), f"scanned page {n + 1}", fill="black")
        pages.append(page)
    pages[0].save(out, save_all=True, append_images=pages[1:])
    return out


def many_pages_pdf(out: Path, pages: int = 50_000) -> Path:
    need_module("pypdf")
    from pypdf import PdfWriter

    writer = PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(72, 72)
    with open(out, "wb") as fh:
        writer.write(fh)
    return out


def looping_pdf(out: Path) -> Path:
    """A hostile PDF whose page tree holds itself as its own kid."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 /Parent 2 0 R >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R >>",
    ]
    body = b"%PDF-1.4\n"
    offsets = []
    for n, obj in enumerate(objects, start=1):
        offsets.append(len(body))
        body += f"{n} 0 obj\n".encode() + obj + b"\nendobj\n"
    xref = len(body)
    body += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    body += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    body += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    )
    out.write_bytes(body)
    return out


def zip_bomb_docx(out: Path, good: Path) -> Path:
    """A .docx whose document part inflates to 2 GB (a zip bomb)."""
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            if item.filename != "word/document.xml":
                dst.writestr(item, src.read(item))
        with dst.open("word/document.xml", "w", force_zip64=True) as fh:
            block = b"\0" * (1 << 20)
            for _ in range(2048):
                fh.write(block)
    return out


def drm_epub(out: Path, good: Path) -> Path:
    """An EPUB as DRM leaves it: its chapters scrambled and listed in META-INF/encryption.xml."""
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        chapters = [n for n in src.namelist() if n.endswith((".xhtml", ".html"))]
        for item in src.infolist():
            data = src.read(item)
            if item.filename in chapters:
                data = bytes(b ^ 0x5A for b in data)
            dst.writestr(item, data)
        refs = "".join(
            '<enc:EncryptedData><enc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/>'
            f'<enc:CipherData><enc:CipherReference URI="{name}"/></enc:CipherData></enc:EncryptedData>'
            for name in chapters
        )
        dst.writestr(
            "META-INF/encryption.xml",
            '<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" '
            f'xmlns:enc="http://www.w3.org/2001/04/xmlenc#">{refs}</encryption>',
        )
    return out


def truncated(src: Path, out: Path) -> Path:
    data = src.read_bytes()
    out.write_bytes(data[: len(data) // 2])
    return out


def japanese_manual_pdf(out: Path, *, header_footer: bool = False) -> Path:
    return chromium_pdf(
        sources.chapters_html(sources.JA_CHAPTERS, "ja"), out, header_footer=header_footer
    )


def two_column_pdf(out: Path) -> Path:
    """One page: a title across it, then the Japanese manual's paragraphs in two columns."""
    paragraphs = [p for _, sections in sources.JA_CHAPTERS for _, ps in sections for p in ps]
    style = (
        "body{font-family:'IPAGothic','IPAPGothic',sans-serif;font-size:11pt}"
        ".cols{column-count:2;column-gap:1.5cm}"
    )
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return chromium_pdf(
        f'<!doctype html><html lang="ja"><head><meta charset="utf-8"><style>{style}</style>'
        f'</head><body><h1>在庫管理サービス 運用の手引き</h1><div class="cols">{body}</div>'
        "</body></html>",
        out,
    )


def vertical_pdf(out: Path) -> Path:
    """One page set vertically (縦書き, columns right to left): a title, then the Japanese
    manual's first paragraphs."""
    paragraphs = [p for _, sections in sources.JA_CHAPTERS for _, ps in sections for p in ps][:4]
    style = (
        "body{font-family:'IPAGothic','IPAPGothic',sans-serif;font-size:12pt;"
        "writing-mode:vertical-rl;height:24cm}"
    )
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return chromium_pdf(
        f'<!doctype html><html lang="ja"><head><meta charset="utf-8"><style>{style}</style>'
        f"</head><body><h1>在庫管理サービス 運用の手引き</h1>{body}</body></html>",
        out,
    )


def scanned_copy(src: Path, out: Path, pages: list[int] | None = None, *, dpi: int = 200) -> Path:
    """``src``'s pages (0-based ``pages``; all by default) as a scanner makes them: rendered at
    ``dpi``, turned by a degree, speckled, saved as JPEG images in a PDF with no text (a path
    ending ``.png`` gets the first page as one image)."""
    import random

    import pypdfium2 as pdfium
    from PIL import ImageFilter

    pdf = pdfium.PdfDocument(src)
    try:
        chosen = range(len(pdf)) if pages is None else pages
        images = [pdf[i].render(scale=dpi / 72).to_pil().convert("L") for i in chosen]
    finally:
        pdf.close()
    rng = random.Random(7)
    scans = []
    for image in images:
        image = image.rotate(rng.uniform(-1.2, 1.2), expand=True, fillcolor=255)
        pixels = image.load()
        for _ in range(image.size[0] * image.size[1] // 400):  # dust
            pixels[rng.randrange(image.size[0]), rng.randrange(image.size[1])] = rng.randrange(96)
        scans.append(image.filter(ImageFilter.GaussianBlur(0.6)).convert("RGB"))
    if out.suffix == ".png":
        scans[0].save(out)
    else:
        scans[0].save(out, save_all=True, append_images=scans[1:], resolution=dpi, quality=70)
    return out


def pdf_of(pages: list[tuple[Path, int]], out: Path) -> Path:
    """One PDF of the given (file, 0-based page) pages, in order (pypdf)."""
    need_module("pypdf")
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    for path, index in pages:
        writer.add_page(PdfReader(path).pages[index])
    with open(out, "wb") as fh:
        writer.write(fh)
    return out
