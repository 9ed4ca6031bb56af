import Database from "better-sqlite3";
import { copyFileSync, existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { page, sandbox, writeWiki, type Sandbox } from "../support/cli.js";
import { pythonRepositoryId, writePythonLedger, type PythonRun } from "../setup/python-ledger.js";

/**
 * Moving from the Python CodeAlmanac 0.4, which keeps its own database under our file name
 * (`codealmanac.db` in the state root): the first command of ours moves it aside, carries its
 * registrations and job history over, and says so once; every command works after that.
 */
let box: Sandbox;
afterEach(() => box?.cleanup());

interface Listing {
  repository: { repository_id: string; name: string; root_path: string; description: string };
  status: string;
}
interface JobJson {
  run_id: string;
  status: string;
  kind: string;
  title: string | null;
  summary: string | null;
  error: string | null;
  failure_category: string | null;
  repository: string;
}

const ledger = () => join(box.state, "codealmanac.db");
const aside = () => join(box.state, "codealmanac.python-0.4.db");
const NOTICE = /^codealmanac: moved the Python CodeAlmanac database aside to (.+); imported (\d+) repositor(?:y|ies) and (\d+) jobs?$/;

const RUNS: PythonRun[] = [
  { runId: "build-20260711121000-aaaa0001", repository: "payments", kind: "build", status: "done", title: "Build the wiki", summary: "wrote 12 pages",
    events: [{ kind: "status", message: "queued build" }, { kind: "status", message: "running" }, { kind: "output", message: "wrote 12 pages" }, { kind: "status", message: "done" }] },
  { runId: "ingest-20260711121100-aaaa0002", repository: "payments", kind: "ingest", status: "failed", error: "codex exited 1", category: "provider_execution" },
  { runId: "garden-20260711121200-aaaa0003", repository: "docs-site", kind: "garden", status: "queued" },
  { runId: "garden-20260711121300-aaaa0004", repository: "docs-site", kind: "garden", status: "running" },
];

/** Two wikis on disk and one whose folder is gone, registered by the Python CodeAlmanac under names of its own. */
function pythonInstall(): { payments: string; docs: string } {
  const payments = writeWiki(join(box.dir, "pay"), { "ledger.md": page({ title: "Ledger", topics: ["concepts"], body: "Settlement happens nightly." }) });
  const docs = writeWiki(join(box.dir, "docs"), {});
  // A Python process killed mid-work leaves its last writes in the WAL: copy the files while its connection is open.
  const staging = join(box.dir, "python-state");
  const db = writePythonLedger(join(staging, "codealmanac.db"), [
    { name: "payments", root: payments, description: "Money movement" },
    { name: "docs-site", root: docs },
    { name: "old-app", root: join(box.dir, "gone") },
  ], RUNS);
  mkdirSync(box.state, { recursive: true });
  for (const suffix of ["", "-wal"]) copyFileSync(join(staging, "codealmanac.db") + suffix, ledger() + suffix);
  db.close();
  expect(existsSync(ledger() + "-wal")).toBe(true);
  return { payments, docs };
}

function noticeLines(stderr: string): string[] {
  return stderr.split("\n").filter((line) => NOTICE.test(line));
}

describe("a state database of the Python CodeAlmanac", () => {
  test("is moved aside on the first command, with its registrations and job history carried over, and said once", () => {
    box = sandbox();
    const { payments, docs } = pythonInstall();

    const first = box.run(["list", "--json"]);
    expect(first.code, first.stderr).toBe(0);
    const lines = first.stderr.split("\n").filter((l) => l !== "");
    expect(lines).toHaveLength(1);
    const [, path, repositories, jobs] = NOTICE.exec(lines[0]!)!;
    expect([path, repositories, jobs]).toEqual([aside(), "3", "4"]);
    const listed = first.json<Listing[]>();
    expect(listed.map((l) => [l.repository.name, l.repository.root_path, l.status])).toEqual([
      ["docs-site", docs, "available"],
      ["old-app", join(box.dir, "gone"), "missing_repo"],
      ["payments", payments, "available"],
    ]);
    expect(listed.find((l) => l.repository.name === "payments")!.repository.description).toBe("Money movement");
    expect(listed[2]!.repository.repository_id).toBe(pythonRepositoryId(payments));

    // The old file is kept whole (its WAL folded in) beside ours, and says what it said.
    expect(readdirSync(box.state).filter((n) => n.startsWith("codealmanac.python")).sort()).toEqual(["codealmanac.python-0.4.db"]);
    expect(existsSync(aside() + "-wal")).toBe(false);
    const old = new Database(aside(), { readonly: true });
    expect(old.prepare("SELECT name FROM repositories ORDER BY name").pluck().all()).toEqual(["docs-site", "old-app", "payments"]);
    expect(old.prepare("SELECT COUNT(*) FROM runs").pluck().get()).toBe(4);
    old.close();

    const again = box.run(["list", "--json"]);
    expect(again.code).toBe(0);
    expect(again.stderr).toBe("");
    expect(again.json<Listing[]>()).toHaveLength(3);
  });

  test("leaves its jobs listed by `jobs` as finished history: what was unfinished says so, and none is run or retried", () => {
    box = sandbox();
    pythonInstall();
    const listed = box.run(["jobs", "--json"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(noticeLines(listed.stderr)).toHaveLength(1);
    const jobs = listed.json<JobJson[]>();
    expect(jobs.map((j) => [j.run_id, j.kind, j.status, j.repository])).toEqual([
      ["garden-20260711121300-aaaa0004", "garden", "cancelled", "docs-site"],
      ["garden-20260711121200-aaaa0003", "garden", "cancelled", "docs-site"],
      ["ingest-20260711121100-aaaa0002", "ingest", "failed", "payments"],
      ["build-20260711121000-aaaa0001", "build", "done", "payments"],
    ]);
    expect(jobs[0]!.error).toMatch(/left unfinished by the Python CodeAlmanac/);
    expect(jobs[2]).toMatchObject({ error: "codex exited 1", failure_category: "provider_execution" });
    expect(jobs[3]).toMatchObject({ title: "Build the wiki", summary: "wrote 12 pages" });

    const shown = box.run(["jobs", "show", "aaaa0001"]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/wrote 12 pages/);
    expect(shown.stdout).not.toMatch(/log file/);
    const logs = box.run(["jobs", "logs", "aaaa0001", "--json"]);
    expect(logs.code, logs.stderr).toBe(0);
    expect(logs.stdout).toMatch(/wrote 12 pages/i);

    const retry = box.run(["jobs", "retry", "aaaa0002"]);
    expect(retry.code).toBe(1);
    expect(retry.stderr.trim()).toBe(
      "codealmanac: job ingest-20260711121100-aaaa0002 was carried over from the Python CodeAlmanac and cannot be retried; queue the work again (ca ingest, ca garden)",
    );
  });

  test("every command works on it: a read in a registered wiki finds its pages under the name the Python CodeAlmanac gave it", () => {
    box = sandbox();
    const { payments } = pythonInstall();
    // Its per-wiki index, of a newer schema than ours, is derived and simply built again.
    const indexDir = join(box.state, "repos", pythonRepositoryId(payments));
    mkdirSync(indexDir, { recursive: true });
    const index = new Database(join(indexDir, "index.db"));
    index.exec("CREATE TABLE pages (slug TEXT PRIMARY KEY, title TEXT); PRAGMA user_version = 2026071401;");
    index.close();
    const found = box.run(["search", "settlement", "--json"], { cwd: payments });
    expect(found.code, found.stderr).toBe(0);
    expect(noticeLines(found.stderr)).toHaveLength(1);
    expect(JSON.stringify(found.json())).toMatch(/ledger/);
    expect(box.run(["list"]).stdout).toMatch(/payments/);
  });

  test("two of our processes starting at once move it aside once and both see its registrations", async () => {
    box = sandbox();
    pythonInstall();
    const results = await Promise.all([0, 1, 2, 3].map(() => box.runAsync(["list", "--json"])));
    for (const result of results) {
      expect(result.code, result.stderr).toBe(0);
      expect(result.json<Listing[]>().map((l) => l.repository.name)).toEqual(["docs-site", "old-app", "payments"]);
    }
    expect(results.flatMap((r) => noticeLines(r.stderr))).toHaveLength(1);
    expect(readdirSync(box.state).filter((n) => n.startsWith("codealmanac.")).sort()).toEqual(
      expect.arrayContaining(["codealmanac.db", "codealmanac.python-0.4.db"]),
    );
    expect(readdirSync(box.state).filter((n) => n.includes("python") || n.includes("adopting-"))).toEqual(["codealmanac.python-0.4.db"]);
    expect(box.run(["jobs", "--json"]).json<JobJson[]>()).toHaveLength(4);
  });
});
