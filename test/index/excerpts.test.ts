import { afterEach, describe, expect, test } from "vitest";
import { mkdtempSync, readFileSync, realpathSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, type Db } from "../../src/core/sqlite.js";
import { indexMigrations } from "../../src/index/schema.js";
import { IndexWriter } from "../../src/index/refresh.js";
import { createPageParser } from "../../src/index/parse-file.js";
import { termsOf, vocabulary } from "../../src/index/search-terms.js";
import { searchPages } from "../../src/index/views/search.js";
import { page, writeWiki } from "../support/cli.js";

/**
 * The index stores no section text: each section keeps the span of the page file its body
 * is, and search cuts excerpts from the file. These pin the spans to the text the parser
 * indexed, through front matter, a BOM, CRLF line endings and nested headings.
 */

const PAGES: Record<string, string> = {
  "plain.md": page({ title: "Plain", body: "Lead line about apples.\n\n## Growing\n\nSeeds need water and sun.\n\n### Pests\n\nAphids eat the leaves." }),
  "crlf-bom.md": `\uFEFF${page({ title: "Windows", body: "Intro with bananas.\r\n\r\n# Second\r\n\r\nCherries in a CRLF body.\r\n" }).replace(/\r?\n/g, "\r\n")}`,
  "bare.md": "   \n\nNo front matter, only durian text.\n\n",
  "setext.md": "Title Line\n==========\n\nElderberry under a setext heading.\n\nSub part\n--------\n\nFig after the second.\n",
};

