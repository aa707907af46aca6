"""EPUB: its chapters in reading order (the package's spine), as one HTML document for the HTML
chunker, each chapter a place ("ch. 3")."""

from __future__ import annotations

import posixpath
import re

from .base import DocumentRefused, Extracted
from .zipped import Container, local

_BODY = re.compile(r"<body[^>]*>(.*?)</body\s*>", re.IGNORECASE | re.DOTALL)
_HTML_TYPES = ("application/xhtml+xml", "text/html")


def read_epub(data: bytes) -> Extracted:
    box = Container(data, "EPUB book")
    if box.has("META-INF/encryption.xml"):
        encrypted = [
            ref.get("URI", "")
            for ref in box.xml("META-INF/encryption.xml").iter()
            if local(ref.tag) == "CipherReference"
        ]
        if any(uri.lower().endswith((".xhtml", ".html", ".htm")) for uri in encrypted):
            raise DocumentRefused("encrypted", "encrypted: a DRM-protected EPUB")
    container = box.xml("META-INF/container.xml")
    rootfile = next(
        (el.get("full-path") for el in container.iter() if local(el.tag) == "rootfile"), None
    )
    if not rootfile or not box.has(rootfile):
        raise DocumentRefused("corrupt-document", "corrupt EPUB: no package document")
    package = box.xml(rootfile)
    folder = posixpath.dirname(rootfile)
    items = {
        el.get("id"): (
            posixpath.normpath(posixpath.join(folder, el.get("href") or "")),
            el.get("media-type"),
        )
        for el in package.iter()
        if local(el.tag) == "item"
    }
    spine = [el.get("idref") for el in package.iter() if local(el.tag) == "itemref"]
    parts = ["<html><body>"]
    lines = 1
    places: list[tuple[int, str]] = []
    number = 0
    for idref in spine:
        href, media = items.get(idref, ("", ""))
        if media not in _HTML_TYPES or not box.has(href):
            continue
        page = box.read(href).decode("utf-8", "replace")
        match = _BODY.search(page)
        body = (match.group(1) if match else page).strip()
        if not body:
            continue
        number += 1
        places.append((lines + 1, f"ch. {number}"))
        chunk = f"\n<section>\n{body}\n</section>"
        parts.append(chunk)
        lines += chunk.count("\n")
    parts.append("\n</body></html>\n")
    if not number:
        raise DocumentRefused("corrupt-document", "corrupt EPUB: no chapters in its spine")
    return Extracted("".join(parts), "html", places, number)
