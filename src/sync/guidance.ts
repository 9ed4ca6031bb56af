import type { Repository } from "../repositories/model.js";
import type { RunSpec } from "../runs/spec.js";
import type { PlannedTranscript } from "./plan.js";

/** What the title and guidance say of each transcript: a planned one, or a part a queued run already holds. */
export type GuidedTranscript = Pick<PlannedTranscript, "path" | "sessionId" | "fromOffset" | "toOffset"> & { app: string };

const APP_NAMES: Record<string, string> = { claude: "Claude Code", codex: "Codex" };

export function syncTitle(transcripts: readonly GuidedTranscript[]): string {
  if (transcripts.length === 1) {
    const t = transcripts[0]!;
    return `Sync ${t.app} transcript ${t.sessionId}`;
  }
  return `Sync ${transcripts.length} transcripts`;
}

/** What the agent is told about the sessions it is given: only the new part of each, and why it is here. */
export function syncGuidance(repository: Repository, transcripts: readonly GuidedTranscript[]): string {
  const lines = [
    `This is a sync of agent sessions that worked in ${repository.name} (${repository.rootPath}).`,
    `Each transcript below is given only from where the last sync left off, with a little earlier context marked as such.`,
    "Record durable project knowledge the sessions reveal: decisions and why they were taken, invariants, pitfalls that broke before, how a flow crosses files.",
    "Do not summarize the conversations, do not record what the code already says plainly, and skip anything the wiki already holds.",
    "If the sessions hold nothing durable, change nothing.",
    "",
    ...transcripts.map(
      (t) => `- ${APP_NAMES[t.app] ?? t.app} ${t.sessionId}: ${t.path} (bytes ${t.fromOffset}–${t.toOffset}${t.fromOffset > 0 ? ", continuing" : ""})`,
    ),
  ];
  return lines.join("\n");
}

/**
 * A queued sync run's spec with more transcripts added (`addition`, prepared like any
 * sync's), titled and guided for all of them; null when the two would not run alike
 * (another agent, model or commit setting: the addition then gets a run of its own).
 */
export function joinedSpec(current: RunSpec, addition: RunSpec, repository: Repository, transcripts: readonly GuidedTranscript[]): RunSpec | null {
  if (current.kind !== "ingest" || current.harness !== addition.harness || current.model !== addition.model || current.auto_commit !== addition.auto_commit) return null;
  return {
    ...current,
    inputs: [...current.inputs, ...addition.inputs],
    sources: [...current.sources, ...addition.sources],
    title: syncTitle(transcripts),
    guidance: syncGuidance(repository, transcripts),
  };
}
