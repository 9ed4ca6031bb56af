import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { expect } from "vitest";
import { ROOT } from "./cli.js";

/** Writes the bench's generated wiki (bench/generate-wiki.mjs, heavy shape) of `pages` pages into `root`. */
export function generateBenchWiki(root: string, pages: number, seed: number): void {
  const generated = spawnSync(process.execPath, [join(ROOT, "bench", "generate-wiki.mjs"), "--pages", String(pages), "--out", root, "--seed", String(seed)], {
    encoding: "utf8",
  });
  expect(generated.status, generated.stderr).toBe(0);
}
