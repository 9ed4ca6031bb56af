import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statfsSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { page, sandbox, type Sandbox } from "../support/cli.js";
import { onlyIndexFile, sizableWiki } from "../support/damage.js";

/**
 * A full disk, for real: the state root lives on a small tmpfs, filled up with a file
 * until a build cannot fit. Mounting needs root; elsewhere these tests are skipped.
 */
function mountTmpfs(dir: string, size: string): boolean {
  return spawnSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir], { stdio: "ignore" }).status === 0;
}

function unmount(dir: string): void {
  spawnSync("umount", [dir], { stdio: "ignore" });
}

const canMount = (() => {
  if (process.platform !== "linux" || process.getuid?.() !== 0) return false;
  const probe = mkdtempSync(join(tmpdir(), "ca-mount-probe-"));
  try {
    if (!mountTmpfs(probe, "64k")) return false;
    unmount(probe);
    return true;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
})();

const sizeOf = (file: string) => (existsSync(file) ? statSync(file).size : 0);

const free = (dir: string) => {
  const s = statfsSync(dir);
  return s.bavail * s.bsize;
};

let box: Sandbox | undefined;
let disk: string | undefined;
afterEach(() => {
  box?.cleanup();
  if (disk) {
    unmount(disk);
    rmSync(disk, { recursive: true, force: true });
  }
  box = disk = undefined;
});

/** A sandbox whose state root is on a fresh 24 MB tmpfs, with a built index of a sizable wiki. */
function onSmallDisk(): { box: Sandbox; root: string; state: string; index: string } {
  disk = realpathSync(mkdtempSync(join(tmpdir(), "ca-full-disk-")));
  expect(mountTmpfs(disk, "24m")).toBe(true);
  const state = join(disk, "state");
  box = sandbox({ CODEALMANAC_HOME: state });
  const root = sizableWiki(join(box.dir, "repo"), 300);
  const built = box.run(["reindex"], { cwd: root });
  expect([built.code, built.stderr]).toEqual([0, ""]);
  // A second read leaves the code cache and the state database at their steady size.
  expect(box.run(["search", "zebra7"], { cwd: root }).code).toBe(0);
  return { box, root, state, index: onlyIndexFile(state) };
}

/** Fills the disk so that only `room` bytes stay free. */
function fillLeaving(state: string, room: number): string {
  const filler = join(dirname(state), "filler");
  writeFileSync(filler, Buffer.alloc(Math.max(0, free(state) - room)));
  return filler;
}

function expectOneLineAboutSpace(result: { code: number | null; stdout: string; stderr: string }, index: string): void {
  expect(result.code).toBe(3);
  expect(result.stdout).toBe("");
  expect(result.stderr).toBe(
    `codealmanac: no space left to write the wiki's index ${index} (database or disk is full); free some space on its disk and try again (the index is derived from almanac/ and is built again then)\n`,
  );
}

describe.skipIf(!canMount)("a full disk (a tmpfs state root; needs root to mount)", () => {
  test("a reindex that runs out of space keeps the old index, leaves no log or build file behind, and the next read works", () => {
    const { box, root, state, index } = onSmallDisk();
    const answer = box.run(["search", "zebra42"], { cwd: root }).stdout;
    expect(answer).toContain("note-042");
    const filler = fillLeaving(state, Math.floor(statSync(index).size / 3));
    const before = free(state);

    expectOneLineAboutSpace(box.run(["reindex"], { cwd: root }), index);
    // Nothing of the failed build keeps the disk full: no -wal, no half-built file.
    expect(readdirSync(dirname(index))).toEqual(["index.db"]);
    expect(free(state)).toBe(before);

    // The old index still answers, on the full disk.
    const read = box.run(["search", "zebra42"], { cwd: root });
    expect([read.code, read.stderr, read.stdout]).toEqual([0, "", answer]);
    // With space again, reindex works.
    rmSync(filler);
    expect(box.run(["reindex"], { cwd: root }).code).toBe(0);
    expect(readdirSync(dirname(index))).toEqual(["index.db"]);
  });

  test("a first build that runs out of space leaves no log that keeps the disk full, and the next read builds the index once space exists", () => {
    const { box, root, state, index } = onSmallDisk();
    const size = statSync(index).size;
    rmSync(dirname(index), { recursive: true });
    // Room to create the index and its tables, not to fill them.
    const filler = fillLeaving(state, Math.floor(size / 2));
    const before = free(state);

    expectOneLineAboutSpace(box.run(["search", "zebra42"], { cwd: root }), index);
    // The log of the failed build is gone or empty, and the disk has its space back.
    expect(sizeOf(`${index}-wal`)).toBe(0);
    expect(free(state)).toBeGreaterThanOrEqual(before);

    rmSync(filler);
    const read = box.run(["search", "zebra42"], { cwd: root });
    expect([read.code, read.stderr]).toEqual([0, ""]);
    expect(read.stdout).toContain("note-042");
  });

  test("a refresh that runs out of space gives the log's space back, and the next read works once space exists", () => {
    const { box, root, state, index } = onSmallDisk();
    const filler = fillLeaving(state, Math.floor(statSync(index).size / 3));
    const before = free(state);
    // Many new pages: the refresh must write more than the disk has left.
    for (let i = 0; i < 400; i++) {
      const file = join(root, "almanac", "more", `extra-${i}.md`);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, page({ title: `Extra ${i}`, summary: "more", topics: ["concepts"], body: `# Extra ${i}\n\nWord okapi${i}. ${"filler words ".repeat(300)}` }));
    }
    expectOneLineAboutSpace(box.run(["search", "okapi7"], { cwd: root }), index);
    expect(sizeOf(`${index}-wal`)).toBe(0);
    expect(free(state)).toBeGreaterThanOrEqual(before);

    rmSync(filler);
    const read = box.run(["search", "okapi7"], { cwd: root });
    expect([read.code, read.stderr]).toEqual([0, ""]);
    expect(read.stdout).toContain("extra-7");
    expect(existsSync(index)).toBe(true);
  });
});
