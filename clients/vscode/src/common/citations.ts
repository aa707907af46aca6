/** Where a citation or hit points: a file URI and a 0-based line range, built without vscode. */

import { DOCUMENT_SCHEME } from "./ids";
import type { Citation, Hit, Range } from "./protocol";

/** A location to open: the file and the 0-based first and last cited lines. For a document
 * (PDF, slides, ...) `uri` is its read-only text view (`documentViewUri`). */
export interface Target {
  uri: string;
  startLine: number;
  endLine: number;
}

type Located = Pick<Citation, "uri" | "range" | "path" | "startLine" | "endLine" | "place">;

/**
 * The read-only view of a document's text at a place: its tab reads `manual.pdf (p. 12)`, and
 * the file's own URI rides in the query for the content provider to ask the server with.
 */
export function documentViewUri(fileUri: string, path: string, place: string): string {
  const shown = `${path} (${place})`
    .split("/")
    .map((s) => encodeURIComponent(s))
    .join("/");
  return `${DOCUMENT_SCHEME}:/${shown}?${encodeURIComponent(fileUri)}`;
}

/** The document's file URI back from a view URI's query (undefined for anything else). */
export function documentOfView(query: string): string | undefined {
  if (!query) {
    return undefined;
  }
  const uri = decodeURIComponent(query);
  return uri.startsWith("file:") ? uri : undefined;
}

/** Join a workspace-relative POSIX path onto a folder URI, percent-encoding each segment. */
export function joinUri(folderUri: string, relPath: string): string {
  const base = folderUri.endsWith("/") ? folderUri.slice(0, -1) : folderUri;
  const segments = relPath
    .split("/")
    .filter((s) => s !== "" && s !== ".")
    .map((s) => encodeURIComponent(s));
  return `${base}/${segments.join("/")}`;
}

/** Last line a server range covers: an end at column 0 does not include that line. */
function lastLine(range: Range): number {
  const { start, end } = range;
  if (end.line > start.line && end.character === 0) {
    return end.line - 1;
  }
  return Math.max(start.line, end.line);
}

/**
 * The location of a citation or hit. The server's `uri` + `range` win; a bare relative
 * `path` with 1-based `startLine`/`endLine` is resolved against the first workspace folder.
 */
export function targetOf(item: Located, folderUris: readonly string[]): Target | undefined {
  let uri = item.uri;
  if (!uri) {
    if (!item.path || folderUris.length === 0) {
      return undefined;
    }
    uri = joinUri(folderUris[0], item.path);
  }
  if (item.place && item.path) {
    uri = documentViewUri(uri, item.path, item.place);
  }
  if (item.range) {
    return { uri, startLine: item.range.start.line, endLine: lastLine(item.range) };
  }
  const start = Math.max(0, (item.startLine || 1) - 1);
  const end = Math.max(start, (item.endLine || item.startLine || 1) - 1);
  return { uri, startLine: start, endLine: end };
}

/** `docs/auth.md:3-7` (1-based, as people read line numbers); `docs/manual.pdf p. 12`. */
export function locationLabel(
  item: Pick<Hit, "path" | "startLine" | "endLine"> & { place?: string },
): string {
  if (item.place) {
    return `${item.path} ${item.place}`;
  }
  if (!item.startLine) {
    return item.path;
  }
  if (!item.endLine || item.endLine === item.startLine) {
    return `${item.path}:${item.startLine}`;
  }
  return `${item.path}:${item.startLine}-${item.endLine}`;
}

/** Find citation `n` in a list (citations are numbered by the server, not by position). */
export function citationByNumber(citations: readonly Citation[], n: number): Citation | undefined {
  return citations.find((c) => c.n === n);
}
