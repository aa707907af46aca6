/**
 * Offer `groundls mcp` to Copilot's agent mode through VS Code's MCP server definition API
 * (`vscode.lm.registerMcpServerDefinitionProvider`, VS Code 1.101+): one server per workspace
 * folder, started with the same program as the language server. The provider is declared under
 * both names VS Code has used (`mcpServerDefinitionProviders`, and the earlier
 * `modelContextServerCollections`); older VS Code lacks the API and is left alone (the README
 * shows `.vscode/mcp.json` for those), and a failed registration never stops the extension.
 */

import * as vscode from "vscode";
import { MCP_PROVIDER_ID } from "./common/ids";
import { mcpLaunch, type ServerLaunch } from "./common/launch";

/** The parts of the API used here, declared locally: the extension builds against VS Code 1.90. */
interface McpProvider {
  provideMcpServerDefinitions: (token: vscode.CancellationToken) => unknown[];
}
interface LanguageModelApi {
  registerMcpServerDefinitionProvider?: (id: string, provider: McpProvider) => vscode.Disposable;
}
type StdioDefinition = new (
  label: string,
  command: string,
  args: string[],
  env?: Record<string, string>,
  version?: string,
) => unknown;

/** Registers the provider when the running VS Code has the API; returns whether it did. */
export function offerMcpServer(
  context: vscode.ExtensionContext,
  launch: () => ServerLaunch | undefined,
  version: string,
  log: (message: string) => void = () => undefined,
): boolean {
  const api = vscode as unknown as {
    lm?: LanguageModelApi;
    McpStdioServerDefinition?: StdioDefinition;
  };
  const lm = api.lm;
  const Definition = api.McpStdioServerDefinition;
  if (!lm?.registerMcpServerDefinitionProvider || !Definition) {
    return false;
  }
  const provider: McpProvider = {
    provideMcpServerDefinitions: () => {
      const chosen = launch();
      if (!chosen) {
        return [];
      }
      return (vscode.workspace.workspaceFolders ?? [])
        .filter((folder) => folder.uri.scheme === "file")
        .map((folder) => {
          const { command, args } = mcpLaunch(chosen, folder.uri.fsPath);
          return new Definition(`groundls: ${folder.name}`, command, args, {}, version);
        });
    },
  };
  try {
    context.subscriptions.push(lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, provider));
  } catch (error) {
    // VS Code versions differ in how the provider must be declared: the language server and
    // the rest of the extension work without it
    log(`groundls: the MCP server could not be offered to agents: ${String(error)}`);
    return false;
  }
  return true;
}
