import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { expandPath, lookup, toLaunchSettings, toServerConfig } from "../../src/common/settings";

/** The nested object `workspace.getConfiguration().get("groundls")` returns. */
const vscodeSection = {
  serverPath: "",
  interpreter: "~/venv/bin/python",
  include: ["docs/**"],
  exclude: ["build/**"],
  maxFileBytes: 5000,
  indexSecrets: false,
  logLevel: "debug",
  search: { k: 7, vectorWeight: 1, keywordWeight: 0.5 },
  hover: { enabled: false, count: 2 },
  answer: { modelPath: "${workspaceFolder}/models/m.gguf", k: 4, timeLimitS: 12 },
  trace: { server: "verbose" },
};

describe("toServerConfig", () => {
  it("forwards every server setting in the camelCase tree Config.from_dict reads", () => {
    const config = toServerConfig(vscodeSection, { home: "/home/u", workspaceFolder: "/ws" });
    assert.deepEqual(config, {
      include: ["docs/**"],
      exclude: ["build/**"],
      maxFileBytes: 5000,
      indexSecrets: false,
      logLevel: "debug",
      search: { k: 7, vectorWeight: 1, keywordWeight: 0.5 },
      hover: { enabled: false, count: 2 },
      answer: { modelPath: "/ws/models/m.gguf", k: 4, timeLimitS: 12 },
    });
  });

  it("keeps client-only settings (serverPath, interpreter, trace) away from the server", () => {
    const config = toServerConfig(vscodeSection) as Record<string, unknown>;
    assert.equal("serverPath" in config, false);
    assert.equal("interpreter" in config, false);
    assert.equal("trace" in config, false);
  });

  it("leaves unset settings out so the server's defaults apply", () => {
    assert.deepEqual(toServerConfig({ hover: { count: 5 } }), { hover: { count: 5 } });
    assert.deepEqual(toServerConfig(undefined), {});
    assert.deepEqual(toServerConfig(null), {});
    assert.deepEqual(toServerConfig("nonsense"), {});
  });

  it("reads flat dotted keys as well as nested ones", () => {
    assert.deepEqual(
      toServerConfig({ "search.k": 3, "answer.modelPath": "~/m.gguf" }, { home: "/h" }),
      {
        search: { k: 3 },
        answer: { modelPath: "/h/m.gguf" },
      },
    );
  });

  it("passes wrongly typed values through for the server to reject with a visible warning", () => {
    assert.deepEqual(toServerConfig({ maxFileBytes: "big" }), { maxFileBytes: "big" });
  });
});

describe("toLaunchSettings", () => {
  it("expands ~ in the interpreter and treats blanks as unset", () => {
    assert.deepEqual(toLaunchSettings(vscodeSection, { home: "/home/u" }), {
      serverPath: "",
      interpreter: "/home/u/venv/bin/python",
    });
    assert.deepEqual(toLaunchSettings({ serverPath: 42 }), { serverPath: "", interpreter: "" });
  });
});

describe("expandPath and lookup", () => {
  it("expands ${userHome} and ${workspaceFolder} but not ~ in the middle of a path", () => {
    assert.equal(expandPath("${userHome}/a/~b", { home: "/h" }), "/h/a/~b");
    assert.equal(expandPath(" ${workspaceFolder}/x ", { workspaceFolder: "/w" }), "/w/x");
    assert.equal(expandPath("~user/x", { home: "/h" }), "~user/x");
  });

  it("returns undefined for missing branches instead of throwing", () => {
    assert.equal(lookup({ search: 3 }, "search.k"), undefined);
    assert.equal(lookup([], "search.k"), undefined);
  });
});
