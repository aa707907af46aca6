/** Choose how to start the server: settings, then the Python extension's interpreter, then PATH. */

import type { LaunchSettings } from "./settings";

/** A server command line (vscode-languageclient appends `--stdio` to `args`). */
export interface ServerLaunch {
  command: string;
  args: string[];
  /** Where the command came from, for the log and error messages. */
  source: "serverPath" | "interpreter" | "python-extension" | "path";
}

/** Why no server could be chosen, phrased so a person knows what to do next. */
export interface LaunchProblem {
  problem: string;
}

/** The world as `resolveLaunch` needs to see it (injected so it can be tested). */
export interface LaunchProbe {
  settings: LaunchSettings;
  /** The Python extension's selected interpreter, when that extension is installed (asked lazily). */
  pythonExtensionInterpreter(): Promise<string | undefined>;
  fileExists(path: string): Promise<boolean>;
  /** True when `python -c "import groundls.lsp"` would work (checked cheaply). */
  hasGroundls(python: string): Promise<boolean>;
  /** Absolute path of an executable on PATH, or undefined. */
  which(name: string): Promise<string | undefined>;
}

export const INSTALL_HINT =
  "Install groundls into a Python 3.10+ environment (`python -m pip install groundls`, or " +
  "`pip install -e .` in a groundls checkout), then set `groundls.interpreter` to that " +
  "environment's python, or put the `groundls` command on PATH.";

export function isProblem(value: ServerLaunch | LaunchProblem): value is LaunchProblem {
  return "problem" in value;
}

/** Arguments that run the server from an interpreter: `<python> -m groundls.lsp`. */
export function interpreterLaunch(python: string, source: ServerLaunch["source"]): ServerLaunch {
  return { command: python, args: ["-m", "groundls.lsp"], source };
}

/** The MCP server for a workspace folder, started the way the language server is: the same
 * program, its `mcp` subcommand instead of `serve` (coding agents call it over stdio). */
export function mcpLaunch(
  launch: ServerLaunch,
  folder: string,
): { command: string; args: string[] } {
  const head = launch.args[0] === "-m" ? ["-m", "groundls.cli.main"] : [];
  return { command: launch.command, args: [...head, "mcp", "--workspace", folder] };
}

export async function resolveLaunch(probe: LaunchProbe): Promise<ServerLaunch | LaunchProblem> {
  const { serverPath, interpreter } = probe.settings;
  if (serverPath) {
    if (!(await probe.fileExists(serverPath))) {
      return {
        problem: `groundls.serverPath is set to "${serverPath}", which does not exist. Fix the setting or clear it. ${INSTALL_HINT}`,
      };
    }
    return { command: serverPath, args: ["serve"], source: "serverPath" };
  }
  if (interpreter) {
    if (!(await probe.fileExists(interpreter))) {
      return {
        problem: `groundls.interpreter is set to "${interpreter}", which does not exist. Fix the setting or clear it. ${INSTALL_HINT}`,
      };
    }
    if (!(await probe.hasGroundls(interpreter))) {
      return {
        problem: `The interpreter "${interpreter}" (groundls.interpreter) cannot import groundls. Run \`"${interpreter}" -m pip install groundls\` or point the setting at the environment that has it.`,
      };
    }
    return interpreterLaunch(interpreter, "interpreter");
  }
  const fromExtension = await probe.pythonExtensionInterpreter();
  if (fromExtension && (await probe.hasGroundls(fromExtension))) {
    return interpreterLaunch(fromExtension, "python-extension");
  }
  const onPath = await probe.which("groundls");
  if (onPath) {
    return { command: onPath, args: ["serve"], source: "path" };
  }
  const tried = fromExtension
    ? `Neither the selected Python interpreter ("${fromExtension}") nor PATH has groundls.`
    : "No groundls.serverPath or groundls.interpreter is set and `groundls` is not on PATH.";
  return { problem: `groundls: the language server was not found. ${tried} ${INSTALL_HINT}` };
}

/** Search a PATH string for an executable; `isExecutable` is injected for tests. */
export async function findOnPath(
  name: string,
  pathEnv: string | undefined,
  isExecutable: (candidate: string) => Promise<boolean>,
  separator = ":",
): Promise<string | undefined> {
  for (const dir of (pathEnv ?? "").split(separator)) {
    if (!dir) {
      continue;
    }
    const candidate = dir.endsWith("/") ? dir + name : `${dir}/${name}`;
    if (await isExecutable(candidate)) {
      return candidate;
    }
  }
  return undefined;
}

/** A one-line description of a launch for the log: `python -m groundls.lsp (groundls.interpreter)`. */
export function describeLaunch(launch: ServerLaunch): string {
  const label: Record<ServerLaunch["source"], string> = {
    serverPath: "groundls.serverPath",
    interpreter: "groundls.interpreter",
    "python-extension": "the Python extension's interpreter",
    path: "PATH",
  };
  return `${[launch.command, ...launch.args].join(" ")} (from ${label[launch.source]})`;
}
