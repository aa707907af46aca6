/** Past questions in the Explorer: each thread of questions and follow-ups, to open again (the
 * answer and its sources in the answer panel), to continue, or to delete. */

import * as vscode from "vscode";
import type { ServerController } from "./client";
import {
  askedLabel,
  type HistoryEntry,
  type HistoryResult,
  type HistoryThread,
  questionLabel,
  resultOf,
  threadsOf,
} from "./common/historyView";
import { ServerCommand } from "./common/ids";
import { expectArrayField } from "./common/protocol";
import { finishAnswer, startAnswer } from "./common/answerView";
import { AnswerPanel } from "./panels";

type Node = HistoryThread | HistoryEntry;

/** How many past questions the view lists. */
const LIMIT = 200;

function isThread(node: Node): node is HistoryThread {
  return "entries" in node;
}

export class HistoryView implements vscode.TreeDataProvider<Node> {
  static readonly viewId = "groundls.history";
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private threads: HistoryThread[] = [];

  constructor(private readonly server: ServerController) {}

  register(): vscode.Disposable[] {
    return [vscode.window.registerTreeDataProvider(HistoryView.viewId, this), this.changed];
  }

  /** The threads as listed now (the end-to-end tests read them). */
  get current(): readonly HistoryThread[] {
    return this.threads;
  }

  refresh(): void {
    this.changed.fire(undefined);
  }

  async getChildren(node?: Node): Promise<Node[]> {
    if (node !== undefined) {
      return isThread(node) && node.entries.length > 1 ? node.entries.slice(1) : [];
    }
    try {
      await this.server.settled();
      const result = await this.server.execute<HistoryResult>(ServerCommand.history, {
        limit: LIMIT,
      });
      expectArrayField<HistoryResult>(result, "entries", ServerCommand.history);
      this.threads = threadsOf(result.entries);
    } catch {
      this.threads = []; // no server yet: an empty view, filled on the next refresh
    }
    return this.threads;
  }

  getTreeItem(node: Node): vscode.TreeItem {
    const entry = isThread(node) ? node.entries[0] : node;
    const follow = isThread(node) ? node.entries.length - 1 : 0;
    const item = new vscode.TreeItem(
      questionLabel(entry.question),
      follow > 0 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
    );
    const when = askedLabel(entry.askedAt);
    item.description = [when, follow ? `+${follow} follow-up${follow > 1 ? "s" : ""}` : ""]
      .filter(Boolean)
      .join(" · ");
    item.tooltip = new vscode.MarkdownString(
      `**${entry.question}**\n\n${entry.answer.slice(0, 600)}`,
    );
    item.iconPath = new vscode.ThemeIcon(entry.found ? "comment-discussion" : "question");
    item.contextValue = isThread(node) ? "thread" : "entry";
    item.command = { command: "groundls.client.historyOpen", title: "Open", arguments: [node] };
    return item;
  }

  /** Show a past answer (a thread's latest) with its sources, as when it was asked. */
  open(node: Node): void {
    const entry = isThread(node) ? node.entries[node.entries.length - 1] : node;
    const now = Date.now();
    const state = finishAnswer(startAnswer(entry.question, now), resultOf(entry), now);
    AnswerPanel.show().update(state);
  }

  /** Forget a thread on the server, then list again. */
  async delete(node: Node): Promise<boolean> {
    const thread = node.thread;
    try {
      await this.server.execute(ServerCommand.deleteHistory, { thread });
      this.refresh();
      return true;
    } catch (error) {
      void vscode.window.showErrorMessage(
        `groundls: could not delete it: ${error instanceof Error ? error.message : String(error)}`,
      );
      return false;
    }
  }

  /** The thread a follow-up continues. */
  threadOf(node: Node): number {
    return node.thread;
  }
}
