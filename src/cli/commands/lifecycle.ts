import type { App } from "../../app.js";
import type { HarnessKind } from "../../harnesses/catalog.js";
import type { Receipt } from "../../queue/producer.js";
import type { RunKind } from "../../runs/model.js";
import type { CliContext } from "../context.js";
import type { Opts } from "../context.js";
import { runJson } from "../render/jobs.js";
import { renderReceipt } from "../render/receipt.js";
import { exitCodeOf, followRun } from "./follow.js";

function operationOptions(opts: Opts) {
  return {
    ...(opts.using !== undefined ? { using: opts.using as HarnessKind } : {}),
    ...(opts.title !== undefined ? { title: opts.title as string } : {}),
    ...(opts.guidance !== undefined ? { guidance: opts.guidance as string } : {}),
  };
}

export async function init(ctx: CliContext, app: App, args: unknown[], opts: Opts): Promise<void> {
  const receipt = (await app.lifecycle()).init((args[0] as string | undefined) ?? ".", ctx.cwd, {
    ...operationOptions(opts),
    ...(opts.name !== undefined ? { name: opts.name as string } : {}),
    ...(opts.description !== undefined ? { description: opts.description as string } : {}),
  });
  await report(ctx, app, opts, receipt, "build");
}

export async function ingest(ctx: CliContext, app: App, args: unknown[], opts: Opts): Promise<void> {
  const lifecycle = await app.lifecycle();
  const receipt = await lifecycle.ingest(ctx.cwd, opts.wiki as string | undefined, args[0] as string[], operationOptions(opts));
  await report(ctx, app, opts, receipt, "ingest");
}

export async function garden(ctx: CliContext, app: App, _args: unknown[], opts: Opts): Promise<void> {
  const receipt = (await app.lifecycle()).garden(ctx.cwd, opts.wiki as string | undefined, operationOptions(opts));
  await report(ctx, app, opts, receipt, "garden");
}

/** The receipt; with --wait, the run followed to its end (exit 0 done, 1 failed or cancelled, 130 detached). */
async function report(ctx: CliContext, app: App, opts: Opts, receipt: Receipt, kind: RunKind): Promise<void> {
  if (!opts.wait) {
    if (opts.json) return ctx.json(receipt);
    return renderReceipt(ctx, receipt, kind);
  }
  if (!opts.json) {
    const ahead = receipt.runs_ahead > 0 ? ` · ${receipt.runs_ahead} ahead in the queue` : "";
    ctx.writeErr(`queued ${kind} ${receipt.run_id} in ${receipt.repository}${ahead} (Ctrl-C stops following; the job goes on)\n`);
  }
  const outcome = await followRun(ctx, app, receipt.run_id, { json: opts.json ? "none" : false });
  if (opts.json && outcome.record) ctx.json(runJson(outcome.record));
  ctx.exitCode = exitCodeOf(outcome);
}
