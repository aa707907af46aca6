"""What an agent reads: results as compact text (``path:lines``, title, a one-line snippet).

Agents pay for every token they read, so each hit is two short lines, and the same facts go into
the structured content (the dicts below) for clients that read that instead.
"""

from __future__ import annotations

from typing import Any

from typing_extensions import NotRequired, TypedDict

from groundls import wire
from groundls.results import Answer, Citation, Hit, QuestionLanguage, Related, SearchResult
from groundls.workspace import describe_base

CONFIDENCE_MEANING = (
    "confidence: high = a hit defines the asked name, or the keyword and meaning lists agree on "
    "the top hit; medium = some evidence; low = weak evidence, check before relying on it; "
    "none = nothing relevant was found."
)


class ListPlaceRecord(TypedDict):
    list: str
    rank: int
    weight: float
    share: float


class ExplainRecord(TypedDict):
    score: float
    fused: float
    lists: list[ListPlaceRecord]
    signals: dict[str, float]


class HitRecord(TypedDict):
    path: str
    start_line: int
    end_line: int
    title: str
    kind: str
    language: str
    chunk_id: str
    snippet: str
    place: NotRequired[str]
    explain: NotRequired[ExplainRecord]


class SearchRecord(TypedDict):
    confidence: str
    reason: str
    hits: list[HitRecord]


class RelatedHitRecord(HitRecord):
    relation: str


class RelatedRecord(TypedDict):
    related: list[RelatedHitRecord]
    called: int
    called_more: bool


class ReadRecord(TypedDict):
    path: str
    start_line: int
    end_line: int
    total_lines: int
    text: str


class CitationRecord(TypedDict):
    n: int
    path: str
    start_line: int
    end_line: int
    title: str
    place: NotRequired[str]


class AnswerRecord(TypedDict):
    answer: str
    found: bool
    mode: str
    confidence: str
    citations: list[CitationRecord]
    #: every excerpt the model read, by rank (``n``), and the one it chose before writing
    sources: list[CitationRecord]
    chosen: int | None
    thread: int | None


def place(path: str, start: int, end: int, at: str = "") -> str:
    """Where a hit or citation is: ``docs/a.md:3-9``, or in a document ``manual.pdf p. 12``."""
    if at:
        return f"{path} {at}"
    return f"{path}:{start}" if end <= start else f"{path}:{start}-{end}"


def hit_record(hit: Hit) -> HitRecord:
    record: HitRecord = {
        "path": hit.path,
        "start_line": hit.start_line,
        "end_line": hit.end_line,
        "title": hit.title,
        "kind": hit.kind,
        "language": hit.language,
        "chunk_id": hit.chunk_id,
        "snippet": hit.snippet,
    }
    if hit.place:
        record["place"] = hit.place
    return record


def related_record(found: Related) -> RelatedRecord:
    """Each related place with its relation ("doc", "code", "test", "caller")."""
    return {
        "related": [
            {**hit_record(hit), "relation": kind}  # type: ignore[typeddict-item]
            for kind, hit in found.entries()
        ],
        "called": found.called,
        "called_more": found.more,
    }


def related_text(found: Related) -> str:
    """The related places as numbered lines, each with its relation, and the callers' count."""
    entries = found.entries()
    if not entries:
        return "nothing related found"
    lines = []
    for n, (kind, hit) in enumerate(entries, 1):
        title = f"  {hit.title}" if hit.title else ""
        shown = place(hit.path, hit.start_line, hit.end_line, hit.place)
        lines.append(f"{n}. [{kind}] {shown}{title}  [{hit.chunk_id}]")
        if hit.snippet and hit.snippet != hit.title and kind in ("doc", "code"):
            lines.append(f"   {hit.snippet}")
    if found.called:
        lines.append(f"called from {found.called}{'+' if found.more else ''} places")
    return "\n".join(lines)


def hits_text(hits: list[Hit] | tuple[Hit, ...], start: int = 1) -> str:
    """The hits as numbered lines (from ``start``): place, title and chunk id, then a snippet."""
    lines = []
    for n, hit in enumerate(hits, start):
        title = f"  {hit.title}" if hit.title else ""
        shown = place(hit.path, hit.start_line, hit.end_line, hit.place)
        lines.append(f"{n}. {shown}{title}  [{hit.chunk_id}]")
        if hit.snippet and hit.snippet != hit.title:
            lines.append(f"   {hit.snippet}")
    return "\n".join(lines)


