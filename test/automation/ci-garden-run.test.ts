/**
 * The garden CI files, run end to end as each provider's runner would run them: every shell
 * step (GitHub) or script line (GitLab) of the generated YAML, in a clone of a bare remote,
 * with this build as `ca`/`codealmanac` in place of the npm install, the fake Codex (and, for one GitHub run, the fake Claude) as the
 * agent, the fake `gh` for GitHub and a stand-in for GitLab's merge-request API (the job
 * calls it with curl). What must come out: a branch pushed to the remote with the garden's
 * change, and the pull or merge request opened, or nothing when the garden changed nothing.
 */
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { parse } from "yaml";
import { githubGardenWorkflow } from "../../src/automation/ci-github.js";
import { gitlabGardenPipeline } from "../../src/automation/ci-gitlab.js";
import { BIN, FAKE_BIN, page, sandbox, writeWiki, type Sandbox } from "../support/cli.js";

let box: Sandbox;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => {
  killRunnerProcesses(box.dir);
  box.cleanup();
});

/**
 * The garden's queue lives under the runner's state root (inside this sandbox, but not its
 * CODEALMANAC_HOME), so its worker is stopped here if it has not exited yet.
 */
function killRunnerProcesses(under: string): void {
  if (process.platform !== "linux") return;
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const env = readFileSync(`/proc/${name}/environ`, "utf8").split("\0");
      if (env.some((entry) => entry.startsWith(`CODEALMANAC_HOME=${under}/`))) process.kill(Number(name), "SIGKILL");
    } catch {
      // gone, or not ours to read
    }
  }
}

const QUEUE_PAGE = (body: string) =>
  page({ title: "Queue", summary: "The run queue", topics: ["concepts"], sources: [{ id: "q", type: "file", path: "src/queue.ts" }], body: `# Queue\n\n${body} [@q].` });
const GARDENED = QUEUE_PAGE("The queue runs first in, first out");

