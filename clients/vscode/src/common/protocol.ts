/** Shapes of the server's `groundls.*` command results (LSP style, camelCase). */

export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

export interface Hit {
  chunkId: string;
  uri: string;
  range: Range;
  path: string;
  startLine: number;
  endLine: number;
  kind: string;
  title: string;
  breadcrumb: string[];
  snippet: string;
  score: number;
  language?: string;
  folder?: string;
  /** The page, slide, sheet or cell of a document ("p. 12"); absent for text files. */
  place?: string;
}

/** Results of search and similar; `indexing` says the index is still being built. */
export interface HitsResult {
  hits: Hit[];
  source?: Hit | null;
  message?: string;
  indexing?: boolean;
  /** How sure the search is: "high", "medium", "low" or "none" (no hits). */
  confidence?: string;
  /** The evidence behind the confidence ("keyword and meaning agree"). */
  confidenceReason?: string;
}

export interface Citation {
  n: number;
  chunkId?: string;
  uri?: string;
  range?: Range;
  path: string;
  startLine: number;
  endLine: number;
  title?: string;
  weak?: boolean;
  /** The cited excerpt's lines that share the cited sentences' content (1-based lines). */
  support?: { line: number; text: string }[];
  /** The page, slide, sheet or cell of a document ("p. 12"); absent for text files. */
  place?: string;
}

/** A document's text as the server read it, and where each page (slide, sheet, cell) begins. */
export interface DocumentTextResult {
  path: string;
  uri: string;
  text: string;
  places: { line: number; place: string }[];
}

export interface AskResult {
  answer: string;
  found: boolean;
  citations: Citation[];
  mode?: string;
  model?: string;
  language?: string | null;
  timing?: Record<string, number>;
  cut?: boolean;
  /** Why an answer is not a full generated one ("answer cut (time limit 30 s)"). */
  notice?: string;
  indexing?: boolean;
  message?: string;
  /** The conversation this answer belongs to: a follow-up passes it back. */
  thread?: number | null;
  /** Whether the workspace answers it, and the evidence that decided ("standing", "model"). */
  verdict?: Verdict;
}

export interface Verdict {
  outcome: string;
  decidedBy: string;
  why: string;
  evidence?: Record<string, unknown>;
}

export interface ReindexResult {
  files?: number;
  filesIndexed?: number;
  chunks?: number;
  embedded?: number;
  reused?: number;
  skipped?: number;
  seconds?: number;
  cancelled?: boolean;
  errors?: string[];
  summary?: string;
}

export interface FolderStatus {
  name: string;
  uri?: string;
  state?: string;
  indexing?: boolean;
  lastError?: string | null;
  progress?: { doneFiles: number; totalFiles: number; percentage: number; message?: string };
  files?: number | null;
  chunks?: number | null;
  model?: unknown;
  index?: { file?: string; location?: string; sizeBytes?: number };
  lastIndex?: ReindexResult;
  /** Files left out and why, documents first ("encrypted: the PDF needs a password"). */
  skippedFiles?: { path: string; reason: string; detail?: string; uri?: string }[];
}

export interface StatusResult {
  folders: FolderStatus[];
}

/** Narrow an unknown command result to an object with an array field, or throw a clear error. */
export function expectArrayField<T>(value: unknown, field: string, command: string): T {
  if (
    typeof value !== "object" ||
    value === null ||
    !Array.isArray((value as Record<string, unknown>)[field])
  ) {
    throw new Error(`${command} returned an unexpected result (no "${field}" list)`);
  }
  return value as T;
}
