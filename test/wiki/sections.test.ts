import { describe, expect, test } from "vitest";
import { parsePage } from "../../src/wiki/page.js";
import type { Section } from "../../src/wiki/page.js";

function sections(text: string, title = "Page"): Section[] {
  return parsePage({ slug: "p", isLanding: false, text: `---\ntitle: ${title}\n---\n${text}`, fileStem: "p" }).sections;
}

const paths = (list: Section[]) => list.map((s) => s.heading_path);

describe("sections", () => {
  test("no headings: one section holding the whole body under the page title", () => {
    expect(sections("\nJust prose.\n\nMore prose.\n")).toEqual([
      { ordinal: 0, section_id: "0000", heading: "Page", heading_path: ["Page"], body: "Just prose.\n\nMore prose." },
    ]);
  });

  test("an empty body still has its one section", () => {
    expect(sections("")).toEqual([{ ordinal: 0, section_id: "0000", heading: "Page", heading_path: ["Page"], body: "" }]);
  });

  test("text before the first heading becomes a section under the page title", () => {
    const list = sections("Lead paragraph.\n\n# Run Lifecycle\n\nIntro.\n");
    expect(list.map((s) => [s.section_id, s.heading, s.body])).toEqual([
      ["0000", "Page", "Lead paragraph."],
      ["0001", "Run Lifecycle", "\nIntro."],
    ]);
  });

  test("blank text before the first heading makes no section", () => {
    expect(paths(sections("\n\n# A\nx\n"))).toEqual([["A"]]);
  });

  test("heading paths follow the open ancestors and are joined with ›", () => {
    const list = sections(
      [
        "# Run Lifecycle",
        "",
        "## Cancellation",
        "### Confirmation",
        "text",
        "## Retries",
        "#### Deep",
        "# Appendix",
      ].join("\n"),
    );
    expect(paths(list)).toEqual([
      ["Run Lifecycle"],
      ["Run Lifecycle", "Cancellation"],
      ["Run Lifecycle", "Cancellation", "Confirmation"],
      ["Run Lifecycle", "Retries"],
      ["Run Lifecycle", "Retries", "Deep"],
      ["Appendix"],
    ]);
    expect(list[2]?.heading).toBe("Run Lifecycle › Cancellation › Confirmation");
    expect(list.map((s) => s.ordinal)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(list.map((s) => s.section_id)).toEqual(["0000", "0001", "0002", "0003", "0004", "0005"]);
  });

  test("a section body is the exact source between its heading and the next heading", () => {
    const list = sections("# A\n\nalpha\n\n## B\n# C\nlast line");
    expect(list.map((s) => s.body)).toEqual(["\nalpha\n\n", "", "last line"]);
  });

  test("a heading directly followed by another has an empty or newline-only body", () => {
    const list = sections("# A\n\n# B\n");
    expect(list.map((s) => s.body)).toEqual(["\n", ""]);
  });

  test("duplicate headings get distinct ids and identical paths", () => {
    const list = sections("## Notes\none\n## Notes\ntwo\n");
    expect(list.map((s) => [s.section_id, s.heading, s.body])).toEqual([
      ["0000", "Notes", "one\n"],
      ["0001", "Notes", "two"],
    ]);
  });

  test("headings inside code blocks are not headings", () => {
    const list = sections("# Install\n\n```sh\n# comment, not a heading\nrun\n```\n\n    # indented code\n\n## Next\n");
    expect(paths(list)).toEqual([["Install"], ["Install", "Next"]]);
    expect(list[0]?.body).toBe("\n```sh\n# comment, not a heading\nrun\n```\n\n    # indented code\n\n");
  });

  test("setext headings count and their underline is not body", () => {
    const list = sections("Title Line\n==========\nbody one\n\nSub\n---\nbody two");
    expect(list.map((s) => [s.heading, s.body])).toEqual([
      ["Title Line", "body one\n\n"],
      ["Title Line › Sub", "body two"],
    ]);
  });

  test("a multi-line setext heading becomes a one-line title", () => {
    expect(sections("First part\nsecond part\n===\nx")[0]?.heading).toBe("First part second part");
  });

  test("heading titles are the raw inline text, trimmed, without the closing hashes", () => {
    expect(sections("##   The `run` *queue*   ##\n")[0]?.heading).toBe("The `run` *queue*");
  });

  test("a heading inside a quote or list item belongs to that block", () => {
    expect(paths(sections("# A\n\n> # Quoted\n\n- # Listed\n"))).toEqual([["A"]]);
  });

  test("line numbers are relative to the body, whatever the front matter's length", () => {
    const text = "---\ntitle: T\nsummary: s\ntopics:\n  - a\n  - b\n---\nLead.\n# H\nbody\n";
    const list = parsePage({ slug: "p", isLanding: false, text, fileStem: "p" }).sections;
    expect(list.map((s) => [s.heading, s.body])).toEqual([
      ["T", "Lead."],
      ["H", "body"],
    ]);
  });

  test("a broken YAML block still yields sections of the real body", () => {
    const text = "---\ntitle: [oops\n---\n# Real\ncontent\n";
    const parsed = parsePage({ slug: "p", isLanding: false, text, fileStem: "p" });
    expect(parsed.sections.map((s) => [s.heading, s.body])).toEqual([["Real", "content"]]);
  });

  test("CRLF bodies keep their bytes inside sections", () => {
    const list = sections("# A\r\none\r\n# B\r\ntwo\r\n");
    expect(list.map((s) => s.body)).toEqual(["one\r\n", "two"]);
  });

  test("an indented code block on the first body line is not mistaken for prose", () => {
    const list = sections("    # not a heading\n\n# Real\n");
    expect(list.map((s) => s.heading)).toEqual(["Page", "Real"]);
    expect(list[0]?.body).toBe("# not a heading");
  });

  test("rebuilding the same Markdown yields identical sections", () => {
    const text = "# A\nx\n## B\ny\n";
    expect(sections(text)).toEqual(sections(text));
  });
});
