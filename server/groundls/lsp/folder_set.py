"""The language server's workspace folders: added and removed as the client says, and the folder a URI lies in."""

from __future__ import annotations

import threading
from pathlib import Path

from groundls.lsp.folders import Folder, uri_to_path


class Folders:
    """All workspace folders, found by URI (longest root wins for nested folders)."""

    def __init__(self) -> None:
        self._folders: dict[str, Folder] = {}
        self._lock = threading.Lock()

    def add(self, folder: Folder) -> bool:
        with self._lock:
            if folder.uri in self._folders or any(
                f.root == folder.root for f in self._folders.values()
            ):
                return False
            self._folders[folder.uri] = folder
            return True

    def remove(self, uri: str) -> Folder | None:
        with self._lock:
            folder = self._folders.pop(uri, None)
            if folder is None:
                path = uri_to_path(uri)
                for key, f in list(self._folders.items()):
                    if path is not None and f.root == _resolve(path):
                        folder = self._folders.pop(key)
                        break
            return folder

    def all(self) -> list[Folder]:
        with self._lock:
            return list(self._folders.values())

    def for_uri(self, uri: str) -> tuple[Folder, str] | None:
        """The folder holding ``uri`` and the workspace-relative path inside it."""
        path = uri_to_path(uri)
        if path is None:
            return None
        best: tuple[Folder, str] | None = None
        for folder in self.all():
            rel = folder.rel_path(path)
            if rel is None:
                continue
            if best is None or len(folder.root.parts) > len(best[0].root.parts):
                best = (folder, rel)
        return best


def _resolve(path: Path) -> Path:
    try:
        return path.resolve()
    except OSError:
        return path
