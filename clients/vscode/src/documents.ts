/** Read-only views of a document's text (a PDF's pages, a deck's slides) as the server read it:
 * where a citation of `manual.pdf p. 12` opens. */

import * as vscode from "vscode";
import type { ServerController } from "./client";
import { documentOfView } from "./common/citations";
import { DOCUMENT_SCHEME, ServerCommand } from "./common/ids";
import type { DocumentTextResult } from "./common/protocol";

export class DocumentViews implements vscode.TextDocumentContentProvider {
  constructor(private readonly server: ServerController) {}

  register(): vscode.Disposable {
    return vscode.workspace.registerTextDocumentContentProvider(DOCUMENT_SCHEME, this);
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const file = documentOfView(uri.query);
    if (file === undefined) {
      throw new Error(`groundls: ${uri.toString()} names no document`);
    }
    const result = await this.server.execute<DocumentTextResult>(ServerCommand.documentText, {
      uri: file,
    });
    return result.text;
  }
}
