import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  askedLabel,
  type HistoryEntry,
  questionLabel,
  resultOf,
  threadsOf,
} from "../../src/common/historyView";

function entry(id: number, thread: number, question: string, folder = "ws"): HistoryEntry {
  return { id, thread, folder, question, answer: `answer ${id} [1]`, found: true, askedAt: 0 };
}

describe("past questions", () => {
  it("groups follow-ups under their thread, the latest-asked thread first, oldest turn first", () => {
    // newest first, as groundls.history lists them
    const threads = threadsOf([
      entry(5, 3, "and on Windows?"),
      entry(4, 4, "where are logs kept?"),
      entry(3, 3, "how do sessions expire?"),
      entry(2, 2, "how do sessions expire?", "other"),
    ]);
    assert.deepEqual(
      threads.map((t) => [t.folder, t.thread, t.entries.map((e) => e.id)]),
      [
        ["ws", 3, [3, 5]],
        ["ws", 4, [4]],
        ["other", 2, [2]],
      ],
    );
  });

  it("shows a question on one line, cut with an ellipsis", () => {
    assert.equal(questionLabel("how do\nsessions expire?"), "how do");
    assert.equal(questionLabel("x".repeat(100), 10), "xxxxxxxxx…");
  });

  it("dates a record in local time and leaves an undated one blank", () => {
    assert.match(askedLabel(1_800_000_000), /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
    assert.equal(askedLabel(undefined), "");
  });

  it("opens a past answer with its citations and thread, as the panel shows a new one", () => {
    const past: HistoryEntry = {
      ...entry(7, 6, "q"),
      citations: [{ n: 1, path: "docs/a.md", startLine: 3, endLine: 9 }],
      mode: "llm",
    };
    const result = resultOf(past);
    assert.equal(result.answer, "answer 7 [1]");
    assert.equal(result.thread, 6);
    assert.deepEqual(
      result.citations.map((c) => c.path),
      ["docs/a.md"],
    );
  });
});
