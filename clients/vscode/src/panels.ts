/** The answer panel (streamed answer with clickable citations) and the index status panel. */

import * as vscode from "vscode";
import { type AnswerState, renderAnswerBody, renderPage } from "./common/answerView";
import { citationByNumber, targetOf, type Target } from "./common/citations";
import { makeNonce } from "./common/html";
import { DOCUMENT_SCHEME } from "./common/ids";
import type { StatusResult } from "./common/protocol";
import { renderStatusBody } from "./common/statusView";

/** Whole-line highlight of the cited lines, shown briefly after a citation opens. */
let highlight: vscode.TextEditorDecorationType | undefined;
let highlightTimer: NodeJS.Timeout | undefined;

function flashRange(editor: vscode.TextEditor, range: vscode.Range): void {
  highlight ??= vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    backgroundColor: new vscode.ThemeColor("editor.rangeHighlightBackground"),
  });
  const decoration = highlight;
  editor.setDecorations(decoration, [range]);
  if (highlightTimer) {
    clearTimeout(highlightTimer);
  }
  highlightTimer = setTimeout(() => editor.setDecorations(decoration, []), 3000);
}

/**
 * Open a file at a 0-based line range: the cursor goes to the first cited line (nothing is
 * selected, so a later "Ask" does not pick the citation up as context) and the range is
 * revealed and briefly highlighted.
 */
export async function openTarget(target: Target): Promise<vscode.TextEditor> {
  const uri = vscode.Uri.parse(target.uri);
  let doc = await vscode.workspace.openTextDocument(uri);
  if (uri.scheme === DOCUMENT_SCHEME) {
    doc = await vscode.languages.setTextDocumentLanguage(doc, "markdown"); // how it was read
  }
  const last = Math.min(target.endLine, doc.lineCount - 1);
  const first = Math.min(target.startLine, last);
  const start = new vscode.Position(first, 0);
  const range = new vscode.Range(start, doc.lineAt(last).range.end);
  const editor = await vscode.window.showTextDocument(doc, {
    viewColumn: vscode.ViewColumn.One,
    preserveFocus: false,
    preview: true,
  });
  editor.selection = new vscode.Selection(start, start);
  editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  flashRange(editor, range);
  return editor;
}

function folderUris(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.toString());
}

function webviewOptions(): vscode.WebviewPanelOptions & vscode.WebviewOptions {
  return { enableScripts: true, localResourceRoots: [], retainContextWhenHidden: false };
}

interface PanelMessage {
  type?: unknown;
  n?: unknown;
}

/** One answer panel, reused for each question. */
export class AnswerPanel implements vscode.Disposable {
  static readonly viewType = "groundls.answer";
  private static instance: AnswerPanel | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private stateValue: AnswerState | undefined;
  private readonly closeEmitter = new vscode.EventEmitter<void>();
  /** Fires when the person closes the panel (a running question is then cancelled). */
  readonly onDidClose = this.closeEmitter.event;

  private constructor(private readonly panel: vscode.WebviewPanel) {
    this.disposables.push(
      panel.onDidDispose(() => this.dispose()),
      panel.webview.onDidReceiveMessage((message: PanelMessage) => this.onMessage(message)),
      this.closeEmitter,
    );
  }

  /** The open panel, or a new one beside the editor. */
  static show(): AnswerPanel {
    if (AnswerPanel.instance) {
      AnswerPanel.instance.panel.reveal(vscode.ViewColumn.Beside, true);
      return AnswerPanel.instance;
    }
    const panel = vscode.window.createWebviewPanel(
      AnswerPanel.viewType,
      "groundls: Answer",
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      webviewOptions(),
    );
    AnswerPanel.instance = new AnswerPanel(panel);
    return AnswerPanel.instance;
  }

  static get current(): AnswerPanel | undefined {
    return AnswerPanel.instance;
  }

  get state(): AnswerState | undefined {
    return this.stateValue;
  }

  update(state: AnswerState): void {
    const first = this.stateValue === undefined;
    this.stateValue = state;
    this.panel.title = `groundls: ${state.question.split("\n")[0].slice(0, 40)}`;
    if (first) {
      this.panel.webview.html = renderPage({
        cspSource: this.panel.webview.cspSource,
        nonce: makeNonce(),
        title: "groundls answer",
        body: renderAnswerBody(state),
      });
    } else {
      void this.panel.webview.postMessage({ type: "render", html: renderAnswerBody(state) });
    }
  }

  /** Open citation `n` of the current answer. */
  async openCitation(n: number): Promise<vscode.TextEditor | undefined> {
    const citations = this.stateValue?.result?.citations ?? [];
    const citation = citationByNumber(citations, n);
    const target = citation ? targetOf(citation, folderUris()) : undefined;
    if (!target) {
      void vscode.window.showWarningMessage(`groundls: citation [${n}] has no location.`);
      return undefined;
    }
    try {
      return await openTarget(target);
    } catch (error) {
      void vscode.window.showErrorMessage(
        `groundls: could not open ${citation?.path ?? target.uri}: ${error instanceof Error ? error.message : String(error)}`,
      );
      return undefined;
    }
  }

  private onMessage(message: PanelMessage): void {
    if (message.type === "ready" && this.stateValue) {
      // The page (re)loaded, e.g. after being hidden: send what it should show now.
      void this.panel.webview.postMessage({
        type: "render",
        html: renderAnswerBody(this.stateValue),
      });
    } else if (message.type === "open" && typeof message.n === "number") {
      void this.openCitation(message.n);
    }
  }

  private disposed = false;

  dispose(): void {
    if (this.disposed) {
      return;
    }
    this.disposed = true;
    if (AnswerPanel.instance === this) {
      AnswerPanel.instance = undefined;
    }
    this.closeEmitter.fire();
    for (const d of this.disposables) {
      d.dispose();
    }
    this.panel.dispose();
  }
}

/** The index status view. */
export class StatusPanel {
  private static panel: vscode.WebviewPanel | undefined;

  static show(status: StatusResult): void {
    let panel = StatusPanel.panel;
    if (panel) {
      panel.reveal(undefined, true);
    } else {
      panel = vscode.window.createWebviewPanel(
        "groundls.status",
        "groundls: Index status",
        { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
        { enableScripts: false, localResourceRoots: [] },
      );
      panel.onDidDispose(() => {
        StatusPanel.panel = undefined;
      });
      StatusPanel.panel = panel;
    }
    panel.webview.html = renderPage({
      cspSource: panel.webview.cspSource,
      nonce: makeNonce(),
      title: "groundls index status",
      body: renderStatusBody(status),
      script: false,
    });
  }
}
