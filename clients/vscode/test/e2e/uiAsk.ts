// Tier (b): a person's path through the UI. Command palette -> "groundls: Ask the workspace" ->
// type a question -> the answer panel shows a citation -> click it -> the editor shows the cited
// file at the cited line. Saves a screenshot of the answer panel (and one in the light theme).
import * as fs from "node:fs";
import * as path from "node:path";
import { env, launchBrowser, log } from "./browser";
import { answerFrame, openWorkbench, pickFromQuickInput, runPaletteCommand } from "./workbench";

const QUESTION = process.env.E2E_QUESTION ?? "How long does a session last before it expires?";
/** The files that answer QUESTION, with words of the answer to hover in each. */
const ANSWER_WORDS: Record<string, string> = {
  "docs/sessions.md": "thirty minutes",
  "src/session.py": "IDLE_TIMEOUT_SECONDS",
};

async function main(): Promise<number> {
  const port = env("CS_PORT");
  const workspace = env("WORKSPACE_DIR");
  const screenshot = env("SCREENSHOT");
  const t0 = Date.now();
  const browser = await launchBrowser();
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  let code = 1;
  try {
    await openWorkbench(page, port, workspace, t0);
    // Open a file first, as a person would: the answer panel then opens beside it.
    await page.keyboard.press("Control+P");
    await pickFromQuickInput(page, "session.py");
    await page
      .locator(".tabs-container .tab.active", { hasText: "session.py" })
      .waitFor({ timeout: 30000 });
    await runPaletteCommand(page, "groundls: Ask the workspace");
    await page.locator(".quick-input-widget input").waitFor({ state: "visible" });
    await page.keyboard.type(QUESTION);
    await page.keyboard.press("Enter");
    log(`asked: ${QUESTION}`);

    const frame = answerFrame(page);
    await frame.locator(".answer a.cite").first().waitFor({ timeout: 120000 });
    // a source that holds the answer, whichever number the ranking gave it: the doc's paragraph
    // or the code's constant (the model may cite either, both are right)
    const cite = frame
      .locator(
        Object.keys(ANSWER_WORDS)
          .map((file) => `.sources a.cite[title^="${file}:"]`)
          .join(", "),
      )
      .first();
    await cite.waitFor({ timeout: 30000 });
    await frame.locator("footer.meta").waitFor({ timeout: 30000 });
    const body = await frame.locator("#root").innerText();
    log(
      `answer panel:\n${body
        .split("\n")
        .map((l) => `    ${l}`)
        .join("\n")}`,
    );

    fs.mkdirSync(path.dirname(screenshot), { recursive: true });
    await page.mouse.move(1100, 820); // no tooltip in the picture
    await page.waitForTimeout(500);
    await page.screenshot({ path: screenshot });
    log(`screenshot: ${screenshot}`);

    // the title: the cited place, then the excerpt's lines that support the sentence
    const title = (await cite.getAttribute("title")) ?? "";
    const [where, ...support] = title.split(" · ");
    const m = /^(.+):(\d+)(?:-(\d+))?$/.exec(where);
    if (!m) {
      throw new Error(`citation link has no location title: ${title}`);
    }
    if (support.length === 0 || !support.every((line) => /^\d+: \S/.test(line))) {
      throw new Error(`citation link shows no supporting lines: ${title}`);
    }
    log(`hover of the citation shows ${support.length} supporting line(s): ${support[0]}`);
    const [, citedPath, startText] = m;
    const startLine = Number(startText);
    await cite.click();
    log(`clicked citation ${await cite.innerText()} -> ${where}`);

    const basename = citedPath.split("/").pop() ?? citedPath;
    await page
      .locator(".tabs-container .tab.active", { hasText: basename })
      .first()
      .waitFor({ timeout: 30000 });
    // the cursor on the cited line: the status bar's "Ln N, Col 1", or (that item is sometimes
    // not drawn in time in code-server) the editor's highlighted line number
    const selection = page.locator('[id="status.editor.selection"]');
    const inStatusBar = selection.filter({ hasText: new RegExp(`Ln ${startLine}, Col 1\\b`) });
    const lineNumber = page
      .locator(".monaco-editor .line-numbers.active-line-number")
      .filter({ hasText: new RegExp(`^\\s*${startLine}\\s*$`) });
    await inStatusBar.or(lineNumber).first().waitFor({ timeout: 30000 });
    const shown = (await selection.textContent({ timeout: 1000 }).catch(() => null)) ?? "";
    log(`editor shows ${basename} with the cursor at "${shown.trim() || `line ${startLine}`}"`);
    const breadcrumbs = await page
      .locator(".breadcrumbs-control")
      .first()
      .innerText()
      .catch(() => "");
    if (breadcrumbs && !breadcrumbs.replace(/\s+/g, "/").includes(basename)) {
      throw new Error(`breadcrumbs do not show ${basename}: ${breadcrumbs}`);
    }

    // Hover the answer's words in the cited file: the server's related notes, whose links open
    // places.
    const words = page
      .locator(".monaco-editor .view-line span", { hasText: ANSWER_WORDS[citedPath] })
      .first();
    await words.hover();
    const hover = page.locator(".monaco-hover-content", { hasText: "Related in this workspace" });
    await hover.waitFor({ timeout: 30000 });
    const link = hover.locator("a[data-href]").first();
    const href = (await link.getAttribute("data-href")) ?? "";
    log(`hover: ${(await hover.innerText()).split("\n").slice(0, 3).join(" | ")}`);
    const target = /\/([^/]+)#L(\d+)$/.exec(decodeURIComponent(href));
    if (!target) {
      throw new Error(`hover link is not a file location: ${href}`);
    }
    await link.click();
    await page
      .locator(".tabs-container .tab.active", { hasText: target[1] })
      .first()
      .waitFor({ timeout: 30000 });
    await selection
      .filter({ hasText: new RegExp(`Ln ${target[2]}, Col 1\\b`) })
      .waitFor({ timeout: 30000 });
    log(`hover link opened ${target[1]} at line ${target[2]}`);

    // Hover a function's name: its notes, where it is tested and who calls it, as links.
    // session.py is open in a tab since the question was asked
    const sessionTab = page.locator(".tabs-container .tab", {
      has: page.locator(".label-name", { hasText: /^session\.py$/ }),
    });
    await sessionTab.first().click();
    await page
      .locator(".tabs-container .tab.active", {
        has: page.locator(".label-name", { hasText: /^session\.py$/ }),
      })
      .first()
      .waitFor({ timeout: 30000 });
    const name = page
      .locator(".editor-group-container.active .monaco-editor .view-line span", {
        hasText: /^check_session$/,
      })
      .first();
    await name.hover();
    const symbolHover = page.locator(".monaco-hover-content", { hasText: "Tested in" });
    await symbolHover.waitFor({ timeout: 30000 });
    const hoverText = (await symbolHover.innerText()).trim();
    log(
      `symbol hover:\n${hoverText
        .split("\n")
        .map((l) => `    ${l}`)
        .join("\n")}`,
    );
    if (!/test_session\.py/.test(hoverText) || !/Related in this workspace/.test(hoverText)) {
      throw new Error(`the hover names no test of check_session: ${hoverText}`);
    }
    const hoverShot = process.env.HOVER_SCREENSHOT;
    if (hoverShot) {
      // into the hover (it stays open) and down to its end: the tests under the notes
      const box = await symbolHover.boundingBox();
      if (box) {
        await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 5 });
        await page.mouse.wheel(0, 400);
      }
      await page.waitForTimeout(800); // the hover fades in and scrolls
      await page.screenshot({ path: hoverShot });
      log(`hover screenshot: ${hoverShot}`);
    }
    const tested = symbolHover.locator("a[data-href*='test_session.py']").first();
    await tested.click();
    await page
      .locator(".tabs-container .tab.active", { hasText: "test_session.py" })
      .first()
      .waitFor({ timeout: 30000 });
    log("the hover's test link opened tests/test_session.py");

    const light = process.env.LIGHT_SCREENSHOT;
    if (light) {
      // The panel follows the theme through VS Code's CSS variables: switch to a light theme.
      await runPaletteCommand(page, "Preferences: Color Theme");
      await pickFromQuickInput(page, "Light Modern");
      await page.locator(".monaco-workbench.vs").waitFor({ timeout: 30000 });
      await page.mouse.move(1100, 820);
      await page.waitForTimeout(1000);
      // A string, because this runs in the page (no DOM types here).
      const color = String(
        await answerFrame(page)
          .locator("body")
          .evaluate("getComputedStyle(document.body).backgroundColor"),
      );
      log(`light theme: answer panel background ${color}`);
      if (!/rgb\((2[0-9]{2}), (2[0-9]{2}), (2[0-9]{2})\)/.test(color)) {
        throw new Error(`the answer panel did not follow the light theme (background ${color})`);
      }
      await page.screenshot({ path: light });
      log(`light theme screenshot: ${light}`);
    }
    // Re-index from the palette: a progress notification, then a summary.
    await runPaletteCommand(page, "groundls: Re-index workspace");
    const done = page.locator(".notification-toast", { hasText: "groundls: re-indexed" });
    await done.waitFor({ timeout: 90000 });
    log(`notification: ${(await done.innerText()).split("\n")[0]}`);

    // The status bar item opens the index status view.
    await page.locator(".statusbar-item", { hasText: "groundls" }).first().click();
    await page
      .locator(".tabs-container .tab", { hasText: "groundls: Index status" })
      .waitFor({ timeout: 30000 });
    log("status bar item opened the index status view");

    code = 0;
    log(`UI test passed in ${Date.now() - t0} ms`);
  } catch (error) {
    console.error("UI test FAILED:", error instanceof Error ? error.message : error);
    await page.screenshot({ path: `${screenshot}.failed.png` }).catch(() => undefined);
  } finally {
    await browser.close();
  }
  console.log(`ui: ${code === 0 ? "1 passed, 0 failed" : "0 passed, 1 failed"}`);
  return code;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