function git(cwd: string, ...args: string[]): string {
  const result = spawnSync("git", args, { cwd, env: { ...box.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@x", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@x" }, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
  return result.stdout.trim();
}

/** A project on the provider: `main` with a wiki, as a bare remote, and the runner's clone of it. */
function project(options: { detached: boolean }) {
  const seed = join(box.dir, "seed");
  const origin = join(box.dir, "origin.git");
  mkdirSync(join(seed, "src"), { recursive: true });
  writeFileSync(join(seed, "src", "queue.ts"), "export const queue = 1;\n");
  writeWiki(seed, { "arch/queue.md": QUEUE_PAGE("The queue") });
  git(seed, "init", "-q", "-b", "main");
  git(seed, "add", "-A");
  git(seed, "commit", "-q", "-m", "initial");
  git(box.dir, "init", "-q", "--bare", "-b", "main", origin);
  git(seed, "push", "-q", origin, "main");
  const checkout = join(box.dir, "checkout");
  git(box.dir, "clone", "-q", origin, checkout);
  // GitLab's runner checks out the pipeline's commit, detached; actions/checkout the branch.
  if (options.detached) git(checkout, "checkout", "-q", "--detach");
  return { origin, checkout, main: git(origin, "rev-parse", "main") };
}

/** `ca` and `codealmanac` as the npm install would put them on PATH: this build. */
function installedCli(): string {
  const bin = join(box.dir, "npm-global-bin");
  mkdirSync(bin, { recursive: true });
  for (const name of ["ca", "codealmanac"]) {
    writeFileSync(join(bin, name), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(join(bin, name), 0o755);
  }
  return bin;
}

/**
 * What every runner gives a job here: a HOME without a git identity (the job sets its own),
 * this build and the fakes on PATH, a TMPDIR inside the sandbox, and the fake Codex's edit.
 */
function runnerEnv(agentWrites: Record<string, string>): NodeJS.ProcessEnv {
  const home = join(box.dir, "runner-home");
  const tmp = join(box.dir, "runner-tmp");
  mkdirSync(home, { recursive: true });
  mkdirSync(tmp, { recursive: true });
  return {
    PATH: `${installedCli()}:${FAKE_BIN}:${process.env.PATH ?? ""}`,
    HOME: home,
    TMPDIR: tmp,
    CI: "true",
    NO_COLOR: "1",
    CODEALMANAC_SCHEDULER: "none",
    GIT_CONFIG_NOSYSTEM: "1",
    FAKE_CODEX_WRITE_FILES: JSON.stringify(agentWrites),
    FAKE_CLAUDE_WRITE_FILES: JSON.stringify(agentWrites),
  };
}

interface Shell {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a script as a runner does (`bash -e`, or with `-o pipefail`), without blocking the stand-in server. */
function bash(script: string, options: { cwd: string; env: NodeJS.ProcessEnv; pipefail: boolean }): Promise<Shell> {
  const file = join(box.dir, `step-${Math.random().toString(36).slice(2)}.sh`);
  writeFileSync(file, script);
  const args = options.pipefail ? ["--noprofile", "--norc", "-eo", "pipefail", file] : ["-e", file];
  return new Promise((resolve) => {
    const child = spawn("bash", args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** The garden branch as the remote has it: its commit's author and message, and what it changed. */
function pushedBranch(origin: string) {
  if (git(origin, "branch", "--list", "codealmanac/garden") === "") return null;
  const ref = "codealmanac/garden";
  return {
    parent: git(origin, "rev-parse", `${ref}^`),
    author: git(origin, "log", "-1", "--format=%an <%ae>", ref),
    subject: git(origin, "log", "-1", "--format=%s", ref),
    files: git(origin, "diff", "--name-only", "main", ref).split("\n"),
    /** The agent's text, with the evidence stamp the product writes after a run. */
    page: git(origin, "show", `${ref}:almanac/arch/queue.md`).includes("The queue runs first in, first out [@q]."),
    stamp: /verified_at: ([0-9a-f]{40})/.exec(git(origin, "show", `${ref}:almanac/arch/queue.md`))?.[1] ?? null,
  };
}

describe("the GitHub garden workflow, run", () => {
  interface Step {
    name: string;
    uses?: string;
    run?: string;
    shell?: string;
    env?: Record<string, string>;
  }

  /** Every step but the actions and the npm install, each in a shell of its own, with `${{ … }}` filled in. */
  async function runWorkflow(extraEnv: NodeJS.ProcessEnv = {}, harness: "codex" | "claude" = "codex") {
    const repo = project({ detached: false });
    const runnerTemp = join(box.dir, "runner-temp");
    mkdirSync(runnerTemp, { recursive: true });
    const ghLog = join(box.dir, "gh.log");
    const expressions: Record<string, string> = {
      "runner.temp": runnerTemp,
      "secrets.OPENAI_API_KEY": "sk-test",
      "secrets.ANTHROPIC_API_KEY": "sk-ant-test",
      "github.token": "ghs_jobtoken",
      "github.ref_name": "main",
    };
    const fill = (value: string) =>
      value.replace(/\$\{\{ ([\w.]+) \}\}/g, (_, key: string) => {
        if (!(key in expressions)) throw new Error(`no value for the expression ${key}`);
        return expressions[key]!;
      });
    const env = {
      ...runnerEnv({ "almanac/arch/queue.md": GARDENED }),
      GITHUB_ACTIONS: "true",
      GITHUB_REPOSITORY: "acme/widgets",
      GITHUB_REF_NAME: "main",
      GITHUB_WORKSPACE: repo.checkout,
      RUNNER_TEMP: runnerTemp,
      GITHUB_STEP_SUMMARY: join(runnerTemp, "summary.md"),
      FAKE_GH_LOG: ghLog,
      ...extraEnv,
    };
    const doc = parse(githubGardenWorkflow(harness).text) as { jobs: { garden: { steps: Step[] } } };
    const steps = doc.jobs.garden.steps.filter((step) => step.run !== undefined && !step.run.startsWith("npm install -g "));
    expect(steps.map((s) => s.name)).toEqual(["Garden the wiki", "Propose the changes as a pull request"]);
    const results: Shell[] = [];
    for (const step of steps) {
      const stepEnv = Object.fromEntries(Object.entries(step.env ?? {}).map(([name, value]) => [name, fill(value)]));
      const result = await bash(step.run!, { cwd: repo.checkout, env: { ...env, ...stepEnv }, pipefail: step.shell === "bash" });
      results.push(result);
      if (result.code !== 0) break;
    }
    const gh = existsSync(ghLog)
      ? readFileSync(ghLog, "utf8").trim().split("\n").map((line) => JSON.parse(line) as { argv: string[]; env: { GH_TOKEN: string | null } })
      : [];
    return { repo, results, gh };
  }

  test("gardens, pushes the garden branch with the change under almanac/, and opens the pull request with gh and the job's token", async () => {
    const { repo, results, gh } = await runWorkflow();
    expect(results.map((r) => r.code), results.map((r) => r.stderr).join("\n")).toEqual([0, 0]);
    expect(results[0]!.stdout).toContain('"status": "done"');
    expect(pushedBranch(repo.origin)).toEqual({
      parent: repo.main,
      author: "github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>",
      subject: "almanac: garden the wiki",
      files: ["almanac/arch/queue.md"],
      page: true,
      stamp: repo.main,
    });
    const head = ["--repo", "acme/widgets", "--head", "codealmanac/garden", "--base", "main"];
    expect(gh.map((call) => call.argv)).toEqual([
      ["pr", "list", ...head, "--state", "open", "--json", "url", "--jq", ".[0].url // empty"],
      ["pr", "create", ...head, "--title", "CodeAlmanac: garden the wiki", "--body", "Changes proposed by the scheduled CodeAlmanac garden."],
    ]);
    expect(gh.map((call) => call.env.GH_TOKEN)).toEqual(["ghs_jobtoken", "ghs_jobtoken"]);
    expect(results[1]!.stdout).toContain("https://github.com/acme/widgets/pull/1");
  });

  test("with Claude as the agent, the same steps garden, push and open the pull request", async () => {
    const { repo, results, gh } = await runWorkflow({}, "claude");
    expect(results.map((r) => r.code), results.map((r) => r.stderr).join("\n")).toEqual([0, 0]);
    expect(results[0]!.stdout).toContain('"status": "done"');
    expect((JSON.parse(results[0]!.stdout) as { harness_transcript: { kind: string } }).harness_transcript.kind).toBe("claude");
    expect(pushedBranch(repo.origin)).toMatchObject({ parent: repo.main, files: ["almanac/arch/queue.md"], page: true, stamp: repo.main });
    expect(gh.map((call) => call.argv.slice(0, 2))).toEqual([["pr", "list"], ["pr", "create"]]);
  });

  test("with a garden pull request already open, the push updates it and no second one is opened", async () => {
    const { repo, results, gh } = await runWorkflow({ FAKE_GH_OPEN_PR: "https://github.com/acme/widgets/pull/7" });
    expect(results.map((r) => r.code), results.map((r) => r.stderr).join("\n")).toEqual([0, 0]);
    expect(pushedBranch(repo.origin)?.files).toEqual(["almanac/arch/queue.md"]);
    expect(gh.map((call) => call.argv.slice(0, 2))).toEqual([["pr", "list"]]);
    expect(results[1]!.stdout).toContain("Updated the open pull request https://github.com/acme/widgets/pull/7\n");
  });

  test("a garden that changes nothing pushes nothing and opens nothing", async () => {
    const { repo, results, gh } = await runWorkflow({ FAKE_CODEX_WRITE_FILES: "{}" });
    expect(results.map((r) => r.code), results.map((r) => r.stderr).join("\n")).toEqual([0, 0]);
    expect(results[1]!.stdout).toBe("The garden changed nothing under almanac/: nothing to propose.\n");
    expect(pushedBranch(repo.origin)).toBeNull();
    expect(gh).toEqual([]);
  });
});

describe("the GitLab garden job, run", () => {
  interface Request {
    method: string;
    url: string;
    token: string | null;
    form: Record<string, string>;
  }

  /** GitLab's merge-request endpoint, as far as the job uses it: it records each request and answers `status`. */
  async function mergeRequestApi(status: number): Promise<{ url: string; requests: Request[]; server: Server }> {
    const requests: Request[] = [];
    const server = createServer((req: IncomingMessage, res) => {
      let body = "";
      req.on("data", (d) => (body += d));
      req.on("end", () => {
        const token = req.headers["private-token"];
        requests.push({ method: req.method!, url: req.url!, token: typeof token === "string" ? token : null, form: Object.fromEntries(new URLSearchParams(body)) });
        res.writeHead(status, { "content-type": "application/json" });
        res.end(status === 201 ? '{"iid":1,"web_url":"https://gitlab.example.test/acme/widgets/-/merge_requests/1"}' : '{"message":["refused"]}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v4`, requests, server };
  }

  /** The job's script after its npm install, as one `bash -eo pipefail` script, as the runner runs it. */
  async function runJob(options: { apiStatus?: number; agentWrites?: Record<string, string> } = {}) {
    const repo = project({ detached: true });
    const api = await mergeRequestApi(options.apiStatus ?? 201);
    const pushUrl = "https://oauth2:glpat-projecttoken@gitlab.example.test/acme/widgets.git";
    const env = {
      ...runnerEnv(options.agentWrites ?? { "almanac/arch/queue.md": GARDENED }),
      GITLAB_CI: "true",
      CI_PIPELINE_SOURCE: "schedule",
      CI_PROJECT_ID: "42",
      CI_PROJECT_PATH: "acme/widgets",
      CI_PROJECT_DIR: repo.checkout,
      CI_SERVER_URL: "https://gitlab.example.test",
      CI_API_V4_URL: api.url,
      CI_COMMIT_BRANCH: "main",
      GITLAB_USER_NAME: "Schedule Owner",
      GITLAB_USER_EMAIL: "owner@example.test",
      // The project's CI/CD variables.
      CODEALMANAC_GITLAB_TOKEN: "glpat-projecttoken",
      OPENAI_API_KEY: "sk-test",
      // The remote behind the push URL the job builds is the bare repository here.
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: `url.${repo.origin}.insteadOf`,
      GIT_CONFIG_VALUE_0: pushUrl,
    };
    try {
      const doc = parse(gitlabGardenPipeline("codex").text) as Record<string, { script?: string[] }>;
      const script = doc["codealmanac-garden"]!.script!;
      expect(script[0]).toMatch(/^npm install -g --allow-scripts=better-sqlite3\S* codealmanac@/);
      const result = await bash(script.slice(1).join("\n"), { cwd: repo.checkout, env, pipefail: true });
      return { repo, result, requests: api.requests };
    } finally {
      await new Promise((resolve) => api.server.close(resolve));
    }
  }

  test("gardens, pushes the garden branch with the project token, and opens the merge request through the API", async () => {
    const { repo, result, requests } = await runJob();
    expect(result.code, result.stderr).toBe(0);
    expect(pushedBranch(repo.origin)).toEqual({
      parent: repo.main,
      author: "Schedule Owner <owner@example.test>",
      subject: "almanac: garden the wiki",
      files: ["almanac/arch/queue.md"],
      page: true,
      stamp: repo.main,
    });
    expect(requests).toEqual([
      {
        method: "POST",
        url: "/api/v4/projects/42/merge_requests",
        token: "glpat-projecttoken",
        form: {
          source_branch: "codealmanac/garden",
          target_branch: "main",
          title: "CodeAlmanac: garden the wiki",
          description: "Changes proposed by the scheduled CodeAlmanac garden.",
          remove_source_branch: "true",
        },
      },
    ]);
    expect(result.stdout).toContain("Opened a merge request from codealmanac/garden.\n");
    expect(result.stdout + result.stderr).not.toContain("glpat-projecttoken");
  });

  test("with a garden merge request already open (409), the push has updated it and the job passes", async () => {
    const { repo, result, requests } = await runJob({ apiStatus: 409 });
    expect(result.code, result.stderr).toBe(0);
    expect(pushedBranch(repo.origin)?.files).toEqual(["almanac/arch/queue.md"]);
    expect(requests).toHaveLength(1);
    expect(result.stdout).toContain("Updated the open merge request from codealmanac/garden.\n");
  });

  test("a refused merge request fails the job with GitLab's answer", async () => {
    const { result } = await runJob({ apiStatus: 403 });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('GitLab refused the merge request (HTTP 403):\n{"message":["refused"]}');
  });

  test("a garden that changes nothing pushes nothing and calls no API", async () => {
    const { repo, result, requests } = await runJob({ agentWrites: {} });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("The garden changed nothing under almanac/: nothing to propose.\n");
    expect(pushedBranch(repo.origin)).toBeNull();
    expect(requests).toEqual([]);
  });
});
