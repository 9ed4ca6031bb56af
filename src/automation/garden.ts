import type { Repository } from "../repositories/model.js";
import type { RepositoryStatus } from "../repositories/identity.js";
import type { BranchTip } from "./branch.js";
import type { GardenTips } from "./garden-tips.js";
import type { GardenNote } from "./model.js";

export interface GardenCandidate {
  repository: Repository;
  status: RepositoryStatus;
}

/** What the scheduled garden queues: a garden of the whole wiki, or one of its stale pages only (`ca garden --stale`). */
export type GardenTarget = { mode: "general" } | { mode: "stale"; pages: string[] };

export interface ScheduledGardenDeps {
  repositories: () => GardenCandidate[];
  activeGardens: (repositoryId: string) => number;
  lastGardenDoneAt: (repositoryId: string) => number | null;
  /** Whether the wiki or the code changed after a moment (git commits, uncommitted edits, wiki files). */
  changedSince: (root: string, since: number) => Promise<boolean>;
  /** The default branch's tip now (see branch.ts); null when git cannot say. */
  branchTip: (root: string) => Promise<BranchTip | null>;
  /** Where each wiki's default branch stood when the scheduled garden last queued a garden of it. */
  tips: GardenTips;
  /** Whether a run ended failed or cancelled; false for one that ended done or that the ledger no longer holds. */
  runFailed: (runId: string) => boolean;
  /** The pages `ca drift` calls stale (slugs); never throws (an answer it cannot give is none). */
  stalePages: (repository: Repository) => Promise<string[]>;
  /** Queues the garden; null when none was queued (a stale garden that found no stale page after all). */
  queueGarden: (repository: Repository, target: GardenTarget) => Promise<{ run_id: string } | null>;
}

/**
 * The scheduled garden: one garden run per registered wiki that needs one. A wiki is
 * left alone when a garden of it is already queued or running, when its folder is gone,
 * or when neither its pages nor its code changed since its last garden ended. When its
 * default branch moved since the last scheduled garden and drift finds stale pages, the
 * garden is the stale-targeted one: the code moved under those pages, and tending them is
 * the upkeep that change calls for; otherwise it is the general garden.
 */
export async function scheduleGardens(deps: ScheduledGardenDeps): Promise<GardenNote[]> {
  const decisions: GardenNote[] = [];
  for (const { repository, status } of deps.repositories()) {
    const skip = (reason: string): GardenNote => ({ repository: repository.name, mode: "skipped", reason });
    if (status === "missing_repo") decisions.push(skip(`root is missing: ${repository.rootPath}`));
    else if (status === "missing_almanac") decisions.push(skip("almanac/ is missing"));
    else if (deps.activeGardens(repository.repositoryId) > 0) decisions.push(skip("a garden run is already queued or running"));
    else decisions.push(await decide(deps, repository));
  }
  return decisions;
}

async function decide(deps: ScheduledGardenDeps, repository: Repository): Promise<GardenNote> {
  const tip = await deps.branchTip(repository.rootPath);
  if (tip !== null && branchMoved(deps, repository.repositoryId, tip)) {
    const stale = await deps.stalePages(repository);
    if (stale.length > 0) return queue(deps, repository, tip, { mode: "stale", pages: stale });
  }
  const last = deps.lastGardenDoneAt(repository.repositoryId);
  if (last !== null && !(await deps.changedSince(repository.rootPath, last))) {
    return { repository: repository.name, mode: "skipped", reason: "no change since the last garden" };
  }
  return queue(deps, repository, tip, { mode: "general" });
}

/**
 * Moved: the tip differs from the one recorded when the scheduled garden last queued a
 * garden of this wiki, or there is no record, or that garden failed or was cancelled (the
 * pages were not tended at that tip, so it still counts as news).
 */
function branchMoved(deps: ScheduledGardenDeps, repositoryId: string, tip: BranchTip): boolean {
  const last = deps.tips.last(repositoryId);
  if (last === null) return true;
  if (last.ref !== tip.ref || last.commit !== tip.commit) return true;
  return deps.runFailed(last.runId);
}

async function queue(deps: ScheduledGardenDeps, repository: Repository, tip: BranchTip | null, target: GardenTarget): Promise<GardenNote> {
  const name = repository.name;
  let receipt: { run_id: string } | null;
  try {
    receipt = await deps.queueGarden(repository, target);
  } catch (error) {
    const reason = `could not queue: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`;
    return { repository: name, mode: "skipped", reason, failed: true };
  }
  if (receipt === null) return { repository: name, mode: "skipped", reason: "no stale page was left when the garden was queued" };
  if (tip !== null) deps.tips.record(repository.repositoryId, { ...tip, runId: receipt.run_id });
  return target.mode === "stale"
    ? { repository: name, mode: "stale", runId: receipt.run_id, stalePages: target.pages }
    : { repository: name, mode: "general", runId: receipt.run_id };
}

/** One line of the garden task's log per wiki. */
export function gardenLogLine(note: GardenNote): string {
  switch (note.mode) {
    case "stale":
      return `queued ${note.runId} for ${note.repository}: stale garden of ${pagesPhrase(note.stalePages)}`;
    case "general":
      return `queued ${note.runId} for ${note.repository}`;
    case "skipped":
      return `skipped ${note.repository}: ${note.reason}`;
  }
}

function pagesPhrase(pages: readonly string[]): string {
  return `${pages.length} page${pages.length === 1 ? "" : "s"} (${pages.join(", ")})`;
}
