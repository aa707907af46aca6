"""Text rules every stage shares: script classes, identifier splitting, stopwords, token estimates.

This is the one home of these rules; chunkers, the keyword index, prompts and citation checks
all import them from here, so Japanese text is recognised the same way everywhere.
"""

from __future__ import annotations

import functools
import re
import unicodedata

# -- script classes (bodies of a regex character class) -----------------------------------------

HIRAGANA = "\u3040-\u309f"
KATAKANA = "\u30a0-\u30ff"
HALFWIDTH_KATAKANA = "\uff66-\uff9f"
KANA = HIRAGANA + KATAKANA + HALFWIDTH_KATAKANA
#: CJK ideographs: extension A, the unified block, compatibility ideographs.
HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
#: Japanese letters: kana, kanji and the iteration/closing marks 々 and 〆.
CJK_LETTERS = KANA + HAN + "々〆"
#: Ideographic space and punctuation (、。「」…) and full-width forms (（）！？ＡＢ１２…).
CJK_PUNCTUATION = "\u3000-\u303f\uff00-\uffef"
#: Anything written in a Japanese text run: letters and its punctuation.
CJK_TEXT = CJK_LETTERS + CJK_PUNCTUATION

_CJK_LETTER = re.compile(f"[{CJK_LETTERS}]")
_CJK_RUN = re.compile(f"[{CJK_LETTERS}ー]+")
_HIRAGANA_ONLY = re.compile(f"^[{HIRAGANA}ー]+$")
_HIRAGANA_CHAR = re.compile(f"[{HIRAGANA}]")
_KANA_CHAR = re.compile(f"[{KANA}]")
_HAN_CHAR = re.compile(f"[{HAN}]")
_LATIN_CHAR = re.compile(r"[A-Za-z]")


def is_cjk(text: str) -> bool:
    """Whether ``text`` contains any Japanese letter."""
    return bool(_CJK_LETTER.search(text))


def is_cjk_letter(char: str) -> bool:
    return bool(_CJK_LETTER.match(char))


def display_width(text: str) -> int:
    """Terminal columns ``text`` takes: East Asian wide and full-width characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def cjk_runs(text: str) -> list[str]:
    """Maximal runs of Japanese letters (the units that get character bigrams)."""
    return _CJK_RUN.findall(text)


def cjk_bigrams(run: str) -> list[str]:
    """Overlapping character bigrams of one run (a one-letter run is its own term)."""
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


#: Letters of a katakana word: katakana and the long-vowel mark (not the middle dot ・).
_KATAKANA_WORD = "\u30a1-\u30fa\u30fc"

#: A katakana word of four letters or more that ends in the long-vowel mark.
_LONG_VOWEL_END = re.compile(f"([{_KATAKANA_WORD}]{{3,}})\u30fc(?![{_KATAKANA_WORD}])")


def katakana_stems(text: str) -> str:
    """``text`` with the final long-vowel mark of each katakana word of four letters or more
    removed: サーバー and サーバ, ユーザー and ユーザ, メモリー and メモリ are one word written two
    ways (JIS Z 8301 drops the mark, most newer writing keeps it). The stem is a prefix of
    both spellings, so a question's stem matches a text written either way. The rule and its
    minimum length are the kuromoji / Lucene katakana stemmer's."""
    return _LONG_VOWEL_END.sub(r"\1", text)


def is_hiragana_only(gram: str) -> bool:
    """Hiragana-only grams are particles and endings (のは, ます, です): no evidence of a topic."""
    return bool(_HIRAGANA_ONLY.match(gram))


def has_hiragana(gram: str) -> bool:
    """Whether ``gram`` holds a hiragana letter: a character bigram with one mostly straddles a
    particle or an ending (の大, 則で)."""
    return bool(_HIRAGANA_CHAR.search(gram))


def script_counts(text: str) -> tuple[int, int, int]:
    """(kana, kanji, Latin letters) in ``text``."""
    return (
        len(_KANA_CHAR.findall(text)),
        len(_HAN_CHAR.findall(text)),
        len(_LATIN_CHAR.findall(text)),
    )


