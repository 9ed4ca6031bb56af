import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import { githubGardenWorkflow, githubSchedule, GITHUB_WORKFLOW_PATH } from "../../src/automation/ci-github.js";

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
        "ca garden --wait --json --using codex\n",
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
