/** The palette commands: each asks the server through the controller and shows the result. */

import * as vscode from "vscode";
import {
  applyProgress,
  failAnswer,
  finishAnswer,
  startAnswer,
  type AnswerState,
} from "./common/answerView";
import { targetOf, type Target } from "./common/citations";
import { ClientCommand, ServerCommand } from "./common/ids";
import {
  expectArrayField,
  type AskResult,
  type Hit,
  type HitsResult,
  type ReindexResult,
  type StatusResult,
} from "./common/protocol";
import {
  composeQuestion,
  hitItem,
  hitsPlaceholder,
  type SelectionContext,
} from "./common/question";
import { statusSummary } from "./common/statusView";
import { CLIENT_TOKEN_PREFIX, type ServerController } from "./client";
import { AnswerPanel, openTarget, StatusPanel } from "./panels";

let tokenCounter = 0;

function newToken(kind: string): string {
  tokenCounter += 1;
  return `${CLIENT_TOKEN_PREFIX}${kind}/${Date.now().toString(36)}-${tokenCounter}`;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function folderUris(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.toString());
}

/** The active editor's document URI when it is a file inside a workspace folder. */
function activeFileUri(): vscode.Uri | undefined {
  const uri = vscode.window.activeTextEditor?.document.uri;
  if (!uri || uri.scheme !== "file" || !vscode.workspace.getWorkspaceFolder(uri)) {
    return undefined;
  }
  return uri;
}

function selectionContext(): SelectionContext | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.selection.isEmpty) {
    return undefined;
  }
  const text = editor.document.getText(editor.selection);
  if (!text.trim()) {
    return undefined;
  }
  return {
    text,
    path: vscode.workspace.asRelativePath(editor.document.uri, false),
    line: editor.selection.start.line + 1,
  };
}

/** Arguments a command may be called with programmatically (tests, keybindings). */
interface AskArgs {
  question?: string;
  /** Continue the conversation of an earlier answer (its `thread`). */
  thread?: number;
  /** false: the question is the selection itself (a code action's), not sent again as context. */
  withSelection?: boolean;
}
interface SearchArgs {
  query?: string;
}

function argText(arg: unknown, key: string): string | undefined {
  if (typeof arg === "string") {
    return arg;
  }
  if (typeof arg === "object" && arg !== null) {
    const value = (arg as Record<string, unknown>)[key];
    return typeof value === "string" ? value : undefined;
  }
  return undefined;
}

export class Commands {
  private asking: vscode.CancellationTokenSource | undefined;
  /** The conversation of the last answer, which a follow-up continues. */
  private lastThread: number | undefined;
  private readonly answered = new vscode.EventEmitter<AskResult>();
  /** Fires when a question was answered (the past-questions view lists it). */
  readonly onDidAnswer = this.answered.event;

  constructor(private readonly server: ServerController) {}

  register(): vscode.Disposable[] {
    const r = vscode.commands.registerCommand;
    return [
      r(ClientCommand.ask, (arg?: AskArgs | string) => this.ask(arg)),
      r(ClientCommand.askFollowUp, (arg?: AskArgs | string) => this.askFollowUp(arg)),
      r(ClientCommand.search, (arg?: SearchArgs | string) => this.search(arg)),
      r(ClientCommand.similar, () => this.similar()),
      r(ClientCommand.reindex, () => this.reindex()),
      r(ClientCommand.status, () => this.status()),
      r(ClientCommand.restart, () => this.server.restart()),
      r(ClientCommand.showLogs, () => this.server.output.show(true)),
      r(ClientCommand.openCitation, (target: Target) => openTarget(target)),
      this.answered,
    ];
  }

  /** A follow-up of the last answer: the server makes it standalone from that conversation. */
  async askFollowUp(arg?: AskArgs | string): Promise<AskResult | undefined> {
    if (this.lastThread === undefined) {
      void vscode.window.showInformationMessage("groundls: ask a question first, then follow up.");
      return undefined;
    }
    const question = typeof arg === "string" ? arg : arg?.question;
    return this.ask({ question, thread: this.lastThread });
  }

