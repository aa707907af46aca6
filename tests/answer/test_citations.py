"""Unit tests for citation parsing, checks, weak flags, JSON repair and streamed extraction."""

from __future__ import annotations

import json

from groundls.answer.text.citations import (
    cited_numbers,
    citing_sentences,
    drop_invalid_markers,
    is_weak,
    overlap,
    vouched_sentences,
)
from groundls.answer.text.output import AnswerFieldStreamer, parse_output, repair_json


def test_cited_numbers_in_order_of_first_appearance():
    assert cited_numbers("A [2]. B [1][2]. C [3, 1].") == [2, 1, 3]


def test_full_width_and_japanese_comma_markers_are_parsed():
    assert cited_numbers("設定します［１］。また変更できます[2、3]。") == [1, 2, 3]


def test_text_without_markers_has_no_citations():
    assert cited_numbers("list[int] is a type; see arr[i] too") == []


def test_invalid_numbers_are_removed_from_text_and_reported():
    text, dropped = drop_invalid_markers("Retries happen in upload [1][7]. See [2, 9].", {1, 2})
    assert text == "Retries happen in upload [1]. See [2]."
    assert dropped == [7, 9]


def test_marker_with_only_invalid_numbers_disappears_cleanly():
    text, dropped = drop_invalid_markers("It is in config [5].", {1})
    assert text == "It is in config."
    assert dropped == [5]


def test_citing_sentence_is_the_sentence_before_the_marker():
    s = citing_sentences("Uploads retry three times [1]. The log level is set in config.toml. [2]")
    assert s[1] == ["Uploads retry three times"]
    assert s[2] == ["The log level is set in config.toml"]


def test_citing_sentence_works_for_japanese():
    s = citing_sentences("ログレベルは config.toml で変更します[1]。再試行は3回です。[2]")
    assert s[1] == ["ログレベルは config.toml で変更します"]
    assert s[2] == ["再試行は3回です"]


def test_overlap_splits_identifiers_and_uses_japanese_bigrams():
    assert overlap("retry_upload retries", "def retry_upload(path):") > 0.3
    assert overlap("ログレベルを変更します", "ログレベルの変更方法: log_level を設定") > 0.3
    assert overlap("The moon is made of cheese", "def retry_upload(path):") == 0.0


def test_citation_sharing_nothing_with_its_sentence_is_weak():
    excerpt = "def retry_upload(path, attempts=3):\n    for i in range(attempts): send(path)"
    assert not is_weak(["Uploads are retried by retry_upload up to 3 attempts"], excerpt)
    assert is_weak(["The billing service sends monthly invoices by email"], excerpt)
    assert is_weak(["請求書は毎月メールで送られます"], "ログレベルは config.toml で変更します")
    assert not is_weak(["ログレベルは config.toml で変更します"], "ログレベルの変更: config.toml")


def test_json_repair_closes_a_truncated_object():
    value = repair_json(
        '{"answer": "Retries are in upload.py [1',
    )
    assert value == {"answer": "Retries are in upload.py [1"}


def test_json_repair_handles_fences_prose_trailing_commas_and_dangling_keys():
    assert repair_json('Sure!\n```json\n{"answer": "x", "citations": [1, 2,],}\n```') == {
        "answer": "x",
        "citations": [1, 2],
    }
    assert repair_json('{"answer": "x", "citations": [1], "found"') == {
        "answer": "x",
        "citations": [1],
    }
    assert repair_json('{"answer": "x", "found":') == {"answer": "x", "found": None}
    assert repair_json('{"answer": "a\\') == {"answer": "a"}


def test_json_repair_gives_none_without_an_object():
    assert repair_json("no json here") is None
    assert repair_json("[1, 2]") is None


def test_parse_json_output_merges_inline_and_listed_citations():
    raw = json.dumps({"answer": "In upload.py [2].", "citations": [2, 3], "found": True})
    out = parse_output(raw, "json")
    assert out.valid_json and out.answer == "In upload.py [2]." and out.numbers == [2, 3]
    assert out.found


