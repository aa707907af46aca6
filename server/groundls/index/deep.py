"""The deep tier's fill: the spaces an index run does not wait for, embedded a slice at a time afterwards, the chunks searches reached first."""

from __future__ import annotations

import logging
import threading
from collections.abc import Collection, Sequence

from groundls.cpu import wait_for_answers
from groundls.index.embed.embedders import EmbedderUnavailable
from groundls.index.embed.embedding import blob_of
from groundls.index.files.walk import WorkspaceWalker

log = logging.getLogger("groundls.index")

#: Deep-tier chunks embedded in one model call (about two seconds of MiniLM on two cores), so
#: ``fill_deep`` checks its cancel event at least that often.
DEEP_BATCH = 32

#: Chunks that searches reached and a deep space still lacks, kept per space for the fill to take
#: first (the oldest are forgotten past this many).
ASKED_KEPT = 2000


class DeepFill:
    """The deep tier's fill: the spaces an index run does not wait for, embedded a slice at a time afterwards, the chunks searches reached first."""

    def deep_counts(self, space: str) -> tuple[int, int]:
        """(chunks holding a ``space`` vector, chunks that want one)."""
        have = self.store.count_in(space)
        lacking, after = 0, 0
        while rows := self.store.chunks_without(space, after, 2000):
            after = rows[-1][0]
            lacking += sum(space in self.policy.spaces_of(r[4], r[5]) for r in rows)
        return have, have + lacking

    def deep_status(self) -> tuple[int, int]:
        """(vectors the deep tier holds, vectors it should hold), summed over its spaces, and
        one more wanted for each file the OCR tier has still to read: equal when the deep tier
        is complete (also when the policy has none)."""
        self.ensure_spaces()
        filled, wanted = 0, self.scans_waiting()
        for space in self.policy.deferred:
            if space in self.unavailable:
                continue
            have, want = self.deep_counts(space)
            filled += have
            wanted += want
        return filled, wanted

    def deep_order(self) -> list[str]:
        """The deep spaces in the order they are filled: the one more of this workspace's chunks
        want first, so a Japanese manual gets its multilingual vectors before MiniLM's and a code
        repository MiniLM's first (code's gloss, which a gloss space also reads, is counted for
        the code spaces alone); ties keep the policy's order. Worked out again after the index
        changes."""
        if self._deep_order is None:
            self.ensure_spaces()
            counts = {
                space: self.deep_counts(space)
                for space in self.policy.deferred
                if space not in self.unavailable
            }
            self._deep_have = {space: have for space, (have, _) in counts.items()}
            self._deep_wanted = {space: wanted for space, (_, wanted) in counts.items()}
            code = self.store.count_of_kind("code")
            glossed = self.policy.gloss_spaces
            wants = {s: n - (code if s in glossed else 0) for s, n in self._deep_wanted.items()}
            self._deep_order = sorted(counts, key=lambda s: -wants[s])
        return self._deep_order

    def fill_fraction(self, space: str) -> float:
        """How much of ``space`` is filled (1.0 for a space of the fast index, 0.0 for one that
        cannot be used now). Search weighs a deep space's list by it: a list over the few chunks
        filled so far would otherwise lift exactly those."""
        if space not in self.policy.deferred:
            return 1.0
        if space in self.unavailable:
            return 0.0
        self.deep_order()  # counts kept since the index last changed
        wanted = self._deep_wanted.get(space, 0)
        return min(1.0, self._deep_have.get(space, 0) / wanted) if wanted else 1.0

    def fill_deep(
        self,
        max_chunks: int | None = None,
        cancel: threading.Event | None = None,
        spaces: Collection[str] | None = None,
    ) -> int:
        """Embed chunks of the deep tier that have no vector yet, at most ``max_chunks`` (None:
        all), checking ``cancel`` between slices; ``spaces``: only these of its spaces. Returns
        how many were embedded (0: complete). Once every space is filled, a call without
        ``spaces`` reads the next file waiting for OCR instead (``ScanFill``: it counts 1), and
        one without ``max_chunks`` every such file, then embeds what they held."""
        done = self._fill_spaces(max_chunks, cancel, spaces)
        if spaces is not None or (done and max_chunks is not None):
            return done
        if max_chunks is not None:
            return self.fill_scans(cancel)
        while self.fill_scans(cancel):
            done += 1 + self._fill_spaces(None, cancel, None)
        return done

    def _fill_spaces(
        self,
        max_chunks: int | None,
        cancel: threading.Event | None,
        spaces: Collection[str] | None,
    ) -> int:
        """The deep tier's spaces filled (see :meth:`fill_deep`), without the OCR tier.

        The embed text is rebuilt by chunking the file again (chunkers are pure); a file that
        changed since it was indexed is left to the next index run."""
        self.ensure_spaces()
        self._retry_unavailable()
        done = 0
        deep = [s for s in self.deep_order() if spaces is None or s in spaces]
        # every space's asked chunks (``want_first``) first, then each space in turn
        order = [(space, False) for space in deep] + [(space, True) for space in deep]
        for space, scan in order:
            if space in self.unavailable:
                continue
            model = self.models.get(space)
            while max_chunks is None or done < max_chunks:
                wait_for_answers(cancel)  # another groundls process's answer comes first
                if cancel is not None and cancel.is_set():
                    return done
                room = DEEP_BATCH if max_chunks is None else min(DEEP_BATCH, max_chunks - done)
                todo = self._deep_todo(space, room, scan=scan)
                if not todo:
                    if scan:  # the space is filled: its batch buffers go back until a change
                        getattr(model, "release_batch", lambda: None)()
                    break
                texts = {h: t for _, h, t in todo}
                blobs = {h: self.store.stored_vector(space, h) for h in texts}
                hashes = [h for h, blob in blobs.items() if blob is None]
                try:
                    vectors = model.embed([texts[h] for h in hashes])
                except EmbedderUnavailable as exc:
                    self._mark_unavailable(space, str(exc))  # nothing written, nothing lost
                    break
                for h, vector in zip(hashes, vectors, strict=True):
                    blobs[h] = blob_of(vector)
                rows = [(rowid, h, blobs[h]) for rowid, h, _ in todo]
                with self._write_lock:
                    self.store.add_vectors(space, rows)
                self._deep_have[space] = self._deep_have.get(space, 0) + len(rows)
                done += len(hashes)
        return done

    def want_first(self, space: str, rowids: Sequence[int]) -> None:
        """Chunks a search reached (best first) that ``space`` lacks: the fill embeds them before
        the rest, so the questions people ask get the deep tier's ranking long before the whole
        workspace is filled (search weighs a deep list by how many of the question's own
        candidates it holds)."""
        with self._asked_lock:
            queue = self._asked.setdefault(space, {})
            for rowid in reversed(rowids):  # taken from the end: the best-ranked first
                queue.pop(rowid, None)
                queue[rowid] = None
            while len(queue) > ASKED_KEPT:
                del queue[next(iter(queue))]

    def _take_asked(self, space: str, limit: int) -> list[int]:
        with self._asked_lock:
            queue = self._asked.get(space, {})
            taken = list(reversed(list(queue)[-limit:])) if queue else []
            for rowid in taken:
                del queue[rowid]
        return taken

    def _deep_todo(
        self, space: str, limit: int, *, scan: bool = True
    ) -> list[tuple[int, str, str]]:
        """Up to ``limit`` chunks that need a ``space`` vector: (rowid, content hash, embed text);
        the chunks searches reached first (``want_first``), then (``scan``) the rest in rowid
        order."""
        walker = WorkspaceWalker(self.root, self.config)
        todo: list[tuple[int, str, str]] = []
        while len(todo) < limit and (asked := self._take_asked(space, limit - len(todo))):
            rank = {rowid: i for i, rowid in enumerate(asked)}
            rows = sorted(self.store.chunks_without_among(space, asked), key=lambda r: rank[r[0]])
            todo += self._embed_texts(walker, space, [r for r in rows if self._wants(space, r)])
        while scan and len(todo) < limit:
            after = self._deep_after.get(space, 0)
            rows = self.store.chunks_without(space, after, limit)
            if not rows:
                break
            have = {rowid for rowid, _, _ in todo}
            wanted = [r for r in rows if self._wants(space, r) and r[0] not in have]
            taken = wanted[: limit - len(todo)]
            # look again after the last row taken, or past every row read when all were taken
            last = taken[-1][0] if len(taken) < len(wanted) else rows[-1][0]
            todo += self._embed_texts(walker, space, taken)
            self._deep_after[space] = last
        return todo

    def _wants(self, space: str, row: tuple[int, str, str, str, str, str]) -> bool:
        return space in self.policy.spaces_of(row[4], row[5])

    def _embed_texts(
        self,
        walker: WorkspaceWalker,
        space: str,
        rows: Sequence[tuple[int, str, str, str, str, str]],
    ) -> list[tuple[int, str, str]]:
        """(rowid, content hash, the text ``space`` reads) of chunk rows, the file chunked again;
        rows whose file changed since it was indexed are left to the next index run."""
        by_path: dict[str, list[tuple[int, str, str, str, str, str]]] = {}
        for row in rows:
            by_path.setdefault(row[1], []).append(row)
        out: list[tuple[int, str, str]] = []
        for path, chunk_rows in by_path.items():
            chunks = self._current_chunks(walker, path)
            for rowid, _, chunk_id, h, _, _ in chunk_rows:
                chunk = chunks.get(chunk_id)
                if chunk is not None and chunk.content_hash == h:
                    out.append((rowid, h, self.policy.text_for(space, chunk)))
        if len(by_path) > 1:  # grouped by file above: back to the order asked
            order = {row[0]: i for i, row in enumerate(rows)}
            out.sort(key=lambda t: order[t[0]])
        return out
