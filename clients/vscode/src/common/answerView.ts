/** The answer panel's state and HTML: streamed text, [n] citation links, not-found, model, timing. */

import { locationLabel } from "./citations";
import { contentSecurityPolicy, escapeHtml } from "./html";
import type { AskResult, Citation, Verdict } from "./protocol";

export type Phase = "asking" | "streaming" | "done" | "failed";

export interface AnswerState {
  question: string;
  phase: Phase;
  /** Answer text so far (the server streams the whole text on every report). */
  text: string;
  /** A progress note that is not answer text ("Found 3 source(s); answering..."). */
  note?: string;
  result?: AskResult;
  error?: string;
  startedAt: number;
  elapsedMs?: number;
  /** How many streamed text updates arrived before the result. */
  streamed: number;
}

/** What the server sends on the ask request's work-done token. */
export interface ProgressValue {
  kind: "begin" | "report" | "end";
  title?: string;
  message?: string;
}

const STATUS_NOTE = /^Found \d+ source\(s\)/;

export function startAnswer(question: string, now: number): AnswerState {
  return { question, phase: "asking", text: "", startedAt: now, streamed: 0 };
}

/** Fold one `$/progress` value into the state: reports carry the whole answer so far. */
export function applyProgress(state: AnswerState, value: ProgressValue): AnswerState {
  if (state.phase === "done" || state.phase === "failed") {
    return state;
  }
  if (value.kind !== "report" || value.message === undefined) {
    return state;
  }
  if (STATUS_NOTE.test(value.message)) {
    return { ...state, note: value.message };
  }
  return {
    ...state,
    phase: "streaming",
    text: value.message,
    note: undefined,
    streamed: state.streamed + 1,
  };
}

export function finishAnswer(state: AnswerState, result: AskResult, now: number): AnswerState {
  return {
    ...state,
    phase: "done",
    result,
    text: result.answer,
    note: undefined,
    elapsedMs: now - state.startedAt,
  };
}

export function failAnswer(state: AnswerState, error: string, now: number): AnswerState {
  return { ...state, phase: "failed", error, note: undefined, elapsedMs: now - state.startedAt };
}

/** A citation's supporting lines, those of a shape this view can show (a record written by an
 * older server kept them as [line, text] pairs). */
function supportOf(c: Citation): { line: number; text: string }[] {
  return (c.support ?? []).filter(
    (s): s is { line: number; text: string } =>
      typeof s === "object" && s !== null && typeof s.text === "string",
  );
}

/** The evidence of a citation at a glance: its place, then the lines that support it. */
function citeTitle(c: Citation): string {
  const lines = supportOf(c).map((s) => `${s.line}: ${s.text}`);
  return [locationLabel(c), ...lines].join(" · ");
}

function citeLink(c: Citation, text: string): string {
  const weak = c.weak ? " weak" : "";
  return (
    `<a class="cite${weak}" href="#" data-n="${c.n}" ` +
    `title="${escapeHtml(citeTitle(c))}">${escapeHtml(text)}</a>`
  );
}

/** Escape a run of prose and turn **bold** and [n] / [1, 2] markers into markup. */
function renderProse(text: string, citations: readonly Citation[]): string {
  let html = escapeHtml(text);
  html = html.replace(/\*\*([^*\n]+)\*\*/g, "<strong>$1</strong>");
  html = html.replace(/\[(\d+(?:\s*,\s*\d+)*)\]/g, (whole: string, list: string) => {
    const numbers = list.split(",").map((s) => Number(s.trim()));
    const found = numbers.map((n) => citations.find((c) => c.n === n));
    if (found.some((c) => c === undefined)) {
      return whole;
    }
    return (found as Citation[]).map((c) => citeLink(c, `[${c.n}]`)).join("");
  });
  return html;
}

