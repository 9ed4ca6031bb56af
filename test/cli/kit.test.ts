import { Command } from "@commander-js/extra-typings";
import { describe, expect, test } from "vitest";
import type { App } from "../../src/app.js";
import { createCliContext, type CliContext } from "../../src/cli/context.js";
import { createKit, integer, type CommandKit } from "../../src/cli/kit.js";

// The handlers here never touch the app; `act` prepares it and hands them whatever the factory returns.
const app = { prepare: async () => undefined } as unknown as App;

function program(): Command {
  return new Command("t").exitOverride().configureOutput({ writeOut: () => undefined, writeErr: () => undefined });
}

describe("act", () => {
  test("passes the positional arguments as a tuple and the options merged with the group's", async () => {
    const calls: unknown[] = [];
    const kit = createKit(createCliContext([]), () => app);
    const root = program();
    const group = kit.act(
      root.command("g").option("--json").option("--limit <n>", "", integer),
      (_ctx: CliContext, _app: App, args: [], opts: { json?: true; limit?: number }) => void calls.push(["g", args, opts]),
    );
    kit.act(
      group.command("s").argument("<id>").argument("[rest...]").option("--json"),
      (_ctx: CliContext, _app: App, args: [string, string[]], opts: { json?: true; limit?: number }) => void calls.push(["s", args, opts]),
    );
    await root.parseAsync(["g", "--json", "--limit", "5", "s", "a1"], { from: "user" });
    await root.parseAsync(["g", "s", "a2", "b", "c", "--json"], { from: "user" });
    await root.parseAsync(["g", "--limit", "7"], { from: "user" });
    expect(calls).toEqual([
      ["s", ["a1", []], { json: true, limit: 5 }],
      ["s", ["a2", ["b", "c"]], { json: true }],
      ["g", [], { limit: 7 }],
    ]);
  });
});

/**
 * Never called: `npm run typecheck` fails when `act` stops rejecting a handler whose
 * declared arguments or options do not match the command's declaration.
 */
export function declarationChecks(kit: CommandKit): void {
  const command = () => program().command("c").argument("<name>").option("--json").option("--wiki <name>");
  type Ctx = CliContext;
  kit.act(command(), (_c: Ctx, _a: App, [name]: [string], opts: { json?: true; wiki?: string }) => void [name, opts]);
  kit.act(command(), (_c, _a, [name], opts) => void [name.length, opts.json, opts.wiki]);
  // @ts-expect-error: reads an option the command does not declare
  kit.act(command(), (_c: Ctx, _a: App, _args: [string], opts: { json?: true; strict?: true }) => void opts);
  // @ts-expect-error: expects an option of another type
  kit.act(command(), (_c: Ctx, _a: App, _args: [string], opts: { wiki?: number }) => void opts);
  // @ts-expect-error: requires an option the command leaves optional
  kit.act(command(), (_c: Ctx, _a: App, _args: [string], opts: { wiki: string }) => void opts);
  // @ts-expect-error: expects an argument the command does not declare
  kit.act(command(), (_c: Ctx, _a: App, _args: [string, string], opts: { json?: true }) => void opts);
  // @ts-expect-error: reads an undeclared option, inline
  kit.act(command(), (_c, _a, _args, opts) => void opts.strict);
}
