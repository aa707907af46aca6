// Mocha entry that VS Code's extension host runs (extensionTestsPath); results also go to a file.
import * as fs from "node:fs";
import * as path from "node:path";
import Mocha from "mocha";

interface Outcome {
  title: string;
  state: "passed" | "failed";
  error?: string;
  ms?: number;
}

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: "tdd", color: false, timeout: 120000, reporter: "spec" });
  mocha.addFile(path.join(__dirname, "commands.e2e.js"));
  const outcomes: Outcome[] = [];
  return new Promise((resolve, reject) => {
    const runner = mocha.run((failures) => {
      const file = process.env.GROUNDLS_E2E_RESULTS;
      if (file) {
        fs.writeFileSync(file, JSON.stringify({ failures, outcomes }, null, 2));
      }
      if (failures > 0) {
        reject(new Error(`${failures} extension host test(s) failed`));
      } else {
        resolve();
      }
    });
    runner.on("pass", (t) =>
      outcomes.push({ title: t.fullTitle(), state: "passed", ms: t.duration }),
    );
    runner.on("fail", (t, err: Error) =>
      outcomes.push({ title: t.fullTitle(), state: "failed", error: err.stack ?? err.message }),
    );
  });
}
