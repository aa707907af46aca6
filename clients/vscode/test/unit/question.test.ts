import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { hitsPlaceholder } from "../../src/common/question";
import type { Hit } from "../../src/common/protocol";

const hit = { path: "docs/a.md", startLine: 1, endLine: 2 } as Hit;

describe("the search quick pick's placeholder", () => {
  it("shows the result count and the search's confidence with its reason", () => {
    const text = hitsPlaceholder({
      hits: [hit, hit],
      confidence: "high",
      confidenceReason: "keyword and meaning agree",
    });
    assert.match(text, /^2 result\(s\)/);
    assert.match(text, /confidence high \(keyword and meaning agree\)/);
  });

  it("warns when the hits are only the nearest matches", () => {
    const text = hitsPlaceholder({
      hits: [hit],
      confidence: "low",
      confidenceReason: "nearest match only",
    });
    assert.match(text, /confidence low/);
    assert.match(text, /nothing matched closely/);
  });

  it("stays plain for a server that reports no confidence", () => {
    assert.equal(hitsPlaceholder({ hits: [hit] }), "1 result(s) · pick one to open it");
  });
});
