"""The answer's repairs: named passes in one loop, each counted when it fires."""

from __future__ import annotations

from groundls.answer.stages.prompt import Excerpt
from groundls.answer.text import passes
from groundls.results import Hit

RETRY = Hit(
    chunk_id="c1",
    path="src/upload.py",
    start_line=10,
    end_line=16,
    kind="code",
    language="python",
    text_type="code",
    title="retry_upload",
    breadcrumb=("upload.py", "retry_upload"),
    text=(
        "def retry_upload(path, attempts=3):\n"
        '    """Send the file again after a failure, waiting 2 seconds between tries."""\n'
        "    for _ in range(attempts):\n"
        "        if send(path):\n"
        "            return True\n"
        "        time.sleep(2)\n"
        "    return False\n"
    ),
)
GUIDE = Hit(
    chunk_id="c2",
    path="docs/guide.md",
    start_line=1,
    end_line=4,
    kind="doc",
    language="markdown",
    text_type="prose",
    title="Uploads",
    breadcrumb=("guide.md", "Uploads"),
    text="# Uploads\n\nFailed uploads are retried three times by retry_upload.\n",
)
EXCERPTS = [Excerpt(1, RETRY, RETRY.text), Excerpt(2, GUIDE, GUIDE.text)]
QUESTION = "where do we retry failed uploads?"


def draft(text: str, **kw: object) -> passes.Draft:
    return passes.Draft(text, QUESTION, "en", EXCERPTS, **kw)  # type: ignore[arg-type]


def test_the_passes_run_in_one_loop_and_count_only_those_that_fired():
    d = draft("`retry_upload` sends the file again up to `attempts` times [1] [7].")
    fired = passes.run_passes(d)
    assert fired == {"invalid_citations": 1}
    assert d.dropped == [7]
    assert "[7]" not in d.text and "[1]" in d.text


def test_a_number_the_model_cited_outside_its_text_that_names_no_excerpt_is_dropped():
    d = draft("`retry_upload` tries `attempts` times [1].", model_numbers=[1, 5])
    passes.run_passes(d)
    assert d.dropped == [5]
    assert d.cited() == [1]


def test_an_answer_resting_only_on_a_specific_the_excerpts_lack_is_emptied():
    d = draft("Install it with `pip install uploadretry-pro` [1].")
    fired = passes.run_passes(d)
    assert fired.get("unsupported_specifics", 0) >= 1
    assert "uploadretry-pro" in " ".join(d.unsupported)
    assert d.text == ""


def test_an_answer_that_cites_nothing_gets_its_source_cited_at_its_end_and_shown():
    shown: list[str] = []
    d = draft("Failed uploads are retried three times by `retry_upload`.", show=shown.append)
    fired = passes.run_passes(d)
    assert fired.get("added_citations") == 1
    assert d.added in (1, 2)
    assert d.text.endswith(f"[{d.added}]")
    assert shown == [f" [{d.added}]"]


def test_a_paragraph_that_cites_nothing_is_cited_by_its_source_so_it_leads_the_citations():
    d = draft(
        "It sends the file again, waiting 2 seconds between tries.\n\n"
        "The guide covers uploads [2].\n\n"
        "```\ntime.sleep(2)\n```\n\n"
        "Nothing here matches any excerpt at all."
    )
    fired = passes.run_passes(d)
    assert fired.get("paragraph_citations") == 1
    assert d.text.startswith("It sends the file again, waiting 2 seconds between tries. [1]\n\n")
    assert "```\ntime.sleep(2)\n```\n\nNothing here matches any excerpt at all." in d.text
    assert d.cited() == [1, 2]


def test_an_answer_citing_nothing_is_left_to_the_added_citation_not_cited_by_paragraph():
    d = draft("It sends the file again.\n\nIt waits 2 seconds between tries.")
    fired = passes.run_passes(d)
    assert "paragraph_citations" not in fired and fired.get("added_citations") == 1


def test_a_cut_answer_gets_nothing_added_to_its_end():
    d = draft("Failed uploads are retried three times by `retry_upload`.", cut=True)
    assert "added_citations" not in passes.run_passes(d)
    assert d.cited() == []


def test_the_tally_lists_every_pass_with_the_answers_it_fired_on():
    tally = passes.tally([{"invalid_citations": 2}, {"invalid_citations": 1, "lead_in": 1}, {}])
    assert list(tally) == passes.pass_names()
    assert tally["invalid_citations"] == 2
    assert tally["lead_in"] == 1
    assert tally["repeated_lines"] == 0
