import type { CliContext } from "../context.js";
import type { RunEvent, RunRecord } from "../../runs/model.js";
import type { RunStep } from "../../runs/steps.js";
import { labelled, renderTable } from "./table.js";
import { EM_DASH, humanDuration, isoTime } from "./format.js";
import type { Style } from "./style.js";

export { runJson } from "../../runs/json.js";

export function eventJson(e: RunEvent) {
  return omitNulls({
    run_id: e.runId,
    sequence: e.seq,
    timestamp: isoTime(e.createdAt),
    kind: e.kind,
    message: e.message,
    harness_event: e.payload ?? null,
  });
}

export function stepJson(step: RunStep) {
  return omitNulls({ ...step, timestamp: isoTime(step.timestamp) });
}

export function omitNulls<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined)) as Partial<T>;
}

export function statusText(s: Style, status: string): string {
  switch (status) {
    case "done":
      return s.green(status);
    case "failed":
      return s.red(status);
    case "cancelled":
      return s.yellow(status);
    case "running":
      return s.blue(status);
    default:
      return s.dim(status);
  }
}

/** How long the run ran; a run that never started (queued, or cancelled while queued) has no elapsed time. */
function elapsed(r: RunRecord, now: number): string {
  if (r.startedAt === null) return EM_DASH;
  return humanDuration((r.finishedAt ?? now) - r.startedAt);
}

export function renderJobList(ctx: CliContext, runs: RunRecord[], now: number): void {
  const s = ctx.out;
  if (runs.length === 0) {
    ctx.writeErr("# 0 jobs\n");
    return;
  }
  ctx.write(
    renderTable(
      ["ID", "WIKI", "KIND", "STATUS", "ELAPSED", "TITLE"],
      runs.map((r) => [s.blue(r.runId), r.repositoryName, r.kind, statusText(s, r.status), elapsed(r, now), r.title ?? EM_DASH]),
      s,
    ),
  );
}

export function renderJob(ctx: CliContext, r: RunRecord, now: number): void {
  const s = ctx.out;
  const line = (label: string, value: string) => labelled(label, value, 12, s);
  const out = [
    line("job", s.blue(r.runId)),
    line("wiki", r.repositoryName),
    line("kind", r.kind),
    line("status", statusText(s, r.status) + (r.cancelRequestedAt && r.status === "running" ? s.dim(" (cancelling)") : "")),
    line("elapsed", elapsed(r, now)),
  ];
  if (r.title) out.push(line("title", r.title));
  if (r.summary) out.push(line("summary", r.summary));
  if (r.pageChanges) {
    const c = r.pageChanges;
    out.push(line("changes", `${c.created.length} created, ${c.updated.length} updated, ${c.deleted.length} deleted`));
    for (const [mark, list] of [["+", c.created], ["~", c.updated], ["-", c.deleted]] as const) {
      for (const slug of list) out.push(`  ${mark} ${s.blue(slug)}`);
    }
  }
  if (r.stalePages) {
    const { confirmed, corrected, left_stale: leftStale, no_longer_stale: noLonger } = r.stalePages;
    const fresh = noLonger.length > 0 ? `, ${noLonger.length} no longer stale when it started` : "";
    out.push(line("stale", `${confirmed.length} confirmed, ${corrected.length} corrected, ${leftStale.length} left stale${fresh}`));
    for (const slug of confirmed) out.push(`  ${s.green("✓")} ${s.blue(slug)} ${s.dim("(confirmed)")}`);
    for (const slug of corrected) out.push(`  ~ ${s.blue(slug)} ${s.dim("(corrected)")}`);
    for (const slug of leftStale) out.push(`  ${s.yellow("!")} ${s.blue(slug)} ${s.yellow("(left stale)")}`);
    for (const slug of noLonger) out.push(`  ${s.dim(`· ${slug} (no longer stale)`)}`);
  }
  if (r.secretFindings && r.secretFindings.length > 0) {
    // Where the secret gate found secrets: file, line and kind, never the secret; the error line says how to fix it.
    const count = r.secretFindings.length;
    out.push(line("secrets", s.red(`${count} secret${count === 1 ? "" : "s"} found in the wiki; nothing was committed`)));
    for (const f of r.secretFindings) out.push(`  ${s.red("!")} ${f.file} line ${f.line} ${s.dim(`(${f.kind})`)}`);
  }
  if (r.wikiCommit) {
    const { sha, subject, files } = r.wikiCommit;
    out.push(line("committed", `${sha.slice(0, 12)} ${subject} ${s.dim(`(${files} file${files === 1 ? "" : "s"})`)}`));
  }
  if (r.changes) {
    for (const commit of r.changes.commits) out.push(line("commit", `${commit.sha.slice(0, 12)} ${commit.subject}`));
    if (r.changes.outside.length > 0) {
      out.push(line("outside", s.yellow(`${r.changes.outside.length} file${r.changes.outside.length === 1 ? "" : "s"} changed outside almanac/`)));
      for (const file of r.changes.outside) out.push(`  ${s.yellow("!")} ${file.path} ${s.dim(`(${file.change})`)}`);
    }
    for (const note of r.changes.notes) out.push(line("note", s.yellow(note)));
  }
  if (r.harness?.sessionId) out.push(line("session", `${r.harness.kind} ${r.harness.sessionId}`));
  if (r.harness?.transcriptPath) out.push(line("transcript", r.harness.transcriptPath));
  if (r.execution && r.status === "running") out.push(line("executor", `pid ${r.execution.pid}`));
  if (r.retryOf) out.push(line("retry of", r.retryOf));
  // Runs carried over from the Python CodeAlmanac have no log file, only their events.
  if (r.logPath) out.push(line("log file", r.logPath));
  out.push(line("events", `codealmanac jobs logs ${r.runId}`));
  out.push(line("created", isoTime(r.createdAt) ?? EM_DASH));
  out.push(line("updated", isoTime(r.updatedAt) ?? EM_DASH));
  if (r.error) out.push(line("error", s.red(r.error) + (r.failureCategory ? s.dim(` (${r.failureCategory})`) : "")));
  ctx.write(out.join("\n") + "\n");
}

