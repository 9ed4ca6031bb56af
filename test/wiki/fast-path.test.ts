import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

const WIKI = resolve(dirname(fileURLToPath(import.meta.url)), "../../src/wiki");
const HEAVY = ["yaml", "markdown-it"];

/** Runtime imports only: `import type` is erased and costs nothing at start-up. */
function runtimeImports(file: string): string[] {
  const source = readFileSync(file, "utf8");
  const specifiers: string[] = [];
  for (const match of source.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+"([^"]+)"/gm)) {
    specifiers.push(match[1] ?? "");
  }
  return specifiers;
}

function reachable(entry: string): Set<string> {
  const seen = new Set<string>();
  const pending = [join(WIKI, entry)];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const specifier of runtimeImports(file)) {
      if (specifier.startsWith(".")) pending.push(resolve(dirname(file), specifier.replace(/\.js$/, ".ts")));
      else seen.add(specifier);
    }
  }
  return seen;
}

describe("fast-path modules stay light", () => {
  test.each(["slug.ts", "links.ts", "file-refs.ts", "frontmatter.ts"])("%s never loads yaml or markdown-it", (file) => {
    const loaded = reachable(file);
    for (const heavy of HEAVY) expect(loaded.has(heavy)).toBe(false);
  });

  test("the scan does see heavy imports where they belong", () => {
    const loaded = reachable("page.ts");
    for (const heavy of HEAVY) expect(loaded.has(heavy)).toBe(true);
  });
});
