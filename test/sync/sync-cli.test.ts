import { mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeWiki, type Sandbox } from "../support/cli.js";
import { allRuns, writeDb } from "../queue/support.js";
import { parkedSyncSandbox } from "./parked-sandbox.js";
import { claudeSession, codexRollout, hoursAgo } from "./transcripts.js";

interface Summary {
  mode: string;
  since: string;
  scanned: number;
  eligible: number;
  ready: { repository_name: string; transcript_count: number; transcript_paths: string[] }[];
  started: { repository_name: string; run_id: string; transcript_paths: string[] }[];
  skipped: { transcript_path: string; reason: string; session_id?: string }[];
}

interface Spec {
  inputs: string[];
  sources: { address: string; range?: { fromByte: number; toByte: number } }[];
  title: string;
  guidance: string;
}

let box: Sandbox;
let repo: string;
const codexHome = () => join(box.home, ".codex");

function specOf(runId: string): Spec {
  const row = allRuns(box).find((r) => r.run_id === runId)!;
  return JSON.parse(row.spec_json) as Spec;
}

function setStatus(runId: string, status: "done" | "failed" | "cancelled"): void {
  writeDb(box, (db) => db.prepare("UPDATE runs SET status = ?, finished_at = ? WHERE run_id = ?").run(status, Date.now(), runId));
}

const sync = (...args: string[]) => box.run(["sync", ...args, "--json"], { cwd: box.dir }).json<Summary>();
const status = (...args: string[]) => box.run(["sync", "status", ...args, "--json"], { cwd: box.dir }).json<Summary>();
const reasonOf = (summary: Summary, path: string) => summary.skipped.find((s) => s.transcript_path === path)?.reason;

beforeEach(() => {
  ({ box, repo } = parkedSyncSandbox());
});
afterEach(() => box.cleanup());

describe("sync status", () => {
  it("groups transcripts with recent activity by repository and writes nothing", () => {
    const recent = claudeSession(box.home, repo, hoursAgo(1));
    const old = claudeSession(box.home, repo, hoursAgo(6));
    const summary = status();
    expect(summary.mode).toBe("status");
    expect(summary.scanned).toBe(2);
    expect(summary.eligible).toBe(1);
    expect(summary.ready).toEqual([expect.objectContaining({ repository_name: "repo", transcript_count: 1, transcript_paths: [recent.path] })]);
    expect(reasonOf(summary, old.path)).toBe("inactive");
    expect(allRuns(box)).toHaveLength(0);
    const { since: _first, ...before } = summary;
    const { since: _second, ...after } = status();
    expect(after).toEqual(before);
  });

  it("matches sessions started in a subdirectory or through a symlink, and names the reason for the rest", () => {
    mkdirSync(join(repo, "src", "pkg"), { recursive: true });
    symlinkSync(repo, join(box.dir, "repo-link"));
    mkdirSync(join(box.dir, "elsewhere"));
    const sub = claudeSession(box.home, join(repo, "src", "pkg"), hoursAgo(1));
    const linked = codexRollout(codexHome(), join(box.dir, "repo-link"), hoursAgo(1));
    const stranger = claudeSession(box.home, join(box.dir, "elsewhere"), hoursAgo(1));
    const gone = claudeSession(box.home, join(box.dir, "deleted"), hoursAgo(1));
    const summary = status();
    expect(summary.ready[0]!.transcript_paths.sort()).toEqual([sub.path, linked.path].sort());
    expect(reasonOf(summary, stranger.path)).toBe("unregistered-cwd");
    expect(reasonOf(summary, gone.path)).toBe("cwd-missing");
  });
});

