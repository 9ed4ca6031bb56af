import type { App } from "../../app.js";
import type { CliContext } from "../context.js";
import type { Opts } from "../context.js";
import { openIndex } from "./shared.js";
import { renderTagChange } from "../render/topics.js";

const run =
  (mode: "tag" | "untag") =>
  async (ctx: CliContext, app: App, args: unknown[], opts: Opts): Promise<void> => {
    const index = openIndex(ctx, app, opts);
    const change = await (await app.organize()).tag(index, args[0] as string, args[1] as string[], mode);
    if (opts.json) return ctx.json(change);
    renderTagChange(ctx, change, mode);
  };

export const tag = run("tag");
export const untag = run("untag");
