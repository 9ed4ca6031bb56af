import { copyFileSync, cpSync, existsSync, readdirSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, test } from "vitest";
import { page, sandbox, writeWiki, type Sandbox } from "../support/cli.js";
import { sizableWiki } from "../support/damage.js";

/**
 * The state database (codealmanac.db) is not derived: it holds the run history and the
 * sync cursors, so it is never recreated behind the user's back. A failure to read it is
 * one line naming the file and the fix; a database that was emptied or replaced while the
 * state root still holds wikis' indexes gets those wikis registered again.
 */
let box: Sandbox;
afterEach(() => box?.cleanup());

interface Listing {
  repository: { repository_id: string; name: string; root_path: string; registered_at: string };
  status: string;
}

const ledger = () => join(box.state, "codealmanac.db");

function removeLedger(): void {
  for (const suffix of ["", "-wal", "-shm"]) rmSync(ledger() + suffix, { force: true });
}

/** Two wikis, each registered by a read inside it (which also builds its index). */
function twoWikis(): { alpha: string; beta: string; listed: Listing[] } {
  const alpha = writeWiki(join(box.dir, "alpha"), { "a.md": page({ title: "A", topics: ["concepts"], body: "Alpha words." }) });
  const beta = sizableWiki(join(box.dir, "beta-docs"), 20);
  for (const root of [alpha, beta]) expect(box.run(["search", "words"], { cwd: root }).code).toBe(0);
  const listed = box.run(["list", "--json"]).json<Listing[]>();
  expect(listed.map((l) => l.repository.name)).toEqual(["alpha", "beta-docs"]);
  return { alpha, beta, listed };
}

function expectOneLine(result: { code: number | null; stdout: string; stderr: string }, json: boolean): string {
  expect(result.code).toBe(3);
  expect(result.stdout).toBe("");
  expect(result.stderr.endsWith("\n")).toBe(true);
  expect(result.stderr.trim().split("\n")).toHaveLength(1);
  if (!json) {
    expect(result.stderr.startsWith("codealmanac: ")).toBe(true);
    return result.stderr.trim();
  }
  const body = JSON.parse(result.stderr) as { error: { code: string; message: string } };
  expect(body.error.code).toBe("unavailable");
  return body.error.message;
}

describe("a state database that cannot be read", () => {
  test("not a database: every command says which file and how to start over, in one line", () => {
    box = sandbox();
    const root = writeWiki(join(box.dir, "repo"), {});
    expect(box.run(["list"]).code).toBe(0);
    removeLedger();
    writeFileSync(ledger(), Buffer.alloc(8192, 0x5a));
    const fix = `move it aside (mv ${ledger()} ${ledger()}.damaged) and run the command again: a new one is made, the wikis under ${join(box.state, "repos")} are registered again from their indexes, and the old run history stays in the moved file`;
    for (const args of [["list"], ["jobs"], ["search", "x"], ["show", "README"], ["health", "--json"], ["config", "set", "auto_commit", "false"], ["sync", "--json"], ["forget", "repo"]]) {
      const json = args.includes("--json");
      const result = box.run(args, { cwd: root });
      expect([args, result.code]).toEqual([args, 3]);
      const line = expectOneLine(result, json);
      expect(line, args.join(" ")).toBe(`${json ? "" : "codealmanac: "}the state database ${ledger()} is damaged (file is not a database); ${fix}`);
    }
    // Nothing was recreated behind the user's back, and nothing went to the internal-error log.
    expect(existsSync(join(box.state, "logs", "errors.log"))).toBe(false);
    const doctor = box.run(["doctor", "--json"], { cwd: root });
    const check = (doctor.json<{ checks: { key: string; status: string; message: string; fix?: string }[] }>()).checks.find((c) => c.key === "state.database");
    expect(check).toEqual({ key: "state.database", status: "fail", message: `the state database ${ledger()} is damaged (file is not a database)`, fix });
  });

  test.skipIf(process.platform !== "linux")("a disk I/O error names the file and what to check", () => {
    box = sandbox();
    expect(box.run(["list"]).code).toBe(0);
    removeLedger();
    // Reading /proc/self/mem at offset 0 fails with EIO: a real I/O error, deterministically.
    symlinkSync("/proc/self/mem", ledger());
    const line = expectOneLine(box.run(["list", "--json"]), true);
    expect(line).toBe(`the state database ${ledger()} cannot be read or written (disk I/O error); check the disk that holds it (its free space, \`dmesg\`), then try again`);
  });
});

