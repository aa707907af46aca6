import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  citationByNumber,
  documentOfView,
  joinUri,
  locationLabel,
  targetOf,
} from "../../src/common/citations";
import { contentSecurityPolicy, escapeHtml, makeNonce } from "../../src/common/html";
import { composeQuestion, hitItem, MAX_CONTEXT_CHARS } from "../../src/common/question";
import type { Hit } from "../../src/common/protocol";

describe("targetOf", () => {
  it("uses the server's uri and range, where an end at column 0 excludes that line", () => {
    const target = targetOf(
      {
        uri: "file:///ws/docs/auth.md",
        range: { start: { line: 2, character: 0 }, end: { line: 7, character: 0 } },
        path: "docs/auth.md",
        startLine: 3,
        endLine: 7,
      },
      ["file:///other"],
    );
    assert.deepEqual(target, { uri: "file:///ws/docs/auth.md", startLine: 2, endLine: 6 });
  });

  it("resolves a bare relative path with 1-based lines against the first folder", () => {
    const target = targetOf({ path: "docs/休暇 notes.md", startLine: 4, endLine: 9 }, [
      "file:///ws/",
    ]);
    assert.deepEqual(target, {
      uri: "file:///ws/docs/%E4%BC%91%E6%9A%87%20notes.md",
      startLine: 3,
      endLine: 8,
    });
  });

  it("opens a document's citation in its read-only text view, titled by file and page", () => {
    const target = targetOf(
      {
        uri: "file:///ws/specs/%E4%BB%95%E6%A7%98.pdf",
        range: { start: { line: 40, character: 0 }, end: { line: 52, character: 0 } },
        path: "specs/仕様.pdf",
        startLine: 41,
        endLine: 52,
        place: "p. 12",
      },
      [],
    );
    assert.ok(target);
    assert.equal(
      target.uri,
      "groundls-doc:/specs/%E4%BB%95%E6%A7%98.pdf%20(p.%2012)?file%3A%2F%2F%2Fws%2Fspecs%2F%25E4%25BB%2595%25E6%25A7%2598.pdf",
    );
    assert.deepEqual([target.startLine, target.endLine], [40, 51]);
    const query = target.uri.slice(target.uri.indexOf("?") + 1);
    assert.equal(documentOfView(query), "file:///ws/specs/%E4%BB%95%E6%A7%98.pdf");
    assert.equal(documentOfView(""), undefined);
    assert.equal(documentOfView(encodeURIComponent("https://example.com/x.pdf")), undefined);
  });

  it("labels a document's place by page, a text file's by lines", () => {
    const pdf = { path: "manual.pdf", startLine: 3, endLine: 9, place: "pp. 2–3" };
    assert.equal(locationLabel(pdf), "manual.pdf pp. 2–3");
    assert.equal(locationLabel({ path: "a.md", startLine: 3, endLine: 9 }), "a.md:3-9");
  });

  it("has no target without a uri or an open folder", () => {
    assert.equal(targetOf({ path: "a.md", startLine: 1, endLine: 1 }, []), undefined);
  });

  it("keeps one-line ranges that end mid-line", () => {
    const target = targetOf(
      {
        uri: "file:///a",
        range: { start: { line: 5, character: 0 }, end: { line: 5, character: 10 } },
        path: "a",
        startLine: 6,
        endLine: 6,
      },
      [],
    );
    assert.deepEqual(target, { uri: "file:///a", startLine: 5, endLine: 5 });
  });
});

describe("labels and lookups", () => {
  it("labels locations the way people read them", () => {
    assert.equal(locationLabel({ path: "a.md", startLine: 3, endLine: 7 }), "a.md:3-7");
    assert.equal(locationLabel({ path: "a.md", startLine: 3, endLine: 3 }), "a.md:3");
    assert.equal(joinUri("file:///ws", "./a//b.md"), "file:///ws/a/b.md");
  });

  it("finds citations by their number, not their position", () => {
    assert.equal(citationByNumber([{ n: 2, path: "b", startLine: 1, endLine: 1 }], 2)?.path, "b");
    assert.equal(citationByNumber([{ n: 2, path: "b", startLine: 1, endLine: 1 }], 1), undefined);
  });
});

describe("html helpers", () => {
  it("escapes the five HTML specials", () => {
    assert.equal(
      escapeHtml(`<a href="x">'&'</a>`),
      "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;",
    );
  });

  it("makes alphanumeric nonces of the asked length", () => {
    const nonce = makeNonce(() => 0.5, 16);
    assert.match(nonce, /^[A-Za-z0-9]{16}$/);
    assert.notEqual(makeNonce(), makeNonce());
    assert.match(
      contentSecurityPolicy("vscode-src", "n1"),
      /^default-src 'none'; style-src vscode-src 'nonce-n1'; script-src 'nonce-n1'/,
    );
  });
});

describe("composeQuestion", () => {
  it("sends the question alone when nothing is selected", () => {
    assert.equal(composeQuestion("  why?  "), "why?");
  });

  it("adds the selection as context with where it came from", () => {
    const q = composeQuestion("What calls this?", {
      text: "def check_session(token):",
      path: "src/s.py",
      line: 12,
    });
    assert.equal(
      q,
      "What calls this?\n\nContext (selected in src/s.py:12):\ndef check_session(token):",
    );
  });

  it("asks about the selection itself when the question is empty, and caps its length", () => {
    const q = composeQuestion("", {
      text: "x".repeat(MAX_CONTEXT_CHARS + 50),
      path: "a.md",
      line: 1,
    });
    assert.match(q, /^What does this \(from a\.md:1\) mean/);
    assert.ok(q.endsWith("…"));
    assert.ok(q.length < MAX_CONTEXT_CHARS + 200);
  });
});

describe("hitItem", () => {
  it("shows title, location with breadcrumb and a one-line preview", () => {
    const hit: Hit = {
      chunkId: "0123456789abcdef",
      uri: "file:///ws/docs/auth.md",
      range: { start: { line: 2, character: 0 }, end: { line: 7, character: 0 } },
      path: "docs/auth.md",
      startLine: 3,
      endLine: 7,
      kind: "doc",
      title: "Sessions",
      breadcrumb: ["Signing in", "Sessions"],
      snippet: "After a successful login\n   the server issues",
      score: 0.8,
    };
    assert.deepEqual(hitItem(hit), {
      label: "$(book) Sessions",
      description: "docs/auth.md:3-7 · Signing in",
      detail: "After a successful login the server issues",
    });
    assert.equal(hitItem({ ...hit, kind: "code", title: "" }).label, "$(symbol-method) auth.md");
  });
});
