import type { App } from "../../app.js";
import { invalid } from "../../core/errors.js";
import type { CliContext } from "../context.js";
import type { JsonOption, RegisterCommands, WikiOption } from "../kit.js";
import { openIndex } from "./shared.js";
import { renderPage, type PageViewFlag } from "../render/pages.js";
import { readDrift } from "../../evidence/freshness.js";

const VIEW_FLAGS: PageViewFlag[] = ["body", "meta", "lead", "links", "backlinks", "files", "topics"];

export const registerShowCommands: RegisterCommands = (program, { act, json, wiki }) => {
  act(
    program
      .command("show")
      .description("show one page")
      .argument("<page>", "page slug (a .md path also works)")
      .option("--body", "body only")
      .option("--meta", "metadata only")
      .option("--lead", "lead paragraph only")
      .option("--links", "outgoing page links")
      .option("--backlinks", "pages linking here")
      .option("--files", "cited files and folders")
      .option("--topics", "topics")
      .addOption(json())
      .addOption(wiki()),
    show,
  );
};

type ShowOptions = JsonOption & WikiOption & { [flag in PageViewFlag]?: true };

export async function show(ctx: CliContext, app: App, [page]: [string], opts: ShowOptions): Promise<void> {
  const chosen = VIEW_FLAGS.filter((flag) => opts[flag] === true);
  if (!opts.json && chosen.length > 1) {
    throw invalid(`show flags conflict: ${chosen.map((f) => `--${f}`).join(", ")} (pick one)`);
  }
  const index = openIndex(ctx, app, opts);
  const view = await index.show(page);
  // The one-part views are for piping: they neither print nor pay for the page's freshness.
  if (!opts.json && chosen.length > 0) return renderPage(ctx, view, chosen[0], null);
  const freshness = (await readDrift(await app.drift(), index, [view.slug])).freshness(view.slug);
  if (opts.json) return ctx.json({ ...view, freshness });
  renderPage(ctx, view, undefined, freshness);
}
