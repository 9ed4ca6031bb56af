/**
 * The secret gate before the product's commit, through the whole queue with the fake claude
 * writing pages: a secret fails the run with `secret_found` and nothing is committed or staged,
 * the page stays in the working tree, `jobs show` names the file, line and kind, and the secret
 * itself reaches no file under the state root, no ledger row and no command's output.
 */
import Database from "better-sqlite3";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { generator } from "../privacy/corpus.js";
import { filesHolding } from "../privacy/leaks.js";
import { commitAll, page, sandbox, writeWiki, type RunOptions, type RunResult, type Sandbox } from "../support/cli.js";
import { checkAndCleanUpAfterEach, type JobRecord } from "./support.js";
import { getJson, startViewer } from "../viewer/support.js";

let box: Sandbox;
checkAndCleanUpAfterEach(() => box);

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** Made-up secrets in their real shapes, generated here so none is written in the repository. */
function secrets(seed: number) {
  const { pick } = generator(seed);
  return { github: `ghp_${pick(ALNUM, 36)}`, aws: `AKIA${pick("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)}` };
}

type Gated = JobRecord & { secret_findings: { file: string; line: number; kind: string }[] | null };

/** Every command's output, so the test can say that none of them printed a secret. */
const outputs: string[] = [];
function ca(args: string[], options?: RunOptions): RunResult {
  const result = box.run(args, options);
  outputs.push(result.stdout, result.stderr);
  return result;
}

function git(root: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd: root, encoding: "utf8", env: box.env });
}

function gitRepo(): string {
  const root = writeWiki(join(box.dir, "repo"), {
    "concepts/queue.md": page({ title: "Queue", summary: "The run queue", topics: ["concepts"], sources: [], body: "# Queue\n\nFirst in, first out." }),
  });
  mkdirSync(join(root, "src"));
  writeFileSync(join(root, "src", "app.ts"), "export const app = 1;\n");
  return commitAll(root);
}

/** The 1-based line of `text` that holds `needle`. */
function lineOf(text: string, needle: string): number {
  return text.split("\n").findIndex((line) => line.includes(needle)) + 1;
}

/** Every row of the ledger (runs and their events) as text. */
function ledgerRows(): string {
  const db = new Database(join(box.state, "codealmanac.db"), { readonly: true, fileMustExist: true });
  try {
    return JSON.stringify([db.prepare("SELECT * FROM runs").all(), db.prepare("SELECT * FROM run_events").all()]);
  } finally {
    db.close();
  }
}

/** What `jobs show`, `jobs logs` and `jobs` print of the run, in text and JSON, all kept in `outputs`. */
function readEverything(runId: string): { text: string; json: Gated } {
  const text = ca(["jobs", "show", runId]).stdout;
  const json = ca(["jobs", "show", runId, "--json"]).json<Gated>();
  ca(["jobs", "logs", runId]);
  ca(["jobs", "logs", runId, "--json"]);
  ca(["jobs", "--json"]);
  return { text, json };
}

function expectNoLeak(found: string[]): void {
  expect(outputs.filter((output) => found.some((secret) => output.includes(secret)))).toEqual([]);
  expect(filesHolding(found, [], [box.state])).toEqual([]);
  const rows = ledgerRows();
  expect(found.filter((secret) => rows.includes(secret))).toEqual([]);
}

