import type { App } from "../../app.js";
import type { AttachUpdate } from "../../queue/jobs.js";
import type { RunRecord } from "../../runs/model.js";
import { parseSpec } from "../../runs/spec.js";
import { agentAtWork, failureText, projectSteps, sameFailure, stepMemory, type StepMemory } from "../../runs/steps.js";
import type { CliContext } from "../context.js";
import { eventJson, omitNulls, renderSteps, runJson, statusText } from "../render/jobs.js";
import { StatusLine, type WaitState } from "../render/wait-status.js";

export interface FollowOptions {
  /** `lines`: one JSON object per update (jobs attach --json); `none`: print nothing while following. */
  json: "lines" | "none" | false;
  repositoryId?: string;
}

export interface FollowOutcome {
  record: RunRecord | null;
  /** Ctrl-C: we stopped following; the run goes on. */
  detached: boolean;
}

/** What following needs of the queue (the jobs service): recovery, the poll loop, a last read. */
export interface FollowSource {
  recover(): Promise<unknown>;
  attach(runId: string, options: { intervalMs: number; repositoryId?: string; signal?: AbortSignal }): AsyncIterable<AttachUpdate>;
  show(runId: string): RunRecord;
}

/** Without news for a minute, a follower whose stderr is not a terminal says once that it still waits. */
const DEFAULT_STATUS_INTERVAL_MS = 60_000;

/** Follows a run's events until it ends or the user presses Ctrl-C (which detaches, never cancels). */
export async function followRun(ctx: CliContext, app: App, runId: string, options: FollowOptions): Promise<FollowOutcome> {
  return follow(ctx, await app.jobs(), runId, options, () => app.now());
}

/** `followRun` with its queue and clock given: the in-process tests drive it with fakes. */
export async function follow(ctx: CliContext, source: FollowSource, runId: string, options: FollowOptions, now: () => number): Promise<FollowOutcome> {
  await source.recover();
  const abort = new AbortController();
  const onSigint = () => abort.abort();
  process.once("SIGINT", onSigint);
  let printed = 0;
  let last: RunRecord | null = null;
  const memory = stepMemory();
  const status = options.json ? null : statusLine(ctx, now);
  let atWork = false;
  try {
    const interval = Number(ctx.env.CODEALMANAC_ATTACH_INTERVAL_MS ?? 100);
    for await (const update of source.attach(runId, {
      intervalMs: interval,
      signal: abort.signal,
      ...(options.repositoryId ? { repositoryId: options.repositoryId } : {}),
    })) {
      last = update.record;
      if (options.json === "lines") {
        if (update.events.length === 0 && !update.terminal) continue;
        const line = omitNulls({ record: omitNulls(runJson(update.record)), events: update.events.map(eventJson), terminal: update.terminal });
        ctx.write(JSON.stringify(line) + "\n");
        continue;
      }
      if (options.json === "none" || !status) continue;
      atWork = agentAtWork(update.events, atWork);
      const text = renderSteps(ctx, projectSteps(update.events, memory));
      if (text !== "") {
        status.clear();
        ctx.write(text);
        printed++;
      }
      status.update(update.terminal ? null : waitState(update, atWork));
    }
  } finally {
    status?.clear();
    process.removeListener("SIGINT", onSigint);
  }
  if (abort.signal.aborted) {
    if (!options.json) ctx.write(`detached — job continues in background\ncancel: codealmanac jobs cancel ${runId}\n`);
    return { record: last ?? source.show(runId), detached: true };
  }
  if (!options.json && last) ctx.write(finalLines(ctx, last, printed === 0, memory));
  return { record: last, detached: false };
}

function statusLine(ctx: CliContext, now: () => number): StatusLine {
  const configured = Number(ctx.env.CODEALMANAC_WAIT_STATUS_INTERVAL_MS);
  return new StatusLine({
    tty: ctx.errTerminal.isTTY,
    now,
    write: (text) => ctx.writeErr(text),
    intervalMs: Number.isFinite(configured) && configured > 0 ? configured : DEFAULT_STATUS_INTERVAL_MS,
    columns: ctx.errTerminal.columns,
    dim: ctx.err.dim,
  });
}

/**
 * What the run waits for at this poll, or null when it does not wait. A running run waits
 * since its last event or state change (`updatedAt`), which every follower reads the same
 * way, whenever it attached.
 */
function waitState(update: AttachUpdate, atWork: boolean): WaitState | null {
  const { record } = update;
  if (record.status === "queued") return { status: "queued", ahead: update.ahead, agent: null, since: record.createdAt };
  if (record.status !== "running") return null;
  return { status: "running", ahead: 0, agent: atWork ? harnessOf(record) : null, since: record.updatedAt };
}

function harnessOf(record: RunRecord): string {
  const parsed = parseSpec(record.specJson);
  return parsed.ok ? parsed.spec.harness : "the agent";
}

/** The final status, and the run's error unless a step already showed that failure. */
function finalLines(ctx: CliContext, record: RunRecord, quiet: boolean, memory: StepMemory): string {
  const s = ctx.out;
  const tail: string[] = [];
  if (quiet) tail.push("no log events");
  tail.push(`status: ${statusText(s, record.status)}`);
  if (record.status === "failed" && record.error && !shown(memory, record.error)) tail.push(`error: ${s.red(record.error)}`);
  if (record.status === "done" && record.summary) tail.push(`summary: ${record.summary}`);
  return tail.join("\n") + "\n";
}

function shown(memory: StepMemory, error: string): boolean {
  const text = failureText(error);
  return memory.failures.some((failure) => sameFailure(failure, text));
}

/** The exit code of a followed run: 0 done, 1 failed or cancelled, 130 detached by Ctrl-C. */
export function exitCodeOf(outcome: FollowOutcome): number {
  if (outcome.detached) return 130;
  return outcome.record?.status === "done" ? 0 : 1;
}
