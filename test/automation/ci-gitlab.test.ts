import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import { GITLAB_CI_PATH, GITLAB_TOKEN_VARIABLE, gitlabGardenPipeline } from "../../src/automation/ci-gitlab.js";
import { harnessPackage } from "../../src/automation/ci-steps.js";
import { VERSION } from "../../src/core/version.js";
import { HARNESS_KINDS, HARNESSES } from "../../src/harnesses/catalog.js";
import { ROOT } from "../support/cli.js";
import { expectGitlabKeys } from "./ci-keys.js";

interface Job {
  stage: string;
  image: string;
  rules: { if: string }[];
  variables: Record<string, string>;
  script: string[];
}

const doc = (text: string) => parse(text, { strict: true, uniqueKeys: true }) as { stages: string[]; "codealmanac-garden": Job };

describe("the GitLab CI garden job", () => {
  test("one job, in a stage of its own, for scheduled pipelines only, with the whole history", () => {
    const pipeline = gitlabGardenPipeline("codex");
    expect(pipeline).toMatchObject({ path: GITLAB_CI_PATH, harness: "codex", schedule: "17 3 * * *", secret: "OPENAI_API_KEY", tokenVariable: "CODEALMANAC_GITLAB_TOKEN" });
    expect(GITLAB_CI_PATH).toBe(".gitlab-ci.yml");
    const parsed = doc(pipeline.text);
    expect(Object.keys(parsed)).toEqual(["stages", "codealmanac-garden"]);
    expect(parsed.stages).toEqual(["garden"]);
    const job = parsed["codealmanac-garden"];
    expect(job.stage).toBe("garden");
    expect(job.rules).toEqual([{ if: '$CI_PIPELINE_SOURCE == "schedule"' }]);
    expect(job.variables).toEqual({ GIT_DEPTH: "0" });
    expectGitlabKeys(parsed);
  });

  test("the Node image the agent needs, this CodeAlmanac pinned, the GitHub workflow's garden, then the merge request", () => {
    const codex = doc(gitlabGardenPipeline("codex").text)["codealmanac-garden"];
    const claude = doc(gitlabGardenPipeline("claude").text)["codealmanac-garden"];
    expect([codex.image, claude.image]).toEqual(["node:20", "node:22"]);
    expect(codex.script.map((line) => line.split("\n")[0])).toEqual([
      `npm install -g --allow-scripts=better-sqlite3,@openai/codex codealmanac@${VERSION} @openai/codex`,
      'export CODEALMANAC_HOME="$(mktemp -d)"',
      'mkdir -p "$CODEALMANAC_HOME"',
      'if [ -z "$(git status --porcelain -- almanac)" ]; then',
    ]);
    expect(claude.script[2]).toContain("ca garden --wait --json --using claude\n");
    const propose = codex.script[3]!;
    expect(propose).toContain(`--header "PRIVATE-TOKEN: $${GITLAB_TOKEN_VARIABLE}"`);
    expect(propose).toContain('"$CI_API_V4_URL/projects/$CI_PROJECT_ID/merge_requests"');
  });

  test("what to set up beside the file: the variables, the token's scopes, and the schedule GitLab keeps outside it", () => {
    const notes = gitlabGardenPipeline("claude", "12h").notes;
    expect(notes.join("\n")).toContain("ANTHROPIC_API_KEY and CODEALMANAC_GITLAB_TOKEN");
    expect(notes.join("\n")).toContain("api and write_repository scopes");
    expect(notes.join("\n")).toContain('Build → Pipeline schedules (CI/CD → Schedules) with the interval pattern "17 */12 * * *", cron timezone UTC');
  });
});

describe("the harness catalog's Node versions", () => {
  test("are the ones the installed agent packages declare", () => {
    for (const kind of HARNESS_KINDS) {
      const manifest = JSON.parse(readFileSync(join(ROOT, "node_modules", harnessPackage(kind), "package.json"), "utf8")) as { engines: { node: string } };
      expect(manifest.engines.node, kind).toMatch(new RegExp(`^>=\\s*${HARNESSES[kind].nodeMajor}(\\.0)*$`));
    }
  });
});
