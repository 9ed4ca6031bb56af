import type { App } from "../../app.js";
import type { CliContext } from "../context.js";
import type { JsonOption, RegisterCommands, WikiOption } from "../kit.js";
import { openIndex } from "./shared.js";
import { plural } from "../render/format.js";

export const registerReindexCommands: RegisterCommands = (program, { act, json, wiki }) => {
  act(program.command("reindex").description("rebuild the derived index from almanac/").addOption(json()).addOption(wiki()), reindex);
};

export async function reindex(ctx: CliContext, app: App, _args: [], opts: JsonOption & WikiOption): Promise<void> {
  const { result } = await openIndex(ctx, app, opts).refresh(true);
  if (opts.json) return ctx.json(result);
  const skipped = result.files_skipped > 0 ? `; ${result.files_skipped} skipped` : "";
  ctx.write(`reindexed: ${plural(result.pages_indexed, "page")} (${result.changed} updated, ${result.removed} removed${skipped})\n`);
}
