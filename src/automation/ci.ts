/**
 * `ca automation ci`: the CI file for the chosen provider, with what to set up beside it.
 * The command prints; it never writes a file itself.
 */
import { invalid } from "../core/errors.js";
import type { HarnessKind } from "../harnesses/catalog.js";
import { GITHUB_PULL_REQUEST_SETTING, githubDriftWorkflow, githubGardenWorkflow, type DriftCheck } from "./ci-github.js";
import { gitlabGardenPipeline } from "./ci-gitlab.js";

export const CI_PROVIDERS = ["github", "gitlab"] as const;
export type CiProvider = (typeof CI_PROVIDERS)[number];

export interface CiRequest {
  provider: string;
  harness: HarnessKind;
  every?: string;
  driftCheck: DriftCheck;
}

export interface CiPlan {
  provider: CiProvider;
  path: string;
  harness: HarnessKind;
  /** The cron expression of the schedule (UTC). */
  schedule: string;
  /** Where the agent's API key goes: a repository secret, or a CI/CD variable. */
  secret: string;
  /** GitLab: the CI/CD variable holding the project access token. */
  tokenVariable: string | null;
  text: string;
  /** What to set up beside the file, one line each. */
  notes: string[];
  /** GitHub's pull-request drift check, unless turned off; GitLab has none. */
  drift: { path: string; failOn: "stale" | null; text: string; notes: string[] } | null;
}

export function ciPlan(request: CiRequest): CiPlan {
  const provider = CI_PROVIDERS.find((p) => p === request.provider);
  if (provider === undefined) throw invalid(`unknown --provider "${request.provider}" (expected ${CI_PROVIDERS.join(", ")})`);
  return provider === "github" ? githubPlan(request) : gitlabPlan(request);
}

function githubPlan(request: CiRequest): CiPlan {
  const workflow = githubGardenWorkflow(request.harness, request.every);
  const drift = request.driftCheck === "off" ? null : githubDriftWorkflow(request.driftCheck);
  return {
    provider: "github",
    path: workflow.path,
    harness: workflow.harness,
    schedule: workflow.schedule,
    secret: workflow.secret,
    tokenVariable: null,
    text: workflow.text,
    notes: [`save this as ${workflow.path} and add the repository secret ${workflow.secret} (Settings → Secrets and variables → Actions)`, GITHUB_PULL_REQUEST_SETTING],
    drift: drift === null ? null : { ...drift, notes: [`save this as ${drift.path}; it needs no secret`] },
  };
}

function gitlabPlan(request: CiRequest): CiPlan {
  const pipeline = gitlabGardenPipeline(request.harness, request.every);
  return {
    provider: "gitlab",
    path: pipeline.path,
    harness: pipeline.harness,
    schedule: pipeline.schedule,
    secret: pipeline.secret,
    tokenVariable: pipeline.tokenVariable,
    text: pipeline.text,
    notes: pipeline.notes,
    drift: null,
  };
}
