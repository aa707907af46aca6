import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  describeModel,
  IndexingTracker,
  renderStatusBody,
  statusBarLook,
  statusSummary,
} from "../../src/common/statusView";

describe("IndexingTracker and the status bar", () => {
  it("shows the indexing percentage while the server reports progress, then the idle look", () => {
    const t = new IndexingTracker();
    assert.equal(statusBarLook("running", t).text, "$(database) groundls");
    t.apply("groundls/index/ws/1", {
      kind: "begin",
      title: "Indexing ws",
      message: "scanning files",
      percentage: 0,
    });
    assert.equal(statusBarLook("running", t).text, "$(sync~spin) groundls 0%");
    t.apply("groundls/index/ws/1", { kind: "report", message: "3 of 10 files", percentage: 30 });
    const look = statusBarLook("running", t);
    assert.equal(look.text, "$(sync~spin) groundls 30%");
    assert.match(look.tooltip, /Indexing ws: 3 of 10 files/);
    t.apply("groundls/index/ws/1", { kind: "end", message: "10 files, 42 chunks" });
    assert.equal(t.active, false);
    assert.equal(statusBarLook("running", t).text, "$(database) groundls");
    assert.match(statusBarLook("running", t).tooltip, /Last index: 10 files, 42 chunks/);
  });

  it("averages the progress of several folders", () => {
    const t = new IndexingTracker();
    t.apply("a", { kind: "begin", title: "a", percentage: 20 });
    t.apply(7, { kind: "begin", title: "b", percentage: 60 });
    assert.equal(t.percentage, 40);
  });

  it("shows failure and start-up states regardless of progress", () => {
    const t = new IndexingTracker();
    t.apply("a", { kind: "begin", title: "a", percentage: 20 });
    assert.equal(statusBarLook("failed", t).text, "$(error) groundls");
    assert.match(
      statusBarLook("failed", t, "groundls: no server found").tooltip,
      /^groundls: no server found\nClick/,
    );
    assert.equal(statusBarLook("stopped", t, "open a folder").tooltip, "open a folder");
    assert.equal(statusBarLook("starting", t).text, "$(loading~spin) groundls");
  });
});

describe("status view", () => {
  const status = {
    folders: [
      {
        name: "ws",
        state: "ready",
        indexing: false,
        files: 7,
        chunks: 31,
        model: "all-MiniLM-L6-v2",
        index: { file: "index.sqlite", location: "~/.cache/groundls", sizeBytes: 204800 },
        lastIndex: { summary: "7 files, 31 chunks in 0.8 s" },
        lastError: null,
      },
    ],
  };

  it("renders one table per folder with counts, model and index location", () => {
    const html = renderStatusBody(status);
    assert.match(html, /<h2>ws<\/h2>/);
    assert.match(html, /<th>files<\/th><td>7<\/td>/);
    assert.match(html, /<th>chunks<\/th><td>31<\/td>/);
    assert.match(html, /all-MiniLM-L6-v2/);
    assert.match(html, /~\/\.cache\/groundls\/index\.sqlite \(200\.0 KiB\)/);
  });

  it("lists each skipped document with why, so a user can tell which one failed", () => {
    const skippedFiles = [
      {
        path: "specs/locked.pdf",
        reason: "encrypted",
        detail: "encrypted: the PDF needs a password (save a copy without one)",
      },
      { path: "scan.pdf", reason: "no-text-layer", detail: "no text layer: scanned images" },
      { path: "logo.bin", reason: "binary", detail: "" },
    ];
    const html = renderStatusBody({ folders: [{ ...status.folders[0], skippedFiles }] });
    assert.match(
      html,
      /<th>skipped specs\/locked\.pdf<\/th><td>encrypted: the PDF needs a password \(save a copy without one\)<\/td>/,
    );
    assert.match(html, /<th>skipped scan\.pdf<\/th><td>no text layer: scanned images<\/td>/);
    assert.match(html, /<th>skipped logo\.bin<\/th><td>binary<\/td>/);
  });

  it("names the models of an index instead of dumping their JSON", () => {
    assert.equal(
      describeModel({
        minilm: { model: "all-MiniLM-L6-v2-int8", version: "1.0.0", dim: 384 },
        use: { model: "use-multilingual-v3", dim: 512 },
      }),
      "minilm: all-MiniLM-L6-v2-int8 (384-d), use: use-multilingual-v3 (512-d)",
    );
    assert.equal(describeModel("all-MiniLM-L6-v2"), "all-MiniLM-L6-v2");
    assert.equal(describeModel(null), "–");
  });

  it("summarises folders on one line and says when none is open", () => {
    assert.equal(statusSummary(status), "ws: ready, 7 files, 31 chunks");
    assert.match(statusSummary({ folders: [] }), /no workspace folder/);
    assert.match(renderStatusBody({ folders: [] }), /No workspace folder is open/);
  });
});
