// The `sync` section of bench/run.mjs: `ca sync status` against a synthetic history of
// Claude Code transcripts, 10 000 files totalling 1 GB, all from one registered repository.
//
//   1. cold: no sync state yet and every file active within the look-back window, so every
//      file is stat'ed, opened (head and tail) and planned. The worst first sync.
//   2. nothing new, already synced: a cursor for every file at its current size and mtime
//      (written into the state database the way `sync` leaves it once the runs are done),
//      so nothing is opened.
//   3. nothing new, old history: the same files last active two days ago and never synced.
//   4. memory: the cold case again with the same gigabyte in 100 files of 10 MB; peak RSS
//      beside the 10 000-file figure shows whether memory follows the file size.
import { mkdirSync, rmSync, statSync, utimesSync, openSync, writeSync, closeSync } from "node:fs";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { homeEnv } from "./env.mjs";

const TOTAL_BYTES = 1024 * 1024 * 1024;

/** Writes `files` Claude transcripts of equal size under `home`, active `ageMs` ago at most. */
function writeHistory(home, cwd, files, { nowMs }) {
  const projects = join(home, ".claude", "projects");
  rmSync(projects, { recursive: true, force: true });
  const perFile = Math.floor(TOTAL_BYTES / files);
  const written = [];
  for (let i = 0; i < files; i++) {
    const folder = join(projects, `-bench-project-${i % 50}`);
    if (i < 50) mkdirSync(folder, { recursive: true });
    const sessionId = randomUUID();
    const path = join(folder, `${sessionId}.jsonl`);
    const at = new Date(nowMs - 60_000 - (i % 180) * 60_000).toISOString();
    const line = (n) =>
      JSON.stringify({
        type: n % 2 ? "assistant" : "user",
        uuid: randomUUID(),
        parentUuid: null,
        sessionId,
        cwd,
        timestamp: at,
        isSidechain: false,
        message: { role: n % 2 ? "assistant" : "user", content: "x".repeat(900) },
      }) + "\n";
    const fd = openSync(path, "w");
    let size = 0;
    const block = [];
    for (let n = 0; size < perFile; n++) {
      const text = line(n);
      block.push(text);
      size += Buffer.byteLength(text);
      if (block.length === 256) writeSync(fd, block.splice(0).join(""));
    }
    if (block.length) writeSync(fd, block.join(""));
    closeSync(fd);
    written.push({ path, sessionId });
  }
  return written;
}

function age(files, ms) {
  const when = new Date(ms);
  for (const f of files) utimesSync(f.path, when, when);
}

export async function benchSync(ctx) {
  const { default: Database } = await import("better-sqlite3");
  const home = join(ctx.tmp, "sync-home");
  mkdirSync(home, { recursive: true });
  const root = join(ctx.tmp, "sync-repo");
  ctx.generate(root, 20, ctx.opts.seed);
  const env = homeEnv(home);
  const stateHome = ctx.stateHome("sync");
  ctx.ca(["reindex", "--json"], { cwd: root, stateHome, env });
  const status = (label, extra = {}) =>
    ctx.measure({ label, args: ["sync", "status", "--json"], cwd: root, stateHome, env, runs: extra.runs ?? ctx.opts.runs, warmup: 1, check: extra.check });
  const result = { files: 10_000, total_bytes: TOTAL_BYTES };

  ctx.log("sync: writing 10 000 transcripts (1 GB)");
  const now = Date.now();
  const files = writeHistory(home, root, 10_000, { nowMs: now });
  const expectReady = (want) => (out) => {
    const summary = JSON.parse(out);
    const taken = summary.eligible;
    return taken === want ? null : `expected ${want} eligible transcripts, got ${taken}`;
  };
  result.cold = status("sync status, cold, 10 000 files", { runs: 5, check: (out) => (JSON.parse(out).scanned === 10_000 ? null : "not every file was scanned") });

  const db = new Database(join(stateHome, "codealmanac.db"));
  const repositoryId = db.prepare("SELECT repository_id FROM repositories").pluck().get();
  const insert = db.prepare(
    `INSERT OR REPLACE INTO sync_cursors (path_key, app, path, session_id, repository_id, ingested_offset, ingested_activity,
       seen_size, seen_mtime, pending_run_id, pending_offset, pending_activity, updated_at)
     VALUES (?, 'claude', ?, ?, ?, ?, ?, ?, ?, NULL, NULL, NULL, ?)`,
  );
  db.transaction(() => {
    for (const f of files) {
      const stat = statSync(f.path);
      insert.run(f.path, f.path, f.sessionId, repositoryId, stat.size, Math.trunc(stat.mtimeMs), stat.size, Math.trunc(stat.mtimeMs), now);
    }
  })();
  result.nothing_new_synced = status("sync status, nothing new (all synced)", { check: expectReady(0) });
  db.prepare("DELETE FROM sync_cursors").run();
  db.close();

  age(files, now - 2 * 86_400_000);
  result.nothing_new_old_history = status("sync status, nothing new (old history)", { check: expectReady(0) });

  ctx.log("sync: writing 100 transcripts of 10 MB (1 GB)");
  writeHistory(home, root, 100, { nowMs: now });
  result.cold_100_large_files = status("sync status, cold, 100 files of 10 MB", { runs: 5 });
  rmSync(join(home, ".claude"), { recursive: true, force: true });

  ctx.target("sync_status_cold_10k", { measurement: result.cold, limitMs: 2000, figure: "sync.cold" });
  ctx.target("sync_status_nothing_new", { measurement: result.nothing_new_synced, marginMs: 200, figure: "sync.nothing_new_synced" });
  result.peak_rss_mb = { files_10000: result.cold.peak_rss_mb, files_100_of_10mb: result.cold_100_large_files.peak_rss_mb };
  return result;
}
