/**
 * GitHub Actions workflows for teams that want the wiki tended without any one machine's
 * scheduler. The garden workflow installs CodeAlmanac and the agent CLI on the runner, runs
 * `ca garden --stale` when drift finds stale pages and `ca garden` otherwise, with a
 * temporary state root, and opens a pull request with the changes under almanac/. The drift
 * workflow checks each pull request: it lists the pages whose cited code the pull request
 * changed in the job summary, and fails only when asked. The texts are built here line by
 * line (the YAML library stays in the wiki code) from values that are checked to need no
 * quoting.
 */
import { parseDuration } from "../config/duration.js";
import { invalid } from "../core/errors.js";
import { HARNESSES, type HarnessKind } from "../harnesses/catalog.js";
import { DEFAULT_EVERY_MS } from "./model.js";

export const CI_PROVIDERS = ["github"] as const;
export type CiProvider = (typeof CI_PROVIDERS)[number];

export const GITHUB_WORKFLOW_PATH = ".github/workflows/codealmanac-garden.yml";
export const GITHUB_DRIFT_WORKFLOW_PATH = ".github/workflows/codealmanac-drift.yml";

/** The pull-request drift check: a report in the job summary, that and a failure on stale pages, or no check. */
export const DRIFT_CHECKS = ["report", "fail", "off"] as const;
export type DriftCheck = (typeof DRIFT_CHECKS)[number];

/** Off the top of the hour, when GitHub delays scheduled workflows the most (UTC). */
const QUIET_MINUTE = 17;
const QUIET_HOUR = 3;

export interface GithubWorkflow {
  path: string;
  harness: HarnessKind;
  /** The cron expression of the workflow's schedule (UTC). */
  schedule: string;
  /** The repository secret holding the agent's API key. */
  secret: string;
  text: string;
}

export function githubGardenWorkflow(harness: HarnessKind, every?: string): GithubWorkflow {
  const schedule = githubSchedule(every);
  const agentPackage = harnessPackage(harness);
  const secret = harnessSecret(harness);
  const text = [
    "# CodeAlmanac garden: tends this repository's wiki (almanac/) on a schedule and proposes",
    "# the changes as a pull request. Written by `ca automation ci --provider github`.",
    `# Needs the repository secret ${secret}.`,
    "# For pull requests, `ca automation ci --provider github --workflow drift` prints a check",
    `# that lists the pages they leave stale (${GITHUB_DRIFT_WORKFLOW_PATH}).`,
    "name: CodeAlmanac garden",
    "",
    "on:",
    "  schedule:",
    `    - cron: "${schedule}"`,
    "  workflow_dispatch:",
    "",
    "permissions:",
    "  contents: write",
    "  pull-requests: write",
    "",
    "concurrency:",
    "  group: codealmanac-garden",
    "  cancel-in-progress: false",
    "",
    "jobs:",
    "  garden:",
    "    runs-on: ubuntu-latest",
    "    timeout-minutes: 120",
    "    steps:",
    ...checkoutWithHistory("Check out the repository"),
    `      - name: Install CodeAlmanac and ${HARNESSES[harness].label}`,
    `        run: npm install -g codealmanac ${agentPackage}`,
    "      - name: Garden the wiki",
    "        env:",
    "          CODEALMANAC_HOME: ${{ runner.temp }}/codealmanac",
    `          ${secret}: \${{ secrets.${secret} }}`,
    "        run: |",
    '          mkdir -p "$CODEALMANAC_HOME"',
    "          # Leave the changes uncommitted: the next step commits them on the pull request's branch.",
    `          printf 'auto_commit = false\\n' > "$CODEALMANAC_HOME/config.toml"`,
    "          # Pages whose cited code changed get a garden of their own, else the wiki as a whole",
    "          # (a drift that cannot be computed counts as none).",
    '          drift=$(ca drift --json || true)',
    `          if grep -q '"status": *"stale"' <<< "$drift"; then`,
    `            ca garden --stale --wait --json --using ${harness}`,
    "          else",
    `            ca garden --wait --json --using ${harness}`,
    "          fi",
    "      - name: Propose the changes",
    "        uses: peter-evans/create-pull-request@v7",
    "        with:",
    '          add-paths: "almanac/**"',
    "          branch: codealmanac/garden",
    "          delete-branch: true",
    '          commit-message: "almanac: garden the wiki"',
    '          title: "CodeAlmanac: garden the wiki"',
    '          body: "Changes proposed by the scheduled `ca garden` workflow."',
    "",
  ].join("\n");
  return { path: GITHUB_WORKFLOW_PATH, harness, schedule, secret, text };
}

export interface GithubDriftWorkflow {
  path: string;
  /** What makes the check fail: stale pages, or nothing (a report only). */
  failOn: "stale" | null;
  text: string;
}