describe("a state database emptied or replaced while wikis are recorded", () => {
  test("truncated to nothing: the wikis are registered again from their indexes, with one notice line", () => {
    box = sandbox();
    const { listed } = twoWikis();
    truncateSync(ledger(), 0);
    for (const suffix of ["-wal", "-shm"]) rmSync(ledger() + suffix, { force: true });
    const result = box.run(["list", "--json"]);
    expect(result.code).toBe(0);
    expect(result.json<Listing[]>()).toEqual(listed);
    expect(result.stderr).toBe(
      `codealmanac: the state database ${ledger()} did not list 2 wikis that ${join(box.state, "repos")} still holds (it was emptied or replaced); registered again from their indexes: alpha (${join(box.dir, "alpha")}), beta-docs (${join(box.dir, "beta-docs")})\n`,
    );
    // Said once: the next command finds nothing missing.
    const again = box.run(["list", "--json"]);
    expect([again.stderr, again.json<Listing[]>()]).toEqual(["", listed]);
  });

  test("replaced by another, new state database: the same, and doctor says what it registered again", () => {
    box = sandbox();
    const { listed } = twoWikis();
    const other = sandbox();
    try {
      expect(other.run(["list"]).code).toBe(0);
      removeLedger();
      copyFileSync(join(other.state, "codealmanac.db"), ledger());
    } finally {
      other.cleanup();
    }
    const doctor = box.run(["doctor", "--json"]);
    expect(doctor.stderr).toContain("registered again from their indexes: alpha");
    const check = (doctor.json<{ checks: { key: string; status: string; message: string }[] }>()).checks.find((c) => c.key === "state.registry");
    expect(check).toEqual({
      key: "state.registry",
      status: "ok",
      message: `2 wikis registered; registered again from their indexes: alpha (${join(box.dir, "alpha")}), beta-docs (${join(box.dir, "beta-docs")})`,
    });
    expect(box.run(["list", "--json"]).json<Listing[]>()).toEqual(listed);
  });

  test("a wiki forgotten in this state database is not brought back by an index a racing read made again", () => {
    box = sandbox();
    const { listed } = twoWikis();
    const alphaId = listed[0]!.repository.repository_id;
    const folder = join(box.state, "repos", alphaId);
    const saved = join(box.dir, "saved-index");
    cpSync(folder, saved, { recursive: true });
    expect(box.run(["forget", "alpha"]).code).toBe(0);
    expect(existsSync(folder)).toBe(false);
    // A read that selected alpha just before the forget opens (so recreates) its index just after.
    cpSync(saved, folder, { recursive: true });
    const result = box.run(["list", "--json"]);
    expect(result.stderr).toBe("");
    expect(result.json<Listing[]>().map((l) => l.repository.name)).toEqual(["beta-docs"]);
    expect(existsSync(folder)).toBe(false);
  });

  test("an index folder that does not say which wiki it belongs to is left alone and doctor warns about it", () => {
    box = sandbox();
    const { listed } = twoWikis();
    const betaId = listed[1]!.repository.repository_id;
    const silent = join(box.state, "repos", "repo_00000000deadbeef");
    cpSync(join(box.state, "repos", betaId), silent, { recursive: true });
    const db = new Database(join(silent, "index.db"));
    db.prepare("DELETE FROM meta WHERE key = 'registration'").run();
    db.close();
    const doctor = box.run(["doctor", "--json"]);
    expect(doctor.stderr).toBe("");
    const check = (doctor.json<{ checks: { key: string; status: string; message: string; fix?: string }[] }>()).checks.find((c) => c.key === "state.registry");
    expect(check).toEqual({
      key: "state.registry",
      status: "warn",
      message: `2 wikis registered; ${silent} holds an index that does not say which wiki it belongs to`,
      fix: "run any command inside that wiki's repository to register it again, or delete the folder (it is derived and rebuilt on use)",
    });
    expect(readdirSync(join(box.state, "repos"))).toContain("repo_00000000deadbeef");
  });
});
