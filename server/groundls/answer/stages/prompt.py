"""Grounded prompts: language detection, numbered excerpts fitted to a token budget, messages."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from groundls.answer.stages.focus import TokenCounter, focus_all
from groundls.answer.text.wording import LANGUAGE_NAMES
from groundls.chunkers.markdown import without_pictures
from groundls.chunkers.textrules import estimate_llm_tokens, question_language
from groundls.config import ANSWER_DETAILS
from groundls.results import Hit

Language = str  # one of textrules.QUESTION_LANGUAGES: "en", "ja", "zh", "ko", "de", "fr", "es"


def detect_language(text: str) -> Language:
    """The language a question is asked (and answered) in: see
    :func:`groundls.chunkers.textrules.question_language`."""
    return question_language(text)


@dataclass(frozen=True)
class Excerpt:
    """One numbered excerpt as shown to the model; ``n`` is 1-based."""

    n: int
    hit: Hit
    #: what the model reads: the chunk, or its lines that bear on the question with "…" between
    text: str
    truncated: bool = False

    def render(self) -> str:
        return f"{excerpt_header(self.n, self.hit)}\n{self.text.rstrip()}"


def excerpt_header(n: int, hit: Hit) -> str:
    """``[n] path (section)``: an excerpt's first line as the model reads it (see
    :func:`excerpt_section`). Short, because every token of it is read before the first token of
    the answer; no line numbers, because the model cites by number and numbers it reads are
    numbers it copies into the answer ("lines 750 to 779")."""
    section = excerpt_section(hit)
    return f"[{n}] {hit.path} ({section})" if section else f"[{n}] {hit.path}"


def excerpt_section(hit: Hit) -> str:
    """The nearest breadcrumb that the path and the excerpt's first line do not already say (a
    method's class, a paragraph's heading); "" when they say them all."""
    first = next((line for line in hit.reading.splitlines() if line.strip()), "")
    said = f"{hit.path}\n{first}".casefold()
    crumbs = [c for c in (*hit.breadcrumb, hit.title) if c.strip()]
    return next((c for c in reversed(crumbs) if _bare(c).casefold() not in said), "")


def header_sections(excerpts: Sequence[Excerpt]) -> set[str]:
    """The sections the excerpts' headers name (what an echoed header has after its path)."""
    return {excerpt_section(e.hit) for e in excerpts} - {""}


def _bare(crumb: str) -> str:
    """A breadcrumb's name: a qualified name's last part (``requests.models`` -> ``models``), a
    heading without its HTML link mark."""
    name = crumb.strip().rstrip("¶").strip()
    if " " not in name:
        name = name.replace("::", ".").rsplit(".", 1)[-1]
    return name or crumb


def excerpt_label(hit: Hit) -> str:
    """``path:start-end (breadcrumb > title)`` — the location line of an excerpt."""
    where = hit.where
    name = excerpt_name(hit)
    return f"{where} ({name})" if name else where


def excerpt_name(hit: Hit) -> str:
    """``breadcrumb > title``: what an excerpt's label calls it."""
    crumbs = [c for c in hit.breadcrumb if c]
    title = hit.title.strip()
    # code titles are often qualified ("mod.func") while the breadcrumb already ends in "func"
    last = title.replace("::", ".").rsplit(".", 1)[-1]
    if title and title not in crumbs and (not crumbs or crumbs[-1] != last):
        crumbs.append(title)
    return " > ".join(crumbs)


#: The most of the budget one excerpt may take, so one long chunk cannot crowd out the rest
#: (reading the best hit further instead stated more facts on the development sets and fewer
#: on the held-out ones, whose facts are more often in the second or third hit).
EXCERPT_SHARE = 0.5
#: An excerpt is left out when fewer tokens than this of it would fit.
MIN_EXCERPT_TOKENS = 60


def fit_excerpts(
    hits: Sequence[Hit],
    budget: int,
    count: TokenCounter = estimate_llm_tokens,
    *,
    terms: set[str] | None = None,
) -> list[Excerpt]:
    """The hits, cut together to ``budget`` tokens, as excerpts numbered in rank order.

    Each excerpt, its header line included, takes at most ``EXCERPT_SHARE`` of the budget and
    what the excerpts before it left, cut to the lines that bear on the question's ``terms``,
    each term weighed by how rare it is among the hits' lines
    (:func:`groundls.answer.stages.focus.focus_all`); a doc excerpt's images and badges are left
    out first (their URLs cost tokens and say nothing). The first hit is always included, cut
    if necessary.
    """
    shown = [
        (without_pictures(hit.reading) if hit.kind != "code" else hit.text).strip("\n")
        for hit in hits
    ]
    # a header's number is one or two digits whichever excerpt it ends up as
    openings = [count(excerpt_header(1, hit) + "\n") + 2 for hit in hits]
    cuts = focus_all(
        shown,
        terms or set(),
        max(budget, 1),
        count,
        prose=[hit.kind != "code" for hit in hits],
        openings=openings,
        share=EXCERPT_SHARE,
        min_tokens=MIN_EXCERPT_TOKENS,
    )
    excerpts: list[Excerpt] = []
    for hit, cut in zip(hits, cuts, strict=True):
        if cut is not None:
            excerpts.append(Excerpt(len(excerpts) + 1, hit, cut[0], cut[1]))
    return excerpts