let dir: string;
let db: Db;
afterEach(() => {
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function indexed(): Promise<{ almanac: string; search: (q: string) => { slug: string; matched_heading: string | null; excerpt: string | null }[] }> {
  dir = mkdtempSync(join(tmpdir(), "ca-excerpts-"));
  writeWiki(dir, PAGES);
  const almanac = join(dir, "almanac");
  db = openDatabase(join(dir, "state", "index.db"), { migrations: indexMigrations, onNewerSchema: "recreate" });
  const writer = new IndexWriter({ db, almanacPath: almanac, wikiRoot: realpathSync(almanac), now: () => Date.now() + 10_000, loadParser: async () => createPageParser() });
  await writer.refresh();
  const ctx = { db, almanacPath: almanac, wikiRoot: realpathSync(almanac), repositoryRoot: dir };
  return { almanac, search: (q) => searchPages(ctx, { query: q }).hits };
}

describe("section spans", () => {
  test("every section's span of the page text is exactly the body the parser indexed", () => {
    const parser = createPageParser();
    dir = mkdtempSync(join(tmpdir(), "ca-spans-"));
    for (const [rel, content] of Object.entries(PAGES)) {
      const absPath = join(dir, rel);
      writeFileSync(absPath, content);
      const parsed = parser.parseFile({ relPath: rel, absPath, size: 0, mtimeMs: 0, slug: rel.slice(0, -3) }, realpathSync(dir));
      const text = new TextDecoder("utf-8").decode(readFileSync(absPath));
      const page = parsed.page!;
      expect(page.sections.length).toBeGreaterThan(0);
      page.sections.forEach((section, i) => {
        // What was indexed for the section is the title, the heading and exactly the span's text.
        const expected = new Map<string, number>();
        const add = (terms: string[], weight: number) => terms.forEach((t) => expected.set(t, (expected.get(t) ?? 0) + weight));
        add(termsOf(page.title), 5);
        add(termsOf(section.heading), 3);
        add(termsOf(text.slice(section.start, section.end)), 1);
        const from = i === 0 ? 0 : page.search.ends[i - 1]!;
        const indexed = new Map<string, number>();
        for (let k = from; k < page.search.ends[i]!; k++) indexed.set(vocabulary.names[page.search.terms[k]!]!, page.search.weights[k]!);
        expect(indexed, `${rel} section ${i}`).toEqual(expected);
      });
    }
  });
});

describe("search excerpts cut from the page file", () => {
  test("each matched section's excerpt and heading, through front matter, BOM, CRLF and setext headings", async () => {
    const { search } = await indexed();
    expect(search("apples")).toMatchObject([{ slug: "plain", matched_heading: "Plain", excerpt: "Lead line about apples." }]);
    expect(search("aphids")).toMatchObject([{ slug: "plain", matched_heading: "Growing › Pests", excerpt: "Aphids eat the leaves." }]);
    expect(search("bananas")).toMatchObject([{ slug: "crlf-bom", matched_heading: "Windows", excerpt: "Intro with bananas." }]);
    expect(search("cherries")).toMatchObject([{ slug: "crlf-bom", matched_heading: "Second", excerpt: "Cherries in a CRLF body." }]);
    expect(search("durian")).toMatchObject([{ slug: "bare", matched_heading: "bare", excerpt: "No front matter, only durian text." }]);
    expect(search("elderberry")).toMatchObject([{ slug: "setext", matched_heading: "Title Line", excerpt: "Elderberry under a setext heading." }]);
    expect(search("fig")).toMatchObject([{ slug: "setext", matched_heading: "Title Line › Sub part", excerpt: "Fig after the second." }]);
  });

  test("a page rewritten after the refresh gives an excerpt of its current text, never a misplaced cut", async () => {
    const { almanac, search } = await indexed();
    const path = join(almanac, "plain.md");
    writeFileSync(path, page({ title: "Plain", body: "Completely new opening text.\n\n## Growing\n\nAphids moved here, earlier in the file." }));
    const later = new Date(Date.now() + 5_000);
    utimesSync(path, later, later);
    // Searched without a refresh in between: the index still has the old spans.
    const [hit] = search("aphids");
    expect(hit).toMatchObject({ slug: "plain", matched_heading: "Growing › Pests" });
    expect(hit!.excerpt).toBe("Completely new opening text. ## Growing Aphids moved here, earlier in the file.");
  });

  test("a page rewritten to the same size with a new mtime gives an excerpt of its current text, never a cut at the old spans", async () => {
    const { almanac, search } = await indexed();
    const path = join(almanac, "plain.md");
    const indexedStat = statSync(path);
    // Same byte length as PAGES["plain.md"]; the text the old Pests span covered is now elsewhere.
    writeFileSync(path, page({ title: "Plain", body: "Aphids lead the way, now.\n\n## Growing\n\nSeeds need water and sun.\n\n### Pests\n\nLeaves are all safe." }));
    const later = new Date(indexedStat.mtimeMs + 5_000);
    utimesSync(path, later, later);
    // Only the mtime tells this file from the one indexed (src/index/views/section-text.ts).
    expect(statSync(path).size).toBe(indexedStat.size);
    const [hit] = search("aphids");
    expect(hit).toMatchObject({ slug: "plain", matched_heading: "Growing › Pests" });
    expect(hit!.excerpt).toBe("Aphids lead the way, now. ## Growing Seeds need water and sun. ### Pests Leaves are all safe.");
  });
});

describe("excerpter", () => {
  test("gives the same excerpt every time (a long-lived viewer or MCP server asks many times)", async () => {
    const { excerpter } = await import("../../src/index/views/query.js");
    const body = `The word zebra17 is on this page only. ${"ledger index rebuild ".repeat(40)}`;
    const cut = excerpter(["zebra17"]);
    const first = cut(body);
    expect(first).toMatch(/^The word zebra17 is on this page only\. /);
    expect(cut(body)).toBe(first);
    expect(excerpter(["zebra17"])(body)).toBe(first);
  });
});

describe("excerpts read as prose", () => {
  const cut = async (query: string, body: string) => {
    const { excerpter, queryTokens } = await import("../../src/index/views/query.js");
    return excerpter(queryTokens(query))(body);
  };

  test("a window starting inside a code span takes the span whole; the viewer's plain text keeps its spaces (issue 18)", async () => {
    const { plainText } = await import("../../src/wiki/plain-text.js");
    const body = "Intro line. Then `queue_build(...)` prepares the run and checks for an existing `almanac/` folder first [@run_queue]. More text follows.";
    const excerpt = await cut("existing", body);
    expect(excerpt).toBe("… `queue_build(...)` prepares the run and checks for an existing `almanac/` folder first. More text follows.");
    expect(plainText(excerpt!)).toBe("… queue_build(...) prepares the run and checks for an existing almanac/ folder first. More text follows.");
    expect(await cut("worker", "First the command `ca jobs attach --wait --json demo` then the worker prepares it.")).toBe(
      "… `ca jobs attach --wait --json demo` then the worker prepares it.",
    );
  });

  test("a window ending inside a code span takes it whole, or leaves a long one out", async () => {
    const filler = Array.from({ length: 28 }, (_, i) => `w${i + 3}`).join(" ");
    expect(await cut("zebra", `The zebra ${filler} \`alpha beta gamma delta\` and more words after.`)).toBe(
      `The zebra ${filler} \`alpha beta gamma delta\` …`,
    );
    const long = `alpha beta ${"x".repeat(200)}`;
    expect(await cut("zebra", `The zebra ${filler} \`${long}\` and more words after.`)).toBe(`The zebra ${filler} …`);
    // Closing punctuation stays with a span, and a span right after it is taken too.
    expect(await cut("zebra", `The zebra ${filler} \`alpha beta\`/\`gamma delta\`. Next.`)).toBe(`The zebra ${filler} \`alpha beta\`/\`gamma delta\`. …`);
  });

  test("a link is never cut in two", async () => {
    expect(await cut("zebra", "One two three [the long winding run queue page](../architecture/run-queue.md) zebra.")).toBe(
      "… [the long winding run queue page](../architecture/run-queue.md) zebra.",
    );
  });

  test("citations are dropped without gluing words; in code or escaped they stay", async () => {
    expect(await cut("ledger", "Runs wait [@worker] in the ledger; see [@a; @b]. Glued[@c]next and `[@kept]` in code, escaped \\[@esc] too [@d] `x`.")).toBe(
      "Runs wait in the ledger; see. Glued next and `[@kept]` in code, escaped \\[@esc] too `x`.",
    );
  });

  test("fence lines leave; the code between them reads as text", async () => {
    expect(await cut("zebra", "Before the fence.\n\n```ts\nconst zebra = 1;\n```\n\nAfter it.")).toBe("Before the fence. const zebra = 1; After it.");
    // Backticks in a fenced block pair with nothing outside it.
    expect(await cut("zebra", "A `code` word.\n\n```\nzebra ` tick\n```\n\nThen `more` here.")).toBe("A `code` word. zebra ` tick Then `more` here.");
  });
});
