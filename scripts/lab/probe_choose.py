"""Lab: can the answer model choose the excerpt that answers, from the prompt it already read?

For each answerable question of the given sets, the answer service builds its prompt as for a
real answer (search, excerpts, budget); instead of writing, the model reads the prompt and the
first words of a reply that names an excerpt ("The excerpt that answers this is [") and gives
each excerpt number its next-token probability. Printed per set: how often the most likely
number is an excerpt that holds an expected place, split by where the search put that place
(first excerpt, or a later one the model read). Nothing is generated.

Usage: GROUNDLS_EVAL_WORK=W python scripts/lab/probe_choose.py --sets click-ja,ja [--deep]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from groundls.answer.stages import choose as choose_stage
from groundls.answer.stages import prompt

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_answers  # noqa: E402


def null_question(
    messages: list[dict[str, str]], question: str, language: str
) -> list[dict[str, str]]:
    """The same prompt, its question replaced by one that asks nothing."""
    lang = "ja" if language == "ja" else "en"
    user = messages[-1]["content"]
    cut = user.rfind(question.strip())
    if cut < 0:
        return messages
    user = user[:cut] + prompt._USER[lang]["nothing"] + user[cut + len(question.strip()) :]
    return [*messages[:-1], {"role": "user", "content": user}]


def choose(model: Any, messages: list[dict[str, str]], k: int, language: str) -> list[float]:
    """Each excerpt number's log-probability as the next token after the choose stage's lead
    (``LocalLLM.next_token_logprobs``, as the answer service reads it)."""
    got = model.next_token_logprobs(
        messages, choose_stage._lead(language), choose_stage._numbers(k)
    )
    return [round(x, 3) for x in got or []]


#: How the excerpts of the prompt are laid out for a variant read: as the answer shows them,
#: in reverse order with their numbers (position against number), or in order with their
#: numbers reversed (number against position).
ORDERS = ("shown", "reversed", "renumbered")


def laid_out(messages: list[dict[str, str]], language: str, order: str) -> list[dict[str, str]]:
    """The prompt with its excerpts laid out in ``order`` (see :data:`ORDERS`)."""
    if order == "shown":
        return messages
    words = prompt._USER["ja" if language == "ja" else "en"]
    user = messages[-1]["content"]
    head = f"{words['excerpts']}\n\n"
    tail = user.index(f"\n\n{words['question']}\n")
    blocks = user[len(head) : tail].split("\n\n---\n\n")
    if order == "reversed":
        blocks = blocks[::-1]
    else:
        k = len(blocks)
        blocks = [re.sub(r"^\[\d+\]", f"[{k - i}]", b, count=1) for i, b in enumerate(blocks)]
    content = head + "\n\n---\n\n".join(blocks) + user[tail:]
    return [*messages[:-1], {"role": "user", "content": content}]


def by_position(scores: list[float], order: str) -> list[float]:
    """Scores by the excerpt they name in the answer's own numbering."""
    return scores[::-1] if order == "renumbered" else scores


#: The list's opening as the grammar lets the model write it; the next token is a number or "]".
LIST_LEAD = '{"excerpts": ['
#: Other first words of a reply that names the answering excerpt, read after the answer's own
#: prompt (``--leads``): the English lead whatever the question's language, and the opening of
#: the JSON list the grammar step writes.
OTHER_LEADS = {"en_lead": choose_stage.LEAD["en"], "json_lead": LIST_LEAD}

#: The constrained first step: the reminder replaced by (``ask``) or followed by (``then``) a
#: request for the numbers of the excerpts that answer, written as JSON under a grammar.
GRAMMAR_FORMS = ("ask", "then")
_LIST = {
    "en": (
        "Which of the excerpts above answer the question? Reply with JSON only: "
        '{"excerpts": [numbers]}, the excerpt that answers it best first, or [] if none does.'
    ),
    "ja": (
        "上の抜粋のうち、質問に答えているのはどれですか。JSON だけで返してください: "
        '{"excerpts": [番号]}。最もよく答えている抜粋を先に、どれも答えていなければ [] にしてください。'
    ),
}
_THEN = {
    "en": 'Begin your reply with {"excerpts": [numbers]}: the excerpts that answer, best first, '
    "or [] if none does. Then write the answer.",
    "ja": '返答は {"excerpts": [番号]} で始めてください（答えている抜粋を良い順に、なければ []）。'
    "そのあとに答えを書いてください。",
}