def search_text(result: SearchResult) -> str:
    note = f"\nnote: {result.notice}" if result.notice else ""
    if not result.hits:
        return "no results (confidence: none)" + note
    head = f"confidence: {result.confidence}" + (f" ({result.reason})" if result.reason else "")
    if not result.explanations:
        return head + note + "\n" + hits_text(result.hits)
    lines = [head + note]
    if result.language is not None:
        lines.append(language_text(result.language))
    for n, (hit, why) in enumerate(zip(result.hits, result.explanations, strict=False), 1):
        lines.append(hits_text([hit], start=n))
        moved = " ".join(f"{name} x{value:g}" for name, value in why.signals)
        lines.append(
            f"   score {why.score:.4f} = fused {why.fused:.4f}" + (f" x {moved}" if moved else "")
        )
        lines += [f"   {p.name} #{p.rank} weight {p.weight:g} ({p.share:.0%})" for p in why.lists]
    return "\n".join(lines)


def language_text(language: QuestionLanguage) -> str:
    """What the search decided about the question's language, in one line."""
    spaces = ", ".join(f"{space} {w:g}" for space, w in language.spaces.items())
    searched = f" as {language.searched_as!r}" if language.searched_as else ""
    unlikely = f"; {language.unlikely} passages count half" if language.unlikely else ""
    nothing = "; it names nothing in this workspace" if language.names_nothing_here else ""
    translated = f" as {language.translated!r}" if language.translated else ""
    return (
        f"question: {language.language} ({language.script}), own words in {spaces};"
        f" English rewrite: {language.rewrite}{searched};"
        f" Japanese translation: {language.translation}{translated}{unlikely}{nothing}"
    )


def search_record(result: SearchResult) -> SearchRecord:
    hits = [hit_record(h) for h in result.hits]
    for record, why in zip(hits, result.explanations, strict=False):
        record["explain"] = wire.explanation_json(why)  # type: ignore[typeddict-item]
    return {
        "confidence": result.confidence,
        "reason": result.reason,
        "hits": hits,
    }


def numbered(lines: list[str], start: int) -> str:
    width = len(str(start + len(lines)))
    return "\n".join(f"{start + i:>{width}}  {line}" for i, line in enumerate(lines))


def answer_text(answer: Answer) -> str:
    parts = [answer.answer.strip()]
    if answer.citations:
        parts.append(
            "\n".join(
                f"[{c.n}] {place(c.path, c.start_line, c.end_line, c.place)}"
                + (f"  {c.title}" if c.title else "")
                for c in answer.citations
            )
        )
    note = f"mode: {answer.mode}, confidence: {answer.confidence or 'none'}"
    if answer.thread is not None:
        note += f", thread {answer.thread} (pass it to ask a follow-up)"
    if answer.notice:
        note += f" ({answer.notice})"
    parts.append(note)
    return "\n\n".join(p for p in parts if p)


def answer_record(answer: Answer) -> AnswerRecord:
    return {
        "thread": answer.thread,
        "answer": answer.answer,
        "found": answer.found,
        "mode": answer.mode,
        "confidence": answer.confidence,
        "citations": [_citation_record(c) for c in answer.citations],
        "sources": [_citation_record(c) for c in answer.sources],
        "chosen": answer.chosen,
    }


def _citation_record(c: Citation) -> CitationRecord:
    record: CitationRecord = {
        "n": c.n,
        "path": c.path,
        "start_line": c.start_line,
        "end_line": c.end_line,
        "title": c.title,
    }
    if c.place:
        record["place"] = c.place
    return record


def status_text(status: dict[str, Any]) -> str:
    index = status["index"]
    lines = [
        f"workspace: {status['workspace']}",
        f"index: {index['files']} files, {index['chunks']} chunks"
        + (f" (last run: {status['last_run']})" if status.get("last_run") else ""),
    ]
    if status.get("base"):
        lines.append(describe_base(status["base"]))
    for tier in status["tiers"]:
        lines.append(
            f"tier {tier['space']}: {tier['model']} - {tier['filled']} of {tier['wanted']} chunks"
            + (" (deep tier: search uses what is filled)" if tier["deep"] else "")
            + f"; reads {', '.join(tier.get('reads', ['en']))}"
        )
    answers = status["answers"]
    lines.append(
        f"answers: {answers.get('mode')} {answers.get('model') or ''}".rstrip()
        + (f" - {answers['notice']}" if answers.get("notice") else "")
    )
    lines += [f"privacy: {note}" for note in status.get("sends_to", [])]
    lines.append(CONFIDENCE_MEANING)
    return "\n".join(lines)
