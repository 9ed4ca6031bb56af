import type { App } from "../../app.js";
import type { CliContext } from "../context.js";
import type { JsonOption, RegisterCommands, WikiOption } from "../kit.js";
import { openIndex } from "./shared.js";
import { renderTagChange } from "../render/topics.js";

export const registerTagCommands: RegisterCommands = (program, { act, json, wiki }) => {
  for (const [mode, description] of [
    ["tag", "add topics to a page"],
    ["untag", "remove topics from a page"],
  ] as const) {
    act(
      program.command(mode).description(description).argument("<page>").argument("<topics...>").addOption(json()).addOption(wiki()),
      mode === "tag" ? tag : untag,
    );
  }
};

const run =
  (mode: "tag" | "untag") =>
  async (ctx: CliContext, app: App, [page, topics]: [string, string[]], opts: JsonOption & WikiOption): Promise<void> => {
    const index = openIndex(ctx, app, opts);
    const change = await (await app.organize()).tag(index, page, topics, mode);
    if (opts.json) return ctx.json(change);
    renderTagChange(ctx, change, mode);
  };

export const tag = run("tag");
export const untag = run("untag");
