import { Command, type CommandUnknownOpts } from "@commander-js/extra-typings";
import { VERSION } from "../core/version.js";
import type { App } from "../app.js";
import type { CliContext } from "./context.js";
import { createKit, type RegisterCommands } from "./kit.js";
import { registerLifecycleCommands } from "./commands/lifecycle.js";
import { registerSearchCommands } from "./commands/search.js";
import { registerShowCommands } from "./commands/show.js";
import { registerTopicsCommands } from "./commands/topics.js";
import { registerTagCommands } from "./commands/tag.js";
import { registerHealthCommands } from "./commands/health.js";
import { registerDriftCommands } from "./commands/drift.js";
import { registerReindexCommands } from "./commands/reindex.js";
import { registerRepositoriesCommands } from "./commands/repositories.js";
import { registerJobsCommands } from "./commands/jobs.js";
import { registerSyncCommands } from "./commands/sync.js";
import { registerConfigCommands } from "./commands/config.js";
import { registerAutomationCommands } from "./commands/automation.js";
import { registerSetupCommands } from "./commands/setup.js";
import { registerServeCommands } from "./commands/serve.js";
import { registerMcpCommands } from "./commands/mcp.js";
import { registerHookCommands } from "./commands/hook.js";

/** Every command family, in the order `--help` lists them. */
const FAMILIES: readonly RegisterCommands[] = [
  registerLifecycleCommands,
  registerSearchCommands,
  registerShowCommands,
  registerTopicsCommands,
  registerTagCommands,
  registerHealthCommands,
  registerDriftCommands,
  registerReindexCommands,
  registerRepositoriesCommands,
  registerJobsCommands,
  registerSyncCommands,
  registerConfigCommands,
  registerAutomationCommands,
  registerSetupCommands,
  registerServeCommands,
  registerMcpCommands,
  registerHookCommands,
];

/**
 * The commands that queue, follow or control agent runs, by their path (`jobs` covers
 * all its subcommands). Where the queue cannot run (Windows) they refuse in one line
 * before anything is opened or written; every other command, `sync status` included,
 * is a read and runs as usual.
 */
const QUEUE_COMMANDS = ["init", "ingest", "garden", "jobs", "sync", "__scheduled"];
const QUEUE_COMMAND_READS = ["sync status"];

export function isQueueCommand(path: readonly string[]): boolean {
  const [top] = path;
  return top !== undefined && QUEUE_COMMANDS.includes(top) && !QUEUE_COMMAND_READS.includes(path.join(" "));
}

function commandPath(command: CommandUnknownOpts): string[] {
  const names: string[] = [];
  for (let c: CommandUnknownOpts | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names;
}

/** The root command with its settings; each family declares its commands on it and wires them to their handlers. */
export function buildProgram(ctx: CliContext, app: () => App): Command {
  const program = new Command("codealmanac")
    .description("A living wiki of Markdown pages inside your repository, kept by your coding agents.")
    .version(`codealmanac ${VERSION}`, "-V, --version", "print the version")
    .helpOption("-h, --help", "show help")
    .exitOverride()
    .showSuggestionAfterError(false)
    .configureOutput({ writeOut: ctx.write, writeErr: () => undefined, outputError: () => undefined })
    .allowExcessArguments(false)
    .hook("preAction", (_program, action) => {
      if (isQueueCommand(commandPath(action))) app().requireQueue();
    });
  const kit = createKit(ctx, app);
  for (const register of FAMILIES) register(program, kit);
  return program;
}

/** Visible top-level command names, for suggestions. */
export function publicCommands(program: CommandUnknownOpts): string[] {
  return program.commands.map((c) => c.name()).filter((n) => !n.startsWith("__"));
}
