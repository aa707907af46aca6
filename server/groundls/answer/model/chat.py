"""The model's chat format and its first tokens: messages as the model's own chat template, and the vocabulary's tokens that may not begin a reply."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("groundls.answer")


@dataclass(frozen=True)
class LeadTokens:
    """Token ids by how their text begins: with an opening bracket, with a Latin letter or digit,
    or not at all (whitespace only: a reply that begins with them has not begun yet)."""

    brackets: tuple[int, ...]
    latins: tuple[int, ...]
    blanks: frozenset[int]

    @classmethod
    def of(cls, pieces: Sequence[bytes]) -> LeadTokens:
        brackets: list[int] = []
        latins: list[int] = []
        blanks: set[int] = set()
        for i, piece in enumerate(pieces):
            head = piece.lstrip()[:1]
            if not head:
                if piece:
                    blanks.add(i)
            elif piece.lstrip().startswith((b"[", "［".encode())):
                brackets.append(i)
            elif head.isascii() and head.isalnum():
                latins.append(i)
        return cls(tuple(brackets), tuple(latins), frozenset(blanks))


def _ban_at_start(
    prompt_length: int, banned: Sequence[int], blank: frozenset[int] = frozenset()
) -> Callable[[Any, Any], Any]:
    """A logits processor that rules ``banned`` out for the first generated token, and for the
    ones after it while everything generated is ``blank`` (whitespace tokens)."""

    def process(input_ids: Any, scores: Any) -> Any:
        written = input_ids[prompt_length:]
        if banned and len(input_ids) >= prompt_length and all(t in blank for t in written):
            scores[banned] = -float("inf")
        return scores

    return process


def leads_banned(
    tokens: Callable[[], LeadTokens],
    prompt_len: int,
    no_leading_bracket: bool,
    no_leading_latin: bool,
) -> Any:
    """The logits processors that keep a reply from beginning with a bracket or a Latin
    letter, or None (``tokens``: the vocabulary by how it begins, read only when needed)."""
    if not (no_leading_bracket or no_leading_latin):
        return None
    from llama_cpp import LogitsProcessorList

    leads = tokens()
    banned = [
        *(leads.brackets if no_leading_bracket else ()),
        *(leads.latins if no_leading_latin else ()),
    ]
    return LogitsProcessorList([_ban_at_start(prompt_len, banned, leads.blanks)])


def _make_formatter(llm: Any) -> Any:
    """messages -> (prompt text, add_bos) via the model's own chat template (ChatML fallback)."""
    template = (llm.metadata or {}).get("tokenizer.chat_template")
    if template:
        try:
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter

            def tok_text(token: int) -> str:
                if token < 0:
                    return ""
                return llm.detokenize([token], special=True).decode("utf-8", errors="ignore")

            formatter = Jinja2ChatFormatter(
                template=template,
                eos_token=tok_text(llm.token_eos()),
                bos_token=tok_text(llm.token_bos()),
                add_generation_prompt=True,
            )

            def fmt(messages: list[dict[str, str]]) -> tuple[str, bool]:
                result = formatter(messages=messages)
                return result.prompt, not getattr(result, "added_special", False)

            fmt(
                [{"role": "system", "content": "x"}, {"role": "user", "content": "y"}]
            )  # fail early on odd templates
            return fmt
        except Exception as exc:  # a template the formatter cannot render: fall back to ChatML
            log.warning("chat template unusable (%s); using ChatML", exc)

    def chatml(messages: list[dict[str, str]]) -> tuple[str, bool]:
        parts = [f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages]
        return "".join(parts) + "<|im_start|>assistant\n", False

    return chatml
