import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import type { ServerCommand } from "./model.js";

/**
 * `<node> <CLI script> mcp`, both absolute and the script with symlinks resolved: a
 * client started from a desktop launcher has a PATH of its own, and a global install's
 * `ca` is a symlink into the package, so neither `ca` nor the link is a stable thing to
 * record.
 */
export function serverCommand(nodePath: string, scriptPath: string): ServerCommand {
  return { command: nodePath, args: [realScript(scriptPath), "mcp"] };
}

export function realScript(scriptPath: string): string {
  const absolute = resolve(scriptPath);
  try {
    return realpathSync(absolute);
  } catch {
    return absolute;
  }
}

export function sameCommand(a: ServerCommand, b: ServerCommand): boolean {
  return a.command === b.command && a.args.length === b.args.length && a.args.every((arg, i) => arg === b.args[i]);
}

/** A registration runs our server when it starts this node and script with `mcp`, whatever flags a person added after it. */
export function runsServer(registered: ServerCommand, server: ServerCommand): boolean {
  return registered.command === server.command && server.args.every((arg, i) => registered.args[i] === arg);
}

/**
 * `server` with the flags a person put after `mcp` in the registration it replaces
 * (`--allow-queue`, `--wiki NAME`), so re-registering after an upgrade keeps them.
 */
export function withAddedFlags(server: ServerCommand, registered: ServerCommand | null): ServerCommand {
  const at = registered ? registered.args.indexOf("mcp") : -1;
  if (!registered || at < 0) return server;
  return { command: server.command, args: [...server.args, ...registered.args.slice(at + 1)] };
}
