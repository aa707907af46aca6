"""Reading the zip container of Office, OpenDocument and EPUB files without trusting it: a
member's size is checked before and while it is read, so a zip bomb is refused, not inflated."""

from __future__ import annotations

import io
import zipfile
from xml.etree import ElementTree

from .base import DocumentRefused

#: The most a container may hold unpacked, and one member.
MAX_UNPACKED = 256 * 1024 * 1024
MAX_MEMBER = 64 * 1024 * 1024
MAX_MEMBERS = 20_000
#: Deflate reaches about 1:1000 at most on real data; a higher declared ratio is a bomb.
MAX_RATIO = 1000
#: An OLE compound file: what Office writes for a password-protected .docx/.pptx/.xlsx.
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


class Container:
    """A document's zip container, read within bounds."""

    def __init__(self, data: bytes, what: str) -> None:
        if data.startswith(_OLE_MAGIC):
            raise DocumentRefused(
                "encrypted",
                f"encrypted: a password-protected {what} (open it and save it without a password)",
            )
        try:
            self.zip = zipfile.ZipFile(io.BytesIO(data))
            infos = self.zip.infolist()
        except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
            raise DocumentRefused("corrupt-document", f"corrupt {what}: {exc}") from None
        if len(infos) > MAX_MEMBERS:
            raise DocumentRefused("document-too-large", f"{what} with {len(infos)} parts")
        total = 0
        for info in infos:
            if info.flag_bits & 0x1:
                raise DocumentRefused("encrypted", f"encrypted: a password-protected {what}")
            total += info.file_size
            ratio = info.file_size / max(1, info.compress_size)
            if info.file_size > MAX_MEMBER or ratio > MAX_RATIO:
                raise DocumentRefused(
                    "document-too-large",
                    f"{what} part {info.filename} unpacks to {info.file_size:,} bytes (a zip bomb?)",
                )
        if total > MAX_UNPACKED:
            raise DocumentRefused("document-too-large", f"{what} unpacks to {total:,} bytes")
        self.names = {info.filename for info in infos}
        self.what = what

    def has(self, name: str) -> bool:
        return name in self.names

    def read(self, name: str) -> bytes:
        """A member's bytes, never more than ``MAX_MEMBER`` whatever its header says."""
        try:
            with self.zip.open(name) as fh:
                data = fh.read(MAX_MEMBER + 1)
        except KeyError:
            raise DocumentRefused(
                "corrupt-document", f"corrupt {self.what}: {name} is missing"
            ) from None
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, RuntimeError) as exc:
            raise DocumentRefused("corrupt-document", f"corrupt {self.what}: {exc}") from None
        if len(data) > MAX_MEMBER:
            raise DocumentRefused("document-too-large", f"{self.what} part {name} is too large")
        return data

    def xml(self, name: str) -> ElementTree.Element:
        """A member parsed as XML (expat refuses entity expansion bombs)."""
        try:
            return ElementTree.fromstring(self.read(name))
        except ElementTree.ParseError as exc:
            raise DocumentRefused(
                "corrupt-document", f"corrupt {self.what}: {name}: {exc}"
            ) from None


def local(tag: str) -> str:
    """An XML tag without its namespace."""
    return tag.rsplit("}", 1)[-1]
