"""Definitions in a tree-sitter parse tree: functions, methods and classes with their context.

:class:`DefinitionFinder` walks the tree once and records, for each definition, its qualified
name, signature, declaration line, leading comments and (for classes) fields and docstring;
:mod:`.code` turns them into pieces.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from groundls.chunkers.code_bindings import _BINDINGS, module_bindings
from groundls.chunkers.code_kinds import ZIG_TYPES, DefinitionKinds
from tree_sitter import Node

from .base import ChunkOptions, is_meaningful
from .code_context import (
    compact,
    field_names,
    first_sentence,
    python_docstring,
    python_self_attributes,
)
from .code_langs import (
    SPECS,
    Spec,
)
from .code_names import c_declarator_name, node_text, split_scoped
from .textrules import estimate_encoder_tokens

MAX_FIELDS = 10
ANON = "<anonymous>"
CPP_HEADER = re.compile(
    r"^\s*(template\s*<|namespace\s+[\w:]*\s*\{|class\s+\w+[^;]*$|using\s+namespace\b"
    r"|(public|private|protected)\s*:)",
    re.MULTILINE,
)
STATEMENT_LISTS = frozenset({"statement_list", "body_statement", "declaration_list"})


@dataclass
class ClassInfo:
    signature: str
    doc: str
    fields: list[str]


@dataclass
class Definition:
    kind: str  # "function" | "class"
    node: Node  # the definition itself
    outer: Node  # the definition with its wrappers (decorators, export, template)
    qual: tuple[str, ...]
    lead: int  # 0-based first row, leading comments included
    end: int  # 0-based last row
    body: Node | None
    signature: str
    decl: str
    text_type: str
    key: str
    owner: str = ""  # simple name of the enclosing type, for context look-ups
    members: list[Definition] = field(default_factory=list)
    info: ClassInfo | None = None

    @property
    def title(self) -> str:
        title = ".".join(self.qual)
        if self.node.type == "impl_item":
            trait = node_text(self.node.child_by_field_name("trait"))
            title += f" (impl {trait})" if trait else " (impl)"
        return title


class DefinitionFinder(DefinitionKinds):
    """Finds the definitions of one file (the code chunker extends it to emit pieces)."""

    def __init__(
        self, path: str, language: str, text: str, lines: list[str], options: ChunkOptions
    ) -> None:
        self.path = path
        self.language = language
        self.spec: Spec = SPECS[language]
        self.text = text
        self.src = text.encode("utf-8", "replace")
        self.lines = lines
        self.options = options
        self.row_tokens = [row_tokens(line) for line in lines]
        self.classes: dict[str, ClassInfo] = {}
        #: (row, name) of what the module binds outside its definitions (see module_bindings)
        self.bindings: list[tuple[int, str]] = []
        self.prefix: tuple[str, ...] = ()

    # the definitions only some languages write (see _LANGUAGE_DEFINITIONS)

    def _name(self, node: Node) -> str:
        t = node.type
        if self.language == "lua" and t == "function_declaration":
            return node_text(node.child_by_field_name("name")).replace(":", ".")
        if self.language in ("c", "cpp") and t == "function_definition":
            decl = node.child_by_field_name("declarator")
            return c_declarator_name(decl) if decl is not None else ""
        if t == "impl_item":
            return node_text(node.child_by_field_name("type"))
        name = node.child_by_field_name("name")
        text = node_text(name)
        if name is not None and name.type == "string":
            text = text.strip("\"'`")
        return text

    def _body(self, node: Node) -> Node | None:
        if self.language == "go" and node.type == "type_spec":
            return node.child_by_field_name("type")
        if self.language == "zig" and node.type in ZIG_TYPES:
            return node  # a zig container holds its members directly
        body = node.child_by_field_name("body")
        if body is not None or not (self.spec.bodies or self.spec.self_bodied):
            return body
        for child in node.named_children:
            if child.type in self.spec.bodies:
                return child
        return node if self.spec.self_bodied else None

    def _lead(self, row: int, floor: int) -> int:
        """First row of the comment/attribute block directly above ``row`` (no blank line)."""
        lines = self.lines
        prefixes = self.spec.comment_prefixes
        r = row
        while r - 1 >= floor:
            s = lines[r - 1].strip()
            if not s:
                if r == row and self._doc_comment_ends(r - 2, floor):
                    r -= 1  # a /** doc comment */ is written for what follows, blank line or not
                    continue
                break
            if s.startswith(prefixes):  # a line comment, whatever it ends with
                r -= 1
                continue
            if s.endswith("*/") and "/*" not in prefixes:
                k = self._block_comment_start(r - 1, floor)
                if k is None:
                    break
                r = k
                continue
            break
        return r

    def _block_comment_start(self, end: int, floor: int) -> int | None:
        """The row a ``/* ... */`` comment ending on ``end`` starts on, when it is a comment of
        its own (no code before it on that row). Lines inside it start with ``*`` or hold
        prose, which may itself say ``text/*``."""
        k = end
        while k >= floor:
            line = self.lines[k].lstrip()
            if line.startswith("/*"):
                return k
            if "/*" in line and not line.startswith("*"):
                return None  # code, then a comment
            k -= 1
        return None

    def _doc_comment_ends(self, row: int, floor: int) -> bool:
        """Whether a ``/** ... */`` doc comment ends on ``row``."""
        if row < floor or "/*" in self.spec.comment_prefixes:
            return False
        if not self.lines[row].strip().endswith("*/"):
            return False
        start = self._block_comment_start(row, floor)
        return start is not None and self.lines[start].lstrip().startswith("/**")

    def _slice(self, start: int, end: int | None, fallback: Node) -> str:
        if end is None or end <= start:
            first = node_text(fallback).split("\n", 1)[0]
            return first.strip()
        return self.src[start:end].decode("utf-8", "replace").strip()

    def _collect(
        self, children: list[Node], scope: tuple[str, ...], owner: Definition | None, floor: int
    ) -> list[Definition]:
        defs: list[Definition] = []
        prev_end = floor - 1
        for child in children:
            if not child.is_named:
                continue
            found = self._classify(child, owner is not None)
            if found is None:
                if not self._annotates(child):
                    prev_end = max(prev_end, child.end_point.row)
                if owner is None:
                    row = child.start_point.row
                    self.bindings.extend((row, n) for n in module_bindings(child, self.language))
                continue
            kind, inner, override = found
            if kind == "transparent":
                defs.extend(self._collect(child.named_children, scope, owner, prev_end + 1))
                prev_end = max(prev_end, child.end_point.row)
                continue
            if kind == "container":
                parts = tuple(split_scoped(self._name(inner)))
                body = inner.child_by_field_name("body")
                kids = body.named_children if body is not None else []
                defs.extend(self._collect(kids, scope + parts, None, prev_end + 1))
                prev_end = max(prev_end, child.end_point.row)
                continue
            d = self._make_def(kind, child, inner, override, scope, owner, prev_end + 1)
            if self.spec.self_bodied and defs and _same_function(defs[-1], d):
                # a signature and the equations of one function, written one after another
                defs[-1].end = max(defs[-1].end, d.end)
            else:
                defs.append(d)
            prev_end = max(prev_end, d.end)
        return defs

    def _make_def(
        self,
        kind: str,
        outer: Node,
        node: Node,
        override: str,
        scope: tuple[str, ...],
        owner: Definition | None,
        floor: int,
    ) -> Definition:
        parts = split_scoped(override or self._name(node)) or [ANON]
        owner_name = owner.qual[-1] if owner is not None else ""
        if node.type == "method_declaration" and self.language == "go":
            owner_name = self._go_receiver(node)
            if owner_name:
                parts = [owner_name, *parts]
        elif kind == "function" and owner is None and len(parts) > 1:
            owner_name = parts[-2]
        qual = scope + tuple(parts)
        body = self._body(node)
        body_start = (
            body.start_byte if body is not None and body.start_byte > node.start_byte else None
        )
        signature = self._slice(node.start_byte, body_start, node)
        decl = self._slice(outer.start_byte, body_start, node) if outer is not node else signature
        lead = self._lead(outer.start_point.row, min(floor, outer.start_point.row))
        end = min(max(last_row(outer), last_row(node)), len(self.lines) - 1)
        lead = max(0, min(lead, end))
        key = "code:" + ".".join(qual)
        if kind == "class":
            text_type = "extension" if self._extends(node, qual[-1]) else "class"
            if node.type == "impl_item":
                trait = node_text(node.child_by_field_name("trait"))
                key += f"@impl:{trait}" if trait else "@impl"
        else:
            text_type = "method" if owner_name else "function"
        d = Definition(
            kind,
            node,
            outer,
            qual,
            lead,
            end,
            body,
            signature,
            decl,
            text_type,
            key,
            owner=owner_name,
        )
        if kind == "class":
            members = self._class_children(body)
            d.members = self._collect(members, qual, d, node.start_point.row + 1)
            d.info = self._class_info(d, members)
            if node.type != "impl_item" or d.qual[-1] not in self.classes:
                self.classes.setdefault(d.qual[-1], d.info)
        return d

    def _extends(self, node: Node, name: str) -> bool:
        """Whether a class-like node adds to a type instead of defining it: a Rust ``impl``, a
        Swift ``extension``, a C# ``partial`` class or a Ruby class or module outside the file
        named after it (the convention puts a type in its own file; its other parts are spread
        over others, and Ruby reopens a namespace in every file that nests something in it:
        ``class Application`` around ``class Configuration`` in ``application/configuration.rb``)."""
        if node.type == "impl_item":
            return True
        kind = node.child_by_field_name("declaration_kind")
        if kind is not None and kind.type == "extension":
            return True
        if self._named_after(name):
            return False
        if self.language == "csharp":
            return any(c.type == "modifier" and node_text(c) == "partial" for c in node.children)
        return self.language == "ruby"

    def _named_after(self, name: str) -> bool:
        """Whether this file is named after the type ``name`` (``SyslogHandler.cs``,
        ``http_client.rb`` for ``HTTPClient``)."""
        stem = PurePosixPath(self.path).stem
        return stem == name or stem.replace("_", "").lower() == name.lower()

    def _go_receiver(self, node: Node) -> str:
        receiver = node.child_by_field_name("receiver")
        if receiver is None:
            return ""
        stack = [receiver]
        while stack:
            cur = stack.pop(0)
            if cur.type == "type_identifier":
                return node_text(cur)
            stack.extend(cur.named_children)
        return ""

    def _class_children(self, body: Node | None) -> list[Node]:
        if body is None:
            return []
        kids: list[Node] = []
        for child in body.named_children:
            if child.type in ("enum_body_declarations", "field_declaration_list"):
                kids.extend(child.named_children)
            else:
                kids.append(child)
        return kids

    def _class_info(self, d: Definition, members: list[Node]) -> ClassInfo:
        if self.language == "python":
            doc = first_sentence(python_docstring(d.body))
        else:
            doc = first_sentence("\n".join(self.lines[d.lead : d.outer.start_point.row]))
        names: list[str] = []
        for child in members:
            if self._classify(child, True) is None:
                names.extend(field_names(child, self.language))
        if self.language == "python":
            for m in d.members:
                if m.kind == "function" and m.qual[-1] == "__init__":
                    names.extend(python_self_attributes(m.node))
        seen: dict[str, None] = {}
        for name in names:
            if name and name not in seen:
                seen[name] = None
        return ClassInfo(
            compact(d.decl.split("\n")[-1] if d.decl else d.signature, 120), doc, list(seen)
        )

    # --------------------------------------------------------------- emitting


def is_content(line: str) -> bool:
    """A line that says something: not blank, not only brackets, not a bare ``end``."""
    return is_meaningful(line) and line.strip() not in ("end", "end;")


def row_tokens(line: str) -> int:
    """estimate_encoder_tokens(line) + 1 (for the newline), with a fast path for ASCII lines."""
    if line.isascii():
        return (max(1, round(len(line) / 4)) if line else 0) + 1
    return estimate_encoder_tokens(line) + 1


def last_row(node: Node) -> int:
    row = node.end_point.row
    if node.end_point.column == 0 and row > node.start_point.row:
        row -= 1
    return row


def _same_function(a: Definition, b: Definition) -> bool:
    return a.kind == b.kind == "function" and a.qual == b.qual and b.lead <= a.end + 2


_BINDINGS["typescript"] = _BINDINGS["tsx"] = _BINDINGS["javascript"]
