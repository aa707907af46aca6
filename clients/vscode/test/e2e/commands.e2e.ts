// Runs inside the real extension host: the contributed commands against the real `groundls serve`.
import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import type {
  AskResult,
  Hit,
  HitsResult,
  ReindexResult,
  StatusResult,
} from "../../src/common/protocol";
import { targetOf } from "../../src/common/citations";
import type { GroundlsApi } from "../../src/extension";

const EXTENSION_ID = "groundls.groundls";
/** Files in test/fixture-ws (the workspace this suite runs in). */
const FIXTURE_FILES = [
  "README.md",
  "docs/deploy.md",
  "docs/sessions.md",
  "docs/warmup.ipynb",
  "src/retry.ts",
  "src/session.py",
  "tests/test_session.py",
];

let api: GroundlsApi;

function folder(): vscode.WorkspaceFolder {
  const f = vscode.workspace.workspaceFolders?.[0];
  assert.ok(f, "the test workspace has a folder");
  return f;
}

function fileUri(rel: string): vscode.Uri {
  return vscode.Uri.joinPath(folder().uri, rel);
}

async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  ms = 90000,
): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined && value !== null && value !== false) {
        return value;
      }
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(
    `timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ""}`,
  );
}

/** Run a command that shows a quick pick, accept its first item, return the command's result. */
async function acceptFirstPick<T>(command: string, ...args: unknown[]): Promise<T> {
  let done = false;
  const result = Promise.resolve(vscode.commands.executeCommand<T>(command, ...args)).finally(
    () => {
      done = true;
    },
  );
  while (!done) {
    await new Promise((r) => setTimeout(r, 300));
    if (!done) {
      await vscode.commands.executeCommand("workbench.action.acceptSelectedQuickOpenItem");
    }
  }
  return result;
}

function serverSearch(query: string, extra: object = {}): Promise<HitsResult> {
  return Promise.resolve(
    vscode.commands.executeCommand<HitsResult>("groundls.search", { query, ...extra }),
  );
}

function activePath(): string | undefined {
  const doc = vscode.window.activeTextEditor?.document;
  return doc ? vscode.workspace.asRelativePath(doc.uri, false) : undefined;
}

