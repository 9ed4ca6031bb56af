import { describe, expect, test } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../support/cli.js";

/**
 * scripts/build.mjs rewrites markdown-it's lowered class fields (`_defineProperty(this, "key",
 * value)`) as plain assignments, about 0.8 s of the 10,000-page bench rebuild. A markdown-it
 * update that changes how its fields are written would quietly undo that; this says so.
 */
describe("the bundled markdown-it", () => {
  test("assigns its class fields instead of calling the defineProperty helper", () => {
    const chunks = join(ROOT, "dist", "chunks");
    const sources = readdirSync(chunks)
      .filter((name) => name.endsWith(".js"))
      .map((name) => readFileSync(join(chunks, name), "utf8"));
    const markdownIt = sources.filter((source) => source.includes("var Token = class"));
    expect(markdownIt).toHaveLength(1);
    const source = markdownIt[0]!;
    expect(source).toMatch(/constructor\(type, tag, nesting\) \{\s*this\.map = null;/);
    // What is left of the helper: its definition, and no call with `this`.
    expect(source).not.toMatch(/_defineProperty\(\s*this\b/);
  });
});