def asking(messages: list[dict[str, str]], language: str, form: str) -> list[dict[str, str]]:
    """The prompt with its reminder replaced (``ask``) or followed (``then``) by the request
    for the list of answering excerpts."""
    lang = "ja" if language == "ja" else "en"
    user = messages[-1]["content"]
    words = prompt._USER[lang]
    cut = user.rindex(f"\n\n{words['question']}\n")
    rest = user[cut:].split("\n\n")
    # rest: ["", "質問:\n…", reminder]; the reminder replaced or followed
    ask = _LIST[lang] if form == "ask" else rest[-1] + "\n" + _THEN[lang]
    content = user[:cut] + "\n\n".join([*rest[:-1], ask])
    return [*messages[:-1], {"role": "user", "content": content}]


def listed(
    stream: Any, messages: list[dict[str, str]], k: int, language: str, form: str
) -> tuple[list[int], float]:
    """The excerpt numbers the model writes, greedily under a JSON-schema grammar, and the
    seconds it took (the prompt's new tail and the list)."""
    from groundls.answer.model.prefix import GenerationStats

    schema = {
        "type": "object",
        "properties": {
            "excerpts": {"type": "array", "items": {"enum": list(range(1, k + 1))}, "maxItems": k}
        },
        "required": ["excerpts"],
        "additionalProperties": False,
    }
    t0 = time.perf_counter()
    text = "".join(
        stream(
            asking(messages, language, form),
            schema=schema,
            temperature=0.0,
            max_tokens=8 + 3 * k,
            stats=GenerationStats(),
        )
    )
    took = time.perf_counter() - t0
    try:
        got = json.loads(text)["excerpts"]
    except (ValueError, KeyError, TypeError):
        return [-1], took
    return [int(n) for n in got], took


