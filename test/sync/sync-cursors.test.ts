import { appendFileSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeWiki, type Sandbox } from "../support/cli.js";
import { allRuns, writeDb } from "../queue/support.js";
import { parkedSyncSandbox } from "./parked-sandbox.js";
import { claudeSession, hoursAgo, type WrittenTranscript } from "./transcripts.js";

/**
 * Cursors across the commands that touch them, end to end: `jobs prune` settles what a
 * cursor waits on, a rewritten transcript is read again from its start, a range always
 * starts at a line, and transcripts left for later are never dropped by the window.
 */
interface Summary {
  started: { run_id: string; transcript_paths: string[] }[];
  skipped: { transcript_path: string; reason: string }[];
  unchanged: number;
}

let box: Sandbox;
let repo: string;

const sync = (...args: string[]) => box.run(["sync", ...args, "--json"], { cwd: box.dir }).json<Summary>();
const reasonOf = (summary: Summary, path: string) => summary.skipped.find((s) => s.transcript_path === path)?.reason;

function rangeOf(runId: string): { fromByte: number; toByte: number } {
  const row = allRuns(box).find((r) => r.run_id === runId)!;
  return (JSON.parse(row.spec_json) as { sources: { range: { fromByte: number; toByte: number } }[] }).sources[0]!.range;
}

/** Ends a run as a worker would, and makes it old enough for `jobs prune --older-than 1d`. */
function finish(runId: string, status: "done" | "failed" | "cancelled", options: { old?: boolean } = {}): void {
  const at = options.old ? Date.now() - 3 * 86_400_000 : Date.now();
  writeDb(box, (db) => db.prepare("UPDATE runs SET status = ?, finished_at = ?, created_at = ? WHERE run_id = ?").run(status, at, at, runId));
}

function prune(): number {
  return box.run(["jobs", "prune", "--older-than", "1d", "--json"]).json<{ pruned: number }>().pruned;
}

/** Replaces the transcript with its first `keep` lines, then appends `more` new ones. */
function rewrite(t: WrittenTranscript, keep: number, more: number): void {
  const lines = readFileSync(t.path, "utf8").split("\n").slice(0, keep);
  writeFileSync(t.path, `${lines.join("\n")}\n`);
  t.append(more, new Date());
}

beforeEach(() => {
  ({ box, repo } = parkedSyncSandbox());
});
afterEach(() => box.cleanup());

describe("jobs prune settles the cursors that wait on the runs it deletes", () => {
  it("a pruned done run's part stays absorbed: the next sync takes nothing, then only what is appended", () => {
    const a = claudeSession(box.home, repo, hoursAgo(1));
    const first = sync().started[0]!;
    const endOfFirst = statSync(a.path).size;
    finish(first.run_id, "done", { old: true });
    expect(prune()).toBe(1);
    const again = sync();
    expect(again.started).toEqual([]);
    expect(allRuns(box)).toEqual([]);
    a.append(2, new Date());
    const next = sync().started[0]!;
    expect(rangeOf(next.run_id)).toEqual({ fromByte: endOfFirst, toByte: statSync(a.path).size });
  });

  it("a pruned failed run's part is offered again", () => {
    const a = claudeSession(box.home, repo, hoursAgo(1));
    const first = sync().started[0]!;
    finish(first.run_id, "failed", { old: true });
    expect(prune()).toBe(1);
    const retry = sync().started[0]!;
    expect(rangeOf(retry.run_id)).toEqual({ fromByte: 0, toByte: statSync(a.path).size });
  });
});

describe("a rewritten transcript is read again from its start", () => {
  it("rewritten shorter and grown past the old cursor before the next sync", () => {
    const a = claudeSession(box.home, repo, hoursAgo(1), { turns: 6 });
    const first = sync().started[0]!;
    const endOfFirst = rangeOf(first.run_id).toByte;
    finish(first.run_id, "done");
    rewrite(a, 3, 8);
    expect(statSync(a.path).size).toBeGreaterThan(endOfFirst);
    const second = sync().started[0]!;
    expect(rangeOf(second.run_id)).toEqual({ fromByte: 0, toByte: statSync(a.path).size });
  });

  it("a rewrite that leaves the old cursor inside a line never queues a range that starts mid-line", () => {
    const a = claudeSession(box.home, repo, hoursAgo(1), { turns: 4 });
    const first = sync().started[0]!;
    const endOfFirst = rangeOf(first.run_id).toByte;
    finish(first.run_id, "done");
    // One long line now spans the old cursor: the bytes after it are the tail of that line.
    const lines = readFileSync(a.path, "utf8").split("\n");
    const long = JSON.parse(lines[2]!) as { message: { content: string } };
    long.message.content = "x".repeat(endOfFirst);
    writeFileSync(a.path, `${lines.slice(0, 2).join("\n")}\n${JSON.stringify(long)}\n`);
    const body = readFileSync(a.path);
    expect(body[endOfFirst - 1]).not.toBe(0x0a);
    const second = sync().started[0]!;
    expect(rangeOf(second.run_id)).toEqual({ fromByte: 0, toByte: body.length });
  });

  it("a trailing partial line is never queued alone; once complete, exactly that line is", () => {
    const a = claudeSession(box.home, repo, hoursAgo(1));
    const first = sync().started[0]!;
    finish(first.run_id, "done");
    const end = statSync(a.path).size;
    appendFileSync(a.path, '{"type":"user","sessionId":"');
    const partial = sync();
    expect(partial.started).toEqual([]);
    expect(reasonOf(partial, a.path)).toBe("no-new-activity");
    appendFileSync(a.path, `${a.sessionId}","cwd":${JSON.stringify(repo)},"timestamp":"${new Date().toISOString()}","message":{"role":"user","content":"later"}}\n`);
    const complete = sync().started[0]!;
    expect(rangeOf(complete.run_id)).toEqual({ fromByte: end, toByte: statSync(a.path).size });
  });
});

describe("transcripts left for later are taken later", () => {
  it("a failed run's cursor settled by a --wiki sync of another wiki is offered again by the next sync", () => {
    const other = writeWiki(join(box.dir, "other"), {});
    box.run(["reindex"], { cwd: other });
    const a = claudeSession(box.home, repo, hoursAgo(1));
    const first = sync().started[0]!;
    finish(first.run_id, "failed");
    const elsewhere = sync("--wiki", "other");
    expect(elsewhere.started).toEqual([]);
    expect(reasonOf(elsewhere, a.path)).toBe("other-wiki");
    const next = sync();
    expect(next.unchanged).toBe(0);
    expect(rangeOf(next.started[0]!.run_id)).toEqual({ fromByte: 0, toByte: statSync(a.path).size });
  });

  it("a transcript deferred past 25 is still in the window once the recorded scan time has passed it", () => {
    writeFileSync(join(box.state, "config.toml"), '[automation.sync]\nevery = "12h"\n');
    const sessions = Array.from({ length: 26 }, (_, i) => claudeSession(box.home, repo, new Date(Date.now() - 3_600_000 - i * 60_000)));
    const oldest = sessions[25]!;
    const first = sync();
    expect(first.started[0]!.transcript_paths).toHaveLength(25);
    expect(reasonOf(first, oldest.path)).toMatch(/^deferred: /);
    finish(first.started[0]!.run_id, "done");
    // A short interval now: the window would start half an hour ago, after the deferred transcript's activity.
    writeFileSync(join(box.state, "config.toml"), '[automation.sync]\nevery = "30m"\n');
    const second = sync();
    expect(second.started.flatMap((s) => s.transcript_paths)).toEqual([oldest.path]);
  });
});
