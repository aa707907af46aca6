import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  applyProgress,
  failAnswer,
  finishAnswer,
  renderAnswerBody,
  renderAnswerText,
  renderCitationList,
  renderMeta,
  renderPage,
  startAnswer,
} from "../../src/common/answerView";
import type { AskResult, Citation } from "../../src/common/protocol";

const citations: Citation[] = [
  {
    n: 1,
    chunkId: "0123456789abcdef",
    uri: "file:///ws/docs/auth.md",
    range: { start: { line: 2, character: 0 }, end: { line: 7, character: 0 } },
    path: "docs/auth.md",
    startLine: 3,
    endLine: 7,
    title: "Sessions",
  },
  { n: 2, path: "src/auth/session.py", startLine: 20, endLine: 20, weak: true },
];

const answer: AskResult = {
  answer: "Sessions expire after thirty minutes [1]. Tokens are checked in `check_session` [2].",
  found: true,
  citations,
  mode: "llm",
  model: "qwen2.5-0.5b-instruct-q4",
  timing: { retrieve_ms: 12.4, first_token_ms: 310, total_ms: 1840 },
};

describe("renderAnswerText", () => {
  it("turns [n] markers into links carrying the citation number and location", () => {
    const html = renderAnswerText(answer.answer, citations);
    assert.match(html, /<a class="cite" href="#" data-n="1" title="docs\/auth\.md:3-7">\[1\]<\/a>/);
    assert.match(
      html,
      /<a class="cite weak" href="#" data-n="2" title="src\/auth\/session\.py:20">\[2\]<\/a>/,
    );
    assert.match(html, /<code>check_session<\/code>/);
  });

  it("splits grouped markers [1, 2] into one link per citation", () => {
    const html = renderAnswerText("Both say so [1, 2].", citations);
    assert.match(html, /data-n="1"[^>]*>\[1\]<\/a><a class="cite weak" href="#" data-n="2"/);
  });

  it("leaves a marker without a matching citation as plain text", () => {
    const html = renderAnswerText("See [7] and [1].", citations);
    assert.match(html, /See \[7\] and <a/);
  });

  it("escapes HTML in the answer so model output cannot inject markup", () => {
    const html = renderAnswerText('<img src=x onerror="alert(1)"> & **bold** `<b>`', []);
    assert.ok(!html.includes("<img"));
    assert.match(
      html,
      /&lt;img src=x onerror=&quot;alert\(1\)&quot;&gt; &amp; <strong>bold<\/strong>/,
    );
    assert.match(html, /<code>&lt;b&gt;<\/code>/);
  });

  it("shows a fenced code block as written, blank lines kept and markup escaped", () => {
    const html = renderAnswerText(
      'Add this to `~/.bashrc`: [1]\n\n```bash\neval "$(x)"\n\nif a < b; then [1]; fi\n```\n\nDone.',
      citations,
    );
    assert.equal(
      html,
      '<p>Add this to <code>~/.bashrc</code>: <a class="cite" href="#" data-n="1" ' +
        'title="docs/auth.md:3-7">[1]</a></p>\n' +
        "<pre><code>eval &quot;$(x)&quot;\n\nif a &lt; b; then [1]; fi</code></pre>\n<p>Done.</p>",
    );
  });

  it("keeps paragraphs and joins soft-wrapped lines as Markdown does", () => {
    assert.equal(renderAnswerText("a\nb\n\n\nc", []), "<p>a b</p>\n<p>c</p>");
  });

  it("keeps line breaks before headings, list items and [n] labels, and after headings", () => {
    const html = renderAnswerText(
      "intro\n[1] a.md:1\n# Title\nbody wraps\nhere\n- item\n2. next\n> quote",
      citations,
    );
    assert.match(html, /^<p>intro<br><a class="cite"/);
    assert.match(
      html,
      /\[1\]<\/a> a\.md:1<br># Title<br>body wraps here<br>- item<br>2\. next<br>&gt; quote/,
    );
  });

  it("does not turn [n] inside inline code into a link", () => {
    const html = renderAnswerText("use `x[1]` here [1]", citations);
    assert.match(html, /<code>x\[1\]<\/code>/);
    assert.equal(html.match(/<a /g)?.length, 1);
  });
});

describe("renderCitationList and renderMeta", () => {
  it("lists sources in citation order with location, title and weak marker", () => {
    const html = renderCitationList([citations[1], citations[0]]);
    const first = html.indexOf('data-n="1"');
    const second = html.indexOf('data-n="2"');
    assert.ok(first > 0 && second > first);
    assert.match(html, /\[1\] docs\/auth\.md:3-7<\/a> <span class="title">Sessions<\/span>/);
    assert.match(html, /weak match/);
    assert.equal(renderCitationList([]), "");
  });

  it("shows the model, the mode and the server's timings", () => {
    const html = renderMeta(answer, 2100);
    assert.match(
      html,
      /model qwen2\.5-0\.5b-instruct-q4 · mode llm · retrieve 12 ms · first token 310 ms · total 1\.8 s · round trip 2\.1 s/,
    );
    assert.match(
      renderMeta({ ...answer, model: "", mode: "extractive", timing: {} }),
      /no model · mode extractive/,
    );
  });
});

