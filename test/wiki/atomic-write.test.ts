import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import type * as Fs from "node:fs";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { writeFileAtomic } from "../../src/wiki/atomic-write.js";

const renames = vi.hoisted(() => [] as [string, string][]);
vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof Fs>();
  return {
    ...fs,
    renameSync: (from: string, to: string) => {
      renames.push([from, to]);
      fs.renameSync(from, to);
    },
  };
});

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "ca-atomic-"));
  renames.length = 0;
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("writeFileAtomic", () => {
  test("creates a new file and leaves no temp file behind", () => {
    const path = join(dir, "page.md");
    writeFileAtomic(path, "héllo\n");
    expect(readFileSync(path, "utf8")).toBe("héllo\n");
    expect(readdirSync(dir)).toEqual(["page.md"]);
  });

  test("writes through a hidden temp file in the same folder, then renames it", () => {
    const path = join(dir, "topics.yaml");
    writeFileAtomic(path, "topics: []\n");
    expect(renames).toHaveLength(1);
    const [from, to] = renames[0] ?? ["", ""];
    expect(to).toBe(path);
    expect(dirname(from)).toBe(dir);
    expect(basename(from)).toMatch(/^\.topics\.yaml\.[0-9a-f]{16}\.tmp$/);
  });

  test("replaces an existing file and keeps its permission bits", () => {
    const path = join(dir, "topics.yaml");
    writeFileSync(path, "old");
    chmodSync(path, 0o640);
    writeFileAtomic(path, "new");
    expect(readFileSync(path, "utf8")).toBe("new");
    expect(statSync(path).mode & 0o777).toBe(0o640);
    expect(readdirSync(dir)).toEqual(["topics.yaml"]);
  });

  test("a failed rename removes the temp file and rethrows", () => {
    // A non-empty directory cannot be replaced by a file.
    const target = join(dir, "occupied");
    mkdirSync(target);
    writeFileSync(join(target, "child"), "x");
    expect(() => writeFileAtomic(target, "content")).toThrow();
    expect(renames).toHaveLength(1);
    expect(readdirSync(dir)).toEqual(["occupied"]);
  });

  test("a missing folder fails without creating anything", () => {
    expect(() => writeFileAtomic(join(dir, "missing", "x.md"), "x")).toThrow();
    expect(readdirSync(dir)).toEqual([]);
  });
});
