"""The model's reply as text or JSON: the answer, its citations and whether it was found, parsed (and repaired) from what the model wrote, and the answer field streamed out of partial JSON."""

from __future__ import annotations

import contextlib
import json
import re
from dataclasses import dataclass, field

from groundls.answer.text.citations import cited_numbers, marker_numbers, says_not_found


@dataclass
class ParsedOutput:
    answer: str
    numbers: list[int] = field(default_factory=list)
    found: bool = True
    valid_json: bool = False
    repaired: bool = False


def _strip_fences(raw: str) -> str:
    text = raw.strip()
    if text.startswith("```"):
        text = re.sub(r"^```[a-zA-Z]*\s*", "", text)
        text = re.sub(r"\s*```\s*$", "", text)
    return text


def repair_json(raw: str) -> dict | None:
    """Parse a possibly truncated or sloppy JSON object; None when nothing object-like is there.

    Handles code fences, leading prose, trailing commas, an unterminated string, a dangling key
    and unclosed brackets (what a generation cut by max_tokens or a time limit looks like).
    """
    text = _strip_fences(raw)
    start = text.find("{")
    if start < 0:
        return None
    text = text[start:]
    try:
        value = json.loads(text)
        return value if isinstance(value, dict) else None
    except json.JSONDecodeError:
        pass
    stack: list[str] = []
    in_string = False
    escape = False
    end = len(text)
    for i, ch in enumerate(text):
        if in_string:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == '"':
                in_string = False
            continue
        if ch == '"':
            in_string = True
        elif ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]":
            if stack:
                stack.pop()
            if not stack:
                end = i + 1
                break
    body = text[:end]
    if stack:
        if in_string:
            if escape:
                body = body[:-1]
            body = re.sub(r"\\u[0-9a-fA-F]{0,3}$", "", body)
            body += '"'
        body = body.rstrip()
        # a dangling key ("found") or key with colon ("found":) gets a null value
        if body.endswith(":"):
            body += " null"
        elif re.search(r'[{,]\s*"[^"]*"$', body):
            body = re.sub(r',?\s*"[^"]*"$', "", body)
        body = body.rstrip().rstrip(",")
        body += "".join(reversed(stack))
    body = re.sub(r",\s*([}\]])", r"\1", body)
    try:
        value = json.loads(body)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def _as_numbers(value: object) -> list[int]:
    out: list[int] = []
    if not isinstance(value, list):
        return out
    for item in value:
        n: object = item
        if isinstance(item, dict):
            n = item.get("n", item.get("number", item.get("id")))
        if isinstance(n, str):
            nums = marker_numbers(n)
            n = nums[0] if nums else None
        if isinstance(n, int) and not isinstance(n, bool) and n not in out:
            out.append(n)
    return out


def parse_output(raw: str, style: str) -> ParsedOutput:
    """Turn raw model output into answer text, cited numbers and a found flag.

    JSON style: parse, else repair, else fall back to treating the text as prose. The cited
    numbers are the inline markers first, then any extra numbers from the citations array.
    """
    if style == "json":
        obj = None
        valid = False
        try:
            parsed = json.loads(_strip_fences(raw))
            if isinstance(parsed, dict):
                obj, valid = parsed, True
        except json.JSONDecodeError:
            obj = repair_json(raw)
        if obj is not None and isinstance(obj.get("answer"), str):
            answer = obj["answer"].strip()
            numbers = cited_numbers(answer)
            for n in _as_numbers(obj.get("citations")):
                if n not in numbers:
                    numbers.append(n)
            found_value = obj.get("found")
            found = found_value if isinstance(found_value, bool) else not says_not_found(answer)
            if not answer:
                found = False
            return ParsedOutput(answer, numbers, found, valid_json=valid, repaired=not valid)
        text = _strip_fences(raw)
        # fall through to prose parsing of whatever was produced
        raw = re.sub(r'^\{\s*"answer"\s*:\s*"', "", text)
    answer = raw.strip()
    numbers = cited_numbers(answer)
    found = bool(answer) and not (says_not_found(answer) and not numbers)
    return ParsedOutput(answer, numbers, found)


class AnswerFieldStreamer:
    """Incrementally extracts the decoded value of the top-level "answer" string from partial JSON.

    Feed raw generated pieces; each call returns the newly decoded answer text (possibly "").
    """

    _KEY = re.compile(r'"answer"\s*:\s*"')
    _ESCAPES = {
        '"': '"',
        "\\": "\\",
        "/": "/",
        "b": "\b",
        "f": "\f",
        "n": "\n",
        "r": "\r",
        "t": "\t",
    }

    def __init__(self) -> None:
        self.buffer = ""
        self._pos = -1  # index in buffer of the next undecoded answer char; -1 = key not seen
        self.done = False

    def feed(self, piece: str) -> str:
        self.buffer += piece
        if self.done:
            return ""
        if self._pos < 0:
            m = self._KEY.search(self.buffer)
            if not m:
                return ""
            self._pos = m.end()
        out: list[str] = []
        buf = self.buffer
        i = self._pos
        while i < len(buf):
            ch = buf[i]
            if ch == '"':
                self.done = True
                i += 1
                break
            if ch == "\\":
                if i + 1 >= len(buf):
                    break  # wait for the rest of the escape
                nxt = buf[i + 1]
                if nxt == "u":
                    if i + 6 > len(buf):
                        break
                    with contextlib.suppress(ValueError):
                        out.append(chr(int(buf[i + 2 : i + 6], 16)))
                    i += 6
                    continue
                out.append(self._ESCAPES.get(nxt, nxt))
                i += 2
                continue
            out.append(ch)
            i += 1
        self._pos = i
        return "".join(out)
