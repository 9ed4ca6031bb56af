import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { sharedSandbox } from "../cli/helpers.js";
import { page, writeWiki } from "../support/cli.js";
import { getJson, startViewer, type PageSummary } from "./support.js";

/**
 * The viewer shows excerpts as plain text. Cut inside a code span, the half span paired
 * its backtick with the next one and swallowed the spaces around it (issue 18:
 * `queue_build(...)prepares … an existingalmanac/ … [@run_queue]`).
 */
describe("viewer API: search excerpts read as prose", () => {
  const shared = sharedSandbox((box) => {
    const repo = join(box.dir, "repo");
    writeWiki(repo, {
      "build.md": page({
        title: "Build",
        topics: ["concepts"],
        sources: [{ id: "run_queue", type: "file", path: "src/queue.ts" }],
        body: "Intro line. Then `queue_build(...)` prepares the run and checks for an existing `almanac/` folder first [@run_queue]. More text follows.",
      }),
    });
    return { repo };
  });

  test("GET /api/search: no half code span, no glued words, no citation marker", async () => {
    const viewer = await startViewer(shared.box(), { cwd: shared.fixture().repo });
    const { body } = await getJson<{ pages: PageSummary[] }>(viewer, "/api/search?q=existing");
    expect(body.pages.map((p) => p.excerpt)).toEqual(["… queue_build(...) prepares the run and checks for an existing almanac/ folder first. More text follows."]);
  });
});
