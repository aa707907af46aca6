/** Pure mapping from the `groundls.*` settings VS Code holds to what the client and server use. */

/** The server's configuration as `Config.from_dict` reads it (camelCase, nested sub-configs). */
export interface ServerConfig {
  include?: unknown;
  exclude?: unknown;
  maxFileBytes?: unknown;
  indexSecrets?: unknown;
  logLevel?: unknown;
  search?: {
    k?: unknown;
    vectorWeight?: unknown;
    keywordWeight?: unknown;
    rewriteQuestions?: unknown;
  };
  hover?: { enabled?: unknown; count?: unknown };
  answer?: {
    modelPath?: unknown;
    k?: unknown;
    timeLimitS?: unknown;
    firstTokenS?: unknown;
    engine?: unknown;
    baseUrl?: unknown;
    model?: unknown;
    apiKeyEnv?: unknown;
    allowRemote?: unknown;
    detail?: unknown;
  };
  index?: { base?: unknown; store?: unknown };
}

/** Settings that only the client uses: how to start the server. */
export interface LaunchSettings {
  serverPath: string;
  interpreter: string;
}

/**
 * The dotted `groundls.*` keys forwarded to the server. Everything else in the section
 * (serverPath, interpreter, trace) stays in the client: the server warns about unknown keys.
 */
export const SERVER_KEYS: readonly string[] = [
  "include",
  "exclude",
  "maxFileBytes",
  "indexSecrets",
  "logLevel",
  "search.k",
  "search.vectorWeight",
  "search.keywordWeight",
  "search.rewriteQuestions",
  "hover.enabled",
  "hover.count",
  "answer.modelPath",
  "answer.k",
  "answer.timeLimitS",
  "answer.firstTokenS",
  "answer.engine",
  "answer.baseUrl",
  "answer.model",
  "answer.apiKeyEnv",
  "answer.allowRemote",
  "answer.detail",
  "index.base",
  "index.store",
];

/** Settings holding a file path, where `~` and `${workspaceFolder}` are expanded. */
const PATH_KEYS = new Set(["answer.modelPath"]);

/** What `${...}` variables and `~` expand to. */
export interface PathContext {
  home?: string;
  workspaceFolder?: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Read a dotted key from a nested object, or from a flat object that has the dotted key itself. */
export function lookup(raw: unknown, dotted: string): unknown {
  if (!isRecord(raw)) {
    return undefined;
  }
  if (dotted in raw) {
    return raw[dotted];
  }
  let value: unknown = raw;
  for (const part of dotted.split(".")) {
    if (!isRecord(value)) {
      return undefined;
    }
    value = value[part];
  }
  return value;
}

/** Expand a leading `~` and `${workspaceFolder}` / `${userHome}`; leave anything else alone. */
export function expandPath(value: string, ctx: PathContext): string {
  let out = value.trim();
  if (ctx.workspaceFolder !== undefined) {
    out = out.split("${workspaceFolder}").join(ctx.workspaceFolder);
  }
  if (ctx.home !== undefined) {
    out = out.split("${userHome}").join(ctx.home);
    if (out === "~" || out.startsWith("~/")) {
      out = ctx.home + out.slice(1);
    }
  }
  return out;
}

function setDotted(target: Record<string, unknown>, dotted: string, value: unknown): void {
  const parts = dotted.split(".");
  let node = target;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    if (isRecord(next)) {
      node = next;
    } else {
      const created: Record<string, unknown> = {};
      node[part] = created;
      node = created;
    }
  }
  node[parts[parts.length - 1]] = value;
}

/**
 * Project the raw `groundls` section onto the server's configuration. Values pass through
 * unchanged (the server validates them and warns visibly); unset keys are left out so the
 * server's defaults apply.
 */
export function toServerConfig(raw: unknown, ctx: PathContext = {}): ServerConfig {
  const out: Record<string, unknown> = {};
  for (const key of SERVER_KEYS) {
    let value = lookup(raw, key);
    if (value === undefined || value === null) {
      continue;
    }
    if (PATH_KEYS.has(key) && typeof value === "string") {
      value = expandPath(value, ctx);
    }
    setDotted(out, key, value);
  }
  return out;
}

/** The launch settings, with blank values meaning "not set". */
export function toLaunchSettings(raw: unknown, ctx: PathContext = {}): LaunchSettings {
  const read = (key: string): string => {
    const value = lookup(raw, key);
    return typeof value === "string" ? expandPath(value, ctx) : "";
  };
  return { serverPath: read("serverPath"), interpreter: read("interpreter") };
}

/** Settings whose change needs a server restart rather than a configuration notification. */
export const RESTART_KEYS: readonly string[] = ["serverPath", "interpreter"];