describe("sync", () => {
  it("queues one ingest run per repository with the new bytes of each transcript, and never the same bytes twice", () => {
    const a = claudeSession(box.home, repo, hoursAgo(1));
    const b = codexRollout(codexHome(), repo, hoursAgo(2));
    const first = sync();
    expect(first.started).toHaveLength(1);
    const run = first.started[0]!;
    expect(run.transcript_paths.sort()).toEqual([a.path, b.path].sort());
    const spec = specOf(run.run_id);
    expect(spec.title).toBe("Sync 2 transcripts");
    expect(spec.sources.map((s) => s.range)).toEqual([
      { fromByte: 0, toByte: statSync(a.path).size },
      { fromByte: 0, toByte: statSync(b.path).size },
    ]);
    expect(spec.guidance).toContain(a.sessionId);

    const again = sync();
    expect(again.started).toHaveLength(0);
    expect(reasonOf(again, a.path)).toMatch(new RegExp(`^in-flight: ${run.run_id}`));
    expect(allRuns(box)).toHaveLength(1);
  });

  it("after a run ends done, only activity appended since is taken, from where the last run stopped", () => {
    const a = claudeSession(box.home, repo, hoursAgo(1));
    const first = sync().started[0]!;
    const endOfFirst = statSync(a.path).size;
    setStatus(first.run_id, "done");
    expect(sync().started).toHaveLength(0);
    a.append(2, new Date());
    const second = sync().started[0]!;
    expect(specOf(second.run_id).sources[0]!.range).toEqual({ fromByte: endOfFirst, toByte: statSync(a.path).size });
    expect(specOf(second.run_id).title).toBe(`Sync claude transcript ${a.sessionId}`);
  });

  it("when the run fails or is cancelled, the next sync offers the same bytes again", () => {
    const a = claudeSession(box.home, repo, hoursAgo(1));
    const first = sync().started[0]!;
    setStatus(first.run_id, "failed");
    const retry = sync().started[0]!;
    expect(retry.run_id).not.toBe(first.run_id);
    expect(specOf(retry.run_id).sources[0]!.range).toEqual({ fromByte: 0, toByte: statSync(a.path).size });
    setStatus(retry.run_id, "cancelled");
    expect(sync().started).toHaveLength(1);
  });

  it("skips our own runs' sessions: by the session id recorded on a run, and by our entrypoint marker", () => {
    const recorded = claudeSession(box.home, repo, hoursAgo(1));
    const marked = claudeSession(box.home, repo, hoursAgo(1), { entrypoint: "codealmanac" });
    const ours = codexRollout(codexHome(), repo, hoursAgo(1), { originator: "codealmanac" });
    const user = claudeSession(box.home, repo, hoursAgo(1));
    box.run(["garden", "--using", "claude", "--json"], { cwd: repo });
    writeDb(box, (db) => db.prepare("UPDATE runs SET harness_session_id = ?").run(recorded.sessionId));
    const summary = status();
    for (const t of [recorded, marked, ours]) expect(reasonOf(summary, t.path)).toBe("own-run");
    expect(summary.ready[0]!.transcript_paths).toEqual([user.path]);
  });

  it("--from and --wiki leave the other cursors alone", () => {
    const other = writeWiki(join(box.dir, "other"), {});
    box.run(["reindex"], { cwd: other });
    const claude = claudeSession(box.home, repo, hoursAgo(1));
    const codex = codexRollout(codexHome(), repo, hoursAgo(1));
    const elsewhere = claudeSession(box.home, other, hoursAgo(1));
    const onlyCodex = sync("--from", "codex");
    expect(onlyCodex.started.flatMap((s) => s.transcript_paths)).toEqual([codex.path]);
    const onlyOther = sync("--wiki", "other");
    expect(onlyOther.started.flatMap((s) => s.transcript_paths)).toEqual([elsewhere.path]);
    const rest = status();
    expect(rest.ready.flatMap((g) => g.transcript_paths)).toEqual([claude.path]);
  });

  it("the first sync looks back automation.sync.every; --since widens the window on purpose", () => {
    const old = claudeSession(box.home, repo, hoursAgo(10));
    expect(reasonOf(status(), old.path)).toBe("inactive");
    expect(status("--since", "2d").ready[0]!.transcript_paths).toEqual([old.path]);
    writeFileSync(join(box.state, "config.toml"), '[automation.sync]\nevery = "12h"\n');
    expect(status().ready[0]!.transcript_paths).toEqual([old.path]);
  });

  it("two syncs at once never queue the same transcript twice", () => {
    const a = claudeSession(box.home, repo, hoursAgo(1));
    const out = join(box.dir, "inner.json");
    const inner = `node ${JSON.stringify(join(process.cwd(), "dist", "bin.js"))} sync --json > ${JSON.stringify(out)}`;
    const outer = box.run(["sync", "--json"], { cwd: box.dir, env: { CODEALMANAC_TEST_HOOKS: JSON.stringify({ syncBeforeReserve: inner }) } }).json<Summary>();
    const innerSummary = JSON.parse(readFileSync(out, "utf8")) as Summary;
    expect(innerSummary.started.flatMap((s) => s.transcript_paths)).toEqual([a.path]);
    expect(outer.started).toHaveLength(0);
    expect(reasonOf(outer, a.path)).toBe("taken-by-another-sync");
    expect(allRuns(box)).toHaveLength(1);
  });

  it("bad flags are one-line errors", () => {
    const bad = box.run(["sync", "--from", "cursor"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim()).toBe('codealmanac: invalid --from "cursor" (expected claude, codex or claude,codex)');
    const since = box.run(["sync", "status", "--since", "yesterday"]);
    expect(since.code).toBe(1);
    expect(since.stderr).toMatch(/^codealmanac: invalid --since "yesterday"/);
  });

  it("--since reaches back in months and years, and says the window it used", () => {
    for (const [value, days] of [["2y", 730], ["6mo", 180], ["3 weeks", 21], ["90m", 90 / 1440]] as const) {
      const before = Date.now();
      const summary = box.run(["sync", "status", "--since", value, "--json"], { cwd: box.dir }).json<{ since: string }>();
      const after = Date.now();
      const since = Date.parse(summary.since) + days * 86_400_000;
      expect(since).toBeGreaterThanOrEqual(before - 1);
      expect(since).toBeLessThanOrEqual(after + 1);
    }
  });
});

describe("sync through a real worker", () => {
  it("the queued run reads only the new part; once it is done the next sync continues from there", async () => {
    const { waitForStatus } = await import("../queue/support.js");
    writeDb(box, (db) => db.prepare("DELETE FROM worker_lock").run());
    const prompt = join(box.dir, "prompt.txt");
    const env = { FAKE_CLAUDE_PROMPT_FILE: prompt, FAKE_CLAUDE_DELAY_MS: "0" };
    const a = claudeSession(box.home, repo, hoursAgo(1), { turns: 4 });
    const first = box.run(["sync", "--using", "claude", "--json"], { cwd: box.dir, env }).json<Summary>().started[0]!;
    await waitForStatus(box, first.run_id, ["done"]);
    expect(readFileSync(prompt, "utf8")).toContain("question 3");

    a.append(2, new Date());
    const second = box.run(["sync", "--using", "claude", "--json"], { cwd: box.dir, env }).json<Summary>();
    expect(second.started).toHaveLength(1);
    await waitForStatus(box, second.started[0]!.run_id, ["done"]);
    const text = readFileSync(prompt, "utf8");
    const newPart = text.slice(text.indexOf("New activity since the last sync"));
    expect(newPart).toContain("question 5");
    expect(newPart).not.toContain("question 1\n");
    expect(box.run(["sync", "status", "--json"], { cwd: box.dir }).json<Summary>().ready).toEqual([]);
  });
});
