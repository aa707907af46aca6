/** Finding a Python that can run the server: the Python extension's interpreter, PATH, probes. */

import { execFile } from "node:child_process";
import { constants, promises as fs } from "node:fs";
import * as vscode from "vscode";
import { findOnPath } from "./common/launch";

type Obj = Record<string, unknown>;
type Fn = (...args: unknown[]) => unknown;

function isObj(value: unknown): value is Obj {
  return typeof value === "object" && value !== null;
}

/**
 * The interpreter selected in the Python extension (ms-python.python) for a folder, when that
 * extension is installed. Its API has changed over time, so both shapes are tried.
 */
export async function pythonExtensionInterpreter(
  resource: vscode.Uri | undefined,
): Promise<string | undefined> {
  const ext = vscode.extensions.getExtension("ms-python.python");
  if (!ext) {
    return undefined;
  }
  try {
    const api: unknown = ext.isActive ? ext.exports : await ext.activate();
    if (!isObj(api)) {
      return undefined;
    }
    const environments = api.environments;
    if (isObj(environments) && typeof environments.getActiveEnvironmentPath === "function") {
      const active: unknown = (environments.getActiveEnvironmentPath as Fn)(resource);
      if (isObj(active) && typeof active.path === "string") {
        if (typeof environments.resolveEnvironment === "function") {
          const resolved: unknown = await (environments.resolveEnvironment as Fn)(active);
          if (isObj(resolved) && isObj(resolved.executable) && isObj(resolved.executable.uri)) {
            const fsPath = resolved.executable.uri.fsPath;
            if (typeof fsPath === "string" && fsPath) {
              return fsPath;
            }
          }
        }
        return active.path;
      }
    }
    const settings = api.settings;
    if (isObj(settings) && typeof settings.getExecutionDetails === "function") {
      const details: unknown = (settings.getExecutionDetails as Fn)(resource);
      if (isObj(details) && Array.isArray(details.execCommand)) {
        const first: unknown = details.execCommand[0];
        return typeof first === "string" && first ? first : undefined;
      }
    }
  } catch {
    return undefined;
  }
  return undefined;
}

export async function fileExists(path: string): Promise<boolean> {
  try {
    await fs.access(path, constants.F_OK);
    return true;
  } catch {
    return false;
  }
}

async function isExecutable(path: string): Promise<boolean> {
  try {
    const stat = await fs.stat(path);
    if (!stat.isFile()) {
      return false;
    }
    await fs.access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function which(name: string): Promise<string | undefined> {
  const windows = process.platform === "win32";
  return findOnPath(
    windows ? `${name}.exe` : name,
    process.env.PATH,
    isExecutable,
    windows ? ";" : ":",
  );
}

const PROBE = [
  "import importlib.util, sys",
  "sys.exit(0 if importlib.util.find_spec('groundls') and importlib.util.find_spec('groundls.lsp') else 3)",
].join("\n");

/** True when `python` can import `groundls.lsp` (checked without starting the server). */
export function hasGroundls(python: string): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(python, ["-c", PROBE], { timeout: 20000 }, (error) => resolve(error === null));
  });
}
