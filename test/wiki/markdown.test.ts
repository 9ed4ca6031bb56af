import MarkdownIt from "markdown-it";
import { describe, expect, test } from "vitest";
import { markdown, parseMarkdown } from "../../src/wiki/markdown.js";

describe("shared markdown parser", () => {
  test("is created once", () => {
    expect(markdown()).toBe(markdown());
  });

  test("renders exactly like a stock parser, escapes and entities included", () => {
    const stock = new MarkdownIt({ html: false, linkify: false });
    const source = "Literal \\[@x] \\*not em\\* &amp; &copy; <b>raw</b> https://bare.example [l](p) *em*\n";
    expect(markdown().render(source)).toBe(stock.render(source));
  });

  test("keeps raw HTML and bare URLs as text", () => {
    const types = parseMarkdown("<a href='x'>y</a> https://example.com")
      .flatMap((token) => token.children ?? [])
      .map((token) => token.type);
    expect(types).not.toContain("link_open");
    expect(types).not.toContain("html_inline");
  });
});
