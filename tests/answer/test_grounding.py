"""The grounded-specifics check compares text as a reader reads it: a full-width number or name
in a Japanese manual supports the same one written in ASCII, and the other way round."""

from __future__ import annotations

from groundls.answer.grounding import Evidence, drop_unsupported, numbers_in


def test_full_width_digits_are_the_same_numbers():
    assert numbers_in("保存期間は７日です") == {"7"}
    assert numbers_in("保存期間は7日です") == {"7"}


def test_an_answer_in_ascii_is_supported_by_a_manual_written_in_full_width():
    manual = Evidence(["ログは７日後に `ｌｏｇｒｏｔａｔｅ` が削除します（ｄａｉｌｙ）。"])
    said = "ログは 7 日後に `logrotate` が削除します [1]。"
    assert drop_unsupported(said, manual) == (said, [])


def test_a_number_the_manual_does_not_state_is_still_unsupported():
    manual = Evidence(["ログは７日後に削除されます。"])
    kept, missing = drop_unsupported("ログは 30 日後に削除されます [1]。", manual)
    assert kept == "" and missing == ["30"]
