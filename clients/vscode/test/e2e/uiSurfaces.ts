// Tier (b), the editor's own surfaces: VS Code's standard features backed by the server, used as
// a person would, each checked on what the workbench shows and saved as a screenshot:
//   1. Go to Symbol in Workspace (Ctrl+T, `#` in Quick Open): groundls's code and doc hits, the
//      picked one opened at its line;
//   2. Peek References (Shift+F12) on a function: its caller, a test and a doc passage;
//   3. the code lenses above a function ("1 doc · tested in 2 · 1 caller"), one clicked: the
//      places it counts;
//   4. the light bulb menu (Ctrl+.) "Ask the workspace about this": the answer panel with the
//      line under the cursor as the question.
import * as fs from "node:fs";
import * as path from "node:path";
import type { Locator, Page } from "playwright-core";
import { env, launchBrowser, log } from "./browser";
import {
  activeTab,
  answerFrame,
  indented,
  openFile,
  openWorkbench,
  waitForCursor,
  waitUntil,
} from "./workbench";

/** The fixture's function every step is about, and where the fixture mentions it. */
const FUNCTION = "check_session";
const CODE = "src/session.py";
const TEST = "tests/test_session.py";
const DOC = "docs/sessions.md";
/** The symbol picker's query: a name in the fixture, both in code and in doc headings. */
const SYMBOL_QUERY = "session";
/** The doc passage's heading path, as groundls names a doc hit in the picker. */
const DOC_SYMBOL = "Sessions › How long a session lasts";
/** The code action's line: the cursor goes on the line holding this text. */
const ASK_LINE_TEXT = "last_seen > IDLE_TIMEOUT_SECONDS";
/** A resolved lens: `2 docs · tested in 3 · 5 callers` (`untested`, `5+ callers`). */
const LENS = /^(\d+) docs? · (?:tested in (\d+)|untested) · (\d+)\+? callers?$/;

interface Fixture {
  /** 1-based lines of the fixture's files. */
  line(rel: string, needle: string): number;
  text(rel: string, line: number): string;
}

function fixture(workspace: string): Fixture {
  const lines = (rel: string): string[] =>
    fs.readFileSync(path.join(workspace, rel), "utf8").split("\n");
  return {
    line(rel, needle) {
      const n = lines(rel).findIndex((l) => l.includes(needle));
      if (n < 0) {
        throw new Error(`the fixture's ${rel} has no line with ${needle}`);
      }
      return n + 1;
    },
    text: (rel, line) => lines(rel)[line - 1],
  };
}

/** The active editor (not the peek's embedded one, nor a hover's). */
function editor(page: Page): Locator {
  return page.locator(".editor-group-container.active .monaco-editor").first();
}

/** A line of the active editor, found by its text. */
function lineOf(page: Page, lineText: string): Locator {
  return editor(page).locator(".view-lines .view-line", { hasText: lineText }).first();
}

/** A word on a line of the active editor (a token of its own, as a name is). */
function wordOnLine(page: Page, lineText: string, word: string): Locator {
  return lineOf(page, lineText)
    .locator("span", { hasText: new RegExp(`^${word}$`) })
    .first();
}

async function resetWorkbench(page: Page): Promise<void> {
  for (let i = 0; i < 3; i++) {
    await page.keyboard.press("Escape");
  }
  await page.mouse.move(1100, 820); // no hover, no tooltip
}

async function screenshot(page: Page, dir: string, name: string): Promise<void> {
  await page.waitForTimeout(500); // widgets fade in
  const file = path.join(dir, name);
  await page.screenshot({ path: file });
  log(`screenshot: ${file}`);
}