def reads_chinese(text: str) -> bool:
    """Whether ``text`` is Chinese rather than Japanese: it has a Han letter that Japanese
    writing does not use (outside JIS X 0208 and the Windows kanji extensions, code page 932:
    simplified forms such as 设 or 录), and no more kana than such letters. Japanese carries its
    grammar in kana, so a Japanese sentence with one slipped form still reads Japanese. A small
    model asked in Japanese sometimes slips into Chinese, keeping a stray この or の; by its
    letters alone such a sentence would pass for Japanese."""
    foreign = sum(1 for letter in _HAN_CHAR.findall(text) if not _japanese_letter(letter))
    return foreign > 0 and foreign >= len(_KANA_CHAR.findall(text))


def _japanese_letter(letter: str) -> bool:
    try:
        letter.encode("cp932")
    except UnicodeEncodeError:
        return False
    return True


# -- the language of a question ---------------------------------------------------------------

#: The languages a question is told apart in, and answered in.
QUESTION_LANGUAGES = ("en", "ja", "zh", "ko", "de", "fr", "es")
_HANGUL = re.compile(r"[\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f]")
#: Chinese function words and forms, simplified and traditional, that a Japanese sentence
#: writes in kana or not at all (的 and 為 aside, which need company: see ``question_language``).
_CHINESE_WORDS = frozenset("的了吗嗎呢么麼怎哪这這们們为為个個给給该該吧把被让讓从從没沒还還")
_LOWER_WORD = re.compile(r"[a-zà-öø-ÿœß]+")
#: Japanese writes its particles and endings in kana: a run of this many Han letters with no
#: kana is a Chinese sentence, not a Japanese heading (設定変更方法 has six).
_KANA_LESS_SENTENCE = 8


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: Each language's most common function words (and question words): a question nearly always
#: has two of its own language's, an English one rarely two of another's.
_STOPWORDS = {
    "en": _words(
        "the a an is are was were be been how do does did i you we it this that these those "
        "to of in on at by for from with and or not can could should would will what where "
        "which when why who my your our their there here into about after before than"
    ),
    "de": _words(
        "der die das den dem des ein eine einen einem einer und oder nicht mit zu zum zur von "
        "vom auf aus bei für im ist sind wird werden wurde kann muss soll ich du wir sie es man "
        "wie wo was wann warum welche welcher welches wieviele viele noch nur auch über vor "
        "nach bis durch mein meine dein sich diese dieser dieses gibt liegt bedeutet hinzufügen"
    ),
    "fr": _words(
        "le la les l un une des du de d au aux et ou est sont être fait faire peut peuvent "
        "pour dans avec sans sur sous par ce cette ces se il elle ils on je nous vous que qui "
        "quoi comment combien pourquoi quand où quel quelle quels quelles mon ma mes son sa "
        "ses leur avant après encore plus ne pas ajouter"
    ),
    "es": _words(
        "el la los las lo un una unos unas de del al y o es son está están ser hay puede "
        "puedo se para por con sin sobre en que qué cómo como cuál cuándo cuánto cuántos "
        "cuántas dónde donde por qué porque mi mis su sus este esta estos estas antes después "
        "más ya también agregar añadir"
    ),
}
_MARKS = {"de": frozenset("äöüß"), "fr": frozenset("èêëàâçîïôûùœ"), "es": frozenset("ñáíóú¿¡")}