# --- messages -----------------------------------------------------------------------------------

_SYSTEM = {
    "en": (
        "You are groundls, an assistant that answers questions about the user's workspace "
        "strictly from the numbered source excerpts given with each question.\n"
        "Rules:\n"
        "1. Use only facts that appear in the excerpts. If the answer is not in them, say plainly "
        "that the workspace does not say, and do not guess.\n"
        "2. Cite the excerpts you use inline with their bracketed numbers, for example [1] or [2], "
        "right after the sentence they support.\n"
        "3. Answer in {language}, the language of the question.\n"
        "4. Keep the answer short and concrete: name the function, file, option or command. "
        "No filler.\n"
        "5. Do not include hidden reasoning, chain-of-thought or thinking tags."
    ),
    "ja": (
        "あなたは groundls です。ユーザーのワークスペースについての質問に、質問ごとに与えられる"
        "番号付きの抜粋だけを根拠にして答えるアシスタントです。\n"
        "ルール:\n"
        "1. 抜粋に書かれている事実だけを使ってください。答えが抜粋にない場合は、"
        "ワークスペースには記載がないと率直に答え、推測しないでください。\n"
        "2. 使った抜粋は、その文の直後に [1] や [2] のような角括弧の番号で引用してください。\n"
        "3. 質問と同じ日本語で答えてください。\n"
        "4. 短く具体的に答え、関数名・ファイル名・オプション名・コマンド名を挙げてください。"
        "前置きは不要です。\n"
        "5. 思考過程や thinking タグは出力しないでください。"
    ),
}

#: Rule 4 for ``answer.detail`` "full": steps and code taken from the excerpts, still cited.
_FULL_RULE = {
    "en": (
        "4. Answer fully: where the excerpts give steps, list them as numbered steps; where they "
        "hold the code or command, add a short code block copied exactly from them. Every step "
        "ends with the number of its excerpt. No filler."
    ),
    "ja": (
        "4. 詳しく答えてください。抜粋に手順があれば番号付きの手順にし、抜粋にあるコードや"
        "コマンドは短いコードブロックでそのまま引用してください。各手順の末尾に抜粋の番号を"
        "付けてください。前置きは不要です。"
    ),
}

_FULL_REMINDER = {
    "en": (
        "Answer the question{in_language} using only the excerpts above, as numbered steps "
        "where they give "
        "steps, with short code blocks copied from them where useful. End each step with the "
        "number of the excerpt it comes from in square brackets, like [1]."
    ),
    "ja": (
        "上の抜粋だけを根拠に、手順があれば番号付きの手順で、必要なら抜粋のコードをそのまま"
        "短いコードブロックにして、日本語で答えてください。各手順の末尾に [1] のように抜粋の"
        "番号を付けてください。"
    ),
}

_JSON_RULE = {
    "en": (
        '\nReply with one JSON object: {"answer": the answer text with inline [n] citations, '
        '"citations": the excerpt numbers used, "found": false if the excerpts do not answer '
        "the question}."
    ),
    "ja": (
        "\n出力は 1 つの JSON オブジェクトにしてください: "
        '{"answer": 本文中に [n] の引用を含む回答, '
        '"citations": 使った抜粋の番号の配列, "found": 抜粋に答えがなければ false}。'
    ),
}

_USER = {
    "en": {
        "excerpts": "Source excerpts:",
        "none": "No matching excerpts were found.",
        "question": "Question:",
        "nothing": "N/A",
        "chosen": "Excerpt [{n}] is the one that answers this question: answer from it, citing [{n}].",
        # Measured: ending the user turn with the "say it is not there" clause made the 1.5B
        # model answer "The workspace does not say." to answerable questions; rule 1 of the
        # system prompt already covers that case.
        # Measured on the fixture questions with the 1.5B model: "cite ... inline like [1]"
        # gave correct answers without any [n]; asking for the number at the end of each
        # sentence (as the Japanese wording does) gave correct, cited answers.
        "reminder": (
            "Answer the question in one to three {language} sentences using only the excerpts "
            "above. End each sentence with the number of the excerpt it comes from in square "
            "brackets, like [1]."
        ),
    },
    "ja": {
        "excerpts": "抜粋:",
        "none": "一致する抜粋は見つかりませんでした。",
        "question": "質問:",
        "nothing": "なし",
        "chosen": "この質問に答えているのは抜粋 [{n}] です。その抜粋をもとに答え、[{n}] を付けてください。",
        "reminder": (
            "上の抜粋だけを根拠に、質問への答えを日本語の文章で書いてください。"
            "使った抜粋の番号を、その文の末尾に [1] のように付けてください。"
        ),
    },
}


