/** The past-questions view, built without vscode: server history entries grouped into threads. */

import type { AskResult, Citation } from "./protocol";

/** One record of `groundls.history` (camelCase, citations located). */
export interface HistoryEntry {
  id: number;
  /** The id of the thread's first record (a follow-up's question shares it). */
  thread: number;
  folder: string;
  question: string;
  answer: string;
  found: boolean;
  mode?: string;
  model?: string;
  askedAt?: number;
  citations?: Citation[];
  timing?: Record<string, number>;
}

export interface HistoryResult {
  entries: HistoryEntry[];
}

/** A thread: its first question and its follow-ups, oldest first. */
export interface HistoryThread {
  folder: string;
  thread: number;
  entries: HistoryEntry[];
}

/** Entries (newest first, as the server lists them) as threads, the latest-asked first. */
export function threadsOf(entries: readonly HistoryEntry[]): HistoryThread[] {
  const threads = new Map<string, HistoryThread>();
  for (const entry of entries) {
    const key = `${entry.folder}\u0000${entry.thread}`;
    let found = threads.get(key);
    if (!found) {
      found = { folder: entry.folder, thread: entry.thread, entries: [] };
      threads.set(key, found);
    }
    found.entries.push(entry);
  }
  for (const t of threads.values()) {
    t.entries.sort((a, b) => a.id - b.id);
  }
  return [...threads.values()];
}

/** A question shown on one line. */
export function questionLabel(question: string, max = 80): string {
  const line = question.split("\n")[0].trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** When it was asked, for people: "2026-11-27 19:50" in the local time zone. */
export function askedLabel(askedAt: number | undefined): string {
  if (!askedAt) {
    return "";
  }
  const d = new Date(askedAt * 1000);
  const pad = (n: number): string => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** A past answer as the answer panel shows one (its sources and their places). */
export function resultOf(entry: HistoryEntry): AskResult {
  return {
    answer: entry.answer,
    found: entry.found,
    citations: entry.citations ?? [],
    mode: entry.mode,
    model: entry.model,
    timing: entry.timing,
    thread: entry.thread,
  };
}
