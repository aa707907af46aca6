"""Jupyter notebooks (.ipynb): markdown cells as prose, code cells as fenced code in the
notebook's language, outputs left out; each cell a place ("cell 4")."""

from __future__ import annotations

import json

from .base import DocumentRefused, Extracted, TextBuilder


def read_notebook(data: bytes) -> Extracted:
    try:
        notebook = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise DocumentRefused("corrupt-document", f"corrupt notebook: {exc}") from None
    if not isinstance(notebook, dict):
        raise DocumentRefused("corrupt-document", "corrupt notebook: not a JSON object")
    cells = notebook.get("cells")
    sheets = notebook.get("worksheets")
    if cells is None and isinstance(sheets, list) and sheets and isinstance(sheets[0], dict):
        cells = sheets[0].get("cells")  # nbformat 3
    if not isinstance(cells, list):
        raise DocumentRefused("corrupt-document", "corrupt notebook: it has no cells")
    language = _language(notebook)
    out = TextBuilder()
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict):
            continue
        source = cell.get("source", cell.get("input", ""))
        text = "".join(source) if isinstance(source, list) else str(source or "")
        if not text.strip():
            continue
        out.place("cell", number)
        kind = cell.get("cell_type")
        if kind == "markdown":
            out.block(text.splitlines())
        elif kind == "code":
            fence = "````" if "```" in text else "```"
            out.block([fence + language, *text.splitlines(), fence])
        else:
            out.block(text.splitlines())
    return out.result()


def _language(notebook: dict) -> str:  # type: ignore[type-arg]
    meta = notebook.get("metadata")
    if not isinstance(meta, dict):
        return "python"
    for key, field in (("kernelspec", "language"), ("language_info", "name")):
        value = meta.get(key)
        if (
            isinstance(value, dict)
            and isinstance(value.get(field), str)
            and value[field].isidentifier()
        ):
            return value[field].lower()
    return "python"