/** A line that starts a new visual line: a heading, list item, quote or citation label. */
const LINE_START = /^\s*(#{1,6}\s|[-*+]\s|\d+[.)]\s|&gt;|\[\d+\]|<a class="cite)/;

/**
 * Join the lines of a paragraph as Markdown does (a newline is a space), but keep the break
 * before headings, list items, quotes and `[n]` labels, and after a heading line.
 */
function joinLines(html: string): string {
  const lines = html.split("\n");
  let out = lines[0];
  for (let i = 1; i < lines.length; i++) {
    const hard = LINE_START.test(lines[i]) || /^\s*#{1,6}\s/.test(lines[i - 1]);
    out += (hard ? "<br>" : " ") + lines[i];
  }
  return out;
}

/** A fenced code block (```lang … ```) as it stands in an answer, blank lines and all. */
const FENCED = /^```[\w+-]*[ \t]*\n([\s\S]*?)\n```[ \t]*$/gm;

/**
 * Render answer text: paragraphs, line breaks, `code`, **bold**, fenced code blocks (as written,
 * in a pre) and clickable [n] citations.
 */
export function renderAnswerText(text: string, citations: readonly Citation[]): string {
  const normalised = text.replace(/\r\n/g, "\n");
  const out: string[] = [];
  let last = 0;
  for (const m of normalised.matchAll(FENCED)) {
    out.push(renderParagraphs(normalised.slice(last, m.index), citations));
    out.push(`<pre><code>${escapeHtml(m[1])}</code></pre>`);
    last = m.index + m[0].length;
  }
  out.push(renderParagraphs(normalised.slice(last), citations));
  return out.filter((part) => part !== "").join("\n");
}

function renderParagraphs(text: string, citations: readonly Citation[]): string {
  const paragraphs = text.split(/\n{2,}/).filter((p) => p.trim() !== "");
  return paragraphs
    .map((paragraph) => {
      const parts = paragraph.split(/(`[^`\n]+`)/);
      const inner = parts
        .map((part, i) =>
          i % 2 === 1
            ? `<code>${escapeHtml(part.slice(1, -1))}</code>`
            : renderProse(part, citations),
        )
        .join("");
      return `<p>${joinLines(inner)}</p>`;
    })
    .join("\n");
}

/** The numbered list of sources under the answer. */
export function renderCitationList(citations: readonly Citation[]): string {
  if (citations.length === 0) {
    return "";
  }
  const items = [...citations]
    .sort((a, b) => a.n - b.n)
    .map((c) => {
      const title = c.title ? ` <span class="title">${escapeHtml(c.title)}</span>` : "";
      const weak = c.weak ? ` <span class="badge">weak match</span>` : "";
      const support = supportOf(c)
        .map(
          (s) =>
            `<div class="support"><span class="line">${s.line}</span> ${escapeHtml(s.text)}</div>`,
        )
        .join("");
      return `<li>${citeLink(c, `[${c.n}] ${locationLabel(c)}`)}${title}${weak}${support}</li>`;
    })
    .join("\n");
  return `<section class="sources"><h2>Sources</h2><ol>\n${items}\n</ol></section>`;
}

function formatMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}

/** "model · mode · retrieve 12 ms · first token 300 ms · total 1.2 s". */
export function renderMeta(result: AskResult | undefined, elapsedMs?: number): string {
  const parts: string[] = [];
  if (result) {
    parts.push(result.model ? `model ${result.model}` : "no model");
    if (result.mode) {
      parts.push(`mode ${result.mode}`);
    }
    const timing = result.timing ?? {};
    const labels: [string, string][] = [
      ["retrieve_ms", "retrieve"],
      ["first_token_ms", "first token"],
      ["total_ms", "total"],
    ];
    for (const [key, label] of labels) {
      const value = timing[key];
      if (typeof value === "number" && Number.isFinite(value)) {
        parts.push(`${label} ${formatMs(value)}`);
      }
    }
  }
  if (elapsedMs !== undefined) {
    parts.push(`round trip ${formatMs(elapsedMs)}`);
  }
  if (parts.length === 0) {
    return "";
  }
  return `<footer class="meta">${parts.map(escapeHtml).join(" · ")}</footer>`;
}

/** Why the answer is "not found": the evidence that decided, in words. */
function renderVerdict(verdict: Verdict | undefined): string {
  if (!verdict?.why) {
    return "";
  }
  return `<p class="hint verdict">Not found: ${escapeHtml(verdict.why)}.</p>`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The panel's inner HTML for a state. */
export function renderAnswerBody(state: AnswerState): string {
  const out: string[] = [`<h1 class="question">${escapeHtml(state.question)}</h1>`];
  const citations = state.result?.citations ?? [];
  if (state.phase === "asking") {
    out.push(
      `<p class="status" role="status">${escapeHtml(state.note ?? "Searching the workspace…")}</p>`,
    );
  } else if (state.phase === "streaming") {
    out.push(`<div class="answer streaming">${renderAnswerText(state.text, citations)}</div>`);
    out.push(`<p class="status" role="status">Writing the answer…</p>`);
  } else if (state.phase === "failed") {
    out.push(
      `<div class="error" role="alert"><strong>The question could not be answered.</strong>` +
        `<p>${escapeHtml(state.error ?? "unknown error")}</p></div>`,
    );
  } else if (state.result && !state.result.found) {
    out.push(
      `<div class="notfound" role="status"><strong>Not found in this workspace.</strong>` +
        `<p>${escapeHtml(state.result.answer || "Nothing indexed here answers that question.")}</p>` +
        renderVerdict(state.result.verdict) +
        `<p class="hint">Try other words, or check with “groundls: Show index status” that the files are indexed.</p></div>`,
    );
  } else if (state.result) {
    if (state.result.mode === "extractive") {
      out.push(
        `<p class="badge-line"><span class="badge">extractive</span> excerpts from the workspace, not a generated answer</p>`,
      );
    }
    out.push(`<div class="answer">${renderAnswerText(state.result.answer, citations)}</div>`);
    if (state.result.mode === "llm" && state.result.notice) {
      out.push(`<p class="hint">${escapeHtml(capitalize(state.result.notice))}.</p>`);
    } else if (state.result.mode === "llm" && state.result.cut) {
      out.push(`<p class="hint">The answer was cut short.</p>`);
    }
  }
  if (state.result?.indexing) {
    out.push(
      `<p class="hint">Indexing is still in progress: this answer uses what is indexed so far.</p>`,
    );
  }
  if (state.phase === "done" && state.result?.found) {
    out.push(renderCitationList(citations));
  }
  if (state.phase === "done" || state.phase === "failed") {
    out.push(renderMeta(state.result, state.elapsedMs));
  }
  return out.filter((s) => s !== "").join("\n");
}

const STYLE = `
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size);
  color: var(--vscode-foreground); background: var(--vscode-editor-background);
  padding: 0 20px 20px; line-height: 1.5; max-width: 60em; }
h1.question { font-size: 1.25em; font-weight: 600; margin: 1em 0 0.6em;
  border-bottom: 1px solid var(--vscode-panel-border, var(--vscode-editorWidget-border, transparent));
  padding-bottom: 0.4em; }
h2 { font-size: 1em; font-weight: 600; margin: 1.2em 0 0.3em; color: var(--vscode-descriptionForeground); }
a.cite { color: var(--vscode-textLink-foreground); text-decoration: none; cursor: pointer; }
a.cite:hover, a.cite:focus { color: var(--vscode-textLink-activeForeground); text-decoration: underline; }
a.cite:focus { outline: 1px solid var(--vscode-focusBorder); outline-offset: 1px; }
a.cite.weak { opacity: 0.8; }
.sources ol { list-style: none; padding-left: 0; margin: 0; }
.sources li { margin: 0.2em 0; }
.sources .title { color: var(--vscode-descriptionForeground); }
code { font-family: var(--vscode-editor-font-family); font-size: 0.95em;
  background: var(--vscode-textCodeBlock-background); padding: 0 0.25em; border-radius: 3px; }
pre { background: var(--vscode-textCodeBlock-background); padding: 0.5em; border-radius: 3px;
  overflow-x: auto; }
pre code { padding: 0; background: none; }
.status, .hint, .meta, .badge-line { color: var(--vscode-descriptionForeground); }
.meta { margin-top: 1.5em; font-size: 0.9em; }
.badge { display: inline-block; font-size: 0.8em; padding: 0 0.5em; border-radius: 8px;
  background: var(--vscode-badge-background); color: var(--vscode-badge-foreground); }
.notfound { border-left: 3px solid var(--vscode-editorWarning-foreground, var(--vscode-descriptionForeground));
  padding: 0.2em 0.8em; }
.error { border-left: 3px solid var(--vscode-errorForeground); padding: 0.2em 0.8em; }
.error strong { color: var(--vscode-errorForeground); }
table.status { border-collapse: collapse; }
table.status th { text-align: left; font-weight: normal; padding: 0.15em 1.5em 0.15em 0;
  color: var(--vscode-descriptionForeground); vertical-align: top; }
table.status td { padding: 0.15em 0; }
.streaming p:last-child::after { content: "▍"; opacity: 0.6; }
`;

const SCRIPT = `
const vscode = acquireVsCodeApi();
const root = document.getElementById("root");
window.addEventListener("message", (event) => {
  const msg = event.data;
  if (msg && msg.type === "render" && typeof msg.html === "string") {
    root.innerHTML = msg.html;
  }
});
document.addEventListener("click", (event) => {
  const link = event.target instanceof Element ? event.target.closest("a.cite") : null;
  if (link) {
    event.preventDefault();
    vscode.postMessage({ type: "open", n: Number(link.getAttribute("data-n")) });
  }
});
vscode.postMessage({ type: "ready" });
`;

/** A whole webview document with a strict CSP: only nonce'd inline style and script run. */
export function renderPage(opts: {
  cspSource: string;
  nonce: string;
  title: string;
  body: string;
  /** Include the panel script (citation clicks, streamed updates); off for static pages. */
  script?: boolean;
}): string {
  const csp = contentSecurityPolicy(opts.cspSource, opts.nonce);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escapeHtml(opts.title)}</title>
<style nonce="${opts.nonce}">${STYLE}</style>
</head>
<body>
<main id="root">${opts.body}</main>
${opts.script === false ? "" : `<script nonce="${opts.nonce}">${SCRIPT}</script>\n`}</body>
</html>`;
}
