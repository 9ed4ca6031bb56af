import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import { GITHUB_DRIFT_WORKFLOW_PATH, githubDriftWorkflow, githubGardenWorkflow, githubSchedule, GITHUB_WORKFLOW_PATH } from "../../src/automation/ci-github.js";

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

  test("checks out, sets up Node 20, installs both CLIs, gardens with a temporary state root, and opens a pull request", () => {
    const steps = parsed(githubGardenWorkflow("codex").text).jobs.garden.steps;
    expect(steps.map((s) => s.uses ?? s.run!.split("\n")[0])).toEqual([
      "actions/checkout@v4",
      "actions/setup-node@v4",
      "npm install -g codealmanac @openai/codex",
      'mkdir -p "$CODEALMANAC_HOME"',
      "peter-evans/create-pull-request@v7",
    ]);
    expect(steps[1]!.with).toEqual({ "node-version": 20 });
    const garden = steps[3]!;
    expect(garden.env).toEqual({ CODEALMANAC_HOME: "${{ runner.temp }}/codealmanac", OPENAI_API_KEY: "${{ secrets.OPENAI_API_KEY }}" });
    expect(garden.run).toBe(
      'mkdir -p "$CODEALMANAC_HOME"\n' +
        "# Leave the changes uncommitted: the next step commits them on the pull request's branch.\n" +
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
    expect(steps[4]!.with).toEqual({
      "add-paths": "almanac/**",
      branch: "codealmanac/garden",
      "delete-branch": true,
      "commit-message": "almanac: garden the wiki",
      title: "CodeAlmanac: garden the wiki",
      body: "Changes proposed by the scheduled `ca garden` workflow.",
    });
  });

  test("with Claude: its package and ANTHROPIC_API_KEY", () => {
    const workflow = githubGardenWorkflow("claude", "6h");
    const steps = parsed(workflow.text).jobs.garden.steps;
    expect(workflow.secret).toBe("ANTHROPIC_API_KEY");
    expect(steps[2]!.run).toBe("npm install -g codealmanac @anthropic-ai/claude-code");
    expect(steps[3]!.env!.ANTHROPIC_API_KEY).toBe("${{ secrets.ANTHROPIC_API_KEY }}");
    expect(steps[3]!.run).toContain("ca garden --wait --json --using claude\n");
    expect(parsed(workflow.text).on.schedule).toEqual([{ cron: "17 */6 * * *" }]);
  });

  test("--every takes a cron expression or a duration GitHub's cron can express", () => {
    expect(githubSchedule("0  9 * * 1-5")).toBe("0 9 * * 1-5");
    expect(githubSchedule("30m")).toBe("*/30 * * * *");
    expect(githubSchedule("1h")).toBe("17 * * * *");
    expect(githubSchedule("12h")).toBe("17 */12 * * *");
    expect(githubSchedule("1d")).toBe("17 3 * * *");
    expect(githubSchedule("2d")).toBe("17 3 */2 * *");
    expect(() => githubSchedule("90m")).toThrow('invalid --every "90m": GitHub schedules run every 5 to 59 minutes, whole hours or whole days');
    expect(() => githubSchedule("1m")).toThrow("GitHub schedules run every 5 to 59 minutes");
    expect(() => githubSchedule("soon")).toThrow('invalid --every "soon": expected a duration such as 24h or a cron expression');
    expect(() => githubSchedule('0 3 * * ";rm"')).toThrow("not a cron expression");
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
      "npm install -g codealmanac",
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
