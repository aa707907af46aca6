"""Pure ranking helpers: weighted RRF, per-file cap, adjacent-hit merging, identifiers."""

from __future__ import annotations

from groundls.chunkers.textrules import split_identifier

from groundls.index.storage.terms import index_terms
from groundls.results import Hit
from groundls.search.fusion import (
    RankedList,
    cap_per_file,
    merge_adjacent,
    rrf,
)
from groundls.search.query import analyse


def hit(path: str, start: int, end: int, crumb: tuple[str, ...] = ("A",)) -> Hit:
    return Hit(
        f"{start:016x}", path, start, end, "doc", "markdown", "section", "t", crumb, f"l{start}"
    )


def test_rrf_uses_k_60_and_weights():
    scores = rrf([RankedList("v", 1.0, [1, 2]), RankedList("k", 2.0, [2, 3])])
    assert scores[2] == 1 / 62 + 2 / 61
    assert scores[1] == 1 / 61
    assert max(scores, key=scores.get) == 2


def test_rrf_ignores_lists_with_zero_weight():
    assert rrf([RankedList("v", 0.0, [1])]) == {}


def test_cap_per_file_keeps_order_and_limits_each_path():
    assert cap_per_file([(1, "a"), (2, "a"), (3, "b"), (4, "a")], 2) == [1, 2, 3]
    assert cap_per_file([(1, "a"), (2, "a")], 0) == [1, 2]


def test_adjacent_hits_of_one_section_merge_into_the_better_ranked_one():
    merged = merge_adjacent([hit("a.md", 10, 20), hit("b.md", 1, 5), hit("a.md", 21, 30)])
    assert [(h.path, h.start_line, h.end_line) for h in merged] == [
        ("a.md", 10, 30),
        ("b.md", 1, 5),
    ]
    assert merged[0].chunk_id == f"{10:016x}"


def test_merged_line_windows_are_titled_by_their_merged_lines_and_named_chunks_keep_their_name():
    def window(start: int, end: int, title: str) -> Hit:
        return Hit(
            f"{start:016x}", "prh.yml", start, end, "config", "yaml", "window", title, (), "x"
        )

    (merged,) = merge_adjacent([window(1, 40, "lines 1-40"), window(39, 78, "lines 39-78")])
    assert (merged.start_line, merged.end_line, merged.title) == (1, 78, "lines 1-78")
    (named,) = merge_adjacent([window(1, 40, "rules"), window(39, 78, "lines 39-78")])
    assert named.title == "rules"


def test_hits_of_different_sections_or_far_apart_do_not_merge():
    merged = merge_adjacent([hit("a.md", 10, 20), hit("a.md", 21, 30, ("B",)), hit("a.md", 40, 50)])
    assert len(merged) == 3


def test_identifier_helpers_split_and_detect():
    assert split_identifier("parseHTTPResponse_fast") == ["parse", "http", "response", "fast"]
    assert analyse("get_terminal_size").is_symbol and analyse("Context.invoke").is_symbol
    assert analyse("Request").is_symbol and not analyse("how do I retry").is_symbol
    assert {"invoke", "context.invoke", "max_width"} <= analyse(
        "where is Context.invoke or max_width?"
    ).identifiers
    assert "terminal" in index_terms("get_terminal_size").split()


def test_a_qualified_name_names_its_last_part_not_its_qualifiers():
    q = analyse("Rack::Response")
    assert q.names == {"Response", "Rack::Response"}
    assert "rack" not in q.identifiers and "rack" in q.words
