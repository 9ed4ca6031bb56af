import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import { GITHUB_DRIFT_WORKFLOW_PATH, githubDriftWorkflow, githubGardenWorkflow, GITHUB_WORKFLOW_PATH } from "../../src/automation/ci-github.js";
import { VERSION } from "../../src/core/version.js";
import { expectGithubKeys } from "./ci-keys.js";

interface Step {
  name: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}

function parsed(text: string) {
  return parse(text, { strict: true, uniqueKeys: true }) as {
    name: string;
    on: { schedule: { cron: string }[]; workflow_dispatch: null };
    permissions: Record<string, string>;
    jobs: { garden: { "runs-on": string; steps: Step[] } };
  };
}

describe("the GitHub Actions garden workflow", () => {
  test("runs on a schedule and on demand, may write contents and pull requests", () => {
    const workflow = githubGardenWorkflow("codex");
    expect(workflow).toMatchObject({ path: GITHUB_WORKFLOW_PATH, harness: "codex", schedule: "17 3 * * *", secret: "OPENAI_API_KEY" });
    const doc = parsed(workflow.text);
    expect(doc.name).toBe("CodeAlmanac garden");
    expect(doc.on).toEqual({ schedule: [{ cron: "17 3 * * *" }], workflow_dispatch: null });
    expect(doc.permissions).toEqual({ contents: "write", "pull-requests": "write" });
    expect(doc.jobs.garden["runs-on"]).toBe("ubuntu-latest");
  });

  test("checks out, sets up Node 20 for Codex, installs this CodeAlmanac and the agent, gardens with a temporary state root, and proposes with gh", () => {
    const steps = parsed(githubGardenWorkflow("codex").text).jobs.garden.steps;
    expect(steps.map((s) => s.uses ?? s.run!.split("\n")[0])).toEqual([
      "actions/checkout@v4",
      "actions/setup-node@v4",
      `npm install -g --allow-scripts=better-sqlite3,@openai/codex codealmanac@${VERSION} @openai/codex`,
      'mkdir -p "$CODEALMANAC_HOME"',
      'if [ -z "$(git status --porcelain -- almanac)" ]; then',
    ]);
    expect(steps[1]!.with).toEqual({ "node-version": 20 });
    const garden = steps[3]!;
    expect(garden.env).toEqual({ CODEALMANAC_HOME: "${{ runner.temp }}/codealmanac", OPENAI_API_KEY: "${{ secrets.OPENAI_API_KEY }}" });
    expect(garden.run).toBe(
      'mkdir -p "$CODEALMANAC_HOME"\n' +
        "# Leave the changes uncommitted: the proposal commits them on its own branch.\n" +
        "printf 'auto_commit = false\\n' > \"$CODEALMANAC_HOME/config.toml\"\n" +
        "# Pages whose cited code changed get a garden of their own, else the wiki as a whole\n" +
        "# (a drift that cannot be computed counts as none).\n" +
        "drift=$(ca drift --json || true)\n" +
        "if grep -q '\"status\": *\"stale\"' <<< \"$drift\"; then\n" +
        "  ca garden --stale --wait --json --using codex\n" +
        "else\n" +
        "  ca garden --wait --json --using codex\n" +
        "fi\n",
    );
  });

  test("proposes with gh and the job's token, never a third-party action, and never splices an expression into a script", () => {
    const steps = parsed(githubGardenWorkflow("codex").text).jobs.garden.steps;
    expect(steps.flatMap((s) => (s.uses ? [s.uses] : []))).toEqual(["actions/checkout@v4", "actions/setup-node@v4"]);
    const propose = steps[4]!;
    expect(propose.env).toEqual({ GH_TOKEN: "${{ github.token }}", BASE_BRANCH: "${{ github.ref_name }}" });
    expect(propose.run).toContain("git push --force origin codealmanac/garden\n");
    expect(propose.run).toContain('gh pr create --repo "$GITHUB_REPOSITORY" --head codealmanac/garden --base "$BASE_BRANCH" --title "CodeAlmanac: garden the wiki"');
    for (const step of steps) expect(step.run ?? "").not.toContain("${{");
  });

  test("uses only the keys GitHub documents for a workflow, its jobs and their steps", () => {
    expectGithubKeys(parse(githubGardenWorkflow("claude").text));
    expectGithubKeys(parse(githubDriftWorkflow("fail").text));
  });

  test("with Claude: its package, ANTHROPIC_API_KEY, and Node 22, which its CLI declares", () => {
    const workflow = githubGardenWorkflow("claude", "6h");
    const steps = parsed(workflow.text).jobs.garden.steps;
    expect(workflow.secret).toBe("ANTHROPIC_API_KEY");
    expect(steps[1]!.with).toEqual({ "node-version": 22 });
    expect(steps[2]!.run).toBe(`npm install -g --allow-scripts=better-sqlite3,@anthropic-ai/claude-code codealmanac@${VERSION} @anthropic-ai/claude-code`);
    expect(steps[3]!.env!.ANTHROPIC_API_KEY).toBe("${{ secrets.ANTHROPIC_API_KEY }}");
    expect(steps[3]!.run).toContain("ca garden --wait --json --using claude\n");
    expect(parsed(workflow.text).on.schedule).toEqual([{ cron: "17 */6 * * *" }]);
  });

  test("--every 7d is weekly, not days 1, 8, 15, 22 and 29 of the month", () => {
    expect(parsed(githubGardenWorkflow("codex", "7d").text).on.schedule).toEqual([{ cron: "17 3 * * 1" }]);
    expect(() => githubGardenWorkflow("codex", "2d")).toThrow('invalid --every "2d": GitHub\'s cron cannot run every 2d evenly; nearest: 1d, 7d');
  });
});

