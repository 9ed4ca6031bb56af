import { describe, expect, test } from "vitest";
import { splitFrontmatter } from "../../src/wiki/frontmatter.js";

describe("splitFrontmatter", () => {
  test("splits YAML from the body and keeps the body untrimmed", () => {
    const text = "---\ntitle: X\n---\n\n# X\n\nBody.\n";
    const split = splitFrontmatter(text);
    expect(split).toEqual({
      hasFrontmatter: true,
      yaml: "title: X\n",
      body: "\n# X\n\nBody.\n",
      bodyStartLine: 4,
      eol: "\n",
      bom: false,
      prefix: "---\ntitle: X\n---\n",
    });
  });

  test("prefix plus body always reproduces the text", () => {
    for (const text of [
      "---\na: 1\n---\nbody",
      "\uFEFF---\r\na: 1\r\n---\r\nbody\r\n",
      "no front matter",
      "\uFEFFno front matter",
      "---\nunclosed: true\n",
      "",
      "---\n---\n",
    ]) {
      const split = splitFrontmatter(text);
      expect(split.prefix + split.body).toBe(text);
    }
  });

  test("accepts longer dash runs and trailing blanks on the delimiter lines", () => {
    const split = splitFrontmatter("-----  \na: 1\n----\t\nrest");
    expect(split.hasFrontmatter).toBe(true);
    expect(split.yaml).toBe("a: 1\n");
    expect(split.body).toBe("rest");
  });

  test("needs the opener on the very first line", () => {
    expect(splitFrontmatter("\n---\na: 1\n---\nx").hasFrontmatter).toBe(false);
    expect(splitFrontmatter(" ---\na: 1\n---\nx").hasFrontmatter).toBe(false);
    expect(splitFrontmatter("--\na: 1\n---\nx").hasFrontmatter).toBe(false);
    expect(splitFrontmatter("--- x\na: 1\n---\nx").hasFrontmatter).toBe(false);
  });

  test("without a closing line there is no front matter and the whole text is body", () => {
    const split = splitFrontmatter("---\ntitle: X\nstill yaml?\n");
    expect(split.hasFrontmatter).toBe(false);
    expect(split.yaml).toBeNull();
    expect(split.body).toBe("---\ntitle: X\nstill yaml?\n");
    expect(split.bodyStartLine).toBe(1);
  });

  test("a closing line at the end of the file leaves an empty body", () => {
    const split = splitFrontmatter("---\na: 1\n---");
    expect(split.hasFrontmatter).toBe(true);
    expect(split.body).toBe("");
    expect(split.prefix).toBe("---\na: 1\n---");
  });

  test("an empty block is still front matter", () => {
    const split = splitFrontmatter("---\n---\nbody");
    expect(split.hasFrontmatter).toBe(true);
    expect(split.yaml).toBe("");
    expect(split.bodyStartLine).toBe(3);
  });

  test("a leading BOM is skipped and remembered", () => {
    const split = splitFrontmatter("\uFEFF---\ntitle: X\n---\nbody");
    expect(split.bom).toBe(true);
    expect(split.hasFrontmatter).toBe(true);
    expect(split.yaml).toBe("title: X\n");
    expect(split.body).toBe("body");
    expect(split.bodyStartLine).toBe(4);
    expect(split.prefix.startsWith("\uFEFF")).toBe(true);
  });

  test("a BOM without front matter is not part of the body", () => {
    const split = splitFrontmatter("\uFEFF# Title\n");
    expect(split.bom).toBe(true);
    expect(split.body).toBe("# Title\n");
    expect(split.prefix).toBe("\uFEFF");
  });

  test("reports CRLF when the front matter uses it", () => {
    const split = splitFrontmatter("---\r\ntitle: X\r\n---\r\nbody\r\n");
    expect(split.eol).toBe("\r\n");
    expect(split.yaml).toBe("title: X\r\n");
    expect(split.body).toBe("body\r\n");
    expect(split.bodyStartLine).toBe(4);
  });

  test("without front matter the line ending of the first line is reported", () => {
    expect(splitFrontmatter("# A\r\nb\r\n").eol).toBe("\r\n");
    expect(splitFrontmatter("# A\nb\n").eol).toBe("\n");
    expect(splitFrontmatter("one line").eol).toBe("\n");
  });

  test("the first dash line after the opener closes, even a long one", () => {
    const split = splitFrontmatter("---\na: 1\n---\nb\n---\nc");
    expect(split.yaml).toBe("a: 1\n");
    expect(split.body).toBe("b\n---\nc");
  });
});
