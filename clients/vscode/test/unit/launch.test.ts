import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  describeLaunch,
  findOnPath,
  isProblem,
  mcpLaunch,
  resolveLaunch,
  type LaunchProbe,
} from "../../src/common/launch";

function probe(over: Partial<LaunchProbe>): LaunchProbe {
  return {
    settings: { serverPath: "", interpreter: "" },
    fileExists: async () => true,
    hasGroundls: async () => true,
    which: async () => undefined,
    pythonExtensionInterpreter: async () => undefined,
    ...over,
  };
}

describe("resolveLaunch", () => {
  it("prefers groundls.serverPath and runs its serve subcommand", async () => {
    let askedExtension = false;
    const launch = await resolveLaunch(
      probe({
        settings: { serverPath: "/opt/groundls", interpreter: "/usr/bin/python3" },
        pythonExtensionInterpreter: async () => {
          askedExtension = true;
          return "/env/python";
        },
      }),
    );
    assert.equal(askedExtension, false, "the Python extension is not activated needlessly");
    assert.deepEqual(launch, { command: "/opt/groundls", args: ["serve"], source: "serverPath" });
  });

  it("runs the interpreter setting as `python -m groundls.lsp`", async () => {
    const launch = await resolveLaunch(
      probe({ settings: { serverPath: "", interpreter: "/v/python" } }),
    );
    assert.deepEqual(launch, {
      command: "/v/python",
      args: ["-m", "groundls.lsp"],
      source: "interpreter",
    });
  });

  it("uses the Python extension's interpreter when it has groundls, before PATH", async () => {
    const launch = await resolveLaunch(
      probe({
        pythonExtensionInterpreter: async () => "/env/python",
        which: async () => "/usr/bin/groundls",
      }),
    );
    assert.deepEqual(launch, {
      command: "/env/python",
      args: ["-m", "groundls.lsp"],
      source: "python-extension",
    });
  });

  it("falls back to groundls on PATH when the selected interpreter lacks groundls", async () => {
    const launch = await resolveLaunch(
      probe({
        pythonExtensionInterpreter: async () => "/env/python",
        hasGroundls: async () => false,
        which: async (name) => (name === "groundls" ? "/usr/local/bin/groundls" : undefined),
      }),
    );
    assert.deepEqual(launch, {
      command: "/usr/local/bin/groundls",
      args: ["serve"],
      source: "path",
    });
  });

  it("explains how to install when nothing is found", async () => {
    const launch = await resolveLaunch(
      probe({
        pythonExtensionInterpreter: async () => "/env/python",
        hasGroundls: async () => false,
      }),
    );
    assert.ok(isProblem(launch));
    assert.match(launch.problem, /not found/);
    assert.match(launch.problem, /\/env\/python/);
    assert.match(launch.problem, /pip install/);
    assert.match(launch.problem, /groundls\.interpreter/);
  });

  it("names the setting that points at a missing file", async () => {
    const launch = await resolveLaunch(
      probe({
        settings: { serverPath: "/nope/groundls", interpreter: "" },
        fileExists: async () => false,
      }),
    );
    assert.ok(isProblem(launch));
    assert.match(
      launch.problem,
      /groundls\.serverPath is set to "\/nope\/groundls", which does not exist/,
    );
  });

  it("says when the configured interpreter cannot import groundls, without falling back", async () => {
    let askedPath = false;
    const launch = await resolveLaunch(
      probe({
        settings: { serverPath: "", interpreter: "/v/python" },
        hasGroundls: async () => false,
        which: async () => {
          askedPath = true;
          return "/usr/bin/groundls";
        },
      }),
    );
    assert.ok(isProblem(launch));
    assert.match(launch.problem, /cannot import groundls/);
    assert.equal(askedPath, false);
  });
});

describe("findOnPath and describeLaunch", () => {
  it("returns the first executable match in PATH order, skipping empty entries", async () => {
    const found = await findOnPath(
      "groundls",
      "::/a:/b/:/c",
      async (p) => p === "/b/groundls" || p === "/c/groundls",
    );
    assert.equal(found, "/b/groundls");
    assert.equal(await findOnPath("groundls", undefined, async () => true), undefined);
  });

  it("describes where the command came from", () => {
    assert.equal(
      describeLaunch({ command: "/v/python", args: ["-m", "groundls.lsp"], source: "interpreter" }),
      "/v/python -m groundls.lsp (from groundls.interpreter)",
    );
  });
});

describe("mcpLaunch", () => {
  it("runs the same program's mcp subcommand for a workspace folder", () => {
    assert.deepEqual(
      mcpLaunch({ command: "/opt/groundls", args: ["serve"], source: "serverPath" }, "/ws"),
      { command: "/opt/groundls", args: ["mcp", "--workspace", "/ws"] },
    );
  });

  it("runs an interpreter as `python -m groundls.cli.main mcp`", () => {
    assert.deepEqual(
      mcpLaunch(
        { command: "/v/python", args: ["-m", "groundls.lsp"], source: "interpreter" },
        "/ws",
      ),
      { command: "/v/python", args: ["-m", "groundls.cli.main", "mcp", "--workspace", "/ws"] },
    );
  });
});
