/** Owns the language client: chooses the server command, starts, restarts, and reports state. */

import * as os from "node:os";
import * as vscode from "vscode";
import {
  CloseAction,
  type CloseHandlerResult,
  ErrorAction,
  type ErrorHandler,
  type ErrorHandlerResult,
  ExecuteCommandRequest,
  LanguageClient,
  type LanguageClientOptions,
  type Middleware,
  DidChangeConfigurationNotification,
  RevealOutputChannelOn,
  type ServerOptions,
  State,
  TransportKind,
  WorkDoneProgress,
  type WorkDoneProgressBegin,
  type WorkDoneProgressEnd,
  type WorkDoneProgressReport,
} from "vscode-languageclient/node";
import { toPanelAsk } from "./common/codeActions";
import { SECTION } from "./common/ids";
import {
  describeLaunch,
  INSTALL_HINT,
  isProblem,
  resolveLaunch,
  type ServerLaunch,
} from "./common/launch";
import { toLaunchSettings, toServerConfig, type PathContext } from "./common/settings";
import { IndexingTracker, type ServerState } from "./common/statusView";
import { fileExists, hasGroundls, pythonExtensionInterpreter, which } from "./python";

/** Progress tokens this client creates for its own requests (everything else is the server's). */
export const CLIENT_TOKEN_PREFIX = "groundls-client/";

type ProgressValue = WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd;

/** How often the server may crash within `CRASH_WINDOW_MS` before it is left stopped. */
const MAX_CRASHES = 4;
const CRASH_WINDOW_MS = 3 * 60 * 1000;

function pathContext(): PathContext {
  const folder = vscode.workspace.workspaceFolders?.[0];
  return {
    home: os.homedir(),
    workspaceFolder: folder?.uri.scheme === "file" ? folder.uri.fsPath : undefined,
  };
}

/** The server part of the `groundls` section, as sent in initializationOptions and on change. */
export function currentServerConfig(scope?: vscode.Uri): object {
  const raw = vscode.workspace.getConfiguration(undefined, scope).get(SECTION);
  return toServerConfig(raw, pathContext());
}

function errorText(error: unknown): string {
  if (error instanceof Error) {
    return error.message;
  }
  return String(error);
}