/** 1. Go to Symbol in Workspace: groundls's hits for a name, code and docs; pick the code one. */
async function symbolPicker(page: Page, fx: Fixture, shots: string): Promise<void> {
  await openFile(page, "README.md"); // somewhere else than the symbol's file
  await page.keyboard.press("Control+T");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible" });
  const prefix = await input.inputValue();
  if (prefix !== "#") {
    throw new Error(`Ctrl+T did not open Go to Symbol in Workspace (the input holds "${prefix}")`);
  }
  await page.keyboard.type(SYMBOL_QUERY);
  const rows = page.locator(".quick-input-list .monaco-list-row");
  // a code hit: the function, its file as the container, a function's icon
  const codeRow = rows
    .filter({ has: page.locator(".label-name", { hasText: new RegExp(`^${FUNCTION}$`) }) })
    .filter({ hasText: CODE })
    .filter({ has: page.locator(".codicon-symbol-function") });
  // a doc hit: the passage by its heading path (VS Code's own Markdown symbols are "## Title")
  const docRow = rows
    .filter({ has: page.locator(".label-name", { hasText: DOC_SYMBOL }) })
    .filter({ hasText: DOC });
  await codeRow.first().waitFor({ timeout: 60000 });
  await docRow.first().waitFor({ timeout: 30000 });
  const shown = await rows.allInnerTexts();
  log(`Go to Symbol "#${SYMBOL_QUERY}": ${shown.length} rows\n${indented(shown.join("\n"))}`);
  await page.mouse.move(1100, 820);
  await screenshot(page, shots, "symbol-picker.png");

  await codeRow.first().click();
  const line = fx.line(CODE, `def ${FUNCTION}(`);
  await activeTab(page, path.basename(CODE)).waitFor({ timeout: 30000 });
  const at = await waitForCursor(page, line);
  log(`picked ${FUNCTION}: the editor shows ${CODE} at "${at}"`);
}

/** 2. Peek References on the function's name: a caller, a test and a doc passage. */
async function references(page: Page, fx: Fixture, shots: string): Promise<void> {
  await openFile(page, CODE);
  const line = fx.line(CODE, `def ${FUNCTION}(`);
  await wordOnLine(page, `def ${FUNCTION}(`, FUNCTION).click();
  await waitForCursor(page, line);
  await page.keyboard.press("Shift+F12");
  const peek = page.locator(".peekview-widget").filter({ hasText: "References" }).first();
  await peek.waitFor({ timeout: 30000 });
  const tree = peek.locator(".ref-tree");
  await tree.locator(".monaco-list-row").first().waitFor({ timeout: 30000 });
  // open every file's group, as a person would to see them all
  await waitUntil(page, "every file's references shown", async () => {
    const collapsed = tree.locator(".monaco-list-row .monaco-tl-twistie.collapsed");
    if ((await collapsed.count()) === 0) {
      return true;
    }
    await collapsed.first().click();
    return undefined;
  });
  const rows = (await tree.locator(".monaco-list-row").allInnerTexts()).map((r) =>
    r.replace(/\s+/g, " ").trim(),
  );
  log(
    `${(await peek.locator(".head").innerText()).replace(/\s+/g, " ")}\n${indented(rows.join("\n"))}`,
  );
  for (const file of [CODE, TEST, DOC]) {
    // a file's row: its name, then its folder ("sessions.md docs 1")
    const [dir] = file.split("/");
    const name = path.basename(file).replace(/\./g, "\\.");
    if (!rows.some((r) => new RegExp(`^${name}\\s*${dir}\\b`).test(r))) {
      throw new Error(`the references list no place in ${file}: ${rows.join(" | ")}`);
    }
  }
  // each kind of place, by the line the list shows for it (derived from the fixture)
  const expected: [string, string, string][] = [
    ["a caller", CODE, `= ${FUNCTION}(`],
    ["a test", TEST, `assert ${FUNCTION}(`],
    ["a doc passage", DOC, `\`${FUNCTION}\``],
  ];
  for (const [what, file, needle] of expected) {
    if (!rows.some((r) => r.includes(needle))) {
      throw new Error(
        `the references hold no ${what} (${file}:${fx.line(file, needle)}): ${rows.join(" | ")}`,
      );
    }
  }
  log("the references hold a caller, a test and a doc passage");
  // the doc passage, previewed in the peek
  const docRef = tree.locator(".monaco-list-row", { hasText: `\`${FUNCTION}\`` }).first();
  await docRef.click();
  const docLine = fx.text(DOC, fx.line(DOC, `\`${FUNCTION}\``));
  const words = docLine.split("`")[0].trim();
  await peek.locator(".monaco-editor .view-line", { hasText: words }).first().waitFor();
  log(`the peek previews ${DOC}: "${docLine.trim()}"`);
  await page.mouse.move(1100, 820);
  await screenshot(page, shots, "references.png");
  await page.keyboard.press("Escape");
  await peek.waitFor({ state: "detached", timeout: 30000 });
}

