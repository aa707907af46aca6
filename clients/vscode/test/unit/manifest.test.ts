import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { ClientCommand, ServerCommand } from "../../src/common/ids";
import { SERVER_KEYS } from "../../src/common/settings";
import { MCP_PROVIDER_ID } from "../../src/common/ids";

interface Manifest {
  main: string;
  engines: { vscode: string };
  capabilities: { untrustedWorkspaces: { supported: string; restrictedConfigurations: string[] } };
  contributes: {
    commands: { command: string; title: string; category: string }[];
    configuration: { properties: Record<string, { scope?: string; default?: unknown }> };
    mcpServerDefinitionProviders: { id: string; label: string }[];
    modelContextServerCollections: { id: string; label: string }[];
  };
}

// out/test/unit -> the extension folder
const manifest = JSON.parse(
  fs.readFileSync(path.join(__dirname, "..", "..", "..", "package.json"), "utf8"),
) as Manifest;
const properties = manifest.contributes.configuration.properties;

describe("package.json", () => {
  it("declares the MCP server definition provider the extension registers", () => {
    // under both names VS Code has used for the contribution point
    assert.deepEqual(
      manifest.contributes.mcpServerDefinitionProviders.map((p) => p.id),
      [MCP_PROVIDER_ID],
    );
    assert.deepEqual(
      manifest.contributes.modelContextServerCollections.map((p) => p.id),
      [MCP_PROVIDER_ID],
    );
  });

  it("contributes a setting for every server configuration key it forwards", () => {
    for (const key of SERVER_KEYS) {
      assert.ok(`groundls.${key}` in properties, `groundls.${key} is contributed`);
    }
  });

  it("contributes no setting that is neither forwarded nor used by the client", () => {
    const clientOnly = new Set(["serverPath", "interpreter", "trace.server"]);
    for (const name of Object.keys(properties)) {
      const key = name.replace(/^groundls\./, "");
      assert.ok(SERVER_KEYS.includes(key) || clientOnly.has(key), `${name} is used`);
    }
  });

  it("restricts the settings that choose programs, model files or where content goes in untrusted workspaces", () => {
    const untrusted = manifest.capabilities.untrustedWorkspaces;
    assert.equal(untrusted.supported, "limited");
    assert.deepEqual([...untrusted.restrictedConfigurations].sort(), [
      "groundls.answer.allowRemote",
      "groundls.answer.apiKeyEnv",
      "groundls.answer.baseUrl",
      "groundls.answer.engine",
      "groundls.answer.modelPath",
      "groundls.interpreter",
      "groundls.serverPath",
    ]);
  });

  it("gives palette commands client ids that never clash with the server's command ids", () => {
    const contributed = manifest.contributes.commands.map((c) => c.command);
    const server = new Set<string>(Object.values(ServerCommand));
    for (const id of contributed) {
      assert.ok(!server.has(id), `${id} is not a server command id`);
      assert.ok(id.startsWith("groundls.client."), id);
    }
    for (const id of Object.values(ClientCommand)) {
      if (id !== ClientCommand.openCitation) {
        assert.ok(contributed.includes(id), `${id} is in the palette`);
      }
    }
    assert.ok(
      manifest.contributes.commands.every((c) => c.category === "groundls"),
      'every command shows as "groundls: …"',
    );
  });

  it("targets the VS Code of the test host and ships the esbuild bundle", () => {
    assert.equal(manifest.main, "./dist/extension.js");
    assert.equal(manifest.engines.vscode, "^1.90.0");
  });
});
