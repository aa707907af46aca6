/** Command ids in one place: the palette's client ids and the server's workspace commands. */

/** Commands this extension contributes (what the palette shows). */
export const ClientCommand = {
  ask: "groundls.client.ask",
  askFollowUp: "groundls.client.askFollowUp",
  search: "groundls.client.search",
  similar: "groundls.client.similar",
  reindex: "groundls.client.reindex",
  status: "groundls.client.status",
  restart: "groundls.client.restart",
  showLogs: "groundls.client.showLogs",
  openCitation: "groundls.client.openLocation",
  historyRefresh: "groundls.client.historyRefresh",
  historyOpen: "groundls.client.historyOpen",
  historyFollowUp: "groundls.client.historyFollowUp",
  historyDelete: "groundls.client.historyDelete",
} as const;

/** Commands the language server lists in `executeCommandProvider`. */
export const ServerCommand = {
  search: "groundls.search",
  similar: "groundls.similar",
  ask: "groundls.ask",
  reindex: "groundls.reindex",
  reference: "groundls.reference",
  status: "groundls.status",
  history: "groundls.history",
  documentText: "groundls.documentText",
  deleteHistory: "groundls.deleteHistory",
  /** The code action "Ask the workspace about this" (answers into a Markdown document). */
  askInDocument: "groundls.askInDocument",
} as const;

/** The scheme of the read-only views of a document's text (a PDF's pages, a deck's slides). */
export const DOCUMENT_SCHEME = "groundls-doc";

/** The configuration section, in package.json and on the wire. */
export const SECTION = "groundls";

/** The id of the MCP server definition provider (package.json `mcpServerDefinitionProviders`). */
export const MCP_PROVIDER_ID = "groundls.mcp";
