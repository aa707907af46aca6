"""How much each ranked list counts in this workspace, learned from the workspace's own questions.

No fixed set of list weights serves every workspace: where readers ask in a manual's own words
the keyword lists find the section, and where they paraphrase (an FAQ, a manual in another
language than the question) they offer a little of every section while the multilingual
embedding lists find the one that answers. So the weights are measured here, per workspace:

1. a sample of the workspace's chunks, spread evenly over them (a space that holds a small slice
   of the workspace is then as rarely the answer as it is among the sample: its list is not
   lifted for every question);
2. for each sampled chunk the local answer model writes a question that the chunk answers, in
   each language users ask in (Japanese and English), in its own words rather than the chunk's;
3. each question is searched, and each ranked list's *skill* is the mean reciprocal rank it gives
   the chunk that the question was written from;
4. a list's weight becomes its default weight times its skill relative to the best list's,
   raised to a power the workspace also chooses: the power (0 keeps the defaults) under which the
   whole ranking puts the source chunks highest, on the same questions.

The result is kept in the index (meta ``calibration``) with the chunk count and the spaces it was
measured over; it is out of date when the workspace has grown or shrunk by a quarter, or its
filled spaces changed, and is then measured again in the background.
"""

from __future__ import annotations

import json
import random
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from groundls.chunkers.textrules import is_cjk
from groundls.search.fusion import RankedList
from groundls.search.query import Query

#: Where the index keeps its calibration (table ``meta``).
META_KEY = "calibration"
#: Bump when what a calibration measures changes: older ones are measured again.
VERSION = 1
#: Questions written per language users ask in: the packaged model writes one in 5-20 s on 2
#: cores (its passage read, then a line), and its search may ask it for an English rewrite.
PER_KIND = 16
#: The powers tried for relative skill (0: the default weights).
POWERS = (0.0, 0.5, 1.0, 2.0)
#: The least share a calibrated list keeps of its default weight: a list that never found a
#: sampled chunk may still be the one that finds a name the sample did not hold.
FLOOR = 0.05
#: A workspace that grew or shrank by more than this share of its chunks is measured again.
STALE_SHARE = 0.25
#: A workspace with fewer chunks to ask about keeps the default weights: its sample would be a
#: large share of it, and a small workspace's ranking has few places to get wrong.
MIN_CHUNKS = 100
#: Characters of a chunk the question writer reads (its head carries its topic, as for e5).
PASSAGE_CHARS = 400
#: Chunks shorter than this say too little to write a question from.
MIN_CHARS = 120
#: The languages users ask in, as question kinds; a bare symbol query is not calibrated.
KINDS = ("ja", "en")

_LANGUAGE_NAMES = {"ja": "Japanese", "en": "English"}

#: Writes a question in a language about a passage (None: the model could not). The workspace
#: hands it a plain callable over the answer model, as it does the rewrite.
WriteQuestion = Callable[[str, str, "threading.Event | None"], "str | None"]


def workspace_kinds(rows: Sequence[tuple[int, str]]) -> list[str]:
    """The languages this workspace is asked about in: Japanese and English, whatever its own
    text is (Japanese users ask about English code and manuals, and the cross-language lists are
    the ones whose worth differs most between workspaces); none for an empty workspace."""
    return list(KINDS) if rows else []


def question_kind(q: Query) -> str | None:
    """The kind of question ``q`` is for the weights: "ja" or "en"; None for a bare name or symbol
    (its lists are the definitions and the keyword index, whatever the workspace)."""
    if q.is_symbol:
        return None
    return "ja" if q.script == "cjk" else "en"


def family(list_name: str) -> str:
    """The list a candidate list belongs to for the weights: a list split by passage language
    (``keyword:ja``, ``vector:use:sentences:en``) counts as the list it was split from."""
    head, _, last = list_name.rpartition(":")
    return head if head and last in ("ja", "en") else list_name


def weigh(lists: Sequence[RankedList], multipliers: dict[str, float]) -> list[RankedList]:
    """``lists`` with each weight multiplied by its family's multiplier (1 when it has none)."""
    return [
        RankedList(r.name, r.weight * multipliers.get(family(r.name), 1.0), r.ids) for r in lists
    ]