export class ServerController implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private launch: ServerLaunch | undefined;
  private stateValue: ServerState = "stopped";
  private readonly crashes: number[] = [];
  private starting: Promise<void> | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly stateEmitter = new vscode.EventEmitter<ServerState>();
  private readonly progressEmitter = new vscode.EventEmitter<void>();
  readonly tracker = new IndexingTracker();
  /** Fires when the server starts, stops or fails. */
  readonly onDidChangeState = this.stateEmitter.event;
  /** Fires on every server-created `$/progress` (indexing). */
  readonly onDidChangeProgress = this.progressEmitter.event;
  /** Why the server is not running, for the status item and messages. */
  lastProblem: string | undefined;

  constructor(readonly output: vscode.LogOutputChannel) {
    this.disposables.push(
      this.stateEmitter,
      this.progressEmitter,
      vscode.workspace.onDidChangeConfiguration((event) => this.onConfigurationChanged(event)),
      vscode.workspace.onDidGrantWorkspaceTrust(() => void this.restart()),
    );
  }

  get state(): ServerState {
    return this.stateValue;
  }

  private setState(state: ServerState): void {
    this.stateValue = state;
    if (state !== "running") {
      this.tracker.clear();
    }
    this.stateEmitter.fire(state);
  }

  /** Start the server unless it is running; resolves when it is up or has failed. */
  start(): Promise<void> {
    if (this.client && this.stateValue === "running") {
      return Promise.resolve();
    }
    this.starting ??= this.doStart().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async doStart(): Promise<void> {
    this.setState("starting");
    this.lastProblem = undefined;
    const folder = vscode.workspace.workspaceFolders?.[0];
    const config = vscode.workspace.getConfiguration(SECTION, folder?.uri);
    const launch = await resolveLaunch({
      settings: toLaunchSettings(
        { serverPath: config.get("serverPath"), interpreter: config.get("interpreter") },
        pathContext(),
      ),
      pythonExtensionInterpreter: () => pythonExtensionInterpreter(folder?.uri),
      fileExists,
      hasGroundls,
      which,
    });
    if (isProblem(launch)) {
      this.fail(launch.problem);
      return;
    }
    this.launch = launch;
    this.output.info(`starting the server: ${describeLaunch(launch)}`);
    const client = this.createClient(launch);
    this.client = client;
    client.onDidChangeState((event) => {
      if (this.client !== client) {
        return;
      }
      if (event.newState === State.Running) {
        this.setState("running");
      } else if (event.newState === State.Starting) {
        this.setState("starting");
      } else if (this.stateValue !== "failed") {
        this.setState("stopped");
      }
    });
    try {
      await client.start();
      if (this.stateValue !== "running") {
        this.setState("running");
      }
      this.output.info("the server is running");
    } catch (error) {
      this.client = undefined;
      try {
        await client.dispose(2000);
      } catch {
        // the process may already be gone
      }
      this.fail(
        `groundls: the language server failed to start (${describeLaunch(launch)}): ${errorText(error)}. ${INSTALL_HINT}`,
      );
    }
  }

  private fail(problem: string): void {
    this.lastProblem = problem;
    this.output.error(problem);
    this.setState("failed");
    void this.showProblem(problem);
  }

  /** An error message with the two things a person can do about it. */
  async showProblem(problem: string): Promise<void> {
    const choice = await vscode.window.showErrorMessage(
      problem,
      "Open Settings",
      "Show Logs",
      "Retry",
    );
    if (choice === "Open Settings") {
      await vscode.commands.executeCommand("workbench.action.openSettings", "groundls.");
    } else if (choice === "Show Logs") {
      this.output.show(true);
    } else if (choice === "Retry") {
      await this.restart();
    }
  }

  private createClient(launch: ServerLaunch): LanguageClient {
    const serverOptions: ServerOptions = {
      command: launch.command,
      args: launch.args,
      transport: TransportKind.stdio,
      options: { env: { ...process.env, PYTHONUNBUFFERED: "1" } },
    };
    const middleware: Middleware = {
      workspace: {
        // The server pulls `groundls`: send only its own keys (it warns about unknown ones).
        configuration: async (params, token, next) => {
          const result = await next(params, token);
          if (!Array.isArray(result)) {
            return result;
          }
          return result.map((value: unknown, i) =>
            params.items[i]?.section === SECTION ? toServerConfig(value, pathContext()) : value,
          );
        },
        didChangeConfiguration: async () => {
          await this.client?.sendNotification(DidChangeConfigurationNotification.type, {
            settings: { [SECTION]: currentServerConfig() },
          });
        },
      },
      // "Ask the workspace about this" answers in the answer panel, as the palette's Ask does.
      provideCodeActions: async (document, range, context, token, next) => {
        const actions = await next(document, range, context, token);
        return actions?.map((action) => {
          if (!(action instanceof vscode.CodeAction)) {
            return toPanelAsk(action);
          }
          if (action.command) {
            action.command = toPanelAsk(action.command);
          }
          return action;
        });
      },
      handleWorkDoneProgress: (token, params, next) => {
        if (!String(token).startsWith(CLIENT_TOKEN_PREFIX)) {
          this.tracker.apply(token, params);
          this.progressEmitter.fire();
        }
        next(token, params);
      },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: "file" }],
      outputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      initializationOptions: currentServerConfig(),
      middleware,
      errorHandler: this.errorHandler(),
      markdown: { isTrusted: false, supportHtml: false },
    };
    return new LanguageClient("groundls", "groundls", serverOptions, clientOptions);
  }

  private errorHandler(): ErrorHandler {
    return {
      error: (): ErrorHandlerResult => ({ action: ErrorAction.Continue }),
      closed: (): CloseHandlerResult => {
        const now = Date.now();
        this.crashes.push(now);
        while (this.crashes.length > 0 && now - this.crashes[0] > CRASH_WINDOW_MS) {
          this.crashes.shift();
        }
        this.tracker.clear();
        this.progressEmitter.fire();
        if (this.crashes.length > MAX_CRASHES) {
          const message =
            `groundls: the server stopped ${this.crashes.length} times in 3 minutes and will not be ` +
            `restarted. See "groundls: Show server logs", then run "groundls: Restart server".`;
          this.lastProblem = message;
          this.setState("failed");
          return { action: CloseAction.DoNotRestart, message };
        }
        this.output.warn("the server stopped unexpectedly; restarting it");
        return { action: CloseAction.Restart, handled: true };
      },
    };
  }

  private onConfigurationChanged(event: vscode.ConfigurationChangeEvent): void {
    const affected = ["serverPath", "interpreter"].some((key) =>
      event.affectsConfiguration(`${SECTION}.${key}`),
    );
    if (affected) {
      void vscode.window
        .showInformationMessage("groundls: the server command changed.", "Restart Server")
        .then((choice) => (choice ? this.restart() : undefined));
    }
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) {
      try {
        await client.stop(5000);
      } catch (error) {
        this.output.warn(`stopping the server: ${errorText(error)}`);
      }
      try {
        await client.dispose(2000);
      } catch {
        // already stopped
      }
    }
    this.setState("stopped");
  }

  async restart(): Promise<void> {
    if (this.starting) {
      await this.starting;
    }
    this.output.info("restarting the server");
    await this.stop();
    this.crashes.length = 0;
    await this.start();
  }

  /** The running client, or an error a person can act on. */
  private running(): LanguageClient {
    if (this.client && this.stateValue === "running") {
      return this.client;
    }
    const why = this.lastProblem ?? "The server is not running.";
    if (this.stateValue === "failed") {
      throw new Error(`${why} Run "groundls: Restart server" after fixing it.`);
    }
    throw new Error(why);
  }

  /** Resolves once a start in progress has finished (successfully or not). */
  async settled(): Promise<void> {
    if (this.starting) {
      await this.starting;
    }
  }

  /** Run a server command with one object argument; optional work-done token and cancellation. */
  async execute<T>(
    command: string,
    args: object,
    opts: { workDoneToken?: string; token?: vscode.CancellationToken } = {},
  ): Promise<T> {
    if (this.starting) {
      await this.starting;
    }
    const client = this.running();
    return (await client.sendRequest(
      ExecuteCommandRequest.type,
      { command, arguments: [args], workDoneToken: opts.workDoneToken },
      opts.token,
    )) as T;
  }

  /** Listen to `$/progress` on a token this client passes with a request. */
  onRequestProgress(token: string, handler: (value: ProgressValue) => void): vscode.Disposable {
    const client = this.running();
    return client.onProgress(WorkDoneProgress.type, token, handler);
  }

  get languageClient(): LanguageClient | undefined {
    return this.client;
  }

  /** How the server was started (the MCP server is started the same way), once it was. */
  get currentLaunch(): ServerLaunch | undefined {
    return this.launch;
  }

  get launchDescription(): string | undefined {
    return this.launch ? describeLaunch(this.launch) : undefined;
  }

  dispose(): void {
    void this.stop();
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}
