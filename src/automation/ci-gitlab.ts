/**
 * The GitLab CI garden: one job for a scheduled pipeline that runs the steps the GitHub
 * workflow runs (ci-steps.ts) and proposes the changes as a merge request. The job token
 * of a pipeline may neither push nor open merge requests, so both go through a project
 * access token kept in a CI/CD variable; the merge request is opened with GitLab's REST
 * API through curl, which the official Node images carry (glab they do not). GitLab keeps
 * pipeline schedules outside the file, so the command prints how to create one.
 */
import type { HarnessKind } from "../harnesses/catalog.js";
import { ciSchedule, type CronRules } from "./ci-schedule.js";
import { GARDEN_BRANCH, GARDEN_DESCRIPTION, GARDEN_TITLE, ciNodeMajor, commitScript, gardenScript, harnessSecret, indent, installCommand } from "./ci-steps.js";

export const GITLAB_CI_PATH = ".gitlab-ci.yml";
/** The CI/CD variable holding the project access token that pushes and opens the merge request. */
export const GITLAB_TOKEN_VARIABLE = "CODEALMANAC_GITLAB_TOKEN";
export const GITLAB_JOB = "codealmanac-garden";
const STAGE = "garden";

/** Self-managed GitLab looks for due schedules every ten minutes by default; GitLab.com may be slower. */
export const GITLAB_CRON: CronRules = { provider: "GitLab", minMinutes: 10 };

export interface GitlabPipeline {
  path: string;
  harness: HarnessKind;
  /** The interval pattern for the pipeline schedule (UTC). */
  schedule: string;
  /** The CI/CD variable holding the agent's API key. */
  secret: string;
  tokenVariable: string;
  text: string;
  /** What to set up beside the file, one line each. */
  notes: string[];
}

export function gitlabGardenPipeline(harness: HarnessKind, every?: string): GitlabPipeline {
  const schedule = ciSchedule(every, GITLAB_CRON);
  const secret = harnessSecret(harness);
  const text = [
    "# CodeAlmanac garden: tends this project's wiki (almanac/) in a scheduled pipeline and",
    "# proposes the changes as a merge request. Written by `ca automation ci --provider gitlab`.",
    `# Needs the CI/CD variables ${secret} and ${GITLAB_TOKEN_VARIABLE} (a project access token`,
    "# with the Developer role and the api and write_repository scopes), and a pipeline schedule",
    `# (Build → Pipeline schedules) with the interval pattern "${schedule}", timezone UTC.`,
    "stages:",
    `  - ${STAGE}`,
    "",
    `${GITLAB_JOB}:`,
    `  stage: ${STAGE}`,
    `  image: node:${ciNodeMajor(harness)}`,
    "  rules:",
    '    - if: $CI_PIPELINE_SOURCE == "schedule"',
    `  resource_group: ${GITLAB_JOB}`,
    "  timeout: 2h",
    "  variables:",
    "    # The whole history: drift judges a page by the commits since it was verified.",
    '    GIT_DEPTH: "0"',
    "  script:",
    `    - ${installCommand(harness)}`,
    '    - export CODEALMANAC_HOME="$(mktemp -d)"',
    "    - |",
    ...indent(gardenScript(harness), 6),
    "    - |",
    ...indent(proposeScript(), 6),
    "",
  ].join("\n");
  return { path: GITLAB_CI_PATH, harness, schedule, secret, tokenVariable: GITLAB_TOKEN_VARIABLE, text, notes: gitlabNotes(schedule, secret) };
}

/**
 * Pushes the garden branch with the project access token and opens the merge request;
 * GitLab answers 409 when one from that branch is open already, which the push has then
 * updated. The token reaches git and curl from the environment, never the file.
 */
function proposeScript(): string[] {
  const token = `$${GITLAB_TOKEN_VARIABLE}`;
  return [
    ...commitScript('"$GITLAB_USER_NAME"', '"$GITLAB_USER_EMAIL"'),
    "# The job's own token may not push: the project access token does.",
    `git push --force "\${CI_SERVER_URL%%://*}://oauth2:${token}@\${CI_SERVER_URL#*://}/$CI_PROJECT_PATH.git" ${GARDEN_BRANCH}`,
    'answer=$(mktemp)',
    "status=$(curl --silent --show-error --output \"$answer\" --write-out '%{http_code}' \\",
    `  --header "PRIVATE-TOKEN: ${token}" \\`,
    `  --data-urlencode "source_branch=${GARDEN_BRANCH}" \\`,
    '  --data-urlencode "target_branch=$CI_COMMIT_BRANCH" \\',
    `  --data-urlencode "title=${GARDEN_TITLE}" \\`,
    `  --data-urlencode "description=${GARDEN_DESCRIPTION}" \\`,
    '  --data-urlencode "remove_source_branch=true" \\',
    '  "$CI_API_V4_URL/projects/$CI_PROJECT_ID/merge_requests")',
    'case "$status" in',
    `  201) echo "Opened a merge request from ${GARDEN_BRANCH}." ;;`,
    `  409) echo "Updated the open merge request from ${GARDEN_BRANCH}." ;;`,
    '  *) echo "GitLab refused the merge request (HTTP $status):" >&2; cat "$answer" >&2; exit 1 ;;',
    "esac",
  ];
}

function gitlabNotes(schedule: string, secret: string): string[] {
  return [
    `save this as ${GITLAB_CI_PATH}, or add its "${STAGE}" stage and ${GITLAB_JOB} job to yours`,
    `add the masked CI/CD variables ${secret} and ${GITLAB_TOKEN_VARIABLE} (Settings → CI/CD → Variables); ${GITLAB_TOKEN_VARIABLE} is a project access token with the Developer role and the api and write_repository scopes`,
    `GitLab keeps schedules outside the file: create one in Build → Pipeline schedules (CI/CD → Schedules) with the interval pattern "${schedule}", cron timezone UTC, on the default branch`,
    `  or: glab schedule create --cron "${schedule}" --cronTimeZone UTC --ref <default branch> --description "CodeAlmanac garden"`,
  ];
}
