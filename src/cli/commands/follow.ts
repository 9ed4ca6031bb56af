import type { App } from "../../app.js";
import type { RunRecord } from "../../runs/model.js";
import { projectSteps, type RunStep } from "../../runs/steps.js";
import type { CliContext } from "../context.js";
import { eventJson, omitNulls, renderSteps, runJson, statusText } from "../render/jobs.js";

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

/** Follows a run's events until it ends or the user presses Ctrl-C (which detaches, never cancels). */
export async function followRun(ctx: CliContext, app: App, runId: string, options: FollowOptions): Promise<FollowOutcome> {
  const jobs = await app.jobs();
  await jobs.recover();
  const abort = new AbortController();
  const onSigint = () => abort.abort();
  process.once("SIGINT", onSigint);
  let printed = 0;
  let last: RunRecord | null = null;
  const tools = new Map<string, RunStep>();
  try {
    const interval = Number(ctx.env.CODEALMANAC_ATTACH_INTERVAL_MS ?? 100);
    for await (const update of jobs.attach(runId, {
      intervalMs: interval,
      signal: abort.signal,
      ...(options.repositoryId ? { repositoryId: options.repositoryId } : {}),
    })) {
      last = update.record;
      if (options.json === "lines") {
        const line = omitNulls({ record: omitNulls(runJson(update.record)), events: update.events.map(eventJson), terminal: update.terminal });
        ctx.write(JSON.stringify(line) + "\n");
        continue;
      }
      if (options.json === "none") continue;
      const text = renderSteps(ctx, projectSteps(update.events, tools));
      if (text !== "") {
        ctx.write(text);
        printed++;
      }
    }
  } finally {
    process.removeListener("SIGINT", onSigint);
  }
  if (abort.signal.aborted) {
    if (!options.json) ctx.write(`detached — job continues in background\ncancel: codealmanac jobs cancel ${runId}\n`);
    return { record: last ?? jobs.show(runId), detached: true };
  }
  if (!options.json && last) ctx.write(finalLines(ctx, last, printed === 0));
  return { record: last, detached: false };
}

function finalLines(ctx: CliContext, record: RunRecord, quiet: boolean): string {
  const s = ctx.out;
  const tail: string[] = [];
  if (quiet) tail.push("no log events");
  tail.push(`status: ${statusText(s, record.status)}`);
  if (record.status === "failed" && record.error) tail.push(`error: ${s.red(record.error)}`);
  if (record.status === "done" && record.summary) tail.push(`summary: ${record.summary}`);
  return tail.join("\n") + "\n";
}

/** The exit code of a followed run: 0 done, 1 failed or cancelled, 130 detached by Ctrl-C. */
export function exitCodeOf(outcome: FollowOutcome): number {
  if (outcome.detached) return 130;
  return outcome.record?.status === "done" ? 0 : 1;
}
