"""The one decision: does the workspace answer this question?

Every stage before it gathers evidence and none decides: the search says how sure it is and how
many of the question's words the workspace holds; the off-topic pool says how the question
stands among questions this workspace cannot answer (:mod:`groundls.search.offtopic`); the model
says whether its excerpts answer; the check says whether what it wrote can stand. :func:`decide`
reads all of it, before the model reads (``evidence.read`` empty) and after, and its verdict is
what the reader gets:

- ``read``: the model reads the excerpts;
- ``answer``: the model's answer stands;
- ``not_found``: "not found", with the places to look (never their key lines over an unsure
  search: they would read as an answer the workspace was not shown to hold); also when, over a
  search not sure of its first place, the model's vote that its excerpts answer is below the
  median off-topic question's in this workspace (:mod:`groundls.answer.stages.vote`);
- ``key_lines``: the excerpts' key lines, labelled as not an answer, over a sure ("high")
  search whose answer could not be written (no model, or one that could not be used or said nothing usable).

``ask --json`` and ``--explain`` show the verdict and the evidence that decided it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from groundls.answer.stages.vote import VoteStanding
from groundls.search.offtopic import Standing

#: Of the question's words (those it could hold), the share the workspace must hold somewhere
#: for a "low" search to go on to the model; below it the question is not about this workspace.
WORKSPACE_WORDS = 2 / 3
#: A question an unsure search found no nearer to the workspace than the median off-topic
#: question is read as one: "not found" at once, with no model call.
OFF_TOPIC = 0.5


@dataclass(frozen=True)
class Evidence:
    """What the stages found, for the verdict (see the module's docstring)."""

    #: the search's confidence ("high", "medium", "low", "none") and its reason
    confidence: str
    reason: str = ""
    #: the hits that can hold an answer (not a lock file, a picture, build file or data)
    places: int = 1
    #: the share of the question's words the workspace holds (None: not measured)
    coverage: float | None = None
    #: where the question stands among the off-topic pool's (None: not measured)
    standing: Standing | None = None
    #: the names the question writes that the workspace never mentions
    absent_names: tuple[str, ...] = ()
    #: the model's vote that its excerpts answer, among the off-topic pool's (None: not read)
    vote: VoteStanding | None = None
    #: whether a model can read the excerpts
    model: bool = True
    #: what reading gave: "" (not yet read), "found", "not_found" (the model said so)
    read: str = ""
    #: why the written answer cannot stand (a ``Fallback`` kind: "failed", "missing",
    #: "uncited", "unnamed", "content_free", "other_language"), "" when it can
    cannot_stand: str = ""
    #: that reason in words, for the notice
    why: str = ""

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"confidence": self.confidence, "reason": self.reason}
        out["places"] = self.places
        if self.coverage is not None:
            out["coverage"] = round(self.coverage, 3)
        if self.absent_names:
            out["absent_names"] = list(self.absent_names)
        if self.standing is not None:
            out["standing"] = self.standing.as_dict()
        if self.vote is not None:
            out["vote"] = self.vote.as_dict()
        if self.read:
            out["model"] = self.read
        if self.cannot_stand:
            out["cannot_stand"] = self.cannot_stand
        return out


@dataclass(frozen=True)
class Verdict:
    """What the reader gets, which evidence decided it, and why, in words."""

    outcome: str  # "read", "answer", "not_found", "key_lines"
    decided_by: str  # "search", "standing", "model", "check", "no_model"
    why: str
    evidence: Evidence = field(compare=False)
    #: what a "not found" tells the reader: "nothing" (no indexed content matches),
    #: "never_mentions" (names the workspace never mentions), "few_words" (most of the
    #: question's words occur nowhere), "not_answered" (the places found do not answer)
    said: str = "not_answered"

    def as_dict(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "decided_by": self.decided_by,
            "why": self.why,
            "evidence": self.evidence.as_dict(),
        }


def decide(e: Evidence) -> Verdict:
    """The verdict on the evidence so far (see the module's docstring)."""
    unsure = e.confidence in ("low", "none")
    if e.confidence == "none":
        return Verdict("not_found", "search", "the search found nothing", e, "nothing")
    if not e.places:
        why = "nothing the search found can hold an answer"
        return Verdict("not_found", "search", why, e, "nothing")
    if unsure and not e.read:
        if e.absent_names:
            names = ", ".join(e.absent_names)
            why = f"the workspace never mentions {names}"
            return Verdict("not_found", "search", why, e, "never_mentions")
        if e.coverage is not None and e.coverage < WORKSPACE_WORDS:
            why = "most of the question's words occur nowhere in the workspace"
            return Verdict("not_found", "search", why, e, "few_words")
        if e.standing is not None and e.standing.percentile < OFF_TOPIC:
            why = (
                f"the question is no nearer to the workspace than {e.standing.percentile:.0%} "
                "of off-topic questions"
            )
            return Verdict("not_found", "standing", why, e)
        if not e.model:
            return Verdict("not_found", "no_model", "the search was unsure and no model reads", e)
    if e.vote is not None and e.confidence != "high" and e.vote.percentile < OFF_TOPIC:
        why = (
            "the model reads its excerpts as answering no more than it reads those of the median "
            f"off-topic question (more than {e.vote.percentile:.0%} of them)"
        )
        return Verdict("not_found", "model", why, e)
    if not e.read and not e.cannot_stand:
        if not e.model:
            return Verdict("key_lines", "no_model", e.why or "no language model", e)
        return Verdict("read", "search", e.reason or e.confidence, e)
    if e.read == "not_found":
        return Verdict("not_found", "model", "the model found no answer in the excerpts", e)
    if e.cannot_stand:
        # key lines read as an answer: only where the search is sure of its first place
        if e.confidence != "high":
            sure = "unsure" if unsure else "not sure of its first place"
            why = f"the search was {sure} ({e.reason or e.confidence + ' confidence'}) and {e.why}"
            return Verdict("not_found", "check", why, e)
        return Verdict("key_lines", "check", e.why, e)
    return Verdict("answer", "model", "the model's answer stands on its excerpts", e)
