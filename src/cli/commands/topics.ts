import { Option } from "@commander-js/extra-typings";
import type { App } from "../../app.js";
import type { OrganizeService, TopicChange } from "../../index/organize.js";
import type { WikiIndex } from "../../index/service.js";
import type { CliContext } from "../context.js";
import { collect, type Handler, type JsonOption, type RegisterCommands, type WikiOption } from "../kit.js";
import { openIndex } from "./shared.js";
import { renderTopicChange, renderTopicDetail, renderTopics } from "../render/topics.js";

export const registerTopicsCommands: RegisterCommands = (program, { act, json, wiki }) => {
  const topics = act(
    program.command("topics").description("list topics, or manage the topic graph").addOption(json()).addOption(wiki()),
    list,
  );
  // Each subcommand takes --json and --wiki itself too; given to the group (`topics --wiki x show t`), they reach it as well.
  const sub = (name: string, description: string) => topics.command(name).description(description).addOption(json()).addOption(wiki());
  act(
    sub("show", "show a topic with its parents, children and pages").argument("<topic>").option("--descendants", "include pages of narrower topics"),
    show,
  );
  act(
    sub("create", "declare a topic in topics.yaml")
      .argument("<name>")
      .addOption(new Option("--parent <topic>", "parent topic (repeatable)").argParser(collect).default<string[]>([])),
    create,
  );
  act(sub("describe", "set (or, with an empty text, remove) a topic's description").argument("<topic>").argument("<description>"), describe);
  act(sub("link", "make <parent> a parent of <child>").argument("<child>").argument("<parent>"), link);
  act(sub("unlink", "remove the edge from <child> to <parent>").argument("<child>").argument("<parent>"), unlink);
  act(sub("rename", "rename a topic in topics.yaml and in every page").argument("<old>").argument("<new>"), rename);
  act(sub("delete", "delete a topic from topics.yaml and from every page").argument("<topic>"), remove);
};

type TopicsOptions = JsonOption & WikiOption;

export async function list(ctx: CliContext, app: App, _args: [], opts: TopicsOptions): Promise<void> {
  const topics = await openIndex(ctx, app, opts).topics();
  if (opts.json) return ctx.json(topics);
  renderTopics(ctx, topics);
}

export async function show(ctx: CliContext, app: App, [topic]: [string], opts: TopicsOptions & { descendants?: true }): Promise<void> {
  const detail = await openIndex(ctx, app, opts).topic(topic, opts.descendants === true);
  if (opts.json) return ctx.json(detail);
  renderTopicDetail(ctx, detail);
}

const mutation =
  <A extends string[], O extends TopicsOptions = TopicsOptions>(
    run: (organize: OrganizeService, index: WikiIndex, args: A, opts: O) => Promise<TopicChange>,
  ): Handler<A, O> =>
  async (ctx, app, args, opts) => {
    const index = openIndex(ctx, app, opts);
    const change = await run(await app.organize(), index, args, opts);
    if (opts.json) return ctx.json(change);
    renderTopicChange(ctx, change);
  };

export const create = mutation<[string], TopicsOptions & { parent: string[] }>((o, index, [name], opts) => o.createTopic(index, name, opts.parent));
export const describe = mutation<[string, string]>((o, index, [slug, text]) => o.describeTopic(index, slug, text));
export const link = mutation<[string, string]>((o, index, [child, parent]) => o.linkTopics(index, child, parent));
export const unlink = mutation<[string, string]>((o, index, [child, parent]) => o.unlinkTopics(index, child, parent));
export const rename = mutation<[string, string]>((o, index, [from, to]) => o.renameTopic(index, from, to));
export const remove = mutation<[string]>((o, index, [slug]) => o.deleteTopic(index, slug));