describe("answer states", () => {
  it("streams the whole text from each report and shows the sources note before tokens", () => {
    let state = startAnswer("How do sessions expire?", 1000);
    state = applyProgress(state, { kind: "begin", title: "groundls: answering" });
    assert.equal(state.phase, "asking");
    state = applyProgress(state, { kind: "report", message: "Found 3 source(s); answering..." });
    assert.equal(state.note, "Found 3 source(s); answering...");
    assert.match(renderAnswerBody(state), /Found 3 source\(s\)/);
    state = applyProgress(state, { kind: "report", message: "Sessions" });
    state = applyProgress(state, { kind: "report", message: "Sessions expire" });
    assert.equal(state.phase, "streaming");
    assert.equal(state.text, "Sessions expire");
    assert.equal(state.streamed, 2);
    assert.match(renderAnswerBody(state), /class="answer streaming"><p>Sessions expire<\/p>/);
  });

  it("ignores late progress after the final result arrived", () => {
    let state = finishAnswer(startAnswer("q", 0), answer, 50);
    state = applyProgress(state, { kind: "report", message: "stale" });
    assert.equal(state.text, answer.answer);
    assert.equal(state.elapsedMs, 50);
  });

  it("renders a finished answer with links, sources and meta", () => {
    const body = renderAnswerBody(
      finishAnswer(startAnswer("How do sessions expire?", 0), answer, 2000),
    );
    assert.match(body, /<h1 class="question">How do sessions expire\?<\/h1>/);
    assert.match(body, /<section class="sources">/);
    assert.match(body, /class="meta"/);
    assert.equal(body.includes("Not found"), false);
  });

  it("shows a clear not-found state without sources", () => {
    const notFound: AskResult = {
      answer: "No matching chunks were found in this workspace.",
      found: false,
      citations: [],
      mode: "not_found",
      model: "",
    };
    const body = renderAnswerBody(
      finishAnswer(startAnswer("What is the airspeed of a swallow?", 0), notFound, 10),
    );
    assert.match(body, /class="notfound"/);
    assert.match(body, /Not found in this workspace/);
    assert.equal(body.includes('class="sources"'), false);
  });

  it("says which evidence decided a not-found answer", () => {
    const notFound: AskResult = {
      answer: "The workspace does not say. Places to look: docs/api.rst:10-40.",
      found: false,
      citations: [],
      mode: "not_found",
      verdict: {
        outcome: "not_found",
        decidedBy: "standing",
        why: "the question is no nearer to the workspace than 20% of off-topic questions",
      },
    };
    const body = renderAnswerBody(
      finishAnswer(startAnswer("How long to boil an egg?", 0), notFound, 10),
    );
    assert.match(
      body,
      /Not found: the question is no nearer to the workspace than 20% of off-topic questions\./,
    );
    assert.match(body, /Places to look: docs\/api\.rst:10-40/);
  });

  it("marks extractive answers and indexing in progress", () => {
    const body = renderAnswerBody(
      finishAnswer(startAnswer("q", 0), { ...answer, mode: "extractive", indexing: true }, 10),
    );
    assert.match(body, /<span class="badge">extractive<\/span>/);
    assert.match(body, /Indexing is still in progress/);
  });

  it("says why a generated answer was cut, but not for extractive answers", () => {
    const cut = { ...answer, cut: true, notice: "answer cut (time limit 30 s)" };
    assert.match(
      renderAnswerBody(finishAnswer(startAnswer("q", 0), cut, 10)),
      /<p class="hint">Answer cut \(time limit 30 s\)\.<\/p>/,
    );
    const extractive = { ...cut, mode: "extractive" };
    assert.equal(
      renderAnswerBody(finishAnswer(startAnswer("q", 0), extractive, 10)).includes("Answer cut"),
      false,
    );
  });

  it("shows errors escaped in an alert", () => {
    const body = renderAnswerBody(failAnswer(startAnswer("q", 0), "boom <script>", 5));
    assert.match(body, /role="alert"/);
    assert.match(body, /boom &lt;script&gt;/);
  });
});

describe("renderPage", () => {
  it("sets a strict content security policy where only nonce'd style and script run", () => {
    const html = renderPage({
      cspSource: "https://x.vscode-cdn.net",
      nonce: "abc123",
      title: "t",
      body: "<p>b</p>",
    });
    const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? "";
    assert.match(csp, /default-src &#39;none&#39;/);
    assert.match(csp, /script-src &#39;nonce-abc123&#39;/);
    assert.ok(!csp.includes("unsafe-inline"));
    assert.match(html, /<script nonce="abc123">/);
    assert.match(html, /<style nonce="abc123">/);
    assert.match(html, /var\(--vscode-editor-background\)/);
    assert.match(html, /<main id="root"><p>b<\/p><\/main>/);
  });
});

describe("citation evidence", () => {
  it("shows a citation's supporting lines on hover and under its source", () => {
    const cite = {
      n: 1,
      path: "src/upload.py",
      startLine: 10,
      endLine: 16,
      support: [{ line: 12, text: "for i in range(attempts):" }],
    };
    const html = renderAnswerText("Uploads are retried [1].", [cite]);
    assert.match(html, /title="src\/upload\.py:10-16 · 12: for i in range\(attempts\):"/);
    const list = renderCitationList([cite]);
    assert.match(
      list,
      /<div class="support"><span class="line">12<\/span> for i in range\(attempts\):<\/div>/,
    );
  });
});
