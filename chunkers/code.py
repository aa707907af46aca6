"""Source code -> a piece per function/method, class headers and module windows (tree-sitter)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from tree_sitter import Node

from .base import ChunkOptions, Piece, is_meaningful
from .code_langs import (
    SPECS,
    Spec,
    c_declarator_name,
    compact,
    field_names,
    first_sentence,
    module_prefix,
    node_text,
    parser_for,
    python_docstring,
    python_self_attributes,
    split_scoped,
)
from .textrules import estimate_encoder_tokens
from .windows import window_pieces

_MAX_FIELDS = 10
_ANON = "<anonymous>"
_FUNCTION_VALUES = frozenset(
    {
        "arrow_function",
        "function_expression",
        "function",
        "generator_function",
        "generator_function_expression",
    }
)
_C_WRAPPERS = frozenset({"declaration", "type_definition", "field_declaration"})
_DECORATION = frozenset({"attribute_item", "attribute_list", "decorator", "annotation"})
_CPP_HEADER = re.compile(
    r"^\s*(template\s*<|namespace\s+[\w:]*\s*\{|class\s+\w+[^;]*$|using\s+namespace\b"
    r"|(public|private|protected)\s*:)",
    re.MULTILINE,
)
_STATEMENT_LISTS = frozenset({"statement_list", "body_statement", "declaration_list"})


def code_pieces(path: str, language: str, text: str, options: ChunkOptions) -> list[Piece]:
    """Chunk one source file; no grammar (or any parser trouble) means plain line windows."""
    norm = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = norm.split("\n")
    if norm.endswith("\n"):
        lines.pop()
    if language in SPECS and norm.strip():
        try:
            pieces = _CodeChunker(path, language, norm, lines, options).run()
        except Exception:  # noqa: BLE001 - a chunker must never take the indexer down
            pieces = None
        if pieces is not None:
            return pieces
    return window_pieces(lines, options, context=path, title="", key_prefix="window")


@dataclass
class _ClassInfo:
    signature: str
    doc: str
    fields: list[str]


@dataclass
class _Def:
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
    members: list[_Def] = field(default_factory=list)
    info: _ClassInfo | None = None

    @property
    def title(self) -> str:
        title = ".".join(self.qual)
        if self.node.type == "impl_item":
            trait = node_text(self.node.child_by_field_name("trait"))
            title += f" (impl {trait})" if trait else " (impl)"
        return title


@dataclass
class _Item:
    piece: Piece
    mergeable: bool


class _CodeChunker:
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
        self.row_tokens = [_row_tokens(line) for line in lines]
        self.classes: dict[str, _ClassInfo] = {}
        self.prefix: tuple[str, ...] = ()

    # ----------------------------------------------------------------- driver
    def run(self) -> list[Piece] | None:
        grammar = self.language
        if grammar == "c" and self.path.endswith(".h") and _CPP_HEADER.search(self.text[:200_000]):
            grammar = "cpp"  # C++ headers share .h; the C grammar chokes (and crawls) on them
            self.spec = SPECS["cpp"]
        parser = parser_for(grammar)
        if parser is None:
            return None
        tree = parser.parse(self.src)
        root = tree.root_node
        self.prefix = module_prefix(self.path, self.language, root)
        defs = self._collect(root.named_children, self.prefix, None, 0)
        items = self._module_items(defs)
        pieces = [it.piece for it in _merge(items, self.options)]
        return self._cap(pieces)

    # ------------------------------------------------------------- structure
    def _classify(self, node: Node, in_class: bool) -> tuple[str, Node, str] | None:
        """(kind, definition node, name override) for a definition-ish node, else None."""
        spec = self.spec
        t = node.type
        if t == "decorated_definition" or t == "export_statement":
            inner = node.child_by_field_name(
                "definition" if t == "decorated_definition" else "declaration"
            )
            return self._classify(inner, in_class) if inner is not None else None
        if t == "template_declaration":
            for child in reversed(node.named_children):
                found = self._classify(child, in_class)
                if found is not None:
                    return found
            return None
        if t in spec.functions:
            if node.child_by_field_name("body") is None:
                return None
            return ("function", node, "")
        if t in spec.classes:
            if self.language == "go":
                specs = [c for c in node.named_children if c.type == "type_spec"]
                if len(specs) != 1:
                    return None
                kind = specs[0].child_by_field_name("type")
                if kind is None or kind.type not in ("struct_type", "interface_type"):
                    return None
                return ("class", specs[0], "")
            if self.language in ("c", "cpp") and node.child_by_field_name("body") is None:
                return None
            return ("class", node, "")
        if t in spec.containers:
            return ("container", node, "")
        if t in spec.transparent:
            return ("transparent", node, "")
        if self.language in ("c", "cpp") and t in _C_WRAPPERS:
            typ = node.child_by_field_name("type")
            if (
                typ is not None
                and typ.type in spec.classes
                and typ.child_by_field_name("body") is not None
            ):
                name = node_text(typ.child_by_field_name("name"))
                if not name:
                    decl = node.child_by_field_name("declarator")
                    name = c_declarator_name(decl) if decl is not None else ""
                return ("class", typ, name)
            return None
        if self.language in ("javascript", "typescript", "tsx"):
            if t in ("lexical_declaration", "variable_declaration"):
                decls = [c for c in node.named_children if c.type == "variable_declarator"]
                if len(decls) == 1:
                    value = decls[0].child_by_field_name("value")
                    if value is not None and value.type in _FUNCTION_VALUES:
                        return ("function", value, node_text(decls[0].child_by_field_name("name")))
                    if value is not None and value.type == "class":
                        return ("class", value, node_text(decls[0].child_by_field_name("name")))
            if in_class and t in ("public_field_definition", "field_definition"):
                value = node.child_by_field_name("value")
                if value is not None and value.type in _FUNCTION_VALUES:
                    name = node.child_by_field_name("name") or node.child_by_field_name("property")
                    return ("function", value, node_text(name))
        return None

    def _name(self, node: Node) -> str:
        t = node.type
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
        return node.child_by_field_name("body")

    def _lead(self, row: int, floor: int) -> int:
        """First row of the comment/attribute block directly above ``row`` (no blank line)."""
        lines = self.lines
        prefixes = self.spec.comment_prefixes
        r = row
        while r - 1 >= floor:
            s = lines[r - 1].strip()
            if not s:
                break
            if s.endswith("*/") and "/*" not in prefixes:
                k = r - 1
                while k >= floor and "/*" not in lines[k]:
                    k -= 1
                if k < floor or not lines[k].lstrip().startswith("/*"):
                    break
                r = k
                continue
            if s.startswith(prefixes):
                r -= 1
                continue
            break
        return r

    def _slice(self, start: int, end: int | None, fallback: Node) -> str:
        if end is None or end <= start:
            first = node_text(fallback).split("\n", 1)[0]
            return first.strip()
        return self.src[start:end].decode("utf-8", "replace").strip()

    def _collect(
        self, children: list[Node], scope: tuple[str, ...], owner: _Def | None, floor: int
    ) -> list[_Def]:
        defs: list[_Def] = []
        prev_end = floor - 1
        for child in children:
            if not child.is_named:
                continue
            found = self._classify(child, owner is not None)
            if found is None:
                if "comment" not in child.type and child.type not in _DECORATION:
                    prev_end = max(prev_end, child.end_point.row)
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
        owner: _Def | None,
        floor: int,
    ) -> _Def:
        parts = split_scoped(override or self._name(node)) or [_ANON]
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
        end = min(max(_last_row(outer), _last_row(node)), len(self.lines) - 1)
        lead = max(0, min(lead, end))
        key = "code:" + ".".join(qual)
        if kind == "class":
            text_type = "class"
            if node.type == "impl_item":
                trait = node_text(node.child_by_field_name("trait"))
                key += f"@impl:{trait}" if trait else "@impl"
        else:
            text_type = "method" if owner_name else "function"
        d = _Def(
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

    def _class_info(self, d: _Def, members: list[Node]) -> _ClassInfo:
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
        return _ClassInfo(
            compact(d.decl.split("\n")[-1] if d.decl else d.signature, 120), doc, list(seen)
        )

    # --------------------------------------------------------------- emitting
    def _module_items(self, defs: list[_Def]) -> list[_Item]:
        n = len(self.lines)
        claimed = [False] * n
        for d in defs:
            for r in range(d.lead, min(d.end, n - 1) + 1):
                claimed[r] = True
        events: list[tuple[int, int, list[_Item]]] = []
        for i, d in enumerate(defs):
            events.append((d.lead, i, self._emit(d)))
        r = 0
        anchor = "^"
        runs: list[tuple[int, int, str]] = []
        starts = sorted((d.lead, d.title) for d in defs)
        si = 0
        while r < n:
            while si < len(starts) and starts[si][0] <= r:
                anchor = starts[si][1]
                si += 1
            if claimed[r]:
                r += 1
                continue
            s = r
            while r < n and not claimed[r]:
                r += 1
            runs.append((s, r - 1, anchor))
        for s, e, anchor in runs:
            while s <= e and not self.lines[s].strip():
                s += 1
            while e >= s and not self.lines[e].strip():
                e -= 1
            if s > e or not is_meaningful("\n".join(self.lines[s : e + 1])):
                continue
            events.append((s, -1, self._module_run(s, e, anchor)))
        events.sort(key=lambda ev: (ev[0], ev[1]))
        return [item for _, _, group in events for item in group]

    def _module_run(self, s: int, e: int, anchor: str) -> list[_Item]:
        name = ".".join(self.prefix) or self.path
        pieces = window_pieces(
            self.lines[s : e + 1],
            self.options,
            first_line=s + 1,
            key_prefix=f"module:{anchor}",
            title=name,
            breadcrumb=self.prefix,
            context=f"{self.path}\n{name} (module code)",
            text_type="module",
        )
        return [_Item(p, True) for p in pieces]

    def _emit(self, d: _Def) -> list[_Item]:
        if d.kind == "class":
            return self._emit_class(d)
        return self._emit_function(d)

    def _context(self, d: _Def) -> str:
        parts = [self.path, d.title]
        info = self.classes.get(d.owner) if d.owner else None
        if info is not None:
            sep = " " if info.signature.endswith(":") else " — "
            parts.append(f"{info.signature}{sep}{info.doc}" if info.doc else info.signature)
            if info.fields:
                names = info.fields[:_MAX_FIELDS]
                more = " …" if len(info.fields) > _MAX_FIELDS else ""
                parts.append("fields: " + ", ".join(names) + more)
        if d.kind == "function":
            parts.append(compact(d.signature, 200))
        return "\n".join(parts)

    def _piece(self, d: _Def, s: int, e: int, key: str, text: str | None = None) -> Piece:
        return Piece(
            start_line=s + 1,
            end_line=e + 1,
            text=text if text is not None else "\n".join(self.lines[s : e + 1]),
            title=d.title,
            key=key,
            breadcrumb=d.qual,
            text_type=d.text_type,
            context=self._context(d),
            symbol=d.qual[-1],
            signature=d.signature,
        )

    def _tokens(self, s: int, e: int) -> int:
        return sum(self.row_tokens[s : e + 1])

    def _emit_function(self, d: _Def) -> list[_Item]:
        if self._tokens(d.lead, d.end) <= self.options.max_tokens:
            return [_Item(self._piece(d, d.lead, d.end, d.key), True)]
        return self._split_function(d)

    def _statements(self, body: Node | None) -> list[Node]:
        if body is None:
            return []
        kids = [c for c in body.named_children]
        while len(kids) == 1 and kids[0].type in _STATEMENT_LISTS:
            kids = list(kids[0].named_children)
        return kids

    def _split_function(self, d: _Def) -> list[_Item]:
        lo, hi = d.lead, d.end
        owned = [False] * (hi - lo + 1)
        nested: list[_Def] = []
        cuts: set[int] = set()
        prev_end = d.node.start_point.row
        for stmt in self._statements(d.body):
            found = self._classify(stmt, False)
            if found is not None and found[0] in ("function", "class"):
                kind, inner, override = found
                nd = self._make_def(kind, stmt, inner, override, d.qual, None, prev_end + 1)
                if nd.lead > lo and nd.end <= hi:
                    nested.append(nd)
                    for r in range(nd.lead, nd.end + 1):
                        owned[r - lo] = True
                    prev_end = max(prev_end, nd.end)
                    continue
            row = stmt.start_point.row
            if lo < row <= hi:
                cuts.add(row)
            if "comment" not in stmt.type:
                prev_end = max(prev_end, stmt.end_point.row)
        # units: maximal runs of rows not owned by nested definitions, cut at statement starts
        units: list[tuple[int, int]] = []
        r = lo
        while r <= hi:
            if owned[r - lo]:
                r += 1
                continue
            s = r
            r += 1
            while r <= hi and not owned[r - lo] and r not in cuts:
                r += 1
            units.append((s, r - 1))
        budget = self.options.max_tokens
        groups: list[tuple[int, int]] = []
        for s, e in units:
            if groups:
                gs, ge = groups[-1]
                if ge + 1 == s and self._tokens(gs, e) <= budget:
                    groups[-1] = (gs, e)
                    continue
            groups.append((s, e))
        parts: list[_Item] = []
        for s, e in groups:
            spans = [(s, e)]
            if self._tokens(s, e) > budget:
                windows = window_pieces(self.lines[s : e + 1], self.options, first_line=s)
                spans = [(p.start_line, p.end_line) for p in windows]
            parts.extend(_Item(self._piece(d, a, b, d.key), True) for a, b in spans)
        # tiny parts (a lone signature, a trailing ``return``) join a neighbouring part even across
        # a nested definition; keys are numbered after merging so part 0 is always the plain key
        merged = _merge(parts, self.options)
        items: list[tuple[int, _Item]] = []
        for index, it in enumerate(merged):
            key = d.key if index == 0 else f"{d.key}#part{index}"
            items.append((it.piece.start_line, _Item(replace(it.piece, key=key), False)))
        for nd in nested:  # a nested definition never swallows a piece of its parent
            items.extend((nd.lead + 1, _Item(it.piece, False)) for it in self._emit(nd))
        items.sort(key=lambda x: x[0])
        return [it for _, it in items]

    def _emit_class(self, d: _Def) -> list[_Item]:
        lines = self.lines
        entries: list[tuple[int | None, str]] = []
        head_row = d.node.start_point.row
        r = d.lead
        for m in sorted(d.members, key=lambda m: m.lead):
            ms = max(m.lead, head_row + 1)
            while r < ms and r <= d.end:
                entries.append((r, lines[r]))
                r += 1
            start_line = lines[m.outer.start_point.row]
            indent = start_line[: len(start_line) - len(start_line.lstrip())]
            mrow = None
            if m.kind == "function":
                for i, sig_line in enumerate(m.decl.split("\n")):
                    entries.append((mrow, indent + sig_line if i == 0 else sig_line))
            else:
                entries.append((mrow, indent + compact(m.decl, 160)))
            r = max(r, m.end + 1)
        while r <= d.end:
            entries.append((r, lines[r]))
            r += 1
        cleaned: list[tuple[int | None, str]] = []
        for row, line in entries:
            if not line.strip() and (not cleaned or not cleaned[-1][1].strip()):
                continue
            cleaned.append((row, line))
        while cleaned and not cleaned[-1][1].strip():
            cleaned.pop()
        items: list[_Item] = []
        budget = self.options.max_tokens
        group: list[tuple[int | None, str]] = []
        groups: list[list[tuple[int | None, str]]] = []
        tokens = 0
        for entry in cleaned:
            t = estimate_encoder_tokens(entry[1]) + 1
            if group and tokens + t > budget:
                groups.append(group)
                group, tokens = [], 0
            group.append(entry)
            tokens += t
        if group:
            groups.append(group)
        for i, grp in enumerate(groups):
            # a part holding only member signatures points at the class line, not at the members
            rows = [row for row, line in grp if row is not None and _is_content(line)]
            s = min(rows) if rows else head_row
            e = max(rows) if rows else head_row
            if i == 0:
                s = d.lead
            key = d.key if i == 0 else f"{d.key}#part{i}"
            items.append(
                _Item(self._piece(d, s, e, key, "\n".join(line for _, line in grp)), False)
            )
        member_items: list[_Item] = []
        for m in d.members:
            member_items.extend(self._emit(m))
        # members merge among themselves only, never with code outside the class
        return items + [_Item(it.piece, False) for it in _merge(member_items, self.options)]

    def _cap(self, pieces: list[Piece]) -> list[Piece]:
        """Slice pieces that are still huge (minified one-liners) so no chunk is unbounded."""
        limit = max(2000, self.options.max_tokens * 4 * 4)
        out: list[Piece] = []
        for p in pieces:
            if len(p.text) <= limit:
                out.append(p)
                continue
            step = max(1000, self.options.max_tokens * 4)
            for i in range(0, len(p.text), step):
                out.append(
                    replace(
                        p,
                        text=p.text[i : i + step],
                        key=p.key if i == 0 else f"{p.key}#slice{i // step}",
                    )
                )
        return out


def _is_content(line: str) -> bool:
    """A line that says something: not blank, not only brackets, not a bare ``end``."""
    return is_meaningful(line) and line.strip() not in ("end", "end;")


def _row_tokens(line: str) -> int:
    """estimate_encoder_tokens(line) + 1 (for the newline), with a fast path for ASCII lines."""
    if line.isascii():
        return (max(1, round(len(line) / 4)) if line else 0) + 1
    return estimate_encoder_tokens(line) + 1


def _last_row(node: Node) -> int:
    row = node.end_point.row
    if node.end_point.column == 0 and row > node.start_point.row:
        row -= 1
    return row


def _merge(items: list[_Item], options: ChunkOptions) -> list[_Item]:
    """Fold tiny mergeable pieces into a mergeable neighbour; the bigger piece keeps its key."""
    out: list[_Item] = []

    def tiny(p: Piece) -> bool:
        return len(p.text.strip()) < options.min_chars

    for it in items:
        if out and it.mergeable and out[-1].mergeable:
            prev = out[-1].piece
            cur = it.piece
            if (tiny(prev) or tiny(cur)) and estimate_encoder_tokens(
                prev.text
            ) + estimate_encoder_tokens(cur.text) <= options.max_tokens:
                host, guest = (cur, prev) if tiny(prev) and not tiny(cur) else (prev, cur)
                out[-1] = _Item(_absorb(host, guest, prev, cur), True)
                continue
        out.append(it)
    return out


def _absorb(host: Piece, guest: Piece, first: Piece, second: Piece) -> Piece:
    text = f"{first.text}\n{second.text}"
    context = host.context
    if guest.text_type in ("function", "method") and guest.signature:
        context = f"{context}\nalso: {compact(guest.signature, 120)}"
    return replace(
        host,
        start_line=min(first.start_line, second.start_line),
        end_line=max(first.end_line, second.end_line),
        text=text,
        context=context,
    )
