import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { parse } from "yaml";
import { githubDriftWorkflow, githubGardenWorkflow } from "../../src/automation/ci-github.js";
import { BIN, page, sandbox, writeWiki, type Sandbox } from "../support/cli.js";

/**
 * The workflows' shell steps, run as a GitHub runner would run them: in a clone with its
 * whole history, with this build as `ca` on PATH and the `${{ … }}` expressions filled in.
 */
interface Step {
  name: string;
  run?: string;
  shell?: string;
  env?: Record<string, string>;
}

let box: Sandbox;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

/**
 * `ca` is this build, except that `ca garden` only notes its arguments in $GARDEN_CALLS:
 * the garden itself (an agent run) is not what these tests are about.
 */
function caShim(): string {
  const bin = join(box.dir, "shim-bin");
  mkdirSync(bin, { recursive: true });
  const shim = join(bin, "ca");
  writeFileSync(
    shim,
    `#!/bin/sh\nif [ "$1" = garden ]; then printf '%s\\n' "$*" >> "$GARDEN_CALLS"; exit 0; fi\nexec "${process.execPath}" "${BIN}" "$@"\n`,
  );
  chmodSync(shim, 0o755);
  return bin;
}

function git(cwd: string, ...args: string[]): string {
  const result = spawnSync("git", args, { cwd, env: box.env, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
  return result.stdout.trim();
}

/**
 * A repository on GitHub, as the runner's checkout sees it: `main` with a page citing
 * src/queue.ts, and a pull request's branch whose commit edits `prFile`; cloned with its
 * whole history (fetch-depth: 0) and the pull request's branch checked out.
 */
function pullRequest(prFile: string) {
  const seed = join(box.dir, "seed");
  const origin = join(box.dir, "origin.git");
  const write = (root: string, path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  mkdirSync(seed, { recursive: true });
  git(seed, "init", "-q", "-b", "main");
  write(seed, "src/queue.ts", "export const queue = 1;\n");
  write(seed, "src/other.ts", "export const other = 1;\n");
  writeWiki(seed, {
    "arch/queue.md": page({ title: "Queue", topics: ["concepts"], sources: [{ id: "q", type: "file", path: "src/queue.ts" }], body: "# Queue\n\nThe queue [@q]." }),
  });
  git(seed, "add", "-A");
  git(seed, "commit", "-q", "-m", "initial");
  const base = git(seed, "rev-parse", "HEAD");
  git(seed, "switch", "-q", "-c", "feature");
  write(seed, prFile, "// changed by the pull request\n");
  git(seed, "commit", "-q", "-am", "the pull request");
  const head = git(seed, "rev-parse", "HEAD");
  git(box.dir, "init", "-q", "--bare", "-b", "main", origin);
  git(seed, "push", "-q", origin, "main", "feature");
  const checkout = join(box.dir, "checkout");
  git(box.dir, "clone", "-q", origin, checkout);
  git(checkout, "switch", "-q", "feature");
  return { checkout, base, head };
}

/** Runs a step's script the way GitHub does: `shell: bash` is `bash --noprofile --norc -eo pipefail`, the default `bash -e`. */
function runStep(step: Step, cwd: string) {
  const runnerTemp = join(box.dir, "runner-temp");
  mkdirSync(runnerTemp, { recursive: true });
  const expressions: Record<string, string> = { "runner.temp": runnerTemp, "github.base_ref": "main", "secrets.OPENAI_API_KEY": "sk-test" };
  const stepEnv = Object.fromEntries(
    Object.entries(step.env ?? {}).map(([name, value]) => [name, value.replace(/\$\{\{ ([\w.]+) \}\}/g, (_, key: string) => expressions[key]!)]),
  );
  const summary = join(runnerTemp, "step-summary.md");
  const gardenCalls = join(runnerTemp, "garden-calls");
  const script = join(runnerTemp, "step.sh");
  writeFileSync(script, step.run!);
  const shell = step.shell === "bash" ? ["--noprofile", "--norc", "-eo", "pipefail", script] : ["-e", script];
  const result = spawnSync("bash", shell, {
    cwd,
    encoding: "utf8",
    env: {
      PATH: `${caShim()}:${process.env.PATH ?? ""}`,
      HOME: box.home,
      CODEALMANAC_SCHEDULER: "none",
      NO_COLOR: "1",
      GITHUB_STEP_SUMMARY: summary,
      GARDEN_CALLS: gardenCalls,
      ...stepEnv,
    },
  });
  return {
    code: result.status,
    stdout: result.stdout,
    stderr: result.stderr,
    summary: existsSync(summary) ? readFileSync(summary, "utf8") : null,
    gardenCalls: existsSync(gardenCalls) ? readFileSync(gardenCalls, "utf8") : null,
  };
}

const checkStep = (check: "report" | "fail") => {
  const doc = parse(githubDriftWorkflow(check).text) as { jobs: { drift: { steps: Step[] } } };
  return doc.jobs.drift.steps.find((s) => s.run?.includes("ca drift"))!;
};
const gardenStep = () => {
  const doc = parse(githubGardenWorkflow("codex").text) as { jobs: { garden: { steps: Step[] } } };
  return doc.jobs.garden.steps.find((s) => s.name === "Garden the wiki")!;
};
const short = (sha: string) => sha.slice(0, 10);

describe("the pull-request drift check, run", () => {
  test("lists the page whose cited file the pull request changed in the job summary, and passes when only reporting", () => {
    const pr = pullRequest("src/queue.ts");
    const result = runStep(checkStep("report"), pr.checkout);
    expect(result.code, result.stderr).toBe(0);
    expect(result.summary).toBe(
      [
        "## CodeAlmanac drift",
        "",
        `**1 stale, 0 moved** of the 1 page citing files changed since the merge base with \`origin/main\` at \`${short(pr.head)}\`.`,
        "",
        `- **stale** \`arch/queue\` (verified at \`${short(pr.base)}\`)`,
        `  - \`src/queue.ts\` changed in 1 commit since verified: \`${short(pr.head)}\``,
        "",
      ].join("\n"),
    );
    // tee: the job log shows the same list.
    expect(result.stdout).toBe(result.summary);
  });

  test("with --drift-check fail, the same summary and a failing step", () => {
    const pr = pullRequest("src/queue.ts");
    const result = runStep(checkStep("fail"), pr.checkout);
    expect(result.code).toBe(1);
    expect(result.summary).toContain(`- **stale** \`arch/queue\``);
  });

  test("a pull request that changes no cited file: no drift in the summary, and the step passes even when it may fail", () => {
    const pr = pullRequest("src/other.ts");
    const result = runStep(checkStep("fail"), pr.checkout);
    expect(result.code, result.stderr).toBe(0);
    expect(result.summary).toBe(`## CodeAlmanac drift\n\nNo drift at \`${short(pr.head)}\`: no page cites a file changed since the merge base with \`origin/main\`.\n`);
  });
});

describe("the scheduled garden workflow's garden step, run", () => {
  test("gardens the stale pages when drift finds some", () => {
    const pr = pullRequest("src/queue.ts");
    const result = runStep(gardenStep(), pr.checkout);
    expect(result.code, result.stderr).toBe(0);
    expect(result.gardenCalls).toBe("garden --stale --wait --json --using codex\n");
  });

  test("gardens the whole wiki when no page is stale", () => {
    const pr = pullRequest("src/other.ts");
    const result = runStep(gardenStep(), pr.checkout);
    expect(result.code, result.stderr).toBe(0);
    expect(result.gardenCalls).toBe("garden --wait --json --using codex\n");
  });

  test("gardens the whole wiki when drift fails", () => {
    // No wiki here: `ca drift` exits 1 with an error, which counts as no stale page.
    const empty = join(box.dir, "no-wiki");
    mkdirSync(empty);
    const result = runStep(gardenStep(), empty);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('"code":"repository_not_selected"');
    expect(result.gardenCalls).toBe("garden --wait --json --using codex\n");
  });
});
