/** Questions and quick-pick rows: the text sent to the server and how hits are listed. */

import { locationLabel } from "./citations";
import type { Hit, HitsResult } from "./protocol";

/** Longest selection sent along with a question, in characters. */
export const MAX_CONTEXT_CHARS = 1500;

export interface SelectionContext {
  text: string;
  /** Workspace-relative path of the document the selection is in. */
  path: string;
  /** 1-based first line of the selection. */
  line: number;
}

/**
 * The question sent to the server. A selection becomes context under the question, so the
 * search sees it too; an empty question with a selection asks about the selection itself.
 */
export function composeQuestion(question: string, selection?: SelectionContext): string {
  const q = question.trim();
  const raw = selection?.text.trim() ?? "";
  if (!selection || raw === "") {
    return q;
  }
  const text = raw.length > MAX_CONTEXT_CHARS ? `${raw.slice(0, MAX_CONTEXT_CHARS)}…` : raw;
  const where = `${selection.path}:${selection.line}`;
  if (q === "") {
    return `What does this (from ${where}) mean, and what else in the workspace relates to it?\n\n${text}`;
  }
  return `${q}\n\nContext (selected in ${where}):\n${text}`;
}

export interface HitItem {
  label: string;
  description: string;
  detail: string;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A quick-pick row for a hit: title, where it is, and a one-line preview. */
export function hitItem(hit: Hit): HitItem {
  const crumbs = (hit.breadcrumb ?? []).filter((c) => c && c !== hit.title);
  const title = hit.title || hit.path.split("/").pop() || hit.path;
  const icon = hit.kind === "code" ? "$(symbol-method)" : "$(book)";
  const where =
    crumbs.length > 0 ? `${locationLabel(hit)} · ${crumbs.join(" › ")}` : locationLabel(hit);
  return {
    label: `${icon} ${title}`,
    description: where,
    detail: oneLine(hit.snippet ?? "", 160),
  };
}

/** The quick pick's placeholder: how many hits and how sure the search is of them. */
export function hitsPlaceholder(result: HitsResult): string {
  const count = `${result.hits.length} result(s)`;
  const confidence = result.confidence
    ? ` · confidence ${result.confidence}${result.confidenceReason ? ` (${result.confidenceReason})` : ""}`
    : "";
  const lowNote = result.confidence === "low" ? ": nothing matched closely, nearest shown" : "";
  return `${count}${confidence}${lowNote} · pick one to open it`;
}
