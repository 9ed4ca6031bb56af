import type { App } from "../../app.js";
import { invalid } from "../../core/errors.js";
import { parseDuration } from "../../config/duration.js";
import { parseRunId } from "../../runs/ids.js";
import { RUN_KINDS, RUN_STATUSES, type RunKind, type RunStatus } from "../../runs/model.js";
import { projectSteps } from "../../runs/steps.js";
import type { CliContext } from "../context.js";
import type { Opts } from "../context.js";
import { renderJob, renderJobList, renderSteps, runJson, stepJson } from "../render/jobs.js";
import { followRun } from "./follow.js";
import { renderReceipt } from "../render/receipt.js";
import { nonNegative } from "./shared.js";

async function service(app: App) {
  const jobs = await app.jobs();
  await jobs.recover();
  return jobs;
}

function repositoryFilter(app: App, opts: Opts): string | undefined {
  return opts.wiki !== undefined ? app.repositories.byName(opts.wiki as string).repositoryId : undefined;
}

function listOf<T extends string>(values: unknown, allowed: readonly T[], flag: string): T[] | undefined {
  if (values === undefined) return undefined;
  const items = (values as string[]).flatMap((v) => v.split(",")).map((v) => v.trim().toLowerCase()).filter((v) => v !== "");
  for (const item of items) {
    if (!allowed.includes(item as T)) throw invalid(`invalid ${flag} "${item}" (expected ${allowed.join(", ")})`);
  }
  return items as T[];
}

export async function list(ctx: CliContext, app: App, _args: unknown[], opts: Opts): Promise<void> {
  const limit = opts.all ? undefined : (nonNegative(opts.limit, "--limit") ?? 100);
  const jobs = await service(app);
  const statuses = listOf<RunStatus>(opts.status, RUN_STATUSES, "--status");
  const kinds = listOf<RunKind>(opts.kind, RUN_KINDS, "--kind");
  const repositoryId = repositoryFilter(app, opts);
  const runs = jobs.list({
    ...(repositoryId ? { repositoryId } : {}),
    ...(statuses ? { statuses } : {}),
    ...(kinds ? { kinds } : {}),
    ...(limit !== undefined ? { limit } : {}),
  });
  if (opts.json) return ctx.json(runs.map(runJson));
  renderJobList(ctx, runs, app.now());
}

export async function show(ctx: CliContext, app: App, args: unknown[], opts: Opts): Promise<void> {
  const runId = parseRunId(args[0] as string);
  const record = (await service(app)).show(runId, repositoryFilter(app, opts));
  if (opts.json) return ctx.json(runJson(record));
  renderJob(ctx, record, app.now());
}

export async function logs(ctx: CliContext, app: App, args: unknown[], opts: Opts): Promise<void> {
  const runId = parseRunId(args[0] as string);
  const jobs = await service(app);
  jobs.show(runId, repositoryFilter(app, opts));
  const steps = projectSteps(jobs.events(runId));
  if (opts.json) return ctx.json(steps.map(stepJson));
  const text = renderSteps(ctx, steps);
  if (text === "") ctx.writeErr("# no log events\n");
  else ctx.write(text);
}

export async function attach(ctx: CliContext, app: App, args: unknown[], opts: Opts): Promise<void> {
  const runId = parseRunId(args[0] as string);
  const repositoryId = repositoryFilter(app, opts);
  const outcome = await followRun(ctx, app, runId, { json: opts.json ? "lines" : false, ...(repositoryId ? { repositoryId } : {}) });
  if (outcome.detached) ctx.exitCode = 130;
}

export async function cancel(ctx: CliContext, app: App, args: unknown[], opts: Opts): Promise<void> {
  const runId = parseRunId(args[0] as string);
  const jobs = await app.jobs();
  const outcome = await jobs.cancel(runId, repositoryFilter(app, opts));
  if (opts.json) return ctx.json({ record: runJson(outcome.record), changed: outcome.changed });
  if (outcome.changed) ctx.write(`cancelled ${runId}\n`);
  else ctx.write(`job already ${outcome.record.status}: ${runId}\n`);
}

export async function retry(ctx: CliContext, app: App, args: unknown[], opts: Opts): Promise<void> {
  const runId = parseRunId(args[0] as string);
  const { receipt, kind } = (await app.lifecycle()).retry(runId);
  if (opts.json) return ctx.json({ ...receipt, retry_of: runId });
  renderReceipt(ctx, receipt, kind);
}

export async function prune(ctx: CliContext, app: App, _args: unknown[], opts: Opts): Promise<void> {
  const text = opts.olderThan as string;
  const ms = parseDuration(text);
  if (ms === null || ms <= 0) throw invalid(`invalid --older-than "${text}": use a duration such as 30d or 12h`);
  const pruned = (await service(app)).prune(ms);
  if (opts.json) return ctx.json({ pruned, older_than: text });
  ctx.write(`pruned ${pruned} finished job${pruned === 1 ? "" : "s"} older than ${text}\n`);
}
