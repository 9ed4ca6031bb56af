import { InvalidArgumentError, type Command, type Option } from "commander";
import type { App } from "../app.js";
import type { CliContext, Opts } from "./context.js";

export type Handler = (ctx: CliContext, app: App, args: unknown[], opts: Opts) => Promise<void> | void;

/** What a command module needs to declare its commands; see program.ts. */
export interface CommandKit {
  /** Wraps a handler as a commander action: positional arguments, then merged options. */
  act(handler: Handler): (...all: unknown[]) => Promise<void>;
  json(): Option;
  wiki(): Option;
  using(): Option;
  wait(): Option;
}

export type RegisterCommands = (program: Command, kit: CommandKit) => void;

export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

export function integer(value: string): number {
  if (!/^[+-]?\d+$/.test(value.trim())) throw new InvalidArgumentError(`expected an integer, got "${value}"`);
  return Number(value);
}
