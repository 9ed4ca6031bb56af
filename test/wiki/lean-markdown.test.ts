import { afterEach, describe, expect, test } from "vitest";
import { parsePage } from "../../src/wiki/page.js";
import { FAST_PARSE_ENV } from "../../src/wiki/fast-parse.js";

/**
 * The page parser leaves inline runs without `[`, `<` or `&` unparsed (src/wiki/markdown.ts);
 * the page it gives must be the one a full parse gives.
 */

const BODIES = [
  "Plain words only.\n\nMore plain words.\n",
  "A [link](other) and a citation [@a].\n",
  "An entity citation &#91;@ent] and &lbrack;@named] and &amp; text.\n",
  "Autolinks <https://example.com> and <other.md> and <mailto:a@b.c>.\n",
  "A reference [ref] link.\n\n[ref]: ./target.md\n",
  "Reference definition far away: [far].\n\nWords.\n\n[far]: ../up/page\n",
  "An image ![alt](pic.png) and ![ref-image][ref]\n\n[ref]: other-page\n",
  "`code [@not] [x](y)` and ``double `tick` [@no]``\n",
  "Escaped \\[@id] and \\[not](link).\n",
  "# Heading with [link](h) and [@h]\n\nText.\n\n## Second *em* heading\n\nMore.\n",
  "Setext [link](s)\n===\n\nBody.\n",
  "> Quote with [@q] and [q](quoted)\n\n- item [@li]\n- item [li](listed)\n  continued\n\n1. ordered &#x5B;@hex]\n",
  "| table | [t](tabled) |\n| --- | --- |\n| [@cell] | x |\n",
  "```\nfenced [@no] [no](no)\n```\n\n    indented [@no]\n",
  "Line one\\\nhard break [@after-break]\nsoft break [@b1] text\n",
  "Grouped [@a; @b] and [@c, @d].\n",
  "Unclosed [bracket and <angle and & amp.\n",
];

describe("the page parser's inline shortcut", () => {
  afterEach(() => {
    delete process.env[FAST_PARSE_ENV];
  });

  test.each(BODIES)("gives the full parse's page: %j", (body) => {
    const input = { slug: "guides/sub/page", isLanding: false, text: `---\ntitle: T\n---\n\n${body}`, fileStem: "page" };
    process.env[FAST_PARSE_ENV] = "0";
    const full = parsePage(input);
    delete process.env[FAST_PARSE_ENV];
    expect(parsePage(input)).toStrictEqual(full);
  });

  test("the cases read links and citations (the comparison is not of empty pages)", () => {
    const all = BODIES.map((body) => parsePage({ slug: "guides/sub/page", isLanding: false, text: body, fileStem: "page" }));
    expect(all.flatMap((page) => page.citations)).toEqual(expect.arrayContaining(["ent", "named", "hex", "after-break", "b1", "q", "li", "cell"]));
    expect(all.flatMap((page) => page.links)).toEqual(expect.arrayContaining(["guides/sub/target", "guides/up/page", "guides/sub/other"]));
  });
});
