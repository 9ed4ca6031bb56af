import { describe, expect, test } from "vitest";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { BIN, sandbox, type Sandbox } from "../support/cli.js";
import { checkAndCleanUpAfterEach, emptyRepo, events, holdQueue, readRun, releaseQueue, waitForExits, waitForFile, waitForIdle, waitForStatus, type Receipt } from "./support.js";

let box: Sandbox;
/** The writing manual this build packages (next to the bundle the tests run). */
const PACKAGED_MANUAL = join(dirname(BIN), "manual");
// After each test: no worker, executor or agent of the sandbox outlives the queue's work
// (checked before the sandbox cleanup, which kills every process carrying its state directory).
checkAndCleanUpAfterEach(() => box);

describe("init", () => {
  test("scaffolds a valid starter wiki, registers it under a kebab-case name and queues the build", async () => {
    box = sandbox();
    const root = join(box.dir, "My Repo");
    mkdirSync(root);
    const promptFile = join(box.dir, "prompt.txt");
    const result = box.run(["init", "--using", "claude", "--guidance", "focus on the queue"], {
      cwd: root,
      env: { FAKE_CLAUDE_PROMPT_FILE: promptFile },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Building your CodeAlmanac in the background");
    const runId = /codealmanac jobs attach (build-\d{14}-[0-9a-f]{8})/.exec(result.stdout)?.[1];
    expect(runId).toBeDefined();
    expect(result.stdout).toContain("Repo: my-repo");
    expect(existsSync(join(root, "almanac", "README.md"))).toBe(true);
    expect(existsSync(join(root, "almanac", "topics.yaml"))).toBe(true);
    // Only what the team owns: the writing manual stays in the installed package.
    expect(readdirSync(join(root, "almanac")).sort()).toEqual(["README.md", "topics.yaml"]);
    const done = await waitForStatus(box, runId!, ["done", "failed"]);
    expect(done.status).toBe("done");
    const prompt = readFileSync(promptFile, "utf8");
    expect(prompt).toContain("# Build operation");
    expect(prompt).toContain('"guidance": "focus on the queue"');
    // The agent reads the packaged manual, where this installation keeps it.
    expect(prompt).toContain(`"manual_root": "${PACKAGED_MANUAL}"`);
    expect(existsSync(join(PACKAGED_MANUAL, "README.md"))).toBe(true);
    // The scaffold alone validates clean: one page, one topic.
    const validate = box.run(["validate", "--strict", "--json"], { cwd: root });
    expect(validate.json()).toMatchObject({ ok: true, errors: 0, warnings: 0, index: { pages_indexed: 1 } });
    expect(box.run(["list", "--json"]).json<{ repository: { name: string } }[]>()[0]!.repository.name).toBe("my-repo");
  });

  test("init --with-manual copies the writing manual for the team to own, and the agent reads that copy", async () => {
    box = sandbox();
    const root = join(box.dir, "repo");
    mkdirSync(root);
    const promptFile = join(box.dir, "prompt.txt");
    const receipt = box
      .run(["init", "--with-manual", "--using", "claude", "--json"], { cwd: root, env: { FAKE_CLAUDE_PROMPT_FILE: promptFile } })
      .json<Receipt>();
    expect(readdirSync(join(root, "almanac", "manual")).sort()).toEqual(readdirSync(PACKAGED_MANUAL).sort());
    expect(readdirSync(PACKAGED_MANUAL)).toHaveLength(13);
    for (const name of readdirSync(PACKAGED_MANUAL)) {
      expect(readFileSync(join(root, "almanac", "manual", name), "utf8")).toBe(readFileSync(join(PACKAGED_MANUAL, name), "utf8"));
    }
    expect((await waitForStatus(box, receipt.run_id, ["done", "failed"])).status).toBe("done");
    expect(readFileSync(promptFile, "utf8")).toContain(`"manual_root": "${join(root, "almanac", "manual")}"`);
    // The copy is not pages: the wiki still validates clean with one page.
    expect(box.run(["validate", "--strict", "--json"], { cwd: root }).json()).toMatchObject({ ok: true, index: { pages_indexed: 1 } });
  });

  test("init --json prints the receipt; a second init is refused with a way out", async () => {
    box = sandbox();
    const root = join(box.dir, "repo");
    const receipt = box.run(["init", root, "--name", "Docs Site", "--using", "claude", "--json"]).json<Receipt>();
    expect(receipt).toMatchObject({ repository: "docs-site", runs_ahead: 0, status: "queued" });
    await waitForStatus(box, receipt.run_id, ["done", "failed"]);
    const again = box.run(["init", root, "--using", "claude"]);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe("");
    expect(again.stderr).toMatch(/^codealmanac: almanac\/ already exists here\.\n/);
  });

  test("an explicit --name that another checkout holds is refused; an implicit one gets a suffix", async () => {
    box = sandbox();
    const a = join(box.dir, "one", "app");
    const b = join(box.dir, "two", "app");
    const c = join(box.dir, "three", "app");
    box.run(["init", a, "--using", "claude", "--json"]);
    const clash = box.run(["init", b, "--name", "app", "--using", "claude"]);
    expect(clash.code).toBe(1);
    expect(clash.stderr).toMatch(/repository name "app" is already used by .*one\/app; choose another --name/);
    const suffixed = box.run(["init", c, "--using", "claude", "--json"]);
    expect(suffixed.json<Receipt>().repository).toBe("app-2");
    expect(suffixed.stderr).toMatch(/the name "app" is taken by another checkout; registered .* as "app-2"/);
    await waitForIdle(box);
  });

  test("init --root is an unknown option and a file path is not a repository", () => {
    box = sandbox();
    const bad = box.run(["init", "--root", "x"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("Unknown option");
    writeFileSync(join(box.dir, "file.txt"), "x");
    const file = box.run(["init", join(box.dir, "file.txt"), "--using", "claude"]);
    expect(file.code).toBe(1);
    expect(file.stderr).toMatch(/repository path must be a directory/);
  });

  test("a build whose agent cannot run is still recorded, scaffolded and queued, then fails at readiness", async () => {
    box = sandbox();
    const root = join(box.dir, "repo");
    const receipt = box.run(["init", root, "--using", "codex", "--json"], { env: { FAKE_CODEX_VERSION: "0.40.0" } }).json<Receipt>();
    expect(existsSync(join(root, "almanac", "README.md"))).toBe(true);
    const failed = await waitForStatus(box, receipt.run_id, ["failed", "done"]);
    expect(failed.failure_category).toBe("harness_readiness");
  });
});

describe("ingest and garden", () => {
  test("ingest resolves paths against the cwd at queue time and refuses paths outside the repository", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    mkdirSync(join(root, "docs"));
    writeFileSync(join(root, "docs", "design.md"), "# Design\n");
    const promptFile = join(box.dir, "prompt.txt");
    const receipt = box
      .run(["ingest", "design.md", "--using", "claude", "--json"], {
        cwd: join(root, "docs"),
        env: { FAKE_CLAUDE_PROMPT_FILE: promptFile },
      })
      .json<Receipt>();
    await waitForStatus(box, receipt.run_id, ["done"]);
    const prompt = readFileSync(promptFile, "utf8");
    expect(prompt).toContain('"title": "File docs/design.md"');
    expect(prompt).toMatch(/<source n="1" title="File docs\/design.md">\n[\s\S]*# Design[\s\S]*\n<\/source>/);
    expect(box.run(["jobs", "show", receipt.run_id, "--json"]).json()).toMatchObject({ title: "Ingest docs/design.md" });

    writeFileSync(join(box.dir, "outside.md"), "x");
    const outside = box.run(["ingest", join(box.dir, "outside.md"), "--using", "claude"], { cwd: root });
    expect(outside.code).toBe(1);
    expect(outside.stderr).toMatch(/^codealmanac: path is outside repository \/.*\/repo: \/.*\/outside\.md\n$/);
    expect(box.run(["ingest", "--using", "claude"], { cwd: root }).code).toBe(2);
    expect(box.run(["garden", "--title", "  ", "--using", "claude"], { cwd: root }).stderr).toBe(
      "codealmanac: --title must not be blank\n",
    );
    expect(box.run(["garden", "--using", "gpt"], { cwd: root }).code).toBe(2);
    expect(box.run(["garden", "--using", "claude"], { cwd: box.dir }).stderr).toMatch(/No repository selected/);
  });

  test("a cancelled queued run is skipped by the worker and never reaches the agent", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    const log = join(box.dir, "invocations.jsonl");
    box.run(["jobs"]);
    holdQueue(box);
    const env = { FAKE_CLAUDE_INVOCATION_LOG: log };
    const a = box.run(["garden", "--using", "claude", "--json"], { cwd: root, env }).json<Receipt>();
    const b = box.run(["garden", "--using", "claude", "--json"], { cwd: root, env }).json<Receipt>();
    await waitForExits([a.child_pid, b.child_pid]);
    box.run(["jobs", "cancel", a.run_id]);
    releaseQueue(box);
    box.run(["jobs"], { env });
    await waitForStatus(box, b.run_id, ["done"]);
    expect(readRun(box, a.run_id)?.status).toBe("cancelled");
    const invoked = readFileSync(log, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { run_id: string });
    expect(invoked.map((i) => i.run_id)).toEqual([b.run_id]);
  });

  test("after a running run is cancelled the worker goes on with the next one", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    const started = join(box.dir, "agent.pid");
    const a = box
      .run(["garden", "--using", "claude", "--guidance", "fake-scenario: hang", "--json"], {
        cwd: root,
        env: { FAKE_CLAUDE_STARTED_FILE: started },
      })
      .json<Receipt>();
    await waitForFile(started);
    const b = box.run(["garden", "--using", "claude", "--json"], { cwd: root }).json<Receipt>();
    expect(b.runs_ahead).toBe(0);
    expect(box.run(["jobs", "cancel", a.run_id]).stdout).toBe(`cancelled ${a.run_id}\n`);
    // b was queued by a producer whose worker found the lock held; a's worker drains it.
    expect((await waitForStatus(box, b.run_id, ["done", "failed"])).status).toBe("done");
    expect(events(box, a.run_id).map((e) => e.message).slice(-2)).toEqual(["cancellation requested", "cancelled"]);
  });
});
