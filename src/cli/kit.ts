import { InvalidArgumentError, Option, type Command, type OptionValues } from "@commander-js/extra-typings";
import type { App } from "../app.js";
import { HARNESS_KINDS } from "../harnesses/catalog.js";
import type { CliContext } from "./context.js";
import { trace } from "../core/trace.js";

/**
 * A command's handler: its positional arguments as a tuple, in declaration order, and its
 * options merged with those of the command groups above it (`jobs --json show <id>`).
 */
export type Handler<A extends unknown[] = unknown[], O = OptionValues> = (
  ctx: CliContext,
  app: App,
  args: A,
  opts: O,
) => Promise<void> | void;

/**
 * What a declared command hands its handler as options: commander's `optsWithGlobals()`,
 * the command's own options and its groups' (a group's value wins when both are given).
 */
export type MergedOptions<O extends OptionValues, G extends OptionValues> = ReturnType<Command<[], O, G>["optsWithGlobals"]>;

/** The option names a handler reads that the command does not declare (never, when it declares them all). */
type Undeclared<H, Declared> = H extends (ctx: CliContext, app: App, args: never, opts: infer HO) => unknown
  ? Exclude<keyof HO, keyof Declared>
  : never;

/** A handler that reads an option its command does not declare fails to compile, naming the option. */
type OnlyDeclared<H, Declared> = [Undeclared<H, Declared>] extends [never]
  ? unknown
  : { "reads options its command does not declare": Undeclared<H, Declared> };

/** How handlers declare the options that many commands take. */
export interface JsonOption {
  json?: true;
}
export interface WikiOption {
  wiki?: string;
}

/** The options several commands declare, each made fresh for the command that adds it. */
const sharedOptions = {
  json: () => new Option("--json", "print JSON"),
  wiki: () => new Option("--wiki <name>", "use the registered wiki with this name"),
  using: () => new Option("--using <harness>", `agent to run: ${HARNESS_KINDS.join(" or ")}`).choices(HARNESS_KINDS),
  wait: () =>
    new Option("--wait", "follow the job until it ends; exit 0 when done, 1 when failed or cancelled (Ctrl-C detaches: 130)"),
};

/** What a command module needs to declare its commands; see program.ts. */
export interface CommandKit extends Readonly<typeof sharedOptions> {
  /**
   * Makes `handler` the command's action and returns the command. The compiler checks the
   * handler against the declaration: its argument tuple and option types must accept what
   * commander infers from the `.argument()` and option calls (through
   * @commander-js/extra-typings), and it may read only options that the command or its
   * groups declare.
   */
  act<A extends unknown[], O extends OptionValues, G extends OptionValues, H extends Handler<A, MergedOptions<O, G>>>(
    command: Command<A, O, G>,
    handler: H & OnlyDeclared<H, MergedOptions<O, G>>,
  ): Command<A, O, G>;
}

/** Declares a family of commands on the program. */
export type RegisterCommands = (program: Command, kit: CommandKit) => void;

export function createKit(ctx: CliContext, app: () => App): CommandKit {
  return {
    ...sharedOptions,
    act(command, handler) {
      // A handler loads with its family (program.ts); the heavy code it calls is imported lazily by app.ts.
      return command.action(async () => {
        const composed = app();
        await composed.prepare();
        trace("modules loaded");
        return handler(ctx, composed, command.processedArgs, command.optsWithGlobals());
      });
    },
  };
}

/** For a repeatable option: each value is appended to the previous ones (or to the default). */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

export function integer(value: string): number {
  if (!/^[+-]?\d+$/.test(value.trim())) throw new InvalidArgumentError(`expected an integer, got "${value}"`);
  return Number(value);
}
