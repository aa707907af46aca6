// Tier (a): runs the mocha suite inside code-server's real (remote, node) extension host.
// code-server must already serve on CS_PORT; the extension under test is EXT_DIR (the unpacked
// .vsix) and the suite is out/test/e2e/index.js, both passed through the `payload` URL parameter.
import * as fs from "node:fs";
import * as path from "node:path";
import { env, launchBrowser, log } from "./browser";

interface Results {
  failures: number;
  outcomes: { title: string; state: string; error?: string }[];
}

async function main(): Promise<number> {
  const port = env("CS_PORT");
  const extDir = env("EXT_DIR");
  const workspace = env("WORKSPACE_DIR");
  const resultsFile = env("GROUNDLS_E2E_RESULTS");
  const timeoutMs = Number(process.env.E2E_TIMEOUT_MS ?? 600000);
  const remote = (p: string): string => `vscode-remote://127.0.0.1:${port}${p}`;
  const payload = [
    ["extensionDevelopmentPath", remote(extDir)],
    ["extensionTestsPath", remote(path.join(__dirname, "index.js"))],
    ["skipWelcome", "true"],
  ];
  const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  const browser = await launchBrowser();
  const page = await browser.newPage();
  page.on("console", (m) => {
    const text = m.text();
    if (/passing|failing|pending|✔|✓|\d+\) |AssertionError|Error:|groundls/.test(text)) {
      console.log("[host]", text.slice(0, 400));
    }
  });
  const exit = new Promise<number>((resolve) => {
    void page.exposeFunction("codeAutomationLog", (type: string, args: unknown[]) =>
      console.log(`[host ${type}]`, ...(Array.isArray(args) ? args : [args])),
    );
    void page.exposeFunction("codeAutomationExit", (code: number) => resolve(code));
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<number>((resolve) => {
    timer = setTimeout(() => {
      console.error(`TIMEOUT after ${timeoutMs} ms waiting for the extension host tests`);
      resolve(124);
    }, timeoutMs);
  });
  await page.goto(url);
  const code = await Promise.race([exit, timeout]);
  clearTimeout(timer);
  await browser.close();

  let results: Results | undefined;
  if (fs.existsSync(resultsFile)) {
    results = JSON.parse(fs.readFileSync(resultsFile, "utf8")) as Results;
  }
  if (!results) {
    console.error("no results file: the suite did not run (see the log above)");
    return code === 0 ? 1 : code;
  }
  for (const o of results.outcomes) {
    console.log(`${o.state === "passed" ? "  ✔" : "  ✘"} ${o.title}`);
    if (o.error) {
      console.log(`      ${o.error.split("\n").slice(0, 6).join("\n      ")}`);
    }
  }
  const passed = results.outcomes.filter((o) => o.state === "passed").length;
  const failed = results.outcomes.filter((o) => o.state === "failed").length;
  console.log(`exthost: ${passed} passed, ${failed} failed`);
  log(`extension host exit code ${code}`);
  return code !== 0 || failed > 0 || passed === 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
