import type { Dirent } from "node:fs";
import { join } from "node:path";
import { codexHome } from "../../sources/transcripts/locate.js";
import { entriesOf, mayBeDirectory, mayBeFile, type Collector } from "./list-fs.js";

/** sessions/YYYY/MM/DD is three levels deep; a little slack covers layouts not seen yet. */
const SESSIONS_DEPTH = 5;

const ROLLOUT = /^rollout-.*\.jsonl(\.zst)?$/;

/**
 * Codex keeps rollouts in `sessions/YYYY/MM/DD/` and, once archived, flat in
 * `archived_sessions/`; everything else in its home (state databases, shell
 * snapshots, history) is not a transcript. Day folders are not pruned by their date:
 * a resumed thread appends to its old rollout, so an old folder can hold a file
 * written today; the file's own mtime decides.
 */
export async function listCodexTranscripts(env: NodeJS.ProcessEnv, collector: Collector): Promise<void> {
  const home = codexHome(env);
  await Promise.all([listRollouts(join(home, "sessions"), SESSIONS_DEPTH, collector), listRollouts(join(home, "archived_sessions"), 0, collector)]);
}

async function listRollouts(dir: string, depth: number, collector: Collector): Promise<void> {
  const entries = await entriesOf(dir);
  const pending: Promise<void>[] = [];
  for (const name of rolloutNames(entries)) pending.push(collector.consider("codex", join(dir, name)));
  if (depth > 0) {
    for (const entry of entries) if (mayBeDirectory(entry) && !ROLLOUT.test(entry.name)) pending.push(listRollouts(join(dir, entry.name), depth - 1, collector));
  }
  await Promise.all(pending);
}

/**
 * Codex re-inflates a compressed rollout before appending to it, so for a moment
 * both `x.jsonl` and `x.jsonl.zst` exist: the plain one is current.
 */
function rolloutNames(entries: Dirent[]): string[] {
  const names = entries.filter((entry) => mayBeFile(entry) && ROLLOUT.test(entry.name)).map((entry) => entry.name);
  const plain = new Set(names.filter((name) => name.endsWith(".jsonl")));
  return names.filter((name) => !(name.endsWith(".zst") && plain.has(name.slice(0, -".zst".length))));
}