const VERBS: Record<string, string> = {
  read: "Read",
  write: "Wrote",
  edit: "Edited",
  search: "Searched",
  shell: "Ran",
  agent: "Delegated",
  web: "Fetched",
  mcp: "Called",
  image: "Viewed",
};

export function renderSteps(ctx: CliContext, steps: RunStep[]): string {
  const s = ctx.out;
  const out: string[] = [];
  for (const step of steps) {
    if (step.kind === "assistant") {
      out.push(s.bold(step.title));
      for (const l of (step.body ?? "").split("\n")) out.push(`  ${l}`);
    } else if (step.kind === "tool" || step.kind === "agent") {
      const mark = step.error ? s.red("✕") : step.status === "completed" || step.status === "done" ? s.green("●") : s.blue("◐");
      const verb = step.kind === "agent" ? step.title : (VERBS[step.tool ?? ""] ?? step.title);
      const target = step.target ? ` ${middleTruncate(step.target, 68)}` : "";
      out.push(`${mark} ${verb}${target}`);
      if (step.detail && step.kind === "agent") out.push(s.dim(`  ${middleTruncate(step.detail, 100)}`));
    } else if (step.kind === "warning") {
      out.push(`${s.yellow("!")} ${s.yellow(step.body ?? step.title)}`);
    } else {
      const head = step.kind === "error" ? `${s.red("✕")} ${step.title}` : `· ${step.title}`;
      out.push(head);
      if (step.body && step.body.toLowerCase() !== step.title.toLowerCase()) {
        for (const l of step.body.split("\n")) out.push(`  ${step.kind === "error" ? s.red(l) : l}`);
      }
      // An error's detail is its fix, shown once with the failure (runs/steps.ts).
      if (step.kind === "error" && step.detail) out.push(`  fix: ${step.detail}`);
    }
  }
  return out.length > 0 ? out.join("\n") + "\n" : "";
}

function middleTruncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor((max - 1) / 2);
  return `${text.slice(0, half)}…${text.slice(text.length - (max - 1 - half))}`;
}
