"""File name -> (language, kind). The single place that knows which chunker a file gets."""

from __future__ import annotations

from pathlib import PurePosixPath

CODE_EXTENSIONS: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".java": "java",
    ".go": "go",
    ".rs": "rust",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".hxx": "cpp",
    ".cs": "csharp",
    ".rb": "ruby",
    ".php": "php",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".swift": "swift",
    ".scala": "scala",
    ".lua": "lua",
    ".sh": "bash",
    ".bash": "bash",
    ".zsh": "bash",
    ".pl": "perl",
    ".r": "r",
    ".sql": "sql",
    ".el": "elisp",
    ".vim": "vim",
    ".dart": "dart",
    ".ex": "elixir",
    ".exs": "elixir",
    ".hs": "haskell",
    ".ml": "ocaml",
    ".clj": "clojure",
    ".erl": "erlang",
    ".zig": "zig",
    ".css": "css",
    ".scss": "css",
    ".vue": "vue",
    ".svelte": "svelte",
}
DOC_EXTENSIONS: dict[str, str] = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".mdx": "markdown",
    ".rst": "rst",
    ".rest": "rst",
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".txt": "text",
    ".text": "text",
    ".adoc": "text",
    ".org": "text",
}
#: Documents a reader turns into text first (server/groundls/index/documents): the language is
#: the format; the text the reader gives is Markdown, or HTML for EPUB (``DOCUMENT_SYNTAX``).
DOCUMENT_EXTENSIONS: dict[str, str] = {
    ".pdf": "pdf",
    ".docx": "docx",
    ".pptx": "pptx",
    ".xlsx": "xlsx",
    ".odt": "odt",
    ".epub": "epub",
    ".ipynb": "ipynb",
    # images: their text is read by OCR (the index's OCR tier), then chunked as Markdown
    ".png": "image",
    ".jpg": "image",
    ".jpeg": "image",
    ".tif": "image",
    ".tiff": "image",
    ".webp": "image",
}
DOCUMENT_SYNTAX: dict[str, str] = {
    "pdf": "markdown",
    "docx": "markdown",
    "pptx": "markdown",
    "xlsx": "markdown",
    "odt": "markdown",
    "epub": "html",
    "ipynb": "markdown",
    "image": "markdown",
}
CONFIG_EXTENSIONS: dict[str, str] = {
    ".xml": "xml",
    ".xsd": "xml",
    ".xsl": "xml",
    ".pom": "xml",
    ".csproj": "xml",
    ".plist": "xml",
    ".svg": "xml",
    ".json": "json",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".toml": "toml",
    ".ini": "ini",
    ".cfg": "ini",
    ".conf": "ini",
    ".properties": "ini",
}
SPECIAL_NAMES: dict[str, tuple[str, str]] = {
    "makefile": ("make", "code"),
    "dockerfile": ("dockerfile", "code"),
    "readme": ("text", "doc"),
    "license": ("text", "doc"),
    "changelog": ("text", "doc"),
    "copying": ("text", "doc"),
    "authors": ("text", "doc"),
}


def classify(path: str) -> tuple[str, str] | None:
    """Return (language, kind) for a workspace-relative path, or None if it is not indexed."""
    p = PurePosixPath(path)
    suffix = p.suffix.lower()
    if suffix in CODE_EXTENSIONS:
        return CODE_EXTENSIONS[suffix], "code"
    if suffix in DOC_EXTENSIONS:
        return DOC_EXTENSIONS[suffix], "doc"
    if suffix in DOCUMENT_EXTENSIONS:
        return DOCUMENT_EXTENSIONS[suffix], "doc"
    if suffix in CONFIG_EXTENSIONS:
        return CONFIG_EXTENSIONS[suffix], "config"
    special = SPECIAL_NAMES.get(p.stem.lower() if not suffix else p.name.lower())
    if special:
        return special
    return None