def test_parse_broken_json_is_repaired_and_flagged():
    out = parse_output('{"answer": "Set log_level [1]", "citations": [1', "json")
    assert out.repaired and not out.valid_json
    assert out.answer == "Set log_level [1]" and out.numbers == [1]


def test_parse_non_json_falls_back_to_text():
    out = parse_output("It is set in config.toml [1].", "json")
    assert out.answer == "It is set in config.toml [1]." and out.numbers == [1]


def test_text_output_saying_not_found_is_not_found():
    assert not parse_output("The workspace does not say.", "text").found
    assert not parse_output("ワークスペースには記載がありません。", "text").found
    assert parse_output("Uploads retry in retry_upload [1].", "text").found


def test_text_output_with_an_adverb_in_its_not_found_wording_is_not_found():
    # the 1.5B model's own wording in a CI run
    said = "The parental leave policy is not explicitly stated in the given excerpts."
    assert not parse_output(said, "text").found
    assert not parse_output("The excerpts don't describe a leave policy.", "text").found
    assert parse_output("The timeout is stated in config.toml [1].", "text").found


def test_json_found_false_is_respected():
    out = parse_output(
        '{"answer": "Not in the excerpts.", "citations": [], "found": false}', "json"
    )
    assert not out.found


def test_answer_streamer_extracts_the_answer_value_across_pieces_and_escapes():
    raw = json.dumps({"answer": 'Use "x"\nthen ログ [1] \u00e9', "citations": [1], "found": True})
    s = AnswerFieldStreamer()
    out = "".join(s.feed(raw[i : i + 3]) for i in range(0, len(raw), 3))
    assert out == 'Use "x"\nthen ログ [1] \u00e9'
    assert s.done


def test_answer_streamer_waits_for_complete_unicode_escapes():
    s = AnswerFieldStreamer()
    assert s.feed('{"answer": "a\\u30') == "a"
    assert s.feed("ed b") == "\u30ed b"


def test_a_japanese_sentence_about_english_code_is_judged_by_what_it_shares_with_the_code():
    code = "def retry_upload(path, attempts=3):\n    send(path)\n"
    said = "アップロードの再試行は retry_upload が attempts 回まで行います"
    assert not is_weak([said], code)
    assert is_weak(["請求書は billing_cycle で締めます"], code)
    # nothing comparable (no names or words the code could hold): not evidence either way
    assert not is_weak(["請求書の締め日は毎月末です"], code)


def test_word_forms_count_as_the_same_word():
    assert not is_weak(["Uploads are retried"], "def retry_upload(path): send(path)")


def test_a_sentence_that_only_points_at_its_sources_cites_the_sentence_before_it():
    text = "The variable APP_LOG_LEVEL overrides the log level. This is supported by [1] and [2]."
    s = citing_sentences(text)
    assert s[1] == ["The variable APP_LOG_LEVEL overrides the log level"] and s[2] == s[1]
    assert citing_sentences("Uploads retry three times. See [1] for details.") == {
        1: ["Uploads retry three times"]
    }
    assert citing_sentences("再試行は3回です。詳しくは [1] を参照してください。") == {
        1: ["再試行は3回です"]
    }
    # a sentence with facts of its own is judged by itself
    assert citing_sentences("Uploads retry. The level is info [1].") == {1: ["The level is info"]}


def test_a_citation_vouches_for_the_uncited_sentences_of_its_paragraph_before_it():
    text = (
        "Uploads retry twice. Logs rotate daily [1]. Tokens expire hourly [2].\n\n"
        "Caches warm lazily. Queues drain fast [1]."
    )
    assert vouched_sentences(text) == {
        1: ["Logs rotate daily", "Queues drain fast", "Uploads retry twice", "Caches warm lazily"],
        2: ["Tokens expire hourly"],
    }
    assert vouched_sentences("ログは info です。再試行は3回です[1]。") == {
        1: ["再試行は3回です", "ログは info です"]
    }
