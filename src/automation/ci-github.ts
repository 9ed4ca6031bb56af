/**
 * GitHub Actions workflows for teams that want the wiki tended without any one machine's
 * scheduler. The garden workflow installs this CodeAlmanac and the agent CLI on the runner
 * (with the Node.js both need), gardens with a temporary state root (see ci-steps.ts), and
 * proposes the changes under almanac/ as a pull request with `gh` and the job's own token:
 * no third-party action, which enterprise allow-lists often block. The drift workflow
 * checks each pull request: it lists the pages whose cited code the pull request changed
 * in the job summary, and fails only when asked. The texts are built here line by line
 * (the YAML library stays in the wiki code) from values that are checked to need no
 * quoting; `${{ … }}` expressions only ever reach a script through its environment.
 */
import { HARNESSES, type HarnessKind } from "../harnesses/catalog.js";
import { ciSchedule, type CronRules } from "./ci-schedule.js";
import {
  GARDEN_BRANCH,
  GARDEN_DESCRIPTION,
  GARDEN_TITLE,
  ciNodeMajor,
  commitScript,
  gardenScript,
  harnessSecret,
  indent,
  installCommand,
} from "./ci-steps.js";

export const GITHUB_WORKFLOW_PATH = ".github/workflows/codealmanac-garden.yml";
export const GITHUB_DRIFT_WORKFLOW_PATH = ".github/workflows/codealmanac-drift.yml";

/** The pull-request drift check: a report in the job summary, that and a failure on stale pages, or no check. */
export const DRIFT_CHECKS = ["report", "fail", "off"] as const;
export type DriftCheck = (typeof DRIFT_CHECKS)[number];

/** GitHub runs a schedule at most every five minutes. */
export const GITHUB_CRON: CronRules = { provider: "GitHub", minMinutes: 5 };

/** What the repository must allow, said with the workflow: without it `gh pr create` is refused. */
export const GITHUB_PULL_REQUEST_SETTING =
  'the repository must let Actions create pull requests: Settings → Actions → General → "Allow GitHub Actions to create and approve pull requests"';

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
  const schedule = ciSchedule(every, GITHUB_CRON);
  const secret = harnessSecret(harness);
  const text = [
    "# CodeAlmanac garden: tends this repository's wiki (almanac/) on a schedule and proposes",
    "# the changes as a pull request. Written by `ca automation ci --provider github`.",
    `# Needs the repository secret ${secret}, and Settings → Actions → General →`,
    '# "Allow GitHub Actions to create and approve pull requests".',
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
    ...checkoutWithHistory("Check out the repository", ciNodeMajor(harness)),
    `      - name: Install CodeAlmanac and ${HARNESSES[harness].label}`,
    `        run: ${installCommand(harness)}`,
    "      - name: Garden the wiki",
    "        env:",
    "          CODEALMANAC_HOME: ${{ runner.temp }}/codealmanac",
    `          ${secret}: \${{ secrets.${secret} }}`,
    "        run: |",
    ...indent(gardenScript(harness), 10),
    "      - name: Propose the changes as a pull request",
    "        env:",
    "          GH_TOKEN: ${{ github.token }}",
    "          BASE_BRANCH: ${{ github.ref_name }}",
    "        run: |",
    ...indent(proposeScript(), 10),
    "",
  ].join("\n");
  return { path: GITHUB_WORKFLOW_PATH, harness, schedule, secret, text };
}

/**
 * Pushes the garden branch with the checkout's credentials (the job's token, which
 * `contents: write` lets push) and opens the pull request with `gh`, unless one from that
 * branch is open already: the push has then updated it.
 */
function proposeScript(): string[] {
  const target = `--repo "$GITHUB_REPOSITORY" --head ${GARDEN_BRANCH} --base "$BASE_BRANCH"`;
  return [
    ...commitScript('"github-actions[bot]"', '"41898282+github-actions[bot]@users.noreply.github.com"'),
    `git push --force origin ${GARDEN_BRANCH}`,
    `open=$(gh pr list ${target} --state open --json url --jq '.[0].url // empty')`,
    'if [ -n "$open" ]; then',
    '  echo "Updated the open pull request $open"',
    "else",
    `  gh pr create ${target} --title "${GARDEN_TITLE}" --body "${GARDEN_DESCRIPTION}"`,
    "fi",
  ];
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
    ...checkoutWithHistory("Check out the repository with its history", ciNodeMajor(null)),
    "      - name: Install CodeAlmanac",
    `        run: ${installCommand(null)}`,
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
 * The first steps of both workflows: the whole history (drift judges a page by the commits
 * since it was verified), then the Node.js that CodeAlmanac and the agent CLI need.
 */
function checkoutWithHistory(name: string, nodeMajor: number): string[] {
  return [
    `      - name: ${name}`,
    "        uses: actions/checkout@v4",
    "        with:",
    "          fetch-depth: 0",
    "      - name: Set up Node.js",
    "        uses: actions/setup-node@v4",
    "        with:",
    `          node-version: ${nodeMajor}`,
  ];
}
