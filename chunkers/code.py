"""Source code -> a piece per function/method, class headers and module windows (tree-sitter)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from groundls.chunkers.code_headers import license_header_rows, only_directives
from tree_sitter import Node

from .base import ChunkOptions, Piece, is_meaningful
from .code_context import compact
from .code_defs import (
    CPP_HEADER,
    MAX_FIELDS,
    STATEMENT_LISTS,
    Definition,
    DefinitionFinder,
    is_content,
)
from .code_langs import (
    SPECS,
    module_prefix,
    parse_within,
    parser_for,
)
from .textrules import estimate_encoder_tokens
from .windows import window_pieces

#: The text type of a type's outline after its first part (an outline too long for one chunk):
#: the rest of its member signatures. Only the first part defines the type.
MEMBERS = "members"


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
class _Item:
    piece: Piece
    mergeable: bool


class _CodeChunker(DefinitionFinder):
    """Emits the pieces of one file: a piece per function, class headers, module windows."""

    # ----------------------------------------------------------------- driver
    def run(self) -> list[Piece] | None:
        grammar = self.language
        if grammar == "c" and self.path.endswith(".h") and CPP_HEADER.search(self.text[:200_000]):
            grammar = "cpp"  # C++ headers share .h; the C grammar chokes (and crawls) on them
            self.spec = SPECS["cpp"]
        parser = parser_for(grammar)
        if parser is None:
            return None
        tree = parse_within(parser, self.src)
        root = tree.root_node
        self.prefix = module_prefix(self.path, self.language, root)
        defs = self._collect(root.named_children, self.prefix, None, 0)
        items = self._module_items(defs)
        pieces = [it.piece for it in _merge(items, self.options)]
        return [_with_names(p, self.bindings) for p in self._cap(pieces)]

    def _module_items(self, defs: list[Definition]) -> list[_Item]:
        n = len(self.lines)
        claimed = [False] * n
        # the licence comment a file opens with says nothing about its code: no piece holds it
        for r in range(min(license_header_rows(self.lines, self.spec.comment_prefixes), n)):
            claimed[r] = True
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
            if only_directives(self.lines[s : e + 1]):
                continue  # ``# frozen_string_literal: true`` alone says nothing of the code
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

    def _emit(self, d: Definition) -> list[_Item]:
        if d.kind == "class":
            return self._emit_class(d)
        return self._emit_function(d)

    def _context(self, d: Definition) -> str:
        parts = [self.path, d.title]
        info = self.classes.get(d.owner) if d.owner else None
        if info is not None:
            sep = " " if info.signature.endswith(":") else " — "
            parts.append(f"{info.signature}{sep}{info.doc}" if info.doc else info.signature)
            if info.fields:
                names = info.fields[:MAX_FIELDS]
                more = " …" if len(info.fields) > MAX_FIELDS else ""
                parts.append("fields: " + ", ".join(names) + more)
        if d.kind == "function":
            parts.append(compact(d.signature, 200))
        return "\n".join(parts)

    def _piece(
        self,
        d: Definition,
        s: int,
        e: int,
        key: str,
        text: str | None = None,
        text_type: str | None = None,
    ) -> Piece:
        return Piece(
            start_line=s + 1,
            end_line=e + 1,
            text=text if text is not None else "\n".join(self.lines[s : e + 1]),
            title=d.title,
            key=key,
            breadcrumb=d.qual,
            text_type=text_type or d.text_type,
            context=self._context(d),
            symbol=d.qual[-1],
            signature=d.signature,
        )

    def _tokens(self, s: int, e: int) -> int:
        return sum(self.row_tokens[s : e + 1])

    def _emit_function(self, d: Definition) -> list[_Item]:
        if self._tokens(d.lead, d.end) <= self.options.max_tokens:
            return [_Item(self._piece(d, d.lead, d.end, d.key), True)]
        return self._split_function(d)

    def _statements(self, body: Node | None) -> list[Node]:
        if body is None:
            return []
        kids = [c for c in body.named_children]
        while len(kids) == 1 and kids[0].type in STATEMENT_LISTS:
            kids = list(kids[0].named_children)
        return kids

    def _split_function(self, d: Definition) -> list[_Item]:
        lo, hi = d.lead, d.end
        owned = [False] * (hi - lo + 1)
        nested: list[Definition] = []
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
        units = _free_runs(lo, hi, owned, cuts)
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

    def _emit_class(self, d: Definition) -> list[_Item]:
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
            rows = [row for row, line in grp if row is not None and is_content(line)]
            s = min(rows) if rows else head_row
            e = max(rows) if rows else head_row
            if i == 0:
                s = d.lead
            key = d.key if i == 0 else f"{d.key}#part{i}"
            # the first part defines the type; the later ones list the rest of its members
            kind = None if i == 0 else MEMBERS
            text = "\n".join(line for _, line in grp)
            items.append(_Item(self._piece(d, s, e, key, text, kind), False))
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


def _free_runs(lo: int, hi: int, owned: list[bool], cuts: set[int]) -> list[tuple[int, int]]:
    """The maximal runs of rows ``lo``..``hi`` not owned by nested definitions, cut at
    statement starts."""
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
    return units


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


def _with_names(piece: Piece, bindings: list[tuple[int, str]]) -> Piece:
    """The piece with the module-level names bound in its lines (0-based ``bindings`` rows)."""
    names = [n for row, n in bindings if piece.start_line <= row + 1 <= piece.end_line]
    names = [n for n in dict.fromkeys(names) if n and n != piece.symbol]
    return replace(piece, names=tuple(names)) if names else piece


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