def question_language(text: str) -> str:
    """The language ``text`` is written in, one of ``QUESTION_LANGUAGES`` ("en" when unsure).

    By script first: Hangul is Korean (15 % of the letters); Japanese has kana (identifiers and paths inside a
    Japanese question are Latin, so the rule is a share: any kana and 15 % Japanese letters);
    Han letters without kana are Chinese when a letter Japanese does not use appears
    (``reads_chinese``), when there are eight or more, or, four or more, with a Chinese
    function word; else Japanese (a heading written in kanji). Latin text is German, French or
    Spanish when two or more of that language's common words (each counted once) or letters
    appear, more than English's."""
    hangul = len(_HANGUL.findall(text))
    kana, han, latin = script_counts(text)
    letters = kana + han + latin + hangul
    if letters == 0:
        return "en"
    if hangul and hangul >= 0.15 * letters:
        return "ko"  # (a Korean sentence full of English names: a syllable holds two letters)
    share = (kana + han) / letters
    if kana and share >= 0.15:
        return "ja"
    if share >= 0.3:
        chinese = (
            reads_chinese(text)
            or han >= _KANA_LESS_SENTENCE
            or (han >= 4 and any(c in _CHINESE_WORDS for c in text))
        )
        return "zh" if chinese else "ja"
    lower = text.lower()
    words = set(_LOWER_WORD.findall(lower))
    score = {lang: len(words & stops) for lang, stops in _STOPWORDS.items()}
    for lang, marks in _MARKS.items():
        score[lang] += any(c in marks for c in lower)
    best = max(("de", "fr", "es"), key=lambda lang: score[lang])
    return best if score[best] >= 2 and score[best] > score["en"] else "en"


def english_words(text: str) -> int:
    """How many of ``text``'s words are common English ones (see ``question_language``)."""
    return sum(w in _STOPWORDS["en"] for w in _LOWER_WORD.findall(text.lower()))


# -- identifiers ----------------------------------------------------------------------------------

_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def split_identifier(word: str) -> list[str]:
    """``parseArgs`` -> [parse, args]; ``max_content_width`` -> [max, content, width]."""
    return list(_split_identifier(word))


@functools.lru_cache(maxsize=1 << 16)
def _split_identifier(word: str) -> tuple[str, ...]:
    # code repeats its names endlessly: indexing splits the same words millions of times
    return tuple(p.lower() for p in _CAMEL.findall(word.replace("_", " ")) if p)


# -- stopwords ------------------------------------------------------------------------------------

#: English function words that say nothing about a topic (questions and answers alike).
STOPWORDS = frozenset(
    [
        "a",
        "also",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "do",
        "does",
        "for",
        "from",
        "get",
        "has",
        "have",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "may",
        "me",
        "might",
        "must",
        "my",
        "need",
        "of",
        "on",
        "or",
        "our",
        "should",
        "so",
        "such",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "this",
        "those",
        "to",
        "use",
        "used",
        "uses",
        "using",
        "via",
        "want",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
    ]
)


# -- token estimates ------------------------------------------------------------------------------


def estimate_encoder_tokens(text: str) -> int:
    """Tokens of a WordPiece-style embedding encoder (the chunk size budget): about chars/4 for
    Latin script and chars/2 for Japanese, mixed by script ratio."""
    if not text:
        return 0
    cjk = len(_CJK_LETTER.findall(text))
    return max(1, round(cjk / 2 + (len(text) - cjk) / 4))


def head_within(text: str, tokens: int) -> str:
    """The longest start of ``text`` whose :func:`estimate_encoder_tokens` is at most ``tokens``
    (a text that fits is returned whole): what an encoder with a window of ``tokens`` reads of
    it, cut at a character rather than inside a word piece it would never see."""
    if len(text) <= tokens * 2 or estimate_encoder_tokens(text) <= tokens:
        return text
    # at most 4 characters a token: the head is no longer than that, then shrink by what it holds
    head = text[: tokens * 4]
    while len(head) > 1 and estimate_encoder_tokens(head) > tokens:
        over = estimate_encoder_tokens(head) - tokens
        head = head[: max(1, len(head) - max(1, over * 2))]
    return head


_CJK_ANY = re.compile(f"[{CJK_TEXT}]")


def estimate_llm_tokens(text: str) -> int:
    """Tokens of the answer model's BPE (Qwen2.5): ~0.8 per CJK character, ~3.9 chars per token
    otherwise. Used only before the model's own tokenizer is loaded. Against Qwen2.5's tokenizer
    on the eval corpora it over-counts slightly: estimate/real is 1.10 median (0.88-1.24 p10-p90)
    on click code/docs and 1.07 (0.92-1.27) on Japanese docs."""
    if not text:
        return 0
    cjk = len(_CJK_ANY.findall(text))
    return max(1, round(cjk * 0.8 + (len(text) - cjk) / 3.9))
