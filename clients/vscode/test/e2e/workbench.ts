// What the UI tests do in code-server's workbench as a person would: wait for the index, pick
// from the palette or Quick Open, find the answer panel's frame.
import type { FrameLocator, Locator, Page } from "playwright-core";
import { log } from "./browser";

export async function waitForIndex(page: Page): Promise<void> {
  const item = page.locator(".statusbar-item", { hasText: "groundls" }).first();
  await item.waitFor({ timeout: 90000 });
  // "$(sync~spin) groundls N%" while the server indexes, "$(database) groundls" when it is done.
  // The fresh index of the fixture takes seconds: see indexing start, then end.
  const indexing = item.locator(".codicon-sync");
  const sawIndexing = await indexing
    .waitFor({ timeout: 60000 })
    .then(() => true)
    .catch(() => false);
  if (sawIndexing) {
    log(`status bar: ${(await item.innerText()).trim()}`);
  }
  await indexing.waitFor({ state: "detached", timeout: 180000 });
  await item.locator(".codicon-database").waitFor({ timeout: 30000 });
  log(`status bar idle (${sawIndexing ? "after showing indexing progress" : "no progress seen"})`);
}

/** Open the workspace in code-server's workbench, wait for the first index, and focus the
 * editor area (the palette and the keys then reach the workbench). */
export async function openWorkbench(
  page: Page,
  port: string,
  workspace: string,
  t0: number,
): Promise<void> {
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`);
  await page.waitForSelector(".monaco-workbench", { timeout: 90000 });
  log(`workbench loaded in ${Date.now() - t0} ms`);
  await waitForIndex(page);
  await page.locator(".monaco-workbench").click({ position: { x: 700, y: 450 } });
}

/** Type into the open quick input (palette, Quick Open, a picker) and click the matching row. */
export async function pickFromQuickInput(
  page: Page,
  typed: string,
  rowText = typed,
  timeout?: number,
): Promise<void> {
  await page.locator(".quick-input-widget input").waitFor({ state: "visible" });
  await page.keyboard.type(typed);
  const row = page.locator(".quick-input-list .monaco-list-row", { hasText: rowText });
  await row.first().click({ timeout });
}

export async function runPaletteCommand(page: Page, title: string): Promise<void> {
  await page.keyboard.press("F1");
  await pickFromQuickInput(page, title, title.replace(/^groundls: /, ""), 15000);
}

/** The answer panel's content (the webview's inner frame). */
export function answerFrame(page: Page): FrameLocator {
  return page.frameLocator("iframe.webview.ready").frameLocator("iframe#active-frame");
}

/** The active editor tab whose file name is exactly `name`. */
export function activeTab(page: Page, name: string | RegExp): Locator {
  const label = typeof name === "string" ? new RegExp(`^${name.replace(/\./g, "\\.")}$`) : name;
  return page
    .locator(".tabs-container .tab.active", {
      has: page.locator(".label-name", { hasText: label }),
    })
    .first();
}

/** Open a workspace file from Quick Open (Ctrl+P), as a person would; wait for its tab. */
export async function openFile(page: Page, rel: string): Promise<void> {
  const name = rel.split("/").pop() ?? rel;
  await page.keyboard.press("Control+P");
  await pickFromQuickInput(page, rel, name);
  await activeTab(page, name).waitFor({ timeout: 30000 });
}

/** The status bar's cursor position ("Ln 18, Col 1") once it reads `line` (and `col`). */
export async function waitForCursor(page: Page, line: number, col?: number): Promise<string> {
  const selection = page.locator('[id="status.editor.selection"]');
  const pattern = new RegExp(`Ln ${line}, Col ${col ?? "\\d+"}\\b`);
  await selection.filter({ hasText: pattern }).waitFor({ timeout: 30000 });
  return (await selection.innerText()).trim();
}

/** Poll `probe` until it gives a value (not a timing check: a wait for the UI to settle). */
export async function waitUntil<T>(
  page: Page,
  what: string,
  probe: () => Promise<T | undefined>,
  ms = 30000,
): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) {
        return value;
      }
    } catch (error) {
      last = error;
    }
    await page.waitForTimeout(250);
  }
  const why = last instanceof Error ? `: ${last.message.split("\n")[0]}` : "";
  throw new Error(`timed out waiting for ${what}${why}`);
}

/** Lines of text, indented, for the log. */
export function indented(text: string): string {
  return text
    .split("\n")
    .map((l) => `    ${l}`)
    .join("\n");
}
