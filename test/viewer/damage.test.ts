import { copyFileSync, readdirSync, readlinkSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { sandbox, type Sandbox } from "../support/cli.js";
import { btreePages, fileIdentity, garblePage, integrityOk, onlyIndexFile, sizableWiki } from "../support/damage.js";
import { getJson, startViewer } from "./support.js";

/** The viewer reads the index through the same guarded handle as the CLI: damage is rebuilt, not a 500. */
let box: Sandbox;
let root: string;
let index: string;
let healthy: string;
let interior: number;
const answers = new Map<string, unknown>();

const ENDPOINTS = ["/api/overview", "/api/search?q=zebra17", "/api/page/notes/note-042", "/api/topic/concepts", "/api/graph"];

function restoreGarbled(): void {
  for (const suffix of ["-wal", "-shm"]) rmSync(index + suffix, { force: true });
  copyFileSync(healthy, index);
  garblePage(index, interior);
}

beforeAll(async () => {
  box = sandbox();
  root = sizableWiki(join(box.dir, "repo"));
  expect(box.run(["reindex"], { cwd: root }).code).toBe(0);
  index = onlyIndexFile(box.state);
  healthy = join(box.dir, "healthy.db");
  copyFileSync(index, healthy);
  interior = btreePages(healthy, "pages", "internal")[0]!;
  const viewer = await startViewer(box, { cwd: root });
  for (const path of ENDPOINTS) {
    const reply = await getJson(viewer, path);
    expect([path, reply.status]).toEqual([path, 200]);
    answers.set(path, reply.body);
  }
  viewer.child.kill("SIGKILL");
  await viewer.exited;
});
afterAll(() => box.cleanup());

describe("the viewer on a damaged index", () => {
  test.each(ENDPOINTS)("%s answers as from the healthy index", async (path) => {
    restoreGarbled();
    const damaged = fileIdentity(index);
    const viewer = await startViewer(box, { cwd: root });
    const reply = await getJson(viewer, path);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(answers.get(path));
    expect(fileIdentity(index)).not.toBe(damaged);
    expect(integrityOk(index)).toBe(true);
    expect(viewer.stderr()).toBe("");
  });

  test("after a reindex by another process, the viewer reads the new file and holds no deleted one open", async () => {
    for (const suffix of ["-wal", "-shm"]) rmSync(index + suffix, { force: true });
    copyFileSync(healthy, index);
    const viewer = await startViewer(box, { cwd: root });
    expect((await getJson(viewer, ENDPOINTS[1]!)).status).toBe(200);
    const held = () =>
      readdirSync(`/proc/${viewer.child.pid}/fd`).flatMap((fd) => {
        try {
          return [readlinkSync(`/proc/${viewer.child.pid}/fd/${fd}`)];
        } catch {
          return [];
        }
      });
    expect(held()).toContain(index);
    expect(box.run(["reindex"], { cwd: root }).code).toBe(0);
    const reply = await getJson(viewer, ENDPOINTS[1]!);
    expect([reply.status, reply.body]).toEqual([200, answers.get(ENDPOINTS[1]!)]);
    expect(held().filter((link) => link.includes("index.db") && link.endsWith("(deleted)"))).toEqual([]);
    expect(held()).toContain(index);
  });
});