describe("the secret gate before the product's commit", () => {
  test("a new page with secrets: the run fails with secret_found, nothing is committed or staged, and the secret is nowhere but the page", async () => {
    box = sandbox();
    outputs.length = 0;
    const root = gitRepo();
    const start = git(root, "rev-parse", "HEAD").trim();
    const { github, aws } = secrets(11);
    const content = page({
      title: "Deploy",
      summary: "How CI deploys",
      topics: ["concepts"],
      sources: [],
      body: `# Deploy\n\nThe CI pushes with ${github} today.\n\nThe bucket is read with the key ${aws} and nothing else.`,
    });
    const result = ca(["ingest", "src/app.ts", "--using", "claude", "--wait", "--json"], {
      cwd: root,
      // The agent's final answer repeats a secret: the run's summary and its events must not.
      env: { FAKE_CLAUDE_WRITE_FILES: JSON.stringify({ "almanac/concepts/deploy.md": content }), FAKE_CLAUDE_RESULT_TEXT: `Documented the deploy token ${github}` },
    });
    expect(result.code).toBe(1);
    const record = result.json<Gated>();
    const file = "almanac/concepts/deploy.md";
    const findings = [
      { file, line: lineOf(content, github), kind: "github-token" },
      { file, line: lineOf(content, aws), kind: "aws-access-key" },
    ];
    expect(record).toMatchObject({ status: "failed", failure_category: "secret_found", wiki_commit: null, secret_findings: findings });
    expect(record.error).toContain(`2 secrets found in the wiki: ${file} line ${findings[0]!.line} (github-token), ${file} line ${findings[1]!.line} (aws-access-key); nothing was committed.`);
    expect(record.error).toContain(`codealmanac jobs retry ${record.run_id}`);

    // Nothing committed, nothing staged; the page is in the working tree as the agent wrote it.
    expect(git(root, "rev-parse", "HEAD").trim()).toBe(start);
    expect(git(root, "diff", "--cached", "--name-only").trim()).toBe("");
    expect(git(root, "status", "--porcelain").trim()).toBe("?? almanac/concepts/deploy.md");
    expect(readFileSync(join(root, file), "utf8")).toBe(content);

    const { text, json } = readEverything(record.run_id);
    expect(json).toMatchObject({ status: "failed", failure_category: "secret_found", secret_findings: findings });
    expect(text).toContain("secrets:    2 secrets found in the wiki; nothing was committed\n");
    expect(text).toContain(`  ! ${file} line ${findings[0]!.line} (github-token)\n`);
    expect(text).toContain(`  ! ${file} line ${findings[1]!.line} (aws-access-key)\n`);
    expect(text).toMatch(/error: +2 secrets found in the wiki: .*Fix: edit the page to remove the secret, then commit it yourself or run `codealmanac jobs retry \S+` \(secret_found\)\n/);
    // What the agent wrote and said is in the ledger redacted, not dropped.
    expect(ca(["jobs", "logs", record.run_id]).stdout).toContain("Documented the deploy token [redacted: github-token]");

    // The viewer's run view names them too, and its JSON (run and transcript steps) holds no secret.
    const viewer = await startViewer(box, { cwd: root });
    try {
      const detail = await getJson<{ run: Gated; steps: unknown[] }>(viewer, `/api/jobs/${record.run_id}`);
      expect(detail.body.run).toMatchObject({ failure_category: "secret_found", secret_findings: findings });
      outputs.push(JSON.stringify(detail.body), JSON.stringify((await getJson(viewer, "/api/jobs")).body));
    } finally {
      viewer.child.kill("SIGKILL");
      await viewer.exited;
      outputs.push(viewer.stdout(), viewer.stderr());
    }
    expectNoLeak([github, aws]);
  });

  test("auto_commit off, an existing page edited: the run still fails and the page stays modified, unstaged", () => {
    box = sandbox();
    outputs.length = 0;
    const root = gitRepo();
    mkdirSync(box.state, { recursive: true });
    writeFileSync(join(box.state, "config.toml"), "auto_commit = false\n");
    const start = git(root, "rev-parse", "HEAD").trim();
    const { github } = secrets(12);
    const edited = page({ title: "Queue", summary: "The run queue", topics: ["concepts"], sources: [], body: `# Queue\n\nFirst in, first out.\n\nGITHUB_TOKEN=${github}` });
    const result = ca(["garden", "--using", "claude", "--wait", "--json"], {
      cwd: root,
      env: { FAKE_CLAUDE_WRITE_FILES: JSON.stringify({ "almanac/concepts/queue.md": edited }) },
    });
    expect(result.code).toBe(1);
    const record = result.json<Gated>();
    expect(record).toMatchObject({
      status: "failed",
      failure_category: "secret_found",
      page_changes: { created: [], updated: ["concepts/queue"], deleted: [] },
      secret_findings: [{ file: "almanac/concepts/queue.md", line: lineOf(edited, github), kind: expect.any(String) }],
    });
    expect(git(root, "rev-parse", "HEAD").trim()).toBe(start);
    expect(git(root, "status", "--porcelain").trim()).toBe("M almanac/concepts/queue.md");
    expect(git(root, "diff", "--cached", "--name-only").trim()).toBe("");
    readEverything(record.run_id);
    expectNoLeak([github]);
  });

  test("a page that also breaks a link fails as secret_found, not as a validation failure, so the secret is named", () => {
    box = sandbox();
    outputs.length = 0;
    const root = gitRepo();
    const { aws } = secrets(14);
    const content = page({ title: "Bucket", summary: "The bucket", topics: ["concepts"], sources: [], body: `# Bucket\n\nRead with ${aws}; see [the lost page](nowhere.md).` });
    const result = ca(["ingest", "src/app.ts", "--using", "claude", "--wait", "--json"], {
      cwd: root,
      env: { FAKE_CLAUDE_WRITE_FILES: JSON.stringify({ "almanac/concepts/bucket.md": content }) },
    });
    expect(result.code).toBe(1);
    expect(result.json<Gated>()).toMatchObject({
      failure_category: "secret_found",
      secret_findings: [{ file: "almanac/concepts/bucket.md", line: lineOf(content, aws), kind: "aws-access-key" }],
    });
    expect(git(root, "status", "--porcelain").trim()).toBe("?? almanac/concepts/bucket.md");
  });

  test("outside git: the pages the run changed are scanned, and the run fails the same way", () => {
    box = sandbox();
    outputs.length = 0;
    const root = writeWiki(join(box.dir, "plain"), {});
    const { aws } = secrets(13);
    const content = page({ title: "Keys", summary: "Where keys live", topics: ["concepts"], sources: [], body: `# Keys\n\nThe backup job uses ${aws}.` });
    const record = ca(["garden", "--using", "claude", "--wait", "--json"], {
      cwd: root,
      env: { FAKE_CLAUDE_WRITE_FILES: JSON.stringify({ "almanac/concepts/keys.md": content }) },
    }).json<Gated>();
    expect(record).toMatchObject({
      status: "failed",
      failure_category: "secret_found",
      secret_findings: [{ file: "almanac/concepts/keys.md", line: lineOf(content, aws), kind: "aws-access-key" }],
    });
    expect(existsSync(join(root, "almanac", "concepts", "keys.md"))).toBe(true);
    readEverything(record.run_id);
    expectNoLeak([aws]);
  });

  test("a clean run still commits: the evidence stamp's fingerprints and commit ids, a UUID and a fixture named token are not secrets", () => {
    box = sandbox();
    outputs.length = 0;
    const root = gitRepo();
    const start = git(root, "rev-parse", "HEAD").trim();
    const content = page({
      title: "App",
      summary: "The app entry",
      topics: ["concepts"],
      sources: [{ id: "app", type: "file", path: "src/app.ts" }],
      body: `# App\n\nThe entry point [@app] was last changed in ${start}; runs are named like 0b7c2b8e-2f4a-4c1e-9d3f-5a6b7c8d9e0f.\n\nThe tests use \`token = "test-token"\` as a fixture.`,
    });
    const record = ca(["garden", "--using", "claude", "--wait", "--json"], {
      cwd: root,
      env: { FAKE_CLAUDE_WRITE_FILES: JSON.stringify({ "almanac/concepts/app.md": content }) },
    }).json<Gated>();
    expect(record).toMatchObject({ status: "done", secret_findings: null, wiki_commit: { files: 1 } });
    expect(git(root, "rev-parse", "HEAD~1").trim()).toBe(start);
    // The commit holds the stamped page: the gate scanned what the stamp wrote.
    expect(git(root, "show", "HEAD:almanac/concepts/app.md")).toMatch(/fingerprint: /);
  });
});
