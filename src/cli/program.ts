import { Command, Option } from "commander";
import { VERSION } from "../core/version.js";
import { HARNESS_KINDS } from "../harnesses/catalog.js";
import type { CliContext } from "./context.js";
import { collect, integer, type CommandKit, type Handler } from "./kit.js";
import type { App } from "../app.js";
import * as lifecycleCommands from "./commands/lifecycle.js";
import * as searchCommands from "./commands/search.js";
import * as showCommands from "./commands/show.js";
import * as topicsCommands from "./commands/topics.js";
import * as tagCommands from "./commands/tag.js";
import * as healthCommands from "./commands/health.js";
import * as reindexCommands from "./commands/reindex.js";
import * as repositoriesCommands from "./commands/repositories.js";
import * as jobsCommands from "./commands/jobs.js";
import { registerSyncCommands } from "./commands/sync.js";
import { registerConfigCommands } from "./commands/config.js";
import { registerAutomationCommands } from "./commands/automation.js";
import { registerSetupCommands } from "./commands/setup.js";
import { registerServeCommands } from "./commands/serve.js";
import { registerMcpCommands } from "./commands/mcp.js";



/** Declares every public command with its options and wires it to its handler. */
export function buildProgram(ctx: CliContext, app: () => App): Command {
  const program = new Command("codealmanac");
  program
    .description("A living wiki of Markdown pages inside your repository, kept by your coding agents.")
    .version(`codealmanac ${VERSION}`, "-V, --version", "print the version")
    .helpOption("-h, --help", "show help")
    .exitOverride()
    .showSuggestionAfterError(false)
    .configureOutput({ writeOut: ctx.write, writeErr: () => undefined, outputError: () => undefined })
    .allowExcessArguments(false);

  // Handlers are small and loaded with the CLI; the heavy code they call is imported lazily by app.ts.
  const act =
    (handler: Handler) =>
    async (...all: unknown[]) => {
      const cmd = all[all.length - 1] as Command;
      await handler(ctx, app(), all.slice(0, -2), cmd.optsWithGlobals());
    };
  const wiki = () => new Option("--wiki <name>", "use the registered wiki with this name");
  const json = () => new Option("--json", "print JSON");

  const using = () => new Option("--using <harness>", `agent to run: ${HARNESS_KINDS.join(" or ")}`).choices(HARNESS_KINDS);
  const wait = () =>
    new Option("--wait", "follow the job until it ends; exit 0 when done, 1 when failed or cancelled (Ctrl-C detaches: 130)");
  program
    .command("init")
    .description("create almanac/ in a repository and queue the first build")
    .argument("[path]", "repository folder", ".")
    .option("--name <name>", "wiki name (default: the folder name)")
    .option("--description <text>", "one-line description")
    .addOption(using())
    .option("--guidance <text>", "extra instructions for the agent")
    .addOption(wait())
    .addOption(json())
    .action(act(lifecycleCommands.init));
  program
    .command("ingest")
    .description("queue an agent run that folds files, folders, git ranges or URLs into the wiki")
    .argument("<inputs...>", "files, folders, git:range:A..B, git:commit:REV, git:diff, github:pr:N, github:issue:N, URLs, transcript:ID|PATH")
    .addOption(wiki())
    .addOption(using())
    .option("--title <text>", "job title")
    .option("--guidance <text>", "extra instructions for the agent")
    .addOption(wait())
    .addOption(json())
    .action(act(lifecycleCommands.ingest));
  program
    .command("garden")
    .description("queue an agent run that improves the wiki as a whole")
    .addOption(wiki())
    .addOption(using())
    .option("--title <text>", "job title")
    .option("--guidance <text>", "extra instructions for the agent")
    .addOption(wait())
    .addOption(json())
    .action(act(lifecycleCommands.garden));

  program
    .command("search")
    .description("search pages (ranked by title, heading, then body)")
    .argument("[query...]", "words to search for; none lists pages")
    .addOption(new Option("--topic <topic>", "only pages with this topic or a narrower one (repeatable)").argParser(collect).default([]))
    .option("--mentions <path>", "only pages citing this file or folder")
    .addOption(new Option("--limit <n>", "at most n pages (default 50)").argParser(integer))
    .option("--all", "every matching page")
    .option("--slugs", "print slugs only")
    .addOption(json())
    .addOption(wiki())
    .action(act(searchCommands.search));

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
    .addOption(wiki())
    .action(act(showCommands.show));

  const topics = program
    .command("topics")
    .description("list topics, or manage the topic graph")
    .addOption(json())
    .addOption(wiki())
    .action(act(topicsCommands.list));
  const sub = (name: string, description: string) =>
    topics.command(name).description(description).addOption(json()).addOption(wiki());
  sub("show", "show a topic with its parents, children and pages")
    .argument("<topic>")
    .option("--descendants", "include pages of narrower topics")
    .action(act(topicsCommands.show));
  sub("create", "declare a topic in topics.yaml")
    .argument("<name>")
    .addOption(new Option("--parent <topic>", "parent topic (repeatable)").argParser(collect).default([]))
    .action(act(topicsCommands.create));
  sub("describe", "set (or, with an empty text, remove) a topic's description")
    .argument("<topic>")
    .argument("<description>")
    .action(act(topicsCommands.describe));
  sub("link", "make <parent> a parent of <child>")
    .argument("<child>")
    .argument("<parent>")
    .action(act(topicsCommands.link));
  sub("unlink", "remove the edge from <child> to <parent>")
    .argument("<child>")
    .argument("<parent>")
    .action(act(topicsCommands.unlink));
  sub("rename", "rename a topic in topics.yaml and in every page")
    .argument("<old>")
    .argument("<new>")
    .action(act(topicsCommands.rename));
  sub("delete", "delete a topic from topics.yaml and from every page")
    .argument("<topic>")
    .action(act(topicsCommands.remove));

  for (const [name, description] of [
    ["tag", "add topics to a page"],
    ["untag", "remove topics from a page"],
  ] as const) {
    program
      .command(name)
      .description(description)
      .argument("<page>")
      .argument("<topics...>")
      .addOption(json())
      .addOption(wiki())
      .action(act(tagCommands[name]));
  }

  program
    .command("health")
    .description("report wiki findings (always exits 0)")
    .addOption(json())
    .addOption(wiki())
    .action(act(healthCommands.health));
  program
    .command("validate")
    .description("check the wiki: exit 1 on errors (and on warnings with --strict)")
    .option("--strict", "warnings fail too")
    .addOption(json())
    .addOption(wiki())
    .action(act(healthCommands.validate));
  program
    .command("reindex")
    .description("rebuild the derived index from almanac/")
    .addOption(json())
    .addOption(wiki())
    .action(act(reindexCommands.reindex));
  program
    .command("list")
    .description("list registered wikis")
    .addOption(json())
    .action(act(repositoriesCommands.list));
  program
    .command("forget")
    .description("drop a registered wiki (moved or deleted) and its derived index")
    .argument("<name>")
    .addOption(json())
    .action(act(repositoriesCommands.forget));

  const listOptions = (cmd: Command) =>
    cmd
      .addOption(new Option("--limit <n>", "show n jobs (default 100)").argParser(integer))
      .option("--all", "show every job")
      .addOption(new Option("--status <status>", "only these statuses (repeatable, or comma-separated)").argParser(collect))
      .addOption(new Option("--kind <kind>", "only these kinds (repeatable, or comma-separated)").argParser(collect))
      .addOption(json())
      .addOption(wiki());
  const jobs = listOptions(program.command("jobs").description("list and manage background jobs")).action(
    act(jobsCommands.list),
  );
  listOptions(jobs.command("list").description("list jobs (same as `jobs`)")).action(
    act(jobsCommands.list),
  );
  const job = (name: string, description: string) =>
    jobs.command(name).description(description).argument("<run-id>").addOption(json()).addOption(wiki());
  job("show", "show one job").action(act(jobsCommands.show));
  job("logs", "print a job's log").action(act(jobsCommands.logs));
  job("attach", "follow a job until it ends (Ctrl-C detaches)").action(act(jobsCommands.attach));
  job("cancel", "stop a queued or running job").action(act(jobsCommands.cancel));
  job("retry", "queue a failed or cancelled job again").action(act(jobsCommands.retry));
  jobs
    .command("prune")
    .description("delete finished jobs older than a duration")
    .requiredOption("--older-than <duration>", "e.g. 30d or 12h")
    .addOption(json())
    .action(act(jobsCommands.prune));

  const kit: CommandKit = { act, json, wiki, using, wait };
  registerSyncCommands(program, kit);
  registerConfigCommands(program, kit);
  registerAutomationCommands(program, kit);
  registerSetupCommands(program, kit);
  registerServeCommands(program, kit);
  registerMcpCommands(program, kit);
  return program;
}

/** Visible top-level command names, for suggestions. */
export function publicCommands(program: Command): string[] {
  return program.commands.map((c) => c.name()).filter((n) => !n.startsWith("__"));
}
