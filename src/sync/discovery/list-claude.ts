import { join } from "node:path";
import { claudeProjectsDir } from "../../sources/transcripts/locate.js";
import { entriesOf, mayBeDirectory, mayBeFile, type Collector } from "./list-fs.js";

/**
 * Claude Code keeps one file per session in `projects/<project-folder>/<session>.jsonl`.
 * Subagent transcripts are left out by their path: 2.0.x writes `agent-*.jsonl` next
 * to the sessions (with startup `Warmup` ones), 2.1.x `<session>/subagents/agent-*.jsonl`.
 */
export async function listClaudeTranscripts(env: NodeJS.ProcessEnv, collector: Collector): Promise<void> {
  const projects = claudeProjectsDir(env);
  const folders = (await entriesOf(projects)).filter(mayBeDirectory);
  await Promise.all(folders.map((folder) => listProjectFolder(join(projects, folder.name), collector)));
}

async function listProjectFolder(folder: string, collector: Collector): Promise<void> {
  const pending: Promise<void>[] = [];
  for (const entry of await entriesOf(folder)) {
    if (entry.name.endsWith(".jsonl") && mayBeFile(entry)) {
      if (entry.name.startsWith("agent-")) collector.subagentFiles += 1;
      else pending.push(collector.consider("claude", join(folder, entry.name)));
    } else if (mayBeDirectory(entry)) {
      pending.push(countSubagentFiles(join(folder, entry.name, "subagents"), collector));
    }
  }
  await Promise.all(pending);
}

async function countSubagentFiles(dir: string, collector: Collector): Promise<void> {
  for (const entry of await entriesOf(dir)) {
    if (entry.name.endsWith(".jsonl") && mayBeFile(entry)) collector.subagentFiles += 1;
  }
}
