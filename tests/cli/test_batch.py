"""The CLI's batch mode: one JSON line out for each line in, a bad line reported in its place."""

from __future__ import annotations

import io
import json
from pathlib import Path

from groundls.cli.common import run_batch
from groundls.results import AnswerError


def _run(lines: list[str], fields: tuple[str, ...] = ("query",)) -> tuple[int, list[dict]]:
    def handle(text: str) -> dict:
        if text == "too long":
            raise AnswerError("the question is too long")
        return {"echo": text.upper()}

    out = io.StringIO()
    status = run_batch(io.StringIO("\n".join(lines) + "\n"), out, fields, handle)
    return status, [json.loads(line) for line in out.getvalue().splitlines()]


def test_each_line_gets_its_own_row_with_its_id():
    status, rows = _run(['{"id": 1, "query": "a"}', "", '{"id": "x", "query": "b"}'])
    assert status == 0
    assert rows == [{"id": 1, "echo": "A"}, {"id": "x", "echo": "B"}]


def test_a_bad_line_is_reported_in_its_place_and_the_rest_still_run():
    status, rows = _run(
        [
            '{"id": 1, "query": "a"}',
            "not json",
            '{"id": 2}',
            '["a list"]',
            '{"id": 3, "query": "too long"}',
            '{"id": 4, "query": "d"}',
        ]
    )
    assert status == 1
    assert rows[0] == {"id": 1, "echo": "A"} and rows[-1] == {"id": 4, "echo": "D"}
    errors = [r["error"] for r in rows[1:-1]]
    assert errors[0].startswith("line 2: ")
    assert errors[1] == 'line 3: missing "query" string' and rows[2]["id"] == 2
    assert errors[2] == "line 4: expected a JSON object"
    assert errors[3] == "line 5: the question is too long" and rows[4]["id"] == 3


def test_the_first_field_present_names_the_text():
    status, rows = _run(
        ['{"id": 1, "question": "q"}', '{"id": 2, "query": "r"}'], ("question", "query")
    )
    assert status == 0 and [r["echo"] for r in rows] == ["Q", "R"]


def test_status_reports_tiers_and_the_answer_engine(tmp_path: Path) -> None:
    import shutil
    import subprocess
    import sys

    root = tmp_path / "ws"
    shutil.copytree(Path(__file__).parents[1] / "fixtures" / "search_ws", root)
    index = tmp_path / "index"
    cli = [sys.executable, "-m", "groundls.cli"]
    subprocess.run([*cli, "index", "--quiet", str(root), "--index-dir", str(index)], check=True)
    out = subprocess.run(
        [*cli, "status", "--json", "-w", str(root), "--index-dir", str(index)],
        check=True,
        capture_output=True,
        text=True,
    )
    status = json.loads(out.stdout)
    spaces = {t["space"]: t for t in status["tiers"]}
    assert spaces["static"]["filled"] == spaces["static"]["wanted"] > 0
    assert spaces["minilm"]["deep"] and spaces["e5"]["deep"]
    assert spaces["e5"]["filled"] == 0 < spaces["e5"]["wanted"]  # filled later, not by index
    assert status["answers"]["engine"] == "local" and "loaded" in status["answers"]
    assert status["sends_to"] == []


def test_bench_answers_the_same_questions_beside_each_number_of_busy_processes(
    tmp_path: Path,
) -> None:
    import shutil
    import subprocess
    import sys

    root = tmp_path / "ws"
    shutil.copytree(Path(__file__).parents[1] / "fixtures" / "search_ws", root)
    questions = tmp_path / "questions.txt"
    questions.write_text("How are retries configured?\nWhere are logs kept?\n", encoding="utf-8")
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"answer": {"usePackagedModel": False}}), encoding="utf-8")
    cli = [sys.executable, "-m", "groundls.cli"]
    out = subprocess.run(
        [*cli, "bench", "--answers", str(questions), "--load", "1", "-w", str(root)]
        + ["--index-dir", str(tmp_path / "index"), "--config", str(config)],
        check=True,
        capture_output=True,
        text=True,
    )
    rows = [
        line for line in out.stdout.splitlines() if line.startswith("| ") and "|---" not in line
    ]
    assert rows[0].startswith("| busy processes")
    assert [row.split("|")[1].strip() for row in rows[1:]] == ["0", "1"]
    assert all(" of 2 |" in row for row in rows[1:])  # both questions asked in each round