/** 3. The code lenses above the functions; the function's own, clicked, lists its places. */
async function codeLenses(page: Page, fx: Fixture, shots: string): Promise<void> {
  await openFile(page, CODE);
  await page.keyboard.press("Control+Home"); // the file from its first line
  const defLine = lineOf(page, `def ${FUNCTION}(`);
  await defLine.waitFor({ timeout: 30000 });
  const lenses = editor(page).locator(".codelens-decoration a");
  // the lens over the function: the nearest one above its line, once resolved
  const lens = await waitUntil(
    page,
    `the resolved code lens over ${FUNCTION}`,
    async () => {
      const top = (await defLine.boundingBox())?.y;
      if (top === undefined) {
        return undefined;
      }
      let best: { link: Locator; y: number } | undefined;
      for (const link of await lenses.all()) {
        const y = (await link.boundingBox())?.y;
        if (y !== undefined && y < top && (!best || y > best.y)) {
          best = { link, y };
        }
      }
      const text = best ? (await best.link.innerText()).trim() : "";
      return best && LENS.test(text) ? { link: best.link, text } : undefined;
    },
    60000,
  );
  const texts = (await lenses.allInnerTexts()).map((t) => t.trim()).filter(Boolean);
  log(`code lenses in ${CODE}:\n${indented(texts.join("\n"))}`);
  const unreadable = texts.filter((t) => !LENS.test(t));
  if (unreadable.length > 0) {
    throw new Error(`code lenses that are not counts: ${unreadable.join(" | ")}`);
  }
  const [, docs, tests, callers] = LENS.exec(lens.text) ?? [];
  // the fixture names it in a doc passage, tests it twice and calls it once
  if (!(Number(docs) >= 1 && Number(tests ?? 0) >= 1 && Number(callers) >= 1)) {
    throw new Error(`the lens over ${FUNCTION} counts no doc, test or caller: ${lens.text}`);
  }
  log(`the lens over ${FUNCTION}: "${lens.text}"`);
  await lens.link.hover(); // underlined: it can be clicked
  await screenshot(page, shots, "code-lens.png");

  await lens.link.click();
  const related = activeTab(page, new RegExp(`related-${FUNCTION}\\.md$`));
  await related.waitFor({ timeout: 30000 });
  const body = editor(page).locator(".view-lines");
  await body.filter({ hasText: `# Related: ${FUNCTION}` }).waitFor({ timeout: 30000 });
  const text = await body.innerText();
  log(`clicking the lens opened:\n${indented(text.trim())}`);
  const places: [string, string, string][] = [
    ["the caller", CODE, `= ${FUNCTION}(`],
    ["a test", TEST, `assert ${FUNCTION}(`],
    ["the doc passage", DOC, `\`${FUNCTION}\``],
  ];
  for (const [what, file, needle] of places) {
    const target = `${file}#L${fx.line(file, needle)}`;
    if (!text.includes(target)) {
      throw new Error(`the lens's places have no link to ${what} (${target})`);
    }
  }
  log("the lens's places link the caller, a test and the doc passage at their lines");
  await screenshot(page, shots, "code-lens-places.png");
}

