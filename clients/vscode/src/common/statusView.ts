/** Status bar text from the server's indexing progress, and the index status view's HTML. */

import { escapeHtml } from "./html";
import type { FolderStatus, StatusResult } from "./protocol";

export type ServerState = "starting" | "running" | "stopped" | "failed";

interface Job {
  title: string;
  message?: string;
  percentage?: number;
}

/** Server-created `$/progress` tokens (one per folder being indexed) and where each one is. */
export class IndexingTracker {
  private readonly jobs = new Map<string, Job>();
  /** The last finished job's end message ("12 files, 40 chunks in 1.2 s"). */
  lastMessage?: string;

  apply(
    token: string | number,
    value: { kind: string; title?: string; message?: string; percentage?: number },
  ): void {
    const key = String(token);
    if (value.kind === "begin") {
      this.jobs.set(key, {
        title: value.title ?? "indexing",
        message: value.message,
        percentage: value.percentage,
      });
    } else if (value.kind === "report") {
      const job = this.jobs.get(key) ?? { title: "indexing" };
      this.jobs.set(key, {
        ...job,
        message: value.message ?? job.message,
        percentage: value.percentage ?? job.percentage,
      });
    } else if (value.kind === "end") {
      if (this.jobs.delete(key) && value.message) {
        this.lastMessage = value.message;
      }
    }
  }

  clear(): void {
    this.jobs.clear();
  }

  get active(): boolean {
    return this.jobs.size > 0;
  }

  /** Mean percentage over the running jobs (undefined when none reports one). */
  get percentage(): number | undefined {
    const values = [...this.jobs.values()]
      .map((j) => j.percentage)
      .filter((p): p is number => typeof p === "number");
    if (values.length === 0) {
      return undefined;
    }
    return Math.round(values.reduce((a, b) => a + b, 0) / values.length);
  }

  get messages(): string[] {
    return [...this.jobs.values()].map((j) => (j.message ? `${j.title}: ${j.message}` : j.title));
  }
}

export interface StatusBarLook {
  text: string;
  tooltip: string;
}

/** What the status item shows for a server state and the indexing in flight. */
export function statusBarLook(
  state: ServerState,
  tracker: IndexingTracker,
  problem?: string,
): StatusBarLook {
  const click = "Click for the index status.";
  if (state === "failed") {
    return {
      text: "$(error) groundls",
      tooltip: `${problem ?? "groundls: the server is not running."}\nClick for details.`,
    };
  }
  if (state === "stopped") {
    return {
      text: "$(circle-slash) groundls",
      tooltip: problem ?? "groundls: the server is stopped.",
    };
  }
  if (state === "starting") {
    return { text: "$(loading~spin) groundls", tooltip: "groundls: starting the server…" };
  }
  if (tracker.active) {
    const pct = tracker.percentage;
    return {
      text: `$(sync~spin) groundls ${pct === undefined ? "indexing" : `${pct}%`}`,
      tooltip: `groundls: ${tracker.messages.join("\n")}\n${click}`,
    };
  }
  const last = tracker.lastMessage ? `Last index: ${tracker.lastMessage}\n` : "";
  return { text: "$(database) groundls", tooltip: `groundls: index up to date.\n${last}${click}` };
}

function formatBytes(n: number): string {
  if (n < 1024) {
    return `${n} B`;
  }
  if (n < 1024 * 1024) {
    return `${(n / 1024).toFixed(1)} KiB`;
  }
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

function modelName(model: unknown): string | undefined {
  if (typeof model === "string" && model) {
    return model;
  }
  if (typeof model === "object" && model !== null) {
    const m = model as Record<string, unknown>;
    const name = m.model ?? m.name ?? m.id;
    if (typeof name === "string" && name) {
      return typeof m.dim === "number" ? `${name} (${m.dim}-d)` : name;
    }
  }
  return undefined;
}

/** A model description: a name, or `role: name` for each model of a multi-model index. */
export function describeModel(model: unknown): string {
  if (model === null || model === undefined || model === "") {
    return "–";
  }
  const single = modelName(model);
  if (single) {
    return single;
  }
  if (typeof model === "object") {
    const parts = Object.entries(model as Record<string, unknown>).map(
      ([role, value]) => `${role}: ${modelName(value) ?? JSON.stringify(value)}`,
    );
    if (parts.length > 0) {
      return parts.join(", ");
    }
  }
  return JSON.stringify(model);
}

function folderRows(f: FolderStatus): [string, string][] {
  const rows: [string, string][] = [["state", f.state ?? (f.indexing ? "indexing" : "ready")]];
  if (f.progress) {
    rows.push([
      "progress",
      `${f.progress.doneFiles} of ${f.progress.totalFiles} files (${f.progress.percentage}%)`,
    ]);
  }
  rows.push(["files", f.files === undefined || f.files === null ? "–" : String(f.files)]);
  rows.push(["chunks", f.chunks === undefined || f.chunks === null ? "–" : String(f.chunks)]);
  rows.push(["model", describeModel(f.model)]);
  if (f.index) {
    const size =
      typeof f.index.sizeBytes === "number" ? ` (${formatBytes(f.index.sizeBytes)})` : "";
    rows.push(["index", `${f.index.location ?? ""}/${f.index.file ?? ""}${size}`]);
  }
  if (f.lastIndex?.summary) {
    rows.push(["last index", f.lastIndex.summary]);
  }
  if (f.lastError) {
    rows.push(["last error", f.lastError]);
  }
  const skipped = f.skippedFiles ?? [];
  for (const s of skipped.slice(0, SKIPPED_SHOWN)) {
    rows.push([`skipped ${s.path}`, s.detail || s.reason]);
  }
  if (skipped.length > SKIPPED_SHOWN) {
    rows.push(["skipped", `${skipped.length - SKIPPED_SHOWN} more files`]);
  }
  return rows;
}

/** Skipped files listed by name in the status view (the rest are counted). */
const SKIPPED_SHOWN = 25;

/** One plain-text line per folder, for notifications and logs. */
export function statusSummary(status: StatusResult): string {
  if (status.folders.length === 0) {
    return "groundls: no workspace folder is open.";
  }
  return status.folders
    .map((f) => {
      const state = f.indexing
        ? `indexing${f.progress ? ` ${f.progress.doneFiles}/${f.progress.totalFiles}` : ""}`
        : (f.state ?? "ready");
      return `${f.name}: ${state}, ${f.files ?? "?"} files, ${f.chunks ?? "?"} chunks`;
    })
    .join("; ");
}

/** The status view: one table per workspace folder. */
export function renderStatusBody(status: StatusResult): string {
  if (status.folders.length === 0) {
    return `<h1 class="question">Index status</h1><p class="hint">No workspace folder is open.</p>`;
  }
  const sections = status.folders.map((f) => {
    const rows = folderRows(f)
      .map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`)
      .join("");
    return `<h2>${escapeHtml(f.name)}</h2><table class="status">${rows}</table>`;
  });
  return `<h1 class="question">Index status</h1>\n${sections.join("\n")}`;
}
