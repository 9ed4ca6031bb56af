import { copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { invalid } from "../core/errors.js";

const README = `---
title: CodeAlmanac Wiki
summary: The living wiki of this repository, kept by its coding agents.
topics: [concepts]
sources: []
---

# CodeAlmanac Wiki

This is the repository's living wiki. It records the durable knowledge the code cannot express on its own: why things are shaped as they are, how flows cross files, which invariants matter, what broke before and the gotchas a newcomer would hit.

## Notability Bar

Write a page when it preserves knowledge that is not obvious from reading the code:

- a decision that was researched or argued, and its reasons;
- a flow that crosses several files or processes;
- an invariant or a gotcha that breaks things when ignored;
- an external dependency as this repository uses it;
- a product or operational constraint.

Do not restate what the code already says plainly.

## Topic Taxonomy

Topics are declared in \`topics.yaml\` and form a graph with parents. Pages are Markdown files anywhere under \`almanac/\`, including nested folders; a folder's \`README.md\` is its landing page.

## Links

Link pages with ordinary relative Markdown links. File and folder evidence goes in each page's \`sources:\` list and is cited inline as \`[@source-id]\`.
`;

const TOPICS = `topics:
  - slug: concepts
    title: Concepts
    description: Core vocabulary and mental models for this codebase
    parents: []
`;

export interface ScaffoldOptions {
  /** Also copy the writing manual into almanac/manual/, for a team that keeps its own (`init --with-manual`). */
  withManual?: boolean;
}

/**
 * Writes the starter wiki: what the team owns (README.md, the landing page, and
 * topics.yaml), and with `withManual` a copy of the writing manual. Without it the agent
 * reads the packaged manual (`manualRootFor`). Each file is written only if missing, so user
 * edits are never overwritten.
 */
export function scaffoldWiki(root: string, options: ScaffoldOptions = {}): void {
  const almanac = join(root, "almanac");
  try {
    mkdirSync(almanac, { recursive: true });
    writeIfMissing(join(almanac, "README.md"), README);
    writeIfMissing(join(almanac, "topics.yaml"), TOPICS);
    if (options.withManual) copyManual(join(almanac, "manual"));
  } catch (error) {
    throw invalid(`cannot create the starter wiki in ${almanac}: ${(error as Error).message}`);
  }
}

function copyManual(target: string): void {
  mkdirSync(target, { recursive: true });
  const source = manualDirectory();
  for (const name of readdirSync(source).filter((n) => n.endsWith(".md"))) {
    if (!existsSync(join(target, name))) copyFileSync(join(source, name), join(target, name));
  }
}

/**
 * The writing manual an agent working on this wiki reads: the wiki's own almanac/manual/
 * when it has one (the team keeps its copy), else the packaged manual, an absolute path
 * outside the repository that the agents may read but not write.
 */
export function manualRootFor(almanacPath: string): string {
  const own = join(almanacPath, "manual");
  return existsSync(join(own, "README.md")) ? own : manualDirectory();
}

function writeIfMissing(path: string, content: string): void {
  if (!existsSync(path)) writeFileSync(path, content, { flag: "wx" });
}

/** The packaged manual: dist/manual next to the bundle, or src/wiki/manual in a checkout. */
export function manualDirectory(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [join(here, "manual"), join(here, "..", "manual"), join(here, "..", "wiki", "manual")];
  const found = candidates.find((dir) => existsSync(join(dir, "README.md")));
  if (!found) throw new Error(`the packaged manual is missing (looked in ${candidates.join(", ")})`);
  return found;
}