@dataclass
class Calibration:
    """The measured weights of one workspace (see the module docstring)."""

    #: kind -> list family -> multiplier of its default weight
    multipliers: dict[str, dict[str, float]] = field(default_factory=dict)
    #: kind -> list family -> mean reciprocal rank of the source chunk
    skill: dict[str, dict[str, float]] = field(default_factory=dict)
    #: kind -> the power chosen, and the source chunks' mean reciprocal rank under the default
    #: weights and under the chosen ones
    power: dict[str, float] = field(default_factory=dict)
    mrr: dict[str, tuple[float, float]] = field(default_factory=dict)
    #: kind -> questions the skills were measured on
    questions: dict[str, int] = field(default_factory=dict)
    #: what it was measured over, to know when it is out of date
    chunks: int = 0
    spaces: tuple[str, ...] = ()
    model: str = ""
    created: str = ""
    seconds: float = 0.0
    version: int = VERSION

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_json(cls, text: str | None) -> Calibration | None:
        """A stored calibration, or None when there is none or it is of another version."""
        if not text:
            return None
        try:
            data = json.loads(text)
            if data.get("version") != VERSION:
                return None
            data["spaces"] = tuple(data.get("spaces", ()))
            data["mrr"] = {k: tuple(v) for k, v in data.get("mrr", {}).items()}
            return cls(**data)
        except (ValueError, TypeError, AttributeError):
            return None

    def fresh(self, chunks: int, spaces: Sequence[str]) -> bool:
        """Whether it still describes a workspace of ``chunks`` chunks with ``spaces`` filled."""
        if tuple(sorted(spaces)) != tuple(sorted(self.spaces)) or not self.chunks:
            return False
        return abs(chunks - self.chunks) <= STALE_SHARE * self.chunks

    def summary(self) -> dict[str, Any]:
        """What status shows: per kind the weights in force and how they were chosen."""
        return {
            "created": self.created,
            "chunks": self.chunks,
            "model": self.model,
            "seconds": round(self.seconds, 1),
            "kinds": {
                kind: {
                    "questions": self.questions.get(kind, 0),
                    "power": self.power.get(kind, 0.0),
                    "mrr_default": round(self.mrr.get(kind, (0.0, 0.0))[0], 3),
                    "mrr_calibrated": round(self.mrr.get(kind, (0.0, 0.0))[1], 3),
                    "multipliers": {f: round(m, 3) for f, m in sorted(mults.items())},
                }
                for kind, mults in sorted(self.multipliers.items())
            },
        }


@dataclass
class Sample:
    """One written question and the chunk it was written from."""

    kind: str
    question: str
    source: int


#: Searches a question with no calibration applied: its candidate lists (definitions included)
#: and a function that ranks them under given multipliers (family -> multiplier) and returns
#: the ranked rowids.
Probe = Callable[[str], "tuple[list[RankedList], Callable[[dict[str, float]], list[int]]] | None"]


def sample_chunks(rows: Sequence[tuple[int, str]], count: int, seed: int) -> list[int]:
    """``count`` chunks (rowid, text) spread evenly over the workspace: a seeded random sample
    of those long enough to ask about, so the same index gives the same sample."""
    usable = [rowid for rowid, text in rows if len(text.strip()) >= MIN_CHARS]
    rng = random.Random(seed)
    return sorted(rng.sample(usable, min(count, len(usable))))


_HEADING = re.compile(r"^\s{0,3}#{1,6}\s.*$\n?", re.MULTILINE)


def passage_of(text: str) -> str:
    """What the question writer reads of a chunk: its first ``PASSAGE_CHARS`` characters without
    its headings, which a small model copies into the question word for word (a reader asks
    without having seen them)."""
    return _HEADING.sub("", text).strip()[:PASSAGE_CHARS]


def clean_question(reply: str, kind: str) -> str | None:
    """The model's reply as a question of ``kind``, or None when it is not one: a single line in
    the right language, of a question's length."""
    lines = [line.strip() for line in reply.strip().splitlines() if line.strip()]
    if not lines:
        return None
    text = re.sub(r"^(?:question|質問)\s*[:：]\s*", "", lines[0], flags=re.IGNORECASE)
    text = text.strip().strip("\"'「」`").strip()
    if not 6 <= len(text) <= 200:
        return None
    if (kind == "ja") != is_cjk(text):
        return None
    return text


