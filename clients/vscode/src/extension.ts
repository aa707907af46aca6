/** Entry point: wires the server controller, the palette commands and the status bar item. */

import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import { ServerController } from "./client";
import { Commands } from "./commands";
import { renderAnswerBody, type AnswerState } from "./common/answerView";
import { ClientCommand } from "./common/ids";
import { DocumentViews } from "./documents";
import type { HistoryThread } from "./common/historyView";
import { HistoryView } from "./history";
import { statusBarLook, type ServerState } from "./common/statusView";
import { offerMcpServer } from "./mcp";
import { AnswerPanel } from "./panels";

/** What the extension exports: used by its end-to-end tests, stable enough for other extensions. */
export interface GroundlsApi {
  /** Resolves when the server has started (or failed to). */
  ready(): Promise<void>;
  state(): ServerState;
  client(): LanguageClient | undefined;
  /** The answer panel's current state, if the panel is open. */
  answerState(): AnswerState | undefined;
  /** The HTML the answer panel shows for that state. */
  answerHtml(): string | undefined;
  statusBarText(): string;
  /** The end message of the last finished indexing job the server reported. */
  lastIndexMessage(): string | undefined;
  /** Open citation `n` of the answer shown in the panel. */
  openCitation(n: number): Promise<vscode.TextEditor | undefined>;
  /** The problem that keeps the server from running, if any. */
  lastProblem(): string | undefined;
  /** The past-questions view's threads, listed afresh from the server. */
  historyThreads(): Promise<readonly HistoryThread[]>;
}

let controller: ServerController | undefined;

export function activate(context: vscode.ExtensionContext): GroundlsApi {
  const output = vscode.window.createOutputChannel("groundls", { log: true });
  const server = new ServerController(output);
  controller = server;
  const commands = new Commands(server);

  const item = vscode.window.createStatusBarItem(
    "groundls.status",
    vscode.StatusBarAlignment.Left,
    10,
  );
  item.name = "groundls";
  item.command = ClientCommand.status;
  const refresh = (): void => {
    const look = statusBarLook(server.state, server.tracker, server.lastProblem);
    item.text = look.text;
    item.tooltip = look.tooltip;
    item.backgroundColor =
      server.state === "failed"
        ? new vscode.ThemeColor("statusBarItem.errorBackground")
        : undefined;
    item.show();
  };
  refresh();

  context.subscriptions.push(
    output,
    server,
    item,
    server.onDidChangeState(refresh),
    server.onDidChangeProgress(refresh),
    ...commands.register(),
    new DocumentViews(server).register(),
    ...registerHistory(server, commands),
  );

  // Copilot's agent mode gets the workspace's MCP server where this VS Code has the API.
  const manifest = context.extension.packageJSON as { version?: string };
  offerMcpServer(
    context,
    () => server.currentLaunch,
    manifest.version ?? "",
    (m) => output.warn(m),
  );

  // The server indexes workspace folders: in a window without one it starts when one is opened.
  const hasFolder = (): boolean => (vscode.workspace.workspaceFolders?.length ?? 0) > 0;
  let started: Promise<void>;
  if (hasFolder()) {
    started = server.start();
  } else {
    server.lastProblem = "groundls: open a folder to index and ask it.";
    refresh();
    started = Promise.resolve();
    const waiting = vscode.workspace.onDidChangeWorkspaceFolders(() => {
      if (hasFolder()) {
        waiting.dispose();
        started = server.start();
      }
    });
    context.subscriptions.push(waiting);
  }
  return {
    ready: () => started.then(() => server.settled()),
    state: () => server.state,
    client: () => server.languageClient,
    answerState: () => AnswerPanel.current?.state,
    answerHtml: () => {
      const state = AnswerPanel.current?.state;
      return state ? renderAnswerBody(state) : undefined;
    },
    statusBarText: () => item.text,
    lastIndexMessage: () => server.tracker.lastMessage,
    openCitation: async (n) => AnswerPanel.current?.openCitation(n),
    lastProblem: () => server.lastProblem,
    historyThreads: async () => {
      await history?.getChildren();
      return history?.current ?? [];
    },
  };
}

/** The past-questions view and its commands: open a past answer, continue it, delete it. */
function registerHistory(server: ServerController, commands: Commands): vscode.Disposable[] {
  const view = new HistoryView(server);
  history = view;
  const r = vscode.commands.registerCommand;
  return [
    ...view.register(),
    commands.onDidAnswer(() => view.refresh()),
    server.onDidChangeState(() => view.refresh()),
    r(ClientCommand.historyRefresh, () => view.refresh()),
    r(ClientCommand.historyOpen, (node: Parameters<HistoryView["open"]>[0]) => view.open(node)),
    r(ClientCommand.historyFollowUp, (node: Parameters<HistoryView["open"]>[0]) =>
      commands.ask({ thread: view.threadOf(node) }),
    ),
    r(
      ClientCommand.historyDelete,
      async (node: Parameters<HistoryView["open"]>[0], confirmed?: boolean) => {
        if (!confirmed) {
          const answer = await vscode.window.showWarningMessage(
            "Delete this question and its follow-ups from the workspace's history?",
            { modal: true },
            "Delete",
          );
          if (answer !== "Delete") {
            return false;
          }
        }
        return view.delete(node);
      },
    ),
  ];
}

let history: HistoryView | undefined;

export async function deactivate(): Promise<void> {
  const server = controller;
  controller = undefined;
  await server?.stop();
}
