import { Option, type Command, type OptionValues } from "@commander-js/extra-typings";
import type { App } from "../../app.js";
import { invalid } from "../../core/errors.js";
import { parseDuration } from "../../config/duration.js";
import { RUN_KINDS, RUN_STATUSES, type RunKind, type RunStatus } from "../../runs/model.js";
import { projectSteps } from "../../runs/steps.js";
import type { CliContext } from "../context.js";
import { collect, integer, type CommandKit, type JsonOption, type RegisterCommands, type WikiOption } from "../kit.js";
import { renderJob, renderJobList, renderSteps, runJson, stepJson } from "../render/jobs.js";
import { LATEST } from "../../runs/ids.js";
import { exitCodeOf, followRun } from "./follow.js";
import { renderReceipt } from "../render/receipt.js";
import { nonNegative } from "./shared.js";

export const registerJobsCommands: RegisterCommands = (program, kit) => {
  const { act, json, wiki } = kit;
  const jobs = act(listOptions(program.command("jobs").description("list and manage background jobs"), kit), list);
  act(listOptions(jobs.command("list").description("list jobs (same as `jobs`)"), kit), list);
  // Each subcommand takes --json and --wiki itself too; given to the group (`jobs --json show <id>`), they reach it as well.
  const job = (name: string, description: string) =>
    jobs.command(name).description(description).argument("<run-id>", RUN_ID_HELP).addOption(json()).addOption(wiki());
  act(
    jobs.command("show").description("show one job (the newest when no id is given)").argument("[run-id]", RUN_ID_HELP).addOption(json()).addOption(wiki()),
    show,
  );
  act(job("logs", "print a job's log"), logs);
  act(job("attach", "follow a job until it ends (Ctrl-C detaches); exits 0 when it is done, 1 when it failed or was cancelled, as `--wait` does"), attach);
  act(job("cancel", "stop a queued or running job"), cancel);
  act(job("retry", "queue a failed or cancelled job again"), retry);
  act(
    jobs
      .command("prune")
      .description("delete finished jobs older than a duration")
      .requiredOption("--older-than <duration>", "e.g. 30d or 12h")
      .addOption(json()),
    prune,
  );
};

const RUN_ID_HELP = "a run id, a unique start of it or of its last part (c66c5349), or `latest`";

/** The listing options, which `jobs` and `jobs list` both take. */
function listOptions<A extends unknown[], O extends OptionValues, G extends OptionValues>(command: Command<A, O, G>, { json, wiki }: CommandKit) {
  return command
    .addOption(new Option("--limit <n>", "show n jobs (default 100)").argParser(integer))
    .option("--all", "show every job")
    .addOption(new Option("--status <status>", "only these statuses (repeatable, or comma-separated)").argParser(collect))
    .addOption(new Option("--kind <kind>", "only these kinds (repeatable, or comma-separated)").argParser(collect))
    .addOption(json())
    .addOption(wiki());
}

type JobOptions = JsonOption & WikiOption;

interface ListOptions extends JobOptions {
  limit?: number;
  all?: true;
  status?: string[];
  kind?: string[];
}

function repositoryFilter(app: App, opts: WikiOption): string | undefined {
  return opts.wiki !== undefined ? app.repositories.byName(opts.wiki).repositoryId : undefined;
}

function listOf<T extends string>(values: string[] | undefined, allowed: readonly T[], flag: string): T[] | undefined {
  if (values === undefined) return undefined;
  const items: T[] = [];
  for (const item of values.flatMap((v) => v.split(",")).map((v) => v.trim().toLowerCase())) {
    if (item === "") continue;
    const known = allowed.find((a) => a === item);
    if (known === undefined) throw invalid(`invalid ${flag} "${item}" (expected ${allowed.join(", ")})`);
    items.push(known);
  }
  return items;
}

export async function list(ctx: CliContext, app: App, _args: [], opts: ListOptions): Promise<void> {
  const limit = opts.all ? undefined : (nonNegative(opts.limit, "--limit") ?? 100);
  const statuses = listOf<RunStatus>(opts.status, RUN_STATUSES, "--status");
  const kinds = listOf<RunKind>(opts.kind, RUN_KINDS, "--kind");
  const repositoryId = repositoryFilter(app, opts);
  const runs = await (await app.jobs()).listJobs({
    ...(repositoryId ? { repositoryId } : {}),
    ...(statuses ? { statuses } : {}),
    ...(kinds ? { kinds } : {}),
    ...(limit !== undefined ? { limit } : {}),
  });
  if (opts.json) return ctx.json(runs.map(runJson));
  renderJobList(ctx, runs, app.now());
}

export async function show(ctx: CliContext, app: App, [id]: [string | undefined], opts: JobOptions): Promise<void> {
  const jobs = await app.jobs();
  const repositoryId = repositoryFilter(app, opts);
  const record = await jobs.showJob(jobs.resolveRunId(id ?? LATEST, repositoryId), repositoryId);
  if (opts.json) return ctx.json(runJson(record));
  renderJob(ctx, record, app.now());
}

export async function logs(ctx: CliContext, app: App, [id]: [string], opts: JobOptions): Promise<void> {
  const jobs = await app.jobs();
  const repositoryId = repositoryFilter(app, opts);
  const steps = projectSteps(await jobs.jobEvents(jobs.resolveRunId(id, repositoryId), repositoryId));
  if (opts.json) return ctx.json(steps.map(stepJson));
  const text = renderSteps(ctx, steps);
  if (text === "") ctx.writeErr("# no log events\n");
  else ctx.write(text);
}

/** Exits as `--wait` does: 0 done, 1 failed or cancelled, 130 detached. */
export async function attach(ctx: CliContext, app: App, [id]: [string], opts: JobOptions): Promise<void> {
  const repositoryId = repositoryFilter(app, opts);
  const runId = (await app.jobs()).resolveRunId(id, repositoryId);
  const outcome = await followRun(ctx, app, runId, { json: opts.json ? "lines" : false, ...(repositoryId ? { repositoryId } : {}) });
  ctx.exitCode = exitCodeOf(outcome);
}

export async function cancel(ctx: CliContext, app: App, [id]: [string], opts: JobOptions): Promise<void> {
  const jobs = await app.jobs();
  const repositoryId = repositoryFilter(app, opts);
  const runId = jobs.resolveRunId(id, repositoryId);
  const outcome = await jobs.cancel(runId, repositoryId);
  if (opts.json) return ctx.json({ record: runJson(outcome.record), changed: outcome.changed });
  if (outcome.changed) ctx.write(`cancelled ${runId}\n`);
  else ctx.write(`job already ${outcome.record.status}: ${runId}\n`);
}

export async function retry(ctx: CliContext, app: App, [id]: [string], opts: JobOptions): Promise<void> {
  const runId = (await app.jobs()).resolveRunId(id, repositoryFilter(app, opts));
  const { receipt, kind } = (await app.lifecycle()).retry(runId);
  if (opts.json) return ctx.json({ ...receipt, retry_of: runId });
  renderReceipt(ctx, receipt, kind);
}

export async function prune(ctx: CliContext, app: App, _args: [], opts: JsonOption & { olderThan: string }): Promise<void> {
  const text = opts.olderThan;
  const ms = parseDuration(text);
  if (ms === null || ms <= 0) throw invalid(`invalid --older-than "${text}": use a duration such as 30d or 12h`);
  const pruned = await (await app.jobs()).pruneJobs(ms);
  if (opts.json) return ctx.json({ pruned, older_than: text });
  ctx.write(`pruned ${pruned} finished job${pruned === 1 ? "" : "s"} older than ${text}\n`);
}
