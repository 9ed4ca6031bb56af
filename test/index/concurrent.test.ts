import { afterEach, describe, expect, test } from "vitest";
import { join } from "node:path";
import Database from "better-sqlite3";
import { postingsWithPrefix } from "../../src/index/postings.js";
import { readdirSync } from "node:fs";
import { page, sandbox, writeWiki, type Sandbox } from "../support/cli.js";

let box: Sandbox;
afterEach(() => box?.cleanup());

/**
 * What a process's refresh did, from its CODEALMANAC_TRACE=1 report (src/index/refresh.ts):
 * "fresh", or "built N of M" / "checked N of M" for N changed files against the M files
 * the index held when it took the write lock (built when M is 0, the index was empty).
 * The report must be the only thing on stderr.
 */
function refreshOutcome(stderr: string): string {
  expect(stderr).toMatch(/^codealmanac trace:\n(?: +[\d.]+ ms {2}.*\n)+$/);
  if (stderr.includes(" refresh: fresh\n")) return "fresh";
  const stale = / refresh: (\d+) changed of (\d+) files(?: \(listed by the scan\))?\n/.exec(stderr);
  if (!stale) return "no refresh";
  return `${stale[2] === "0" ? "built" : "checked"} ${stale[1]} of ${stale[2]}`;
}

describe("concurrent readers", () => {
  test("many processes refreshing a fresh index at once build it exactly once and all answer", async () => {
    box = sandbox();
    const files: Record<string, string> = {};
    for (let i = 0; i < 150; i++) {
      files[`notes/note-${i}.md`] = page({ title: `Note ${i}`, topics: ["concepts"], sources: [], body: `# Note ${i}\n\nThe shared word zephyr and ${i}.` });
    }
    const root = writeWiki(join(box.dir, "repo"), files);
    box.run(["list"]); // create the state database first so registration races are not the subject here
    const results = await Promise.all(
      Array.from({ length: 6 }, () => box.runAsync(["search", "zephyr", "--all", "--json"], { cwd: root, env: { CODEALMANAC_TRACE: "1" } })),
    );
    const refreshes: string[] = [];
    for (const result of results) {
      expect(result.code).toBe(0);
      expect(result.json<unknown[]>()).toHaveLength(150);
      refreshes.push(refreshOutcome(result.stderr));
    }
    // One process builds the 151 pages into the empty index; every other one finds them there.
    expect(refreshes.filter((r) => r === "built 151 of 0").length, refreshes.join(", ")).toBe(1);
    expect(refreshes.filter((r) => r !== "built 151 of 0" && r !== "fresh" && !/^checked \d+ of 151$/.test(r))).toEqual([]);
    const repoDir = readdirSync(join(box.state, "repos"))[0]!;
    const db = new Database(join(box.state, "repos", repoDir, "index.db"), { readonly: true });
    try {
      expect(db.prepare("SELECT COUNT(*) FROM pages").pluck().get()).toBe(151);
      // A page written again gets a new id above all others: ids up to 151 mean each was written once.
      expect(db.prepare("SELECT MAX(id) FROM pages").pluck().get()).toBe(151);
      expect(db.prepare("SELECT COUNT(*) FROM sections").pluck().get()).toBe(151);
      expect(postingsWithPrefix(db, "zephyr").count).toBe(150);
    } finally {
      db.close();
    }
  });

  test("concurrent first reads of an unregistered wiki register it once", async () => {
    box = sandbox();
    const root = writeWiki(join(box.dir, "repo"), {});
    const results = await Promise.all(Array.from({ length: 5 }, () => box.runAsync(["topics", "--json"], { cwd: root })));
    for (const result of results) expect([result.code, result.stderr]).toEqual([0, ""]);
    const list = box.run(["list", "--json"]).json<unknown[]>();
    expect(list).toHaveLength(1);
  });
});
