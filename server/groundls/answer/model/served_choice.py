"""The choose step through a model server: each excerpt number's log-probability, read from the
token log-probabilities an OpenAI-compatible chat endpoint returns (``logprobs`` and
``top_logprobs``: llama.cpp's server, vLLM). A chat endpoint need not continue a reply it is
given, so the reply's first words (the lead) are asked for in the question, and the numbers'
probabilities are read at the token after the lead's bracket. A server that gives no
log-probabilities chooses nothing, as before."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

#: Asked after the question: the reply begins with the lead, then the excerpt number.
ASK_LEAD = "Begin your reply with exactly: {lead}"
#: Tokens generated to reach the number after the lead (the lead itself is a dozen at most).
LEAD_TOKENS = 24
#: Alternatives read at each token.
TOP = 20


def lead_messages(messages: Sequence[dict[str, str]], lead: str) -> list[dict[str, str]]:
    """``messages`` with the lead asked for at the end of the last user message (the prompt
    before it is the answer's, so a server that keeps a prompt's state reads it once)."""
    last = dict(messages[-1])
    last["content"] = f"{last['content']}\n\n{ASK_LEAD.format(lead=lead)}"
    return [*messages[:-1], last]


def scores_after_lead(
    tokens: Sequence[Any], lead: str, choices: Sequence[str]
) -> list[float] | None:
    """Each choice's log-probability at the token after the lead's last character, from a reply's
    per-token log-probabilities (``token``, ``top_logprobs`` of ``token``/``logprob``). A choice
    the server did not list counts below its least likely listed one. None when the reply never
    wrote the lead's last character, or the server listed no alternatives."""
    mark = lead.rstrip()[-1]
    text = ""
    for i, item in enumerate(tokens):
        text += item.token
        if not text.rstrip().endswith(mark) or i + 1 >= len(tokens):
            continue
        top = {t.token.strip(): t.logprob for t in tokens[i + 1].top_logprobs or ()}
        if not top:
            return None
        floor = min(top.values()) - 1.0
        return [top.get(choice, floor) for choice in choices]
    return None


def served_logprobs(
    client: Any, model: str, messages: Sequence[dict[str, str]], lead: str, choices: Sequence[str]
) -> list[float] | None:
    """The choices' log-probabilities after ``lead`` from one short request (None: the server
    gives none, or the reply never reached the number)."""
    reply = client.chat.completions.create(
        model=model,
        messages=lead_messages(messages, lead),
        max_tokens=LEAD_TOKENS,
        temperature=0.0,
        logprobs=True,
        top_logprobs=TOP,
    )
    if not reply.choices:
        return None
    logprobs = reply.choices[0].logprobs
    if logprobs is None or not logprobs.content:
        return None
    return scores_after_lead(logprobs.content, lead, choices)