/** 4. The light bulb menu on a line: "Ask the workspace about this" asks in the answer panel. */
async function codeAction(page: Page, fx: Fixture, shots: string): Promise<void> {
  await openFile(page, CODE);
  const line = fx.line(CODE, ASK_LINE_TEXT);
  const question = fx.text(CODE, line).trim().replace(/\s+/g, " ");
  await lineOf(page, ASK_LINE_TEXT).click(); // the cursor on the line, nothing selected
  await waitForCursor(page, line);
  await page.keyboard.press("Control+.");
  const menu = page.locator(".action-widget");
  const ask = menu.locator(".monaco-list-row.action", { hasText: "Ask the workspace about this" });
  await ask.first().waitFor({ timeout: 30000 });
  const items = (await menu.locator(".monaco-list-row.action").allInnerTexts()).map((t) =>
    t.trim(),
  );
  log(`Ctrl+. on ${CODE}:${line}: ${items.join(" | ")}`);
  // the keyboard, as the menu expects (the mouse is blocked until it moves)
  await waitUntil(page, "the ask item focused", async () => {
    if (((await ask.first().getAttribute("class")) ?? "").split(/\s+/).includes("focused")) {
      return true;
    }
    await page.keyboard.press("ArrowDown");
    return undefined;
  });
  await page.keyboard.press("Enter");
  log(`chose "Ask the workspace about this" for: ${question}`);

  const frame = answerFrame(page);
  const heading = frame.locator("h1.question");
  await heading.waitFor({ timeout: 60000 });
  const asked = (await heading.innerText()).trim();
  if (asked !== question) {
    throw new Error(`the answer panel asks "${asked}", not the line "${question}"`);
  }
  const panelTab = page.locator(".tabs-container .tab", { hasText: "groundls:" }).first();
  log(`the answer panel (tab "${(await panelTab.innerText()).trim()}") asks: ${asked}`);
  // the answer, whatever its words: an answer with its sources, or the not-found state
  const done = frame.locator("footer.meta, .notfound, .error");
  await done.first().waitFor({ timeout: 150000 });
  if ((await frame.locator(".error").count()) > 0) {
    throw new Error(
      `the answer panel shows an error: ${await frame.locator(".error").innerText()}`,
    );
  }
  const body = (await frame.locator("#root").innerText()).trim();
  log(`answer panel:\n${indented(body)}`);
  // not the Markdown document other editors get
  const tabs = await page.locator(".tabs-container .tab").allInnerTexts();
  const documents = tabs.filter((t) => /\d{3}-(?!related-).*\.md/.test(t));
  if (documents.length > 0) {
    throw new Error(`the ask also opened a document: ${documents.join(", ")}`);
  }
  await page.mouse.move(1100, 820);
  await screenshot(page, shots, "code-action.png");
}

async function main(): Promise<number> {
  const port = env("CS_PORT");
  const workspace = env("WORKSPACE_DIR");
  const shots = env("SHOTS_DIR");
  fs.mkdirSync(shots, { recursive: true });
  const fx = fixture(workspace);
  const t0 = Date.now();
  const browser = await launchBrowser();
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  const steps: [string, (page: Page, fx: Fixture, shots: string) => Promise<void>][] = [
    ["Go to Symbol in Workspace lists groundls's code and doc hits and opens one", symbolPicker],
    ["Peek References lists a caller, a test and a doc passage", references],
    ["code lenses count docs, tests and callers, and a click lists them", codeLenses],
    ['"Ask the workspace about this" asks in the answer panel', codeAction],
  ];
  let passed = 0;
  try {
    await openWorkbench(page, port, workspace, t0);
    for (const [n, [title, step]] of steps.entries()) {
      log(`-- step ${n + 1}: ${title}`);
      try {
        await resetWorkbench(page);
        await step(page, fx, shots);
        passed += 1;
        log(`ok: ${title}`);
      } catch (error) {
        console.error(`FAILED: ${title}:`, error instanceof Error ? error.message : error);
        const failed = path.join(shots, `step-${n + 1}.failed.png`);
        await page.screenshot({ path: failed }).catch(() => undefined);
        console.error(`screenshot of the failure: ${failed}`);
      }
    }
  } catch (error) {
    console.error("UI surfaces test FAILED:", error instanceof Error ? error.message : error);
    await page.screenshot({ path: path.join(shots, "surfaces.failed.png") }).catch(() => undefined);
  } finally {
    await browser.close();
  }
  const failed = steps.length - passed;
  console.log(`ui surfaces: ${passed} passed, ${failed} failed (${Date.now() - t0} ms)`);
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