/**
 * The pull-request check: with the whole history checked out, `ca drift --base` against the
 * pull request's target branch, its Markdown list appended to the job summary (and echoed
 * in the job log). The target branch reaches the shell through an environment variable,
 * never spliced into the script, and the job may only read the repository.
 */
export function githubDriftWorkflow(check: Exclude<DriftCheck, "off">): GithubDriftWorkflow {
  const failOn = check === "fail" ? "stale" : null;
  const text = [
    "# CodeAlmanac drift: lists, in each pull request's job summary, the wiki pages (almanac/)",
    "# whose cited code the pull request changed. Written by `ca automation ci --provider github`.",
    failOn === null ? "# It reports and never fails (`--drift-check fail` makes it fail on stale pages)." : "# It fails when the pull request leaves a page stale.",
    "name: CodeAlmanac drift",
    "",
    "on:",
    "  pull_request:",
    "",
    "permissions:",
    "  contents: read",
    "",
    "concurrency:",
    "  group: codealmanac-drift-${{ github.ref }}",
    "  cancel-in-progress: true",
    "",
    "jobs:",
    "  drift:",
    "    runs-on: ubuntu-latest",
    "    timeout-minutes: 15",
    "    steps:",
    ...checkoutWithHistory("Check out the repository with its history"),
    "      - name: Install CodeAlmanac",
    "        run: npm install -g codealmanac",
    "      - name: List the pages whose cited code this pull request changed",
    "        shell: bash",
    "        env:",
    "          CODEALMANAC_HOME: ${{ runner.temp }}/codealmanac",
    "          BASE_REF: ${{ github.base_ref }}",
    "        run: |",
    `          ca drift --base "origin/$BASE_REF" --markdown${failOn === null ? "" : ` --fail-on ${failOn}`} | tee -a "$GITHUB_STEP_SUMMARY"`,
    "",
  ].join("\n");
  return { path: GITHUB_DRIFT_WORKFLOW_PATH, failOn, text };
}

/**
 * The workflow's cron schedule from `--every`: a five-field cron expression as given, or a
 * duration GitHub's cron can express (whole minutes of at least 5 below an hour, whole
 * hours below a day, whole days). Default: the garden task's daily interval.
 */
export function githubSchedule(every?: string): string {
  if (every === undefined) return scheduleForDuration(DEFAULT_EVERY_MS.garden, "24h");
  const fields = every.trim().split(/\s+/);
  if (fields.length === 5) {
    if (fields.every((field) => /^[0-9A-Za-z*/,-]+$/.test(field))) return fields.join(" ");
    throw invalid(`invalid --every "${every}": not a cron expression`);
  }
  const ms = parseDuration(every);
  if (ms === null || ms <= 0) throw invalid(`invalid --every "${every}": expected a duration such as 24h or a cron expression such as "17 3 * * *"`);
  return scheduleForDuration(ms, every);
}

function scheduleForDuration(ms: number, text: string): string {
  const minutes = ms / 60_000;
  const hours = minutes / 60;
  const days = hours / 24;
  if (Number.isInteger(minutes) && minutes >= 5 && minutes < 60) return `*/${minutes} * * * *`;
  if (Number.isInteger(hours) && hours >= 1 && hours < 24) return `${QUIET_MINUTE} ${hours === 1 ? "*" : `*/${hours}`} * * *`;
  if (Number.isInteger(days) && days >= 1 && days <= 31) return `${QUIET_MINUTE} ${QUIET_HOUR} ${days === 1 ? "*" : `*/${days}`} * *`;
  throw invalid(
    `invalid --every "${text}": GitHub schedules run every 5 to 59 minutes, whole hours or whole days; give a cron expression for anything else`,
  );
}

/** The npm package of the agent CLI, from the harness catalog's install line. */
export function harnessPackage(kind: HarnessKind): string {
  const found = /npm install -g (@?[a-z0-9][\w./-]*)/.exec(HARNESSES[kind].install)?.[1];
  if (!found) throw new Error(`the harness catalog names no npm package for ${kind}`);
  return found;
}

/** The API key variable the agent CLI reads, from the harness catalog's login line. */
export function harnessSecret(kind: HarnessKind): string {
  const found = /\bset ([A-Z][A-Z0-9_]*)/.exec(HARNESSES[kind].login)?.[1];
  if (!found) throw new Error(`the harness catalog names no API key variable for ${kind}`);
  return found;
}

/** The first steps of both workflows: the whole history (drift judges a page by the commits since it was verified), then Node. */
function checkoutWithHistory(name: string): string[] {
  return [
    `      - name: ${name}`,
    "        uses: actions/checkout@v4",
    "        with:",
    "          fetch-depth: 0",
    "      - name: Set up Node.js",
    "        uses: actions/setup-node@v4",
    "        with:",
    "          node-version: 20",
  ];
}