  /** Ask the workspace: input box, selection as context, answer streamed into the panel. */
  async ask(arg?: AskArgs | string): Promise<AskResult | undefined> {
    const selection =
      typeof arg === "object" && arg.withSelection === false ? undefined : selectionContext();
    const thread = typeof arg === "object" ? arg.thread : undefined;
    let question = argText(arg, "question");
    if (question === undefined) {
      question = await vscode.window.showInputBox({
        title: thread === undefined ? "groundls: Ask the workspace" : "groundls: Ask a follow-up",
        prompt: selection
          ? `The selection (${selection.path}:${selection.line}) is sent as context.`
          : "Ask a question about the files in this workspace.",
        placeHolder: "How do sessions expire?",
        ignoreFocusOut: true,
        validateInput: (value) =>
          value.trim() || selection ? undefined : "Type a question (or select some text first).",
      });
      if (question === undefined) {
        return undefined;
      }
    }
    const text = composeQuestion(question, selection);
    if (!text) {
      void vscode.window.showWarningMessage("groundls: the question is empty.");
      return undefined;
    }
    this.asking?.cancel();
    const cancel = new vscode.CancellationTokenSource();
    this.asking = cancel;
    const panel = AnswerPanel.show();
    const closed = panel.onDidClose(() => cancel.cancel());
    let state: AnswerState = startAnswer(question.trim() || text.split("\n")[0], Date.now());
    panel.update(state);
    const workDoneToken = newToken("ask");
    let progress: vscode.Disposable | undefined;
    try {
      await this.server.settled();
      progress = this.server.onRequestProgress(workDoneToken, (value) => {
        if (cancel.token.isCancellationRequested) {
          return;
        }
        state = applyProgress(state, value);
        panel.update(state);
      });
      const uri = activeFileUri();
      const args: Record<string, unknown> = { question: text };
      if (uri) {
        args.uri = uri.toString();
      }
      if (thread !== undefined) {
        args.thread = thread;
      }
      const result = await this.server.execute<AskResult>(ServerCommand.ask, args, {
        workDoneToken,
        token: cancel.token,
      });
      expectArrayField<AskResult>(result, "citations", ServerCommand.ask);
      if (typeof result.thread === "number") {
        this.lastThread = result.thread;
      }
      state = finishAnswer(state, result, Date.now());
      if (!cancel.token.isCancellationRequested) {
        panel.update(state);
      }
      this.answered.fire(result);
      return result;
    } catch (error) {
      if (cancel.token.isCancellationRequested) {
        return undefined;
      }
      state = failAnswer(state, message(error), Date.now());
      panel.update(state);
      void vscode.window.showErrorMessage(`groundls: Ask failed: ${message(error)}`);
      return undefined;
    } finally {
      progress?.dispose();
      closed.dispose();
      if (this.asking === cancel) {
        this.asking = undefined;
      }
      cancel.dispose();
    }
  }

  /** Show hits in a quick pick; the chosen one opens at its range. */
  private async pickHit(result: HitsResult, title: string): Promise<Hit | undefined> {
    const items = result.hits.map((hit) => ({ ...hitItem(hit), hit }));
    const picked = await vscode.window.showQuickPick(items, {
      title,
      matchOnDescription: true,
      matchOnDetail: true,
      placeHolder: hitsPlaceholder(result),
    });
    if (!picked) {
      return undefined;
    }
    const target = targetOf(picked.hit, folderUris());
    if (target) {
      await openTarget(target);
    }
    return picked.hit;
  }

  private noHits(what: string, result: HitsResult): void {
    const note = result.indexing ? " (indexing is still running: try again soon)" : "";
    void vscode.window.showInformationMessage(
      `groundls: ${result.message ?? `nothing relevant found for ${what}`}${note}.`,
    );
  }