def _sources(workspace: Any, question: str) -> list[Any]:
    """Ask, and return the excerpts the answer was given (its sources)."""
    got: list[Any] = []
    workspace.answers.ask(question, on_sources=got.extend)
    return got


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", default="click-ja,ja")
    ap.add_argument("--deep", action="store_true")
    ap.add_argument("--index-root", default="/tmp/groundls-bench-index")
    ap.add_argument("--out", default="")
    ap.add_argument(
        "--orders", action="store_true", help="also read the excerpts in the other ORDERS"
    )
    ap.add_argument("--grammar-forms", default=",".join(GRAMMAR_FORMS))
    ap.add_argument("--leads", action="store_true", help="also read the OTHER_LEADS")
    ap.add_argument(
        "--grammar",
        action="store_true",
        help="also write the list of answering excerpts under a grammar (GRAMMAR_FORMS); "
        "unanswerable questions are read too",
    )
    args = ap.parse_args()
    args.context_tokens, args.time_limit, args.first_token_s = 0, 0, None
    args.extractive, args.served, args.style, args.warm_rewrites = False, "", None, False
    rows = []
    # the service's own choose stage off: the lab reads the prompt the model would answer
    choose_stage.choose = lambda *_a, **_k: None  # type: ignore[assignment]
    for name in args.sets.split(","):
        workspace = bench_answers.open_workspace(name, args)
        model = workspace.model.get()
        seen: dict[str, Any] = {}
        stream = model.stream

        def probing(
            messages: list[dict[str, str]],
            model: Any = model,
            seen: dict = seen,
            stream: Any = stream,
            **_: Any,
        ) -> Any:
            k = sum(1 for line in messages[-1]["content"].splitlines() if line.startswith("["))
            n = max(1, k)
            seen["scores"] = choose(model, messages, n, seen["language"])
            if args.leads:
                # the same prompt, other first words of the reply: no more to read than the lead
                for name, lead in OTHER_LEADS.items():
                    got = model.next_token_logprobs(messages, lead, choose_stage._numbers(n))
                    seen[name] = [round(x, 3) for x in got or []]
                return iter(())
            if args.grammar:
                for form in args.grammar_forms.split(","):
                    # the list's first place read as probabilities (each number, and "]}": none),
                    # then the list written under the grammar
                    got = model.next_token_logprobs(
                        asking(messages, seen["language"], form),
                        LIST_LEAD,
                        [*choose_stage._numbers(n), "]}"],
                    )
                    seen[f"{form}_lp"] = [round(x, 3) for x in got or []]
                    seen[form], seen[f"{form}_s"] = listed(
                        stream, messages, n, seen["language"], form
                    )
                return iter(())
            if args.orders:
                for order in ORDERS[1:]:
                    got = choose(
                        model, laid_out(messages, seen["language"], order), n, seen["language"]
                    )
                    seen[order] = by_position(got, order)
                return iter(())
            seen["null"] = choose(
                model,
                null_question(messages, seen["question"], seen["language"]),
                n,
                seen["language"],
            )
            seen["free"] = choose(
                model, prompt.content_free_messages(seen["language"], n), n, seen["language"]
            )
            return iter(())

        model.stream = probing  # type: ignore[method-assign]
        queries = [
            json.loads(line)
            for line in (bench_answers.EVAL / bench_answers.SETS[name][0]).read_text().splitlines()
            if line.strip()
        ]
        for q in queries:
            if not q["expected"] and not args.grammar:
                continue
            from groundls.answer.stages.prompt import detect_language

            seen.clear()
            seen["language"] = detect_language(q["query"])
            seen["question"] = q["query"]
            from dataclasses import asdict

            shown = [asdict(c) for c in _sources(workspace, q["query"])]
            at = [i for i, c in enumerate(shown, 1) if bench_answers.overlaps(c, q["expected"])]
            scores = seen.get("scores")
            if scores is None or (not at and q["expected"]):
                continue
            pick = int(np.argmax(scores)) + 1
            rows.append(
                {
                    "set": name,
                    "id": q["id"],
                    "at": at,
                    "pick": pick,
                    "scores": scores,
                    "null": seen.get("null"),
                    "free": seen.get("free"),
                    **{o: seen[o] for o in ORDERS[1:] if o in seen},
                    **{
                        key: seen[key]
                        for form in GRAMMAR_FORMS
                        for key in (form, f"{form}_s", f"{form}_lp")
                        if key in seen
                    },
                    **{name: seen[name] for name in OTHER_LEADS if name in seen},
                    "answerable": bool(q["expected"]),
                }
            )
            print(json.dumps(rows[-1]), flush=True)
        workspace.close()
    unanswerable = [r for r in rows if not r["answerable"]]
    rows = [r for r in rows if r["answerable"]]
    for form in args.grammar_forms.split(",") if args.grammar else ():
        empty = sum(r.get(form) == [] for r in unanswerable)
        false_empty = sum(r.get(form) == [] for r in rows)
        seconds = sorted(r[f"{form}_s"] for r in rows + unanswerable if f"{form}_s" in r) or [0]
        print(
            f"grammar {form}: unanswerable listed none {empty}/{len(unanswerable)}, "
            f"answerable listed none {false_empty}/{len(rows)}, "
            f"p50 {seconds[len(seconds) // 2]:.2f} s"
        )
    for label, keep in (("first", lambda r: 1 in r["at"]), ("later", lambda r: 1 not in r["at"])):
        picked = [r for r in rows if keep(r)]
        for form in args.grammar_forms.split(",") if args.grammar else ():
            right = sum(bool(r.get(form)) and r[form][0] in r["at"] for r in picked)
            print(f"  grammar {form}: first listed right {right}/{len(picked)}")
        right = sum(r["pick"] in r["at"] for r in picked)
        print(f"expected place {label}: the probe picks it {right}/{len(picked)}")
        for name in OTHER_LEADS if args.leads else ():
            alone = sum(int(np.argmax(r[name])) + 1 in r["at"] for r in picked if r.get(name))
            summed = sum(
                int(np.argmax(np.add(r["scores"], r[name]))) + 1 in r["at"]
                for r in picked
                if r.get(name)
            )
            print(f"  {name}: alone {alone}/{len(picked)}, with the lead {summed}/{len(picked)}")
        for order in ORDERS[1:] if args.orders else ():
            # each excerpt's two readings summed: its place and its number cancel out
            mean = sum(int(np.argmax(np.add(r["scores"], r[order]))) + 1 in r["at"] for r in picked)
            alone = sum(int(np.argmax(r[order])) + 1 in r["at"] for r in picked)
            print(
                f"  {order}: alone {alone}/{len(picked)}, with the shown order {mean}/{len(picked)}"
            )
    if args.out:
        Path(args.out).write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