suite("groundls in the VS Code extension host", () => {
  suiteSetup(async function () {
    this.timeout(180000);
    const ext = vscode.extensions.getExtension<GroundlsApi>(EXTENSION_ID);
    assert.ok(ext, `extension ${EXTENSION_ID} is installed`);
    api = await ext.activate();
    await api.ready();
    assert.equal(
      api.state(),
      "running",
      `server running (problem: ${api.lastProblem() ?? "none"})`,
    );
    // The fresh index is built in the background; wait until every fixture file is in it.
    await waitFor(
      "the initial index",
      async () => {
        const status = await vscode.commands.executeCommand<StatusResult>("groundls.status", {});
        const f = status.folders[0];
        return f && !f.indexing && (f.files ?? 0) >= FIXTURE_FILES.length ? status : undefined;
      },
      150000,
    );
  });

  test("the status bar item follows the server's indexing progress and ends idle", async () => {
    await waitFor("idle status bar", () => api.statusBarText() === "$(database) groundls");
    assert.match(api.lastIndexMessage() ?? "", /\S/, "an indexing job reported its end");
  });

  test("Show index status lists the fixture's files and chunks and opens the status view", async () => {
    const status = await vscode.commands.executeCommand<StatusResult>("groundls.client.status");
    assert.ok(status, "status returned");
    const f = status.folders[0];
    assert.equal(f.name, folder().name);
    assert.equal(f.files, FIXTURE_FILES.length);
    assert.ok((f.chunks ?? 0) >= FIXTURE_FILES.length, `chunks: ${f.chunks}`);
    await waitFor("the status view tab", () =>
      vscode.window.tabGroups.all.some((g) =>
        g.tabs.some((t) => t.label === "groundls: Index status"),
      ),
    );
  });

  test("groundls.search returns workspace-relative hits with LSP locations", async () => {
    const result = await serverSearch("how long does a session last before it expires");
    assert.ok(result.hits.length > 0);
    for (const hit of result.hits) {
      assert.ok(FIXTURE_FILES.includes(hit.path), `relative path: ${hit.path}`);
      assert.ok(hit.uri.startsWith(folder().uri.toString()), hit.uri);
      assert.match(hit.chunkId, /^[0-9a-f]{16}$/);
    }
    assert.ok(
      result.hits.slice(0, 3).some((h) => h.path === "docs/sessions.md"),
      `top hits: ${result.hits.map((h) => h.path).join(", ")}`,
    );
  });

  test("Search the workspace opens the picked hit at its line", async () => {
    const hit = await acceptFirstPick<Hit | undefined>("groundls.client.search", {
      query: "rolling back a release",
    });
    assert.ok(hit, "a hit was picked");
    assert.equal(hit.path, "docs/deploy.md");
    assert.equal(activePath(), hit.path);
    assert.equal(vscode.window.activeTextEditor?.selection.active.line, hit.startLine - 1);
  });

  test("a hit in a document names its place and opens the document's text there, read-only", async () => {
    const result = await serverSearch("when does the product cache hit ratio pass ninety percent");
    const hit = result.hits.find((h) => h.path === "docs/warmup.ipynb");
    assert.ok(hit, `top hits: ${result.hits.map((h) => h.path).join(", ")}`);
    assert.match(hit.place ?? "", /^cells? /);
    const target = targetOf(hit, [folder().uri.toString()]);
    assert.ok(target);
    const editor = await vscode.commands.executeCommand<vscode.TextEditor>(
      "groundls.client.openLocation",
      target,
    );
    assert.equal(editor.document.uri.scheme, "groundls-doc");
    assert.ok(editor.document.getText().includes("passes ninety percent after about four minutes"));
    assert.ok(!editor.document.getText().includes("warm-up took 41 s"), "outputs left out");
    assert.equal(editor.document.languageId, "markdown");
    assert.equal(editor.selection.active.line, hit.startLine - 1);
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
    assert.equal(tab?.label, `warmup.ipynb (${hit.place})`);
  });

  test("Find similar to this lists other chunks than the one under the cursor and opens one", async () => {
    const editor = await vscode.window.showTextDocument(fileUri("src/session.py"));
    const line = editor.document
      .getText()
      .split("\n")
      .findIndex((l) => l.startsWith("def check_session"));
    assert.ok(line > 0);
    editor.selection = new vscode.Selection(line + 2, 4, line + 2, 4);
    const direct = await vscode.commands.executeCommand<HitsResult>("groundls.similar", {
      uri: editor.document.uri.toString(),
      position: { line: line + 2, character: 4 },
    });
    assert.ok(direct.source, "the chunk under the cursor is known");
    assert.ok(direct.hits.length > 0);
    assert.ok(
      direct.hits.every((h) => h.chunkId !== direct.source?.chunkId),
      "excludes the chunk itself",
    );
    const picked = await acceptFirstPick<Hit | undefined>("groundls.client.similar");
    assert.ok(picked);
    assert.equal(picked.chunkId, direct.hits[0].chunkId);
    assert.equal(activePath(), picked.path);
  });

  test("Ask the workspace answers in the panel with citations that open the cited lines", async () => {
    const result = await vscode.commands.executeCommand<AskResult>("groundls.client.ask", {
      question: "How long does a session last before it expires?",
    });
    assert.ok(result, "ask returned a result");
    assert.equal(result.found, true);
    assert.ok(result.citations.length > 0, "has citations");
    const state = api.answerState();
    assert.equal(state?.phase, "done");
    assert.ok((state?.streamed ?? 0) >= 1, "the answer text streamed in through $/progress");
    assert.equal(state?.result?.citations.length, result.citations.length);
    // both files say it (the guide in words, the code as IDLE_TIMEOUT_SECONDS = 30 * 60); the
    // model, sampling at temperature 0.2, cites one or the other from run to run
    const holders = ["docs/sessions.md", "src/session.py"];
    const cited = result.citations.find((c) => holders.includes(c.path));
    assert.ok(
      cited,
      `cites a file that says it: ${result.citations.map((c) => c.path).join(", ")}`,
    );
    const editor = await api.openCitation(cited.n);
    assert.ok(editor);
    assert.equal(activePath(), cited.path);
    assert.equal(editor.selection.active.line, cited.startLine - 1);
    assert.ok(editor.selection.isEmpty, "nothing selected, so the next question has no context");
  });

  test("a past question is listed, opens its answer again, and can be deleted", async () => {
    const question = "How long does a session last before it expires?";
    const threads = await api.historyThreads();
    const thread = threads.find((t) => t.entries[0].question === question);
    assert.ok(thread, `listed: ${threads.map((t) => t.entries[0].question).join(" | ")}`);
    await vscode.commands.executeCommand("groundls.client.historyOpen", thread);
    const state = api.answerState();
    assert.equal(state?.phase, "done");
    assert.equal(state?.question, question);
    assert.ok((state?.result?.citations.length ?? 0) > 0, "its sources come back too");
    const deleted = await vscode.commands.executeCommand<boolean>(
      "groundls.client.historyDelete",
      thread,
      true,
    );
    assert.equal(deleted, true);
    const after = await api.historyThreads();
    assert.ok(!after.some((t) => t.thread === thread.thread && t.folder === thread.folder));
  });

  test("a question the workspace cannot answer shows the not-found state", async () => {
    const result = await vscode.commands.executeCommand<AskResult>("groundls.client.ask", {
      question: "What is the boiling point of mercury on Venus?",
    });
    assert.ok(result);
    assert.equal(result.found, false);
    assert.deepEqual(result.citations, []);
    assert.equal(api.answerState()?.phase, "done");
    const html = api.answerHtml() ?? "";
    assert.match(html, /class="notfound"/);
    assert.match(html, /Not found in this workspace/);
    assert.equal(html.includes('class="sources"'), false);
  });

  test("a search that matches nothing closely returns its nearest hits marked low confidence", async () => {
    const result = await serverSearch("qwxzv plmkj");
    assert.ok(result.hits.length > 0, "nearest hits are still listed");
    assert.equal(result.confidence, "low");
    assert.ok(result.confidenceReason, "the confidence says why");
    const sure = await serverSearch("how long does a session last before it expires");
    assert.notEqual(sure.confidence, "low", `a plain question: ${sure.confidenceReason}`);
  });

  test("asking with a selection sends it as context and still cites the workspace", async () => {
    const editor = await vscode.window.showTextDocument(fileUri("src/retry.ts"));
    const text = editor.document.getText();
    const start = editor.document.positionAt(text.indexOf("delay *= 2"));
    editor.selection = new vscode.Selection(start, start.translate(0, "delay *= 2".length));
    const result = await vscode.commands.executeCommand<AskResult>("groundls.client.ask", {
      question: "What does this do to the wait between attempts?",
    });
    assert.ok(result && result.citations.length > 0);
    assert.ok(
      result.citations.some((c) => c.path === "src/retry.ts"),
      "cites the selected file",
    );
  });

  test("hover shows related notes from the server", async () => {
    const uri = fileUri("docs/sessions.md");
    await vscode.window.showTextDocument(uri);
    const hovers = await waitFor(
      "a hover",
      async () => {
        const found = await vscode.commands.executeCommand<vscode.Hover[]>(
          "vscode.executeHoverProvider",
          uri,
          new vscode.Position(4, 10),
        );
        return found.length > 0 ? found : undefined;
      },
      30000,
    );
    const text = hovers
      .flatMap((h) => h.contents)
      .map((c) => (typeof c === "string" ? c : "value" in c ? c.value : ""))
      .join("\n");
    assert.match(text, /Related in this workspace/);
  });

  test("saving a file re-indexes it so new words are searchable", async () => {
    const uri = fileUri("docs/deploy.md");
    const doc = await vscode.workspace.openTextDocument(uri);
    const editor = await vscode.window.showTextDocument(doc);
    const oldLines = doc.lineCount;
    const marker = "Zeppelin canary windows open every Thursday at noon.";
    await editor.edit((b) =>
      b.insert(new vscode.Position(doc.lineCount, 0), `\n## Canary\n\n${marker}\n`),
    );
    const markerLine = doc.getText().split("\n").indexOf(marker) + 1;
    assert.ok(markerLine > oldLines, "the marker is on a new line");
    assert.ok(await doc.save(), "saved");
    const hit = await waitFor(
      "a chunk covering the saved line",
      async () => {
        const result = await serverSearch("zeppelin canary windows thursday");
        return result.hits.find(
          (h) =>
            h.path === "docs/deploy.md" && h.startLine <= markerLine && markerLine <= h.endLine,
        );
      },
      60000,
    );
    assert.ok(hit.endLine > oldLines);
  });

  test("settings reach the server through workspace/configuration (search.k)", async () => {
    const config = vscode.workspace.getConfiguration("groundls");
    await config.update("search.k", 2, vscode.ConfigurationTarget.Global);
    try {
      await waitFor(
        "search.k = 2 applied",
        async () => {
          const result = await serverSearch("session");
          return result.hits.length === 2 ? result : undefined;
        },
        20000,
      );
    } finally {
      await config.update("search.k", undefined, vscode.ConfigurationTarget.Global);
    }
    await waitFor(
      "search.k back to default",
      async () => {
        const result = await serverSearch("session");
        return result.hits.length > 2 ? result : undefined;
      },
      20000,
    );
  });

  test("Re-index workspace re-indexes every file and reports counts", async () => {
    const result = await vscode.commands.executeCommand<ReindexResult | undefined>(
      "groundls.client.reindex",
    );
    assert.ok(result, "re-index returned counts");
    assert.equal(result.files, FIXTURE_FILES.length);
    assert.equal(result.cancelled, false);
    assert.deepEqual(result.errors ?? [], []);
    assert.equal(typeof result.seconds, "number");
  });

  test("Restart server brings it back and commands work again", async () => {
    const before = api.client();
    await vscode.commands.executeCommand("groundls.client.restart");
    assert.equal(api.state(), "running");
    assert.notEqual(api.client(), before, "a new client");
    const result = await waitFor(
      "search after restart",
      async () => {
        const r = await serverSearch("exponential backoff retry");
        return r.hits.length > 0 ? r : undefined;
      },
      60000,
    );
    assert.ok(
      result.hits.slice(0, 3).some((h) => h.path === "src/retry.ts"),
      `top hits: ${result.hits.map((h) => h.path).join(", ")}`,
    );
  });

  test("a missing or failing server gives an actionable message, then recovers", async () => {
    const config = vscode.workspace.getConfiguration("groundls");
    const interpreter = config.inspect<string>("interpreter")?.globalValue;
    try {
      await config.update(
        "interpreter",
        "/nonexistent/bin/python3",
        vscode.ConfigurationTarget.Global,
      );
      await vscode.commands.executeCommand("groundls.client.restart");
      assert.equal(api.state(), "failed");
      assert.match(
        api.lastProblem() ?? "",
        /groundls\.interpreter is set to "\/nonexistent\/bin\/python3", which does not exist.*pip install/,
      );
      assert.equal(api.statusBarText(), "$(error) groundls");
      const hit = await vscode.commands.executeCommand("groundls.client.search", {
        query: "session",
      });
      assert.equal(hit, undefined, "commands report the problem instead of hanging");

      await config.update("interpreter", undefined, vscode.ConfigurationTarget.Global);
      await config.update("serverPath", "/bin/false", vscode.ConfigurationTarget.Global);
      await vscode.commands.executeCommand("groundls.client.restart");
      assert.equal(api.state(), "failed");
      assert.match(
        api.lastProblem() ?? "",
        /failed to start \(\/bin\/false serve \(from groundls\.serverPath\)\)/,
      );
    } finally {
      await config.update("serverPath", undefined, vscode.ConfigurationTarget.Global);
      await config.update("interpreter", interpreter, vscode.ConfigurationTarget.Global);
    }
    await vscode.commands.executeCommand("groundls.client.restart");
    assert.equal(api.state(), "running", `recovered (problem: ${api.lastProblem() ?? "none"})`);
    await waitFor(
      "search after recovery",
      async () => {
        const r = await serverSearch("session");
        return r.hits.length > 0 ? r : undefined;
      },
      60000,
    );
  });

  test("a bad argument comes back as a readable error, not a crash", async () => {
    await assert.rejects(
      Promise.resolve(vscode.commands.executeCommand("groundls.search", { nonsense: true })),
      /unknown argument|query/,
    );
    assert.equal(api.state(), "running");
  });
});