def _named(text: str, language: Language) -> str:
    """An English instruction told which language to answer in ("German"); Japanese has a
    prompt of its own, every other language the English one (for English, word for word as
    it was before other languages were answered)."""
    name = LANGUAGE_NAMES.get(language, "English")
    in_language = "" if name == "English" else f" in {name}"
    return text.replace("{language}", name).replace("{in_language}", in_language)


#: Chat markup around the user message (role tags), which its text does not count.
CHAT_MARKUP_TOKENS = 10

#: Output styles: "text" = prose with inline [n]; "json" = {answer, citations, found}.
OUTPUT_STYLES = ("text", "json")


def system_prompt(language: Language, style: str = "text", detail: str = "brief") -> str:
    """The fixed system prompt for a language, output style and detail (a cacheable prompt
    prefix)."""
    lang = language if language in _SYSTEM else "en"
    text = _named(_SYSTEM[lang], language)
    if detail == "full":
        rules = text.split("\n")
        text = "\n".join(_FULL_RULE[lang] if r.startswith("4. ") else r for r in rules)
    if style == "json":
        text += _JSON_RULE[lang]
    return text


@functools.cache
def instructions(language: Language) -> str:
    """Every instruction the model may be given in ``language``: the system prompt in each style
    and detail, and the reminders after the question (what an answer must not echo)."""
    lang = language if language in _USER else "en"
    prompts = [
        system_prompt(language, style, detail)
        for style in OUTPUT_STYLES
        for detail in ANSWER_DETAILS
    ]
    reminders = [_USER[lang]["reminder"], _FULL_REMINDER[lang], _USER[lang]["chosen"]]
    return "\n".join([*prompts, *(_named(r, language) for r in reminders)])


def user_prompt(
    question: str,
    excerpts: Sequence[Excerpt],
    language: Language,
    detail: str = "brief",
    chosen: int = 1,
) -> str:
    """Excerpts, the question, then the citation rule again (the model heeds the last words);
    ``chosen``: the excerpt the choose step found answers, named before the rule when it is not
    the first."""
    lang = language if language in _USER else "en"
    words = _USER[lang]
    context = "\n\n---\n\n".join(e.render() for e in excerpts) if excerpts else words["none"]
    reminder = _FULL_REMINDER[lang] if detail == "full" else words["reminder"]
    reminder = _named(reminder, language)
    if chosen > 1:
        reminder = words["chosen"].replace("{n}", str(chosen)) + "\n" + reminder
    return _layout(words, context, question.strip(), reminder)


def _layout(words: dict[str, str], context: str, question: str, reminder: str) -> str:
    """The user turn's layout: excerpts, the question, the reminder."""
    return f"{words['excerpts']}\n\n{context}\n\n{words['question']}\n{question}\n\n{reminder}"


def content_free_messages(language: Language, n: int) -> list[dict[str, str]]:
    """The answer's prompt with ``n`` excerpts and a question that say nothing ("N/A"): what
    the model leans to whatever is asked (see ``groundls.answer.stages.choose``)."""
    lang = language if language in _USER else "en"
    words = _USER[lang]
    context = "\n\n---\n\n".join(f"[{i}] N/A" for i in range(1, n + 1))
    reminder = _named(words["reminder"], language)
    return [
        {"role": "system", "content": system_prompt(language)},
        {"role": "user", "content": _layout(words, context, words["nothing"], reminder)},
    ]


@dataclass(frozen=True)
class Prompt:
    """One answer's prompt, built once from its question: the fixed system rules and the user
    turn's frame, read with the excerpts the budget lets in (and, when the choose step picked a
    later one, with that excerpt named)."""

    question: str
    language: Language
    style: str = "text"
    detail: str = "brief"

    @functools.cached_property
    def system(self) -> str:
        return system_prompt(self.language, self.style, self.detail)

    def user(self, excerpts: Sequence[Excerpt] = (), chosen: int = 1) -> str:
        return user_prompt(self.question, excerpts, self.language, self.detail, chosen)

    def messages(self, excerpts: Sequence[Excerpt], chosen: int = 1) -> list[dict[str, str]]:
        """A stateless two-message chat: fixed system rules, then excerpts + question +
        reminder."""
        return [
            {"role": "system", "content": self.system},
            {"role": "user", "content": self.user(excerpts, chosen)},
        ]

    def frame_tokens(self, count: TokenCounter, *, with_system: bool) -> int:
        """The tokens of the prompt besides its excerpts: the user turn's frame and its chat
        markup, and the system rules when the model reads them every time."""
        tokens = count(self.user()) + CHAT_MARKUP_TOKENS
        return tokens + count(self.system) if with_system else tokens


def build_messages(
    question: str,
    excerpts: Sequence[Excerpt],
    language: Language,
    style: str = "text",
    detail: str = "brief",
    chosen: int = 1,
) -> list[dict[str, str]]:
    """A stateless two-message chat: fixed system rules, then excerpts + question + reminder
    (``chosen``: see ``user_prompt``)."""
    return Prompt(question, language, style, detail).messages(excerpts, chosen)
