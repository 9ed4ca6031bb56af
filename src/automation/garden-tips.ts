/**
 * Where each wiki's default branch stood when the scheduled garden last queued a garden of
 * it: `<state>/automation/garden.branches.json`, `{"<repository id>": {"ref", "commit",
 * "run_id"}}`. The next scheduled garden compares the branch's tip with it to tell whether
 * the branch moved since (see garden.ts).
 */
import { join } from "node:path";
import * as z from "zod/mini";
import type { StatePaths } from "../core/paths.js";
import { readTextIfExists } from "../core/fs.js";
import type { BranchTip } from "./branch.js";
import { writeTextAtomic } from "./files.js";

export interface GardenTip extends BranchTip {
  /** The garden queued at that tip. */
  runId: string;
}

/** The records the scheduled garden reads and writes; app.ts hands it the file below. */
export interface GardenTips {
  last(repositoryId: string): GardenTip | null;
  record(repositoryId: string, tip: GardenTip): void;
}

const nonBlank = z.string().check(z.minLength(1));
const TipsFile = z.record(z.string(), z.object({ ref: nonBlank, commit: nonBlank, run_id: nonBlank }));

export function gardenTipsPath(paths: StatePaths): string {
  return join(paths.root, "automation", "garden.branches.json");
}

/** The file store; an unreadable file reads as no record, so the branch counts as moved. */
export function gardenTipsFile(paths: StatePaths): GardenTips {
  const path = gardenTipsPath(paths);
  const read = (): z.infer<typeof TipsFile> => {
    const parsed = TipsFile.safeParse(parseJson(readTextIfExists(path)));
    return parsed.success ? parsed.data : {};
  };
  return {
    last(repositoryId) {
      const entry = read()[repositoryId];
      return entry ? { ref: entry.ref, commit: entry.commit, runId: entry.run_id } : null;
    },
    record(repositoryId, tip) {
      const all = read();
      all[repositoryId] = { ref: tip.ref, commit: tip.commit, run_id: tip.runId };
      writeTextAtomic(path, JSON.stringify(all, null, 2) + "\n");
    },
  };
}

function parseJson(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
