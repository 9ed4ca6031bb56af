import type { Repository } from "../repositories/model.js";
import type { RepositoryStatus } from "../repositories/identity.js";

export interface GardenCandidate {
  repository: Repository;
  status: RepositoryStatus;
}

export interface ScheduledGardenDeps {
  repositories: () => GardenCandidate[];
  activeGardens: (repositoryId: string) => number;
  lastGardenDoneAt: (repositoryId: string) => number | null;
  /** Whether the wiki or the code changed after a moment (git commits, uncommitted edits, wiki files). */
  changedSince: (root: string, since: number) => Promise<boolean>;
  queueGarden: (repository: Repository) => { run_id: string };
}

export interface GardenDecision {
  repository: string;
  /** The run queued, or why none was. */
  runId?: string;
  skipped?: string;
}

/**
 * The scheduled garden: one garden run per registered wiki that needs one. A wiki is
 * left alone when a garden of it is already queued or running, when its folder is gone,
 * or when neither its pages nor its code changed since its last garden ended.
 */
export async function scheduleGardens(deps: ScheduledGardenDeps): Promise<GardenDecision[]> {
  const decisions: GardenDecision[] = [];
  for (const { repository, status } of deps.repositories()) {
    const name = repository.name;
    if (status === "missing_repo") decisions.push({ repository: name, skipped: `root is missing: ${repository.rootPath}` });
    else if (status === "missing_almanac") decisions.push({ repository: name, skipped: "almanac/ is missing" });
    else if (deps.activeGardens(repository.repositoryId) > 0) decisions.push({ repository: name, skipped: "a garden run is already queued or running" });
    else decisions.push(await decide(deps, repository));
  }
  return decisions;
}

async function decide(deps: ScheduledGardenDeps, repository: Repository): Promise<GardenDecision> {
  const last = deps.lastGardenDoneAt(repository.repositoryId);
  if (last !== null && !(await deps.changedSince(repository.rootPath, last))) {
    return { repository: repository.name, skipped: "no change since the last garden" };
  }
  try {
    return { repository: repository.name, runId: deps.queueGarden(repository).run_id };
  } catch (error) {
    return { repository: repository.name, skipped: `could not queue: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}` };
  }
}
