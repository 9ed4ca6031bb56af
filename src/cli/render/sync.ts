import type { SessionSummary, SyncSummary, TranscriptRedactions } from "../../sync/model.js";
import type { CliContext } from "../context.js";

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
const iso = (ms: number) => new Date(ms).toISOString();

export function syncSummaryJson(summary: SyncSummary) {
  const group = (g: SyncSummary["ready"][number]) => ({
    repository_id: g.repositoryId,
    repository_name: g.repositoryName,
    repository_root: g.repositoryRoot,
    transcript_count: g.transcriptPaths.length,
    transcript_paths: g.transcriptPaths,
  });
  return {
    mode: summary.mode,
    since: iso(summary.since),
    ...(summary.completedAt !== null ? { completed_at: iso(summary.completedAt) } : {}),
    scanned: summary.scanned,
    eligible: summary.eligible,
    unchanged: summary.unchanged,
    ready: summary.ready.map((g) => ({ ...group(g), ...(g.redactions ? redactionsJson(g.redactions) : {}) })),
    started: summary.started.map((g) => ({ ...group(g), run_id: g.runId })),
    skipped: summary.skipped.map((s) => ({
      transcript_path: s.transcriptPath,
      reason: s.reason,
      ...(s.app !== undefined ? { app: s.app } : {}),
      ...(s.sessionId !== undefined ? { session_id: s.sessionId } : {}),
      ...(s.cwd !== undefined ? { cwd: s.cwd } : {}),
    })),
  };
}

/** Per transcript, by kind, and the group's total; a part that could not be read counts as null. */
function redactionsJson(redactions: TranscriptRedactions[]) {
  return {
    redaction_count: redactions.reduce((sum, t) => sum + total(t), 0),
    transcripts: redactions.map((t) => ({ transcript_path: t.transcriptPath, redaction_count: t.redactions ? total(t) : null, redactions: t.redactions })),
  };
}

function total(t: TranscriptRedactions): number {
  return (t.redactions ?? []).reduce((sum, r) => sum + r.count, 0);
}

/** `3 redactions (2 aws-access-key, 1 private-key)`, `no redactions`, or why it is not known. */
function redactionsText(t: TranscriptRedactions): string {
  if (!t.redactions) return "redactions unknown (unreadable now)";
  const n = total(t);
  if (n === 0) return "no redactions";
  return `${plural(n, "redaction")} (${t.redactions.map((r) => `${r.count} ${r.kind}`).join(", ")})`;
}

/** Counts and one line per repository; individual skips only under --json, but their reasons are tallied here. */
export function renderSyncSummary(ctx: CliContext, summary: SyncSummary): void {
  const s = ctx.out;
  const lines = [
    `${summary.mode === "status" ? "sync status" : "sync"}:`,
    `  since: ${iso(summary.since)}`,
    `  transcripts scanned: ${summary.scanned}`,
    `  transcripts eligible: ${summary.eligible}`,
  ];
  if (summary.mode === "status") lines.push(`  wikis ready: ${summary.ready.length}`);
  else lines.push(`  wikis started: ${summary.started.length}`);
  lines.push(`  transcripts skipped: ${summary.skipped.length}${tally(summary)}`);
  for (const g of summary.ready) {
    lines.push(`  - ready ${s.bold(g.repositoryName)}: ${plural(g.transcriptPaths.length, "transcript")}`);
    for (const t of g.redactions ?? []) lines.push(`      ${t.transcriptPath}: ${redactionsText(t)}`);
  }
  for (const g of summary.started) lines.push(`  - started ${s.bold(g.repositoryName)}: ${g.runId} (${plural(g.transcriptPaths.length, "transcript")})`);
  if (summary.mode === "status" && summary.ready.length === 0) lines.push(s.dim("  nothing new to sync"));
  ctx.write(lines.join("\n") + "\n");
}

function tally(summary: SyncSummary): string {
  if (summary.skipped.length === 0) return "";
  const counts = new Map<string, number>();
  for (const skip of summary.skipped) {
    const reason = skip.reason.split(":")[0]!;
    counts.set(reason, (counts.get(reason) ?? 0) + 1);
  }
  return ` (${[...counts].sort((a, b) => b[1] - a[1]).map(([reason, n]) => `${n} ${reason}`).join(", ")})`;
}

export function sessionSummaryJson(summary: SessionSummary) {
  const { started, skipped } = summary;
  return {
    transcript_path: summary.transcriptPath,
    app: summary.app,
    ...(summary.sessionId !== undefined ? { session_id: summary.sessionId } : {}),
    ...(summary.cwd !== undefined ? { cwd: summary.cwd } : {}),
    outcome: started ? (started.joined ? "joined" : "queued") : "skipped",
    ...(started ? { run_id: started.runId, repository_name: started.repositoryName, repository_root: started.repositoryRoot } : {}),
    ...(skipped ? { reason: skipped.reason } : {}),
  };
}

/** One line: which run took the session, or why nothing was queued. */
export function sessionLine(summary: SessionSummary): string {
  const who = `${summary.app} session ${summary.sessionId ?? summary.transcriptPath}`;
  const { started, skipped } = summary;
  if (started) {
    const how = started.joined ? `added to ${started.runId}, already queued` : `queued ${started.runId}`;
    const warning = skipped ? ` (${skipped.reason})` : "";
    return `sync: ${who}: ${how} for ${started.repositoryName}${warning}`;
  }
  return `sync: ${who}: nothing queued: ${explain(skipped?.reason ?? "no-new-activity", summary.cwd)}`;
}

function explain(reason: string, cwd: string | undefined): string {
  if (reason === "unregistered-cwd") return `${cwd ?? "its folder"} is in no registered wiki`;
  if (reason === "own-run") return "it is a session of a codealmanac run";
  if (reason === "no-new-activity") return "nothing new since the last sync";
  if (reason.startsWith("in-flight: ")) return `its last part is still ${reason.slice("in-flight: ".length)}; the next sync takes the rest`;
  return reason;
}
