import { bounded, clip, type Bounded } from "../../core/bounded.js";
import type { CommandRunner } from "../../core/command.js";
import { fitToBudget } from "./budget.js";
import { findDocs, type DocFile } from "./docs.js";
import { findEntryPoints, type EntryPoint } from "./entry-points.js";
import { countLanguages, type LanguageCount } from "./languages.js";
import { largestSubfolders, rootLayout, type FolderSize, type LayoutEntry } from "./layout.js";
import { listRepositoryFiles } from "./repository-files.js";

/**
 * A first look at the repository for the build that writes a wiki's first pages: its
 * layout, languages, likely entry points and existing docs. It saves the agent a round of
 * directory listing, and it is cut to fit the prompt budget, with every list saying how
 * much it left out. The wiki folder itself is not part of the survey.
 */
export interface BuildInventory {
  files: FileListing;
  layout: Bounded<LayoutEntry>;
  largest_subfolders: Bounded<FolderSize>;
  languages: Bounded<LanguageCount>;
  entry_points: Bounded<EntryPoint>;
  docs: Bounded<DocFile>;
}

export interface FileListing {
  /** git: tracked and untracked files that .gitignore does not exclude; walk: a capped walk. */
  listed_by: "git" | "walk";
  count: number;
  /** False when the listing stopped at its cap: counts are then lower bounds. */
  complete: boolean;
  excluded: string[];
}

export interface BuildInventoryInput {
  root: string;
  run: CommandRunner;
  /** The environment git runs in (defaults to this process's). */
  env?: NodeJS.ProcessEnv;
  budgetChars: number;
}

const WIKI_FOLDER = "almanac";

const LIMITS = { layout: 50, largestSubfolders: 20, languages: 20, entryPoints: 40, docs: 50 };

/** Caps applied to every list at once, from none to empty. */
const SQUEEZES = [Number.POSITIVE_INFINITY, 30, 20, 12, 8, 5, 3, 1, 0];

/** Throws a RangeError only when even the bare counts exceed the budget. */
export async function buildInventory({ root, run, env = process.env, budgetChars }: BuildInventoryInput): Promise<BuildInventory> {
  const listing = await listRepositoryFiles(root, run, new Set([WIKI_FOLDER]), env);
  const full = survey(root, listing.paths, {
    listed_by: listing.source,
    count: listing.paths.length,
    complete: listing.complete,
    excluded: [`${WIKI_FOLDER}/`],
  });
  return fitToBudget(budgetChars, squeezed(full));
}

function survey(root: string, paths: readonly string[], files: FileListing): BuildInventory {
  const all = <T>(items: T[], limit: number) => bounded(items, items.length, limit);
  return {
    files,
    layout: all(rootLayout(paths), LIMITS.layout),
    largest_subfolders: all(largestSubfolders(paths), LIMITS.largestSubfolders),
    languages: all(countLanguages(paths), LIMITS.languages),
    entry_points: all(findEntryPoints(root, paths), LIMITS.entryPoints),
    docs: all(findDocs(paths), LIMITS.docs),
  };
}

function* squeezed(inventory: BuildInventory): Generator<BuildInventory> {
  for (const cap of SQUEEZES) {
    yield {
      files: inventory.files,
      layout: clip(inventory.layout, cap),
      largest_subfolders: clip(inventory.largest_subfolders, cap),
      languages: clip(inventory.languages, cap),
      entry_points: clip(inventory.entry_points, cap),
      docs: clip(inventory.docs, cap),
    };
  }
}
