import { afterEach, describe, expect, test } from "vitest";
import { join } from "node:path";
import { page, sandbox, writeWiki, type Sandbox } from "../support/cli.js";

let box: Sandbox;
afterEach(() => box?.cleanup());

describe("smoke", () => {
  test("search finds a page of a wiki selected from a subfolder", () => {
    box = sandbox();
    const repo = writeWiki(join(box.dir, "repo"), {
      "guides/deploy.md": page({ title: "Deploying", summary: "How we ship", topics: ["concepts"], sources: [], body: "# Deploying\n\nShip it." }),
    });
    const result = box.run(["search", "ship", "--json"], { cwd: join(repo, "almanac", "guides") });
    expect(result.code).toBe(0);
    expect(result.json<{ slug: string }[]>().map((h) => h.slug)).toEqual(["guides/deploy"]);
  });
});
