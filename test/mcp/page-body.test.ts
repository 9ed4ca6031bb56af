import { describe, expect, test } from "vitest";
import { readableBody } from "../../src/mcp/page-body.js";

const page = { slug: "architecture/run-queue", title: "Run queue", path: "architecture/run-queue.md" };

describe("read_page's body", () => {
  test("leaves out a first heading that repeats the title, and only that", () => {
    expect(readableBody("# Run queue\n\nRuns wait.", page)).toBe("Runs wait.");
    expect(readableBody("#  Run   Queue ##\r\n\r\nRuns wait.", page)).toBe("Runs wait.");
    expect(readableBody("# Run queue", page)).toBe("");
    expect(readableBody("# The run queue\n\nRuns wait.", page)).toBe("# The run queue\n\nRuns wait.");
    expect(readableBody("## Run queue\n\nRuns wait.", page)).toBe("## Run queue\n\nRuns wait.");
    expect(readableBody("Runs wait.\n\n# Run queue", page)).toBe("Runs wait.\n\n# Run queue");
    expect(readableBody("# Run queue\n\nRuns wait.", { ...page, title: null })).toBe("# Run queue\n\nRuns wait.");
  });

  test("gives page links as slugs and file links as repository paths; web links, anchors and code stay", () => {
    const body = [
      "See [the index](index-refresh.md), [setup](../guides/setup.md#install), [a folder](../guides/) and [home](../README.md).",
      "Code: [worker](../../src/queue/worker.ts), [a diagram](queue.png), ![img](<../img/a b.png>).",
      "Web: [docs](https://example.com/x.md), [mail](mailto:a@b.c), [here](#shutdown), [root](/abs.md).",
      "In code: `[x](index-refresh.md)` and \\[not](index-refresh.md).",
      "",
      "```md",
      "[fenced](index-refresh.md)",
      "```",
      "",
      "[ref]: ../guides/setup.md \"Setup\"",
    ].join("\n");
    expect(readableBody(body, page)).toBe(
      [
        "See [the index](architecture/index-refresh), [setup](guides/setup#install), [a folder](guides) and [home](README).",
        "Code: [worker](src/queue/worker.ts), [a diagram](almanac/architecture/queue.png), ![img](<almanac/img/a b.png>).",
        "Web: [docs](https://example.com/x.md), [mail](mailto:a@b.c), [here](#shutdown), [root](/abs.md).",
        "In code: `[x](index-refresh.md)` and \\[not](index-refresh.md).",
        "",
        "```md",
        "[fenced](index-refresh.md)",
        "```",
        "",
        '[ref]: guides/setup "Setup"',
      ].join("\n"),
    );
  });

  test("a landing page's links start from its own folder", () => {
    expect(readableBody("[queue](run-queue.md) and [up](../README.md)", { slug: "architecture", title: "Architecture", path: "architecture/README.md" })).toBe(
      "[queue](architecture/run-queue) and [up](README)",
    );
  });
});
