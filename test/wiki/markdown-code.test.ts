import { describe, expect, test } from "vitest";
import { markdownCode } from "../../src/wiki/markdown-code.js";

const spansOf = (text: string) => markdownCode(text).spans.map((s) => text.slice(s.start, s.end));

describe("markdownCode", () => {
  test("pairs backtick runs of equal length; an unmatched run or an escaped backtick is text", () => {
    expect(spansOf("a `b` c ``d ` e`` f")).toEqual(["`b`", "``d ` e``"]);
    expect(spansOf("open ` only, then `x`")).toEqual(["` only, then `"]);
    expect(spansOf("a ``` b `c`")).toEqual(["`c`"]);
    expect(spansOf("escaped \\`not code` and `code`")).toEqual(["` and `"]);
  });

  test("a span never reaches across a blank line, a heading or a list item", () => {
    expect(spansOf("Open ` tick.\n\nClose ` tick.")).toEqual([]);
    expect(spansOf("Open ` tick\n## Heading ` here")).toEqual([]);
    expect(spansOf("- one `a\n- two b`")).toEqual([]);
    // A paragraph's lines are one run of text.
    expect(spansOf("starts `here\nand ends` there")).toEqual(["`here\nand ends`"]);
  });

  test("fenced blocks, backticks or tildes, are code with their content between the fences; their backticks pair with nothing", () => {
    const text = "A `x` b.\n\n```ts\nconst y = `z`;\n```\n\n~~~~\n` tick\n~~~~\nafter `w`\n\n  ```\nunclosed `q`";
    const { fences, spans } = markdownCode(text);
    expect(fences.map((f) => text.slice(f.contentStart, f.contentEnd))).toEqual(["const y = `z`;\n", "` tick\n", "unclosed `q`"]);
    expect(fences.map((f) => text.slice(f.start, f.end))).toEqual(["```ts\nconst y = `z`;\n```", "~~~~\n` tick\n~~~~", "  ```\nunclosed `q`"]);
    expect(spans.map((s) => text.slice(s.start, s.end))).toEqual(["`x`", "`w`"]);
    // A backtick "fence" whose info string has a backtick is inline code.
    expect(spansOf("```js`x``` done")).toEqual(["```js`x```"]);
  });
});
