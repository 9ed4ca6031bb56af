import { Command, type CommandUnknownOpts } from "@commander-js/extra-typings";
import { VERSION } from "../core/version.js";
import type { App } from "../app.js";
import type { CliContext } from "./context.js";
import { createKit, type RegisterCommands } from "./kit.js";

/**
 * Every command family, in the order `--help` lists them, with the top-level commands it
 * declares. A family's module is loaded only when the command line names one of its
 * commands, so a read loads its own handler and not the queue's, the setup's or the
 * viewer's (test/cli/program.test.ts checks the names against what each family declares).
 */
export const FAMILIES: readonly Family[] = [
  { commands: ["init", "ingest", "garden"], load: async () => (await import("./commands/lifecycle.js")).registerLifecycleCommands },
  { commands: ["search"], load: async () => (await import("./commands/search.js")).registerSearchCommands },
  { commands: ["show"], load: async () => (await import("./commands/show.js")).registerShowCommands },
  { commands: ["topics"], load: async () => (await import("./commands/topics.js")).registerTopicsCommands },
  { commands: ["tag", "untag"], load: async () => (await import("./commands/tag.js")).registerTagCommands },
  { commands: ["health", "validate"], load: async () => (await import("./commands/health.js")).registerHealthCommands },
  { commands: ["drift"], load: async () => (await import("./commands/drift.js")).registerDriftCommands },
  { commands: ["reindex"], load: async () => (await import("./commands/reindex.js")).registerReindexCommands },
  { commands: ["list", "forget"], load: async () => (await import("./commands/repositories.js")).registerRepositoriesCommands },
  { commands: ["jobs"], load: async () => (await import("./commands/jobs.js")).registerJobsCommands },
  { commands: ["sync"], load: async () => (await import("./commands/sync.js")).registerSyncCommands },
  { commands: ["config"], load: async () => (await import("./commands/config.js")).registerConfigCommands },
  { commands: ["automation", "__scheduled"], load: async () => (await import("./commands/automation.js")).registerAutomationCommands },
  { commands: ["setup", "doctor", "uninstall"], load: async () => (await import("./commands/setup.js")).registerSetupCommands },
  { commands: ["serve"], load: async () => (await import("./commands/serve.js")).registerServeCommands },
  { commands: ["mcp"], load: async () => (await import("./commands/mcp.js")).registerMcpCommands },
  { commands: ["hook"], load: async () => (await import("./commands/hook.js")).registerHookCommands },
];

export interface Family {
  readonly commands: readonly string[];
  load(): Promise<RegisterCommands>;
}

/**
 * The families a command line needs: the one declaring its first word when that is a
 * command, or all of them (no command, `--help`, `help`, an unknown command or a typo), so
 * help lists every command and "did you mean" has every name to choose from.
 */
export function familiesFor(argv: readonly string[]): readonly Family[] {
  const first = argv.find((arg) => !arg.startsWith("-"));
  const named = first === undefined ? undefined : FAMILIES.find((family) => family.commands.includes(first));
  return named ? [named] : FAMILIES;
}

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

/**
 * The root command with its settings; the families the command line needs (familiesFor)
 * declare their commands on it and wire them to their handlers.
 */
export async function buildProgram(ctx: CliContext, app: () => App): Promise<Command> {
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
  const registers = await Promise.all(familiesFor(ctx.argv).map((family) => family.load()));
  for (const register of registers) register(program, kit);
  return program;
}

/** Visible top-level command names, for suggestions. */
export function publicCommands(program: CommandUnknownOpts): string[] {
  return program.commands.map((c) => c.name()).filter((n) => !n.startsWith("__"));
}