  /** Search the workspace: a query (the selection by default), then a quick pick of hits. */
  async search(arg?: SearchArgs | string): Promise<Hit | undefined> {
    let query = argText(arg, "query");
    if (query === undefined) {
      const editor = vscode.window.activeTextEditor;
      const selected =
        editor && !editor.selection.isEmpty ? editor.document.getText(editor.selection) : "";
      query = await vscode.window.showInputBox({
        title: "groundls: Search the workspace",
        prompt: "Words or a question; results mix meaning and keywords.",
        value: selected.split("\n")[0].slice(0, 200),
        ignoreFocusOut: true,
        validateInput: (value) => (value.trim() ? undefined : "Type something to search for."),
      });
      if (query === undefined) {
        return undefined;
      }
    }
    try {
      const result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: "groundls: searching" },
        () => this.server.execute<HitsResult>(ServerCommand.search, { query }),
      );
      expectArrayField<HitsResult>(result, "hits", ServerCommand.search);
      if (result.hits.length === 0) {
        this.noHits(`"${query}"`, result);
        return undefined;
      }
      return await this.pickHit(result, `groundls: ${query}`);
    } catch (error) {
      void vscode.window.showErrorMessage(`groundls: Search failed: ${message(error)}`);
      return undefined;
    }
  }

  /** Find chunks similar to the one under the cursor. */
  async similar(): Promise<Hit | undefined> {
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
      void vscode.window.showInformationMessage(
        "groundls: open a file and put the cursor in the code or text to compare.",
      );
      return undefined;
    }
    const { line, character } = editor.selection.active;
    try {
      const result = await this.server.execute<HitsResult>(ServerCommand.similar, {
        uri: editor.document.uri.toString(),
        position: { line, character },
      });
      expectArrayField<HitsResult>(result, "hits", ServerCommand.similar);
      if (result.hits.length === 0) {
        this.noHits("this place", result);
        return undefined;
      }
      const source = result.source?.title ? ` “${result.source.title}”` : "";
      return await this.pickHit(result, `groundls: similar to${source}`);
    } catch (error) {
      void vscode.window.showErrorMessage(`groundls: Find similar failed: ${message(error)}`);
      return undefined;
    }
  }

  /** Re-index every folder, with a cancellable notification fed by the server's progress. */
  async reindex(): Promise<ReindexResult | undefined> {
    try {
      const result = await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: "groundls: re-indexing",
          cancellable: true,
        },
        async (progress, token) => {
          let reported = 0;
          const sub = this.server.onDidChangeProgress(() => {
            const pct = this.server.tracker.percentage ?? reported;
            const messages = this.server.tracker.messages;
            progress.report({
              message: messages.length
                ? messages.map((m) => m.replace(/^[^:]*: /, "")).join("; ")
                : undefined,
              increment: Math.max(0, pct - reported),
            });
            reported = Math.max(reported, pct);
          });
          try {
            return await this.server.execute<ReindexResult>(
              ServerCommand.reindex,
              {},
              { token, workDoneToken: newToken("reindex") },
            );
          } finally {
            sub.dispose();
          }
        },
      );
      const text = result?.summary ?? `${result?.files ?? 0} files, ${result?.chunks ?? 0} chunks`;
      void vscode.window.showInformationMessage(
        result?.cancelled
          ? `groundls: re-index cancelled (${text}).`
          : `groundls: re-indexed: ${text}.`,
      );
      return result;
    } catch (error) {
      void vscode.window.showErrorMessage(`groundls: Re-index failed: ${message(error)}`);
      return undefined;
    }
  }

  /** The index status view (also what the status bar item opens). */
  async status(): Promise<StatusResult | undefined> {
    if (this.server.state === "failed" && this.server.lastProblem) {
      void this.server.showProblem(this.server.lastProblem);
      return undefined;
    }
    try {
      const result = await this.server.execute<StatusResult>(ServerCommand.status, {});
      expectArrayField<StatusResult>(result, "folders", ServerCommand.status);
      StatusPanel.show(result);
      this.server.output.info(statusSummary(result));
      return result;
    } catch (error) {
      void vscode.window.showErrorMessage(`groundls: Show index status failed: ${message(error)}`);
      return undefined;
    }
  }
}
