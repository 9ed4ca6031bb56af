import { describe, expect, test } from "vitest";
import { isProductError } from "../../src/core/errors.js";
import type { SourceRef } from "../../src/sources/model.js";
import { parseSourceRefs } from "../../src/sources/service.js";
import { commit, gitRepo, makeService, tempDir, testEnv } from "./helpers.js";

function parseError(value: unknown): string {
  try {
    parseSourceRefs(value);
  } catch (error) {
    if (!isProductError(error)) throw error;
    return error.message;
  }
  throw new Error("parsed");
}

describe("stored source refs", () => {
  test("refs survive a round trip through JSON, unknown fields included", async () => {
    const repo = gitRepo({ "a.md": "a\n" });
    commit(repo, { "a.md": "b\n" }, "second");
    const service = makeService(testEnv(tempDir("ca-sources-home-")));
    const refs = await service.resolve(["a.md", ".", "git:range:HEAD~1..HEAD", "https://example.com/x"], { cwd: repo, repositoryRoot: repo });
    const stored = JSON.parse(JSON.stringify(refs.map((ref) => ({ ...ref, fromTheFuture: 1 })))) as unknown;
    expect(parseSourceRefs(stored)).toEqual(refs.map((ref) => ({ ...ref, fromTheFuture: 1 })));
  });

  test("what a kind needs in order to be prepared must be there", () => {
    const base: SourceRef = { address: "x", kind: "file", title: "File x" };
    expect(parseError([base])).toBe("stored sources are invalid: 0: a file source needs path");
    expect(parseError([{ ...base, kind: "git_range", pinned: { from: "a" } }])).toBe("stored sources are invalid: 0: a git_range source needs pinned.from and pinned.to");
    expect(parseError([{ ...base, kind: "transcript", path: "/t.jsonl" }])).toBe("stored sources are invalid: 0: a transcript source needs format");
    expect(parseError([{ ...base, kind: "github_pr", number: 0 }])).toMatch(/^stored sources are invalid: 0\.number: /);
    expect(parseError([{ ...base, kind: "ftp" }])).toMatch(/^stored sources are invalid: 0\.kind: /);
    expect(parseError({})).toMatch(/^stored sources are invalid: /);
  });

  test("a transcript ref may carry a byte range; refs stored without one still parse", () => {
    const old = { address: "transcript:/t.jsonl", kind: "transcript", title: "Claude Code transcript t.jsonl", path: "/t.jsonl", format: "claude" };
    expect(parseSourceRefs([old])).toEqual([old]);
    const ranged = { ...old, address: "transcript:/t.jsonl#bytes=10-20", range: { fromByte: 10, toByte: 20 } };
    expect(parseSourceRefs(JSON.parse(JSON.stringify([ranged])))).toEqual([ranged]);
    expect(parseError([{ ...ranged, range: { fromByte: 20, toByte: 20 } }])).toBe("stored sources are invalid: 0.range: a byte range needs fromByte < toByte");
    expect(parseError([{ ...ranged, range: { fromByte: -1, toByte: 20 } }])).toMatch(/^stored sources are invalid: 0\.range\.fromByte: /);
    expect(parseError([{ ...ranged, range: { fromByte: 0 } }])).toMatch(/^stored sources are invalid: 0\.range\.toByte: /);
  });
});
