import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { toPanelAsk } from "../../src/common/codeActions";
import { ClientCommand, ServerCommand } from "../../src/common/ids";

const title = "Ask the workspace about this";

describe("the server's code actions in VS Code", () => {
  it("asks in the answer panel with the server's question, not sending the selection again", () => {
    const command = toPanelAsk({
      title,
      command: ServerCommand.askInDocument,
      arguments: [{ question: "IDLE_TIMEOUT_SECONDS = 30 * 60", uri: "file:///ws/a.py" }],
    });
    assert.equal(command.title, title);
    assert.equal(command.command, ClientCommand.ask);
    assert.deepEqual(command.arguments, [
      { question: "IDLE_TIMEOUT_SECONDS = 30 * 60", withSelection: false },
    ]);
  });

  it("leaves other commands and an ask without a question as the server sent them", () => {
    const related = {
      title: "Show related: check_session",
      command: "groundls.related",
      arguments: [{ uri: "file:///ws/a.py", position: { line: 1, character: 4 } }],
    };
    assert.equal(toPanelAsk(related), related);
    for (const args of [undefined, [], [{}], [{ question: "  " }], [{ question: 3 }], ["text"]]) {
      const ask = { title, command: ServerCommand.askInDocument, arguments: args };
      assert.equal(toPanelAsk(ask), ask, JSON.stringify(args));
    }
  });
});
