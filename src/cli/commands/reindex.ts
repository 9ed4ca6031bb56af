import type { App } from "../../app.js";
import type { CliContext } from "../context.js";
import type { Opts } from "../context.js";
import { openIndex } from "./shared.js";
import { plural } from "../render/format.js";

export async function reindex(ctx: CliContext, app: App, _args: unknown[], opts: Opts): Promise<void> {
  const { result } = await openIndex(ctx, app, opts).refresh(true);
  if (opts.json) return ctx.json(result);
  const skipped = result.files_skipped > 0 ? `; ${result.files_skipped} skipped` : "";
  ctx.write(`reindexed: ${plural(result.pages_indexed, "page")} (${result.changed} updated, ${result.removed} removed${skipped})\n`);
}
