import { describe, expect, test } from "vitest";
import { join } from "node:path";
import { page, sandbox, writeWiki, type Sandbox } from "../support/cli.js";
import { allRuns, checkAndCleanUpAfterEach, parkedRuns, queueProcesses, releaseQueue, waitForIdle, workerLog, writeDb } from "./support.js";

let box: Sandbox;
// After each test: no worker, executor or agent of the sandbox outlives the queue's work
// (checked before the sandbox cleanup, which kills every process carrying its state directory).
checkAndCleanUpAfterEach(() => box);

const READS = [
  ["search", "zephyr"],
  ["search", "zephyr", "--json"],
  ["show", "guide"],
  ["topics"],
  ["health"],
  ["list"],
  ["validate"],
  ["sync", "status"],
  ["automation", "status"],
  ["config", "list"],
];

function lockHolders(b: Sandbox): number {
  let count = -1;
  writeDb(b, (db) => (count = db.prepare("SELECT COUNT(*) FROM worker_lock").pluck().get() as number));
  return count;
}

describe("read commands", () => {
  test("never start a worker, even with queued work and no worker alive", async () => {
    box = sandbox();
    const guide = page({ title: "Guide", topics: ["concepts"], sources: [], body: "# Guide\n\nHow to zephyr." });
    const root = writeWiki(join(box.dir, "repo"), { "guide.md": guide });
    const runs = await parkedRuns(box, root, 2);
    // Stranded work: queued runs, no lock holder. A `jobs` read would start a worker now.
    releaseQueue(box);
    const logBefore = workerLog(box);

    for (const args of READS) {
      const result = box.run(args, { cwd: root });
      expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(0);
      // A spawned worker exists before the command exits, and lives at least until it has claimed work.
      expect(queueProcesses(box), args.join(" ")).toEqual([]);
    }
    expect(allRuns(box).map((r) => r.status)).toEqual(["queued", "queued"]);
    expect(lockHolders(box)).toBe(0);
    expect(workerLog(box)).toBe(logBefore);

    // The same state, read by `jobs`, does start a worker, and it shows in all three places.
    box.run(["jobs"], { cwd: root });
    expect(queueProcesses(box).map((p) => p.role)).toContain("worker");
    await waitForIdle(box);
    expect(allRuns(box).map((r) => [r.run_id, r.status])).toEqual(runs.map((r) => [r.run_id, "done"]));
    expect(workerLog(box)).not.toBe(logBefore);
  });
});