describe("the garden workflow and drift", () => {
  test("checks out the whole history, which drift reads", () => {
    const steps = parsed(githubGardenWorkflow("codex").text).jobs.garden.steps;
    expect(steps[0]).toEqual({ name: "Check out the repository", uses: "actions/checkout@v4", with: { "fetch-depth": 0 } });
  });
});

interface DriftDoc {
  name: string;
  on: Record<string, unknown>;
  permissions: Record<string, string>;
  concurrency: Record<string, unknown>;
  jobs: Record<string, { "runs-on": string; "timeout-minutes": number; steps: (Step & { shell?: string })[] }>;
}

describe("the GitHub Actions drift check", () => {
  const doc = (check: "report" | "fail") => parse(githubDriftWorkflow(check).text, { strict: true, uniqueKeys: true }) as DriftDoc;

  test("runs on pull requests only, may only read the repository, and one run per branch at a time", () => {
    const workflow = githubDriftWorkflow("report");
    expect(workflow).toMatchObject({ path: GITHUB_DRIFT_WORKFLOW_PATH, failOn: null });
    expect(GITHUB_DRIFT_WORKFLOW_PATH).toBe(".github/workflows/codealmanac-drift.yml");
    const parsedDoc = doc("report");
    expect(parsedDoc.name).toBe("CodeAlmanac drift");
    expect(parsedDoc.on).toEqual({ pull_request: null });
    expect(parsedDoc.permissions).toEqual({ contents: "read" });
    expect(parsedDoc.concurrency).toEqual({ group: "codealmanac-drift-${{ github.ref }}", "cancel-in-progress": true });
    expect(Object.keys(parsedDoc.jobs)).toEqual(["drift"]);
    expect(parsedDoc.jobs.drift!["runs-on"]).toBe("ubuntu-latest");
  });

  test("checks out the whole history, installs CodeAlmanac as the garden does, and appends drift against the target branch to the job summary", () => {
    const steps = doc("report").jobs.drift!.steps;
    expect(steps.map((s) => s.uses ?? s.run!.split("\n")[0])).toEqual([
      "actions/checkout@v4",
      "actions/setup-node@v4",
      `npm install -g --allow-scripts=better-sqlite3 codealmanac@${VERSION}`,
      'ca drift --base "origin/$BASE_REF" --markdown | tee -a "$GITHUB_STEP_SUMMARY"',
    ]);
    expect(steps[0]!.with).toEqual({ "fetch-depth": 0 });
    expect(steps[1]!.with).toEqual(parsed(githubGardenWorkflow("codex").text).jobs.garden.steps[1]!.with);
    const check = steps[3]!;
    // bash as GitHub runs `shell: bash`: -o pipefail, so drift's exit code is the step's, not tee's.
    expect(check.shell).toBe("bash");
    expect(check.env).toEqual({ CODEALMANAC_HOME: "${{ runner.temp }}/codealmanac", BASE_REF: "${{ github.base_ref }}" });
    expect(check.run).not.toContain("${{");
  });

  test("fails on stale pages only when asked", () => {
    expect(githubDriftWorkflow("fail").failOn).toBe("stale");
    expect(doc("fail").jobs.drift!.steps[3]!.run).toBe('ca drift --base "origin/$BASE_REF" --markdown --fail-on stale | tee -a "$GITHUB_STEP_SUMMARY"\n');
    expect(doc("report").jobs.drift!.steps[3]!.run).not.toContain("--fail-on");
  });
});
