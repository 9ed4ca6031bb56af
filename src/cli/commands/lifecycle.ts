import type { App } from "../../app.js";
import type { HarnessKind } from "../../harnesses/catalog.js";
import type { Receipt } from "../../queue/producer.js";
import type { RunKind } from "../../runs/model.js";
import type { CliContext } from "../context.js";
import type { JsonOption, RegisterCommands, WikiOption } from "../kit.js";
import { runJson } from "../render/jobs.js";
import { renderReceipt } from "../render/receipt.js";
import { exitCodeOf, followRun } from "./follow.js";

export const registerLifecycleCommands: RegisterCommands = (program, { act, json, wiki, using, wait }) => {
  act(
    program
      .command("init")
      .description("create almanac/ in a repository and queue the first build")
      .argument("[path]", "repository folder", ".")
      .option("--name <name>", "wiki name (default: the folder name)")
      .option("--description <text>", "one-line description")
      .option("--with-manual", "also copy the writing manual into almanac/manual/ for the team to own (default: agents read the installed one)")
      .addOption(using())
      .option("--guidance <text>", "extra instructions for the agent")
      .addOption(wait())
      .addOption(json()),
    init,
  );
  act(
    program
      .command("ingest")
      .description("queue an agent run that folds files, folders, git ranges or URLs into the wiki")
      .argument("<inputs...>", "files, folders, git:range:A..B, git:commit:REV, git:diff, github:pr:N, github:issue:N, URLs, transcript:ID|PATH")
      .addOption(wiki())
      .addOption(using())
      .option("--title <text>", "job title")
      .option("--guidance <text>", "extra instructions for the agent")
      .addOption(wait())
      .addOption(json()),
    ingest,
  );
  act(
    program
      .command("garden")
      .description("queue an agent run that improves the wiki as a whole")
      .option("--stale", "only the pages whose cited code changed since they were verified (see `drift`), each with its diff")
      .addOption(wiki())
      .addOption(using())
      .option("--title <text>", "job title")
      .option("--guidance <text>", "extra instructions for the agent")
      .addOption(wait())
      .addOption(json()),
    garden,
  );
};

/** What every queueing command takes: the agent, instructions, and whether to follow the run. */
interface QueueOptions extends JsonOption {
  using?: HarnessKind;
  guidance?: string;
  wait?: true;
}

function operationOptions(opts: QueueOptions & { title?: string }) {
  return {
    ...(opts.using !== undefined ? { using: opts.using } : {}),
    ...(opts.title !== undefined ? { title: opts.title } : {}),
    ...(opts.guidance !== undefined ? { guidance: opts.guidance } : {}),
  };
}

export async function init(
  ctx: CliContext,
  app: App,
  [path]: [string],
  opts: QueueOptions & { name?: string; description?: string; withManual?: true },
): Promise<void> {
  const receipt = (await app.lifecycle()).init(path, ctx.cwd, {
    ...operationOptions(opts),
    ...(opts.name !== undefined ? { name: opts.name } : {}),
    ...(opts.description !== undefined ? { description: opts.description } : {}),
    ...(opts.withManual ? { withManual: true } : {}),
  });
  await report(ctx, app, opts, receipt, "build");
}

export async function ingest(ctx: CliContext, app: App, [inputs]: [string[]], opts: QueueOptions & WikiOption & { title?: string }): Promise<void> {
  const lifecycle = await app.lifecycle();
  const receipt = await lifecycle.ingest(ctx.cwd, opts.wiki, inputs, operationOptions(opts));
  await report(ctx, app, opts, receipt, "ingest");
}

export async function garden(ctx: CliContext, app: App, _args: [], opts: QueueOptions & WikiOption & { title?: string; stale?: true }): Promise<void> {
  const lifecycle = await app.lifecycle();
  if (!opts.stale) return report(ctx, app, opts, lifecycle.garden(ctx.cwd, opts.wiki, operationOptions(opts)), "garden");
  const outcome = await lifecycle.gardenStale(ctx.cwd, opts.wiki, operationOptions(opts));
  if (outcome.notice !== null && !opts.json) ctx.writeErr(`${outcome.notice}\n`);
  if (outcome.receipt === null) {
    if (opts.json) return ctx.json({ run_id: null, repository: outcome.repository, stale_pages: [] });
    return ctx.write(`no stale pages in ${outcome.repository}: nothing to garden\n`);
  }
  const n = outcome.stale.length;
  const named = outcome.stale.slice(0, 5).join(", ") + (n > 5 ? ` and ${n - 5} more` : "");
  await report(ctx, app, opts, outcome.receipt, "garden", { json: { stale_pages: outcome.stale }, line: `${n} stale page${n === 1 ? "" : "s"}: ${named}` });
}

/**
 * The receipt; with --wait, the run followed to its end (exit 0 done, 1 failed or cancelled, 130 detached).
 * `extra` is what a receipt says beyond the run: fields of its JSON, and a line of its text.
 */
async function report(ctx: CliContext, app: App, opts: QueueOptions, receipt: Receipt, kind: RunKind, extra?: { json: object; line: string }): Promise<void> {
  if (!opts.wait) {
    if (opts.json) return ctx.json({ ...receipt, ...extra?.json });
    return renderReceipt(ctx, receipt, kind, extra?.line);
  }
  if (!opts.json) {
    const ahead = receipt.runs_ahead > 0 ? ` · ${receipt.runs_ahead} ahead in the queue` : "";
    ctx.writeErr(`queued ${kind} ${receipt.run_id} in ${receipt.repository}${ahead} (Ctrl-C stops following; the job goes on)\n`);
    if (extra) ctx.writeErr(`${extra.line}\n`);
  }
  const outcome = await followRun(ctx, app, receipt.run_id, { json: opts.json ? "none" : false });
  if (opts.json && outcome.record) ctx.json(runJson(outcome.record));
  ctx.exitCode = exitCodeOf(outcome);
}
