/** The server's code actions as VS Code runs them: "Ask the workspace about this" answers in
 * the answer panel (as "groundls: Ask the workspace" does) instead of in the Markdown document
 * the server writes for editors without a panel. */

import { ClientCommand, ServerCommand } from "./ids";

/** A command as the language client hands it over (`vscode.Command`'s shape). */
export interface CommandLike {
  title: string;
  command: string;
  tooltip?: string;
  arguments?: unknown[];
}

/** What the answer panel's ask is called with when a code action asks. */
export interface PanelAskArgs {
  question: string;
  /** The question already is the selection: do not send it again as context. */
  withSelection: false;
}

/** The panel's ask for the server's `groundls.askInDocument` command; any other command (and
 * one whose question is missing) unchanged. */
export function toPanelAsk<T extends CommandLike>(command: T): T {
  if (command.command !== ServerCommand.askInDocument) {
    return command;
  }
  const arg: unknown = command.arguments?.[0];
  const question =
    typeof arg === "object" && arg !== null ? (arg as Record<string, unknown>).question : undefined;
  if (typeof question !== "string" || !question.trim()) {
    return command;
  }
  const args: PanelAskArgs = { question, withSelection: false };
  return { ...command, command: ClientCommand.ask, arguments: [args] };
}
