import type { App } from "../../app.js";
import { invalid } from "../../core/errors.js";
import type { CliContext } from "../context.js";
import type { Opts } from "../context.js";
import { openIndex } from "./shared.js";
import { renderPage, type PageViewFlag } from "../render/pages.js";

const VIEW_FLAGS: PageViewFlag[] = ["body", "meta", "lead", "links", "backlinks", "files", "topics"];

export async function show(ctx: CliContext, app: App, args: unknown[], opts: Opts): Promise<void> {
  const page = args[0] as string;
  const chosen = VIEW_FLAGS.filter((flag) => opts[flag] === true);
  if (!opts.json && chosen.length > 1) {
    throw invalid(`show flags conflict: ${chosen.map((f) => `--${f}`).join(", ")} (pick one)`);
  }
  const index = openIndex(ctx, app, opts);
  const view = await index.show(page);
  if (opts.json) return ctx.json(view);
  renderPage(ctx, view, chosen[0]);
}