def reciprocal_rank(ids: Sequence[int], source: int) -> float:
    for rank, rowid in enumerate(ids, start=1):
        if rowid == source:
            return 1.0 / rank
    return 0.0


def list_skills(lists: Sequence[RankedList], source: int) -> dict[str, float]:
    """Each list family's reciprocal rank of ``source`` (a split family: its better half)."""
    out: dict[str, float] = {}
    for ranked in lists:
        name = family(ranked.name)
        out[name] = max(out.get(name, 0.0), reciprocal_rank(ranked.ids, source))
    return out


def multipliers_for(skill: dict[str, float], power: float) -> dict[str, float]:
    """Each family's multiplier: its skill relative to the best family's, to ``power``, at least
    ``FLOOR`` (all 1 at power 0 or when no list found anything)."""
    best = max(skill.values(), default=0.0)
    if power == 0 or best <= 0:
        return {name: 1.0 for name in skill}
    return {name: max(FLOOR, (value / best) ** power) for name, value in skill.items()}


class Calibrator:
    """One calibration in steps of one question, so a background worker can stop between them
    (an index job waits, or the user asks the model something)."""

    def __init__(
        self,
        rows: Sequence[tuple[int, str]],
        kinds: Sequence[str],
        write: WriteQuestion,
        probe: Probe,
        *,
        per_kind: int = PER_KIND,
        seed: int = 0,
    ) -> None:
        self._write = write
        self._probe = probe
        text = dict(rows)
        chosen = sample_chunks(rows, per_kind * len(kinds), seed)
        # each sampled chunk is asked about in one language, the kinds taking turns
        self._todo = [(kinds[i % len(kinds)], rowid, text[rowid]) for i, rowid in enumerate(chosen)]
        self._done: list[tuple[Sample, list[RankedList], Callable[[dict[str, float]], list[int]]]]
        self._done = []
        self._started = time.perf_counter()
        self.written = 0
        self.failed = 0

    @property
    def total(self) -> int:
        return len(self._todo) + self.written + self.failed

    @property
    def finished(self) -> bool:
        return not self._todo

    def step(self, cancel: threading.Event | None = None) -> None:
        """Write and search the next question."""
        if not self._todo:
            return
        kind, rowid, passage = self._todo[0]
        reply = self._write(passage_of(passage), kind, cancel)
        if cancel is not None and cancel.is_set():
            return  # the same question is written again next time
        self._todo.pop(0)
        question = clean_question(reply, kind) if reply else None
        probed = self._probe(question) if question else None
        if question is None or probed is None:
            self.failed += 1
            return
        lists, rerank = probed
        self._done.append((Sample(kind, question, rowid), lists, rerank))
        self.written += 1

    def result(self, chunks: int, spaces: Sequence[str], model: str) -> Calibration:
        """The weights the written questions measure (a kind with too few questions keeps the
        default weights)."""
        out = Calibration(
            chunks=chunks,
            spaces=tuple(sorted(spaces)),
            model=model,
            created=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            seconds=time.perf_counter() - self._started,
        )
        for kind in KINDS:
            done = [(s, lists, rerank) for s, lists, rerank in self._done if s.kind == kind]
            if len(done) < PER_KIND // 3:
                continue
            totals: dict[str, float] = {}
            for sample, lists, _ in done:
                for name, rr in list_skills(lists, sample.source).items():
                    totals[name] = totals.get(name, 0.0) + rr
            skill = {name: total / len(done) for name, total in totals.items()}
            scored = []
            for power in POWERS:
                mults = multipliers_for(skill, power)
                mrr = sum(reciprocal_rank(rerank(mults), s.source) for s, _, rerank in done)
                scored.append((mrr / len(done), -power, power, mults))
            default = next(mrr for mrr, _, power, _ in scored if power == 0)
            best_mrr, _, power, mults = max(scored, key=lambda row: (row[0], row[1]))
            out.multipliers[kind] = mults
            out.skill[kind] = skill
            out.power[kind] = power
            out.mrr[kind] = (default, best_mrr)
            out.questions[kind] = len(done)
        return out

    def samples(self) -> list[Sample]:
        return [sample for sample, _, _ in self._done]
