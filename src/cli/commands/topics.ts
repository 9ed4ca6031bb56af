import type { App } from "../../app.js";
import type { OrganizeService, TopicChange } from "../../index/organize.js";
import type { WikiIndex } from "../../index/service.js";
import type { CliContext } from "../context.js";
import type { Opts } from "../context.js";
import { openIndex } from "./shared.js";
import { renderTopicChange, renderTopicDetail, renderTopics } from "../render/topics.js";

export async function list(ctx: CliContext, app: App, _args: unknown[], opts: Opts): Promise<void> {
  const topics = await openIndex(ctx, app, opts).topics();
  if (opts.json) return ctx.json(topics);
  renderTopics(ctx, topics);
}

export async function show(ctx: CliContext, app: App, args: unknown[], opts: Opts): Promise<void> {
  const detail = await openIndex(ctx, app, opts).topic(args[0] as string, opts.descendants === true);
  if (opts.json) return ctx.json(detail);
  renderTopicDetail(ctx, detail);
}

const mutation =
  (run: (organize: OrganizeService, index: WikiIndex, args: string[], opts: Opts) => Promise<TopicChange>) =>
  async (ctx: CliContext, app: App, args: unknown[], opts: Opts): Promise<void> => {
    const index = openIndex(ctx, app, opts);
    const change = await run(await app.organize(), index, args as string[], opts);
    if (opts.json) return ctx.json(change);
    renderTopicChange(ctx, change);
  };

export const create = mutation((o, index, [name], opts) => o.createTopic(index, name!, opts.parent as string[]));
export const describe = mutation((o, index, [slug, text]) => o.describeTopic(index, slug!, text!));
export const link = mutation((o, index, [child, parent]) => o.linkTopics(index, child!, parent!));
export const unlink = mutation((o, index, [child, parent]) => o.unlinkTopics(index, child!, parent!));
export const rename = mutation((o, index, [from, to]) => o.renameTopic(index, from!, to!));
export const remove = mutation((o, index, [slug]) => o.deleteTopic(index, slug!));
