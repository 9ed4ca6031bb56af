import type { App } from "../../app.js";
import type { HarnessName } from "../../config/config.js";
import type { CliContext } from "../context.js";
import type { Opts } from "../context.js";
import { renderReceipt } from "../render/receipt.js";

function operationOptions(opts: Opts) {
  return {
    ...(opts.using !== undefined ? { using: opts.using as HarnessName } : {}),
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
  if (opts.json) return ctx.json(receipt);
  renderReceipt(ctx, receipt, "build");
}

export async function ingest(ctx: CliContext, app: App, args: unknown[], opts: Opts): Promise<void> {
  const receipt = (await app.lifecycle()).ingest(ctx.cwd, opts.wiki as string | undefined, args[0] as string[], operationOptions(opts));
  if (opts.json) return ctx.json(receipt);
  renderReceipt(ctx, receipt, "ingest");
}

export async function garden(ctx: CliContext, app: App, _args: unknown[], opts: Opts): Promise<void> {
  const receipt = (await app.lifecycle()).garden(ctx.cwd, opts.wiki as string | undefined, operationOptions(opts));
  if (opts.json) return ctx.json(receipt);
  renderReceipt(ctx, receipt, "garden");
}
