import { CommanderError, type CommandUnknownOpts } from "@commander-js/extra-typings";
import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { App } from "../app.js";
import { trace } from "../core/trace.js";
import { exitCodeFor, isProductError, oneLine } from "../core/errors.js";
import { statePaths } from "../core/paths.js";
import { createCliContext, type CliContext } from "./context.js";
import { buildProgram, publicCommands } from "./program.js";
import type { closest as Closest, SyntaxProblem } from "./syntax.js";

/** What a caller other than bin.ts (a test) may set; each defaults to this process's own. */
export interface MainOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  platform?: NodeJS.Platform;
}

export async function main(argv: string[], options: MainOptions = {}): Promise<number> {
  trace("cli loaded");
  const ctx = createCliContext(argv, options.env, options.cwd);
  let app: App | undefined;
  const getApp = () =>
    (app ??= new App({
      env: ctx.env,
      notice: (line) => ctx.writeErr(line + "\n"),
      ...(options.platform !== undefined ? { platform: options.platform } : {}),
    }));
  const program = await buildProgram(ctx, getApp);
  trace("program built");
  try {
    if (argv.length === 0) {
      (await syntax()).renderSyntaxScreen(ctx, { title: "Missing command" });
      return 2;
    }
    await program.parseAsync(argv, { from: "user" });
    trace("command done");
    return ctx.exitCode;
  } catch (error) {
    // A storage failure of the state database, wherever a command met it, reads as one line naming the file.
    return await handleError(ctx, program, app ? app.explainFailure(error) : error);
  } finally {
    app?.close();
  }
}

/** The syntax screen and its guides load only for a command line that needs them. */
const syntax = () => import("./syntax.js");

async function handleError(ctx: CliContext, program: CommandUnknownOpts, error: unknown): Promise<number> {
  if (error instanceof CommanderError) {
    if (error.code === "commander.helpDisplayed" || error.code === "commander.version" || error.code === "commander.help") {
      return error.exitCode;
    }
    const { renderSyntaxScreen } = await syntax();
    renderSyntaxScreen(ctx, await syntaxProblem(ctx, program, error));
    return 2;
  }
  const json = ctx.argv.includes("--json");
  if (isProductError(error)) {
    if (error.code === "usage") {
      (await syntax()).renderSyntaxScreen(ctx, { title: "Invalid value", detail: error.message });
      return 2;
    }
    reportFailure(ctx, json, error.code, error.message);
    return exitCodeFor[error.code];
  }
  const logFile = logInternalError(ctx, error);
  reportFailure(
    ctx,
    json,
    "internal_error",
    `internal error: ${oneLine(error)}${logFile ? ` (details in ${logFile})` : ""}`,
  );
  return 1;
}

function reportFailure(ctx: CliContext, json: boolean, code: string, message: string): void {
  if (json) ctx.writeErr(JSON.stringify({ error: { code, message } }) + "\n");
  else ctx.writeErr(`codealmanac: ${message}\n`);
}

function logInternalError(ctx: CliContext, error: unknown): string | null {
  try {
    const logs = statePaths(ctx.env).logs;
    mkdirSync(logs, { recursive: true });
    const file = join(logs, "errors.log");
    const stack = error instanceof Error ? (error.stack ?? error.message) : String(error);
    appendFileSync(file, `${new Date().toISOString()} codealmanac ${ctx.argv.join(" ")}\n${stack}\n\n`);
    return file;
  } catch {
    return null;
  }
}

async function syntaxProblem(ctx: CliContext, program: CommandUnknownOpts, error: CommanderError): Promise<SyntaxProblem> {
  const { closest, replacementFor } = await syntax();
  const message = error.message.replace(/^error:\s*/, "");
  const replacement = replacementFor(ctx.argv);
  switch (error.code) {
    case "commander.unknownCommand": {
      const typed = ctx.argv.find((a) => !a.startsWith("-")) ?? "";
      const suggestion = closest(typed, publicCommands(program));
      return { title: "Unknown command", ...(suggestion ? { replacement: `codealmanac ${suggestion}` } : { detail: message }) };
    }
    case "commander.excessArguments": {
      if (replacement) return { title: "Unknown command", replacement };
      const sub = closeSubcommand(program, ctx, closest);
      if (sub) return { title: "Unknown command", replacement: `codealmanac ${sub}` };
      return { title: groupName(ctx) ? "Unknown command" : "Unexpected argument", detail: message };
    }
    case "commander.unknownOption":
      return { title: "Unknown option", detail: withOptionSuggestion(program, ctx, message, closest) };
    case "commander.missingArgument":
      return { title: "Missing argument", detail: message };
    case "commander.optionMissingArgument":
      return { title: "Missing value", detail: message };
    default:
      return { title: "Invalid value", detail: message };
  }
}

/** `jobs lsit` → `jobs list`: the group's subcommand closest to the word after it. */
function closeSubcommand(program: CommandUnknownOpts, ctx: CliContext, closest: typeof Closest): string | undefined {
  const group = groupName(ctx);
  if (!group) return undefined;
  const words = ctx.argv.filter((a) => !a.startsWith("-"));
  const typed = words[words.indexOf(group) + 1];
  const command = program.commands.find((c) => c.name() === group);
  if (typed === undefined || !command) return undefined;
  const sub = closest(typed, command.commands.map((c) => c.name()));
  return sub ? `${group} ${sub}` : undefined;
}

function groupName(ctx: CliContext): string | undefined {
  const first = ctx.argv.find((a) => !a.startsWith("-"));
  return first === "topics" || first === "jobs" ? first : undefined;
}

function withOptionSuggestion(program: CommandUnknownOpts, ctx: CliContext, message: string, closest: typeof Closest): string {
  const typed = /'([^']+)'/.exec(message)?.[1];
  if (!typed) return message;
  const words = ctx.argv.filter((a) => !a.startsWith("-"));
  let command: CommandUnknownOpts = program;
  for (const word of words) {
    const next = command.commands.find((c) => c.name() === word);
    if (!next) break;
    command = next;
  }
  const flags = [...command.options, ...(command.parent?.options ?? [])].map((o) => o.long).filter((f): f is string => !!f);
  const suggestion = closest(typed, flags);
  return suggestion ? `${message} (did you mean ${suggestion}?)` : message;
}
