import { Command } from "@commander-js/extra-typings";
import { describe, expect, test } from "vitest";
import type { App } from "../../src/app.js";
import { createCliContext } from "../../src/cli/context.js";
import { createKit } from "../../src/cli/kit.js";
import { FAMILIES, familiesFor, type Family } from "../../src/cli/program.js";

// Registering commands never calls the app.
const app = {} as App;

async function declared(family: Family): Promise<string[]> {
  const program = new Command("t");
  (await family.load())(program, createKit(createCliContext([]), () => app));
  return program.commands.map((command) => command.name());
}

describe("command families", () => {
  test("each family's command names are exactly the top-level commands it declares", async () => {
    for (const family of FAMILIES) expect(await declared(family)).toEqual(family.commands);
  });

  test("no two families name the same command", () => {
    const names = FAMILIES.flatMap((family) => family.commands);
    expect(new Set(names).size).toBe(names.length);
  });

  test("a command line naming a command gets its family alone; any other gets every family", () => {
    const search = FAMILIES.find((family) => family.commands.includes("search"));
    const jobs = FAMILIES.find((family) => family.commands.includes("jobs"));
    expect(familiesFor(["search", "cache", "--json"])).toEqual([search]);
    expect(familiesFor(["--json", "jobs", "show"])).toEqual([jobs]);
    for (const argv of [[], ["--help"], ["-h"], ["help", "search"], ["serach", "cache"], ["--wiki", "docs", "search"]]) {
      expect(familiesFor(argv)).toBe(FAMILIES);
    }
  });
});
