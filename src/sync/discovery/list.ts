import { listClaudeTranscripts } from "./list-claude.js";
import { listCodexTranscripts } from "./list-codex.js";
import { Collector } from "./list-fs.js";
import type { TranscriptApp, TranscriptListing } from "./model.js";

const LISTERS: Record<TranscriptApp, (env: NodeJS.ProcessEnv, collector: Collector) => Promise<void>> = {
  claude: listClaudeTranscripts,
  codex: listCodexTranscripts,
};

/**
 * Finds the session transcripts of the given apps by listing folders and stat-ing
 * files, never opening one. Files last modified before `modifiedSinceMs` are counted
 * as inactive and left out. Sorted by app, then path.
 */
export async function listTranscriptFiles(
  apps: readonly TranscriptApp[],
  env: NodeJS.ProcessEnv,
  options: { modifiedSinceMs?: number } = {},
): Promise<TranscriptListing> {
  const collector = new Collector(options.modifiedSinceMs);
  await Promise.all([...new Set(apps)].map((app) => LISTERS[app](env, collector)));
  const order = (app: TranscriptApp) => apps.indexOf(app);
  const files = collector.files.sort((a, b) => order(a.app) - order(b.app) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files, inactive: collector.inactive, subagentFiles: collector.subagentFiles };
}
