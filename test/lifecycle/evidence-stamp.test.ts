/**
 * Through the whole queue with the fake claude: a finished run stamps the file sources of the
 * pages it created or updated (fingerprint of what is cited, HEAD it was read at) before the
 * product's commit, which then holds the stamps; pages the run did not touch keep every byte.
 */
import Database from "better-sqlite3";
import { execFileSync } from "node:child_process";
import { lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { fileFingerprint, fileLines, rangeFingerprint } from "../../src/wiki/evidence.js";
import { commitAll, sandbox, writeWiki, type Sandbox } from "../support/cli.js";
import { checkAndCleanUpAfterEach, events, type JobRecord } from "../queue/support.js";

let box: Sandbox;
checkAndCleanUpAfterEach(() => box);

const QUEUE_TS = "export class Queue {\r\n  claim() {\r\n    return this.next();   \r\n  }\r\n}\r\n";
const APP_TS = "export {};\n";
const OLD_SHA = "fedcba9876543210fedcba9876543210fedcba98";

/** Written by the user before the run, with file sources and no stamp: the run must leave it alone. */
const UNTOUCHED = `---
title: Untouched
topics: [concepts]
sources:
  - {id: app, type: file, path: src/app.ts}
---
# Untouched

The app exports nothing [@app].
`;

/** An older page with a stale stamp, which the run rewrites. */
const OLD_BEFORE = `---
title: Old
topics: [concepts]
sources:
  - id: app   # the entry point
    type: file
    path: src/app.ts
    fingerprint: "0000000000000000"
    verified_at: ${OLD_SHA}
---
# Old

Before the run [@app].
`;

const OLD_AFTER = OLD_BEFORE.replace("Before the run", "Rewritten by the run");

const NEW_PAGE = `---
title: Queue
summary: How a run is claimed.
topics: [concepts]
sources:
  - {id: claim, type: file, path: src/queue.ts, lines: 2-3}   # the claim
  - id: app
    type: file
    path: src/app.ts
  - {id: src, type: file, path: src/}
  - {id: past, type: file, path: src/app.ts, lines: 50-60}
---
# Queue

A run is claimed in one call [@claim], from the app [@app] in [@src]; see also [@past].
`;

function repo(b: Sandbox, git: boolean): string {
  const root = writeWiki(join(b.dir, "repo"), { "concepts/untouched.md": UNTOUCHED, "concepts/old.md": OLD_BEFORE });
  mkdirSync(join(root, "src"));
  writeFileSync(join(root, "src", "queue.ts"), QUEUE_TS);
  writeFileSync(join(root, "src", "app.ts"), APP_TS);
  // An alias page: the index reads it through the link, the stamp must never write through it.
  symlinkSync("old.md", join(root, "almanac", "concepts", "alias.md"));
  return git ? commitAll(root) : root;
}

const gitIn = (root: string, ...args: string[]) => execFileSync("git", args, { cwd: root, encoding: "utf8", env: box.env });

function runAgent(root: string): JobRecord {
  const files = { "almanac/concepts/queue.md": NEW_PAGE, "almanac/concepts/old.md": OLD_AFTER };
  return box
    .run(["garden", "--using", "claude", "--wait", "--json"], {
      cwd: root,
      env: { FAKE_CLAUDE_WRITE_FILES: JSON.stringify(files), FAKE_CLAUDE_RESULT_TEXT: "Added the queue page" },
    })
    .json<JobRecord>();
}

/** The payloads of the stamp's events: its counts, then what it could not stamp. */
function payloads(runId: string): unknown[] {
  const db = new Database(join(box.state, "codealmanac.db"), { readonly: true });
  try {
    const rows = db
      .prepare("SELECT payload_json FROM run_events WHERE run_id = ? AND (message LIKE 'stamped the evidence%' OR message LIKE '% not stamped: %') ORDER BY seq")
      .pluck()
      .all(runId) as string[];
    return rows.map((row) => JSON.parse(row) as unknown);
  } finally {
    db.close();
  }
}

const claimPrint = rangeFingerprint(fileLines(QUEUE_TS), { start: 2, end: 3 })!;
const appPrint = fileFingerprint(Buffer.from(APP_TS));

function stampedNewPage(head: string | null): string {
  const verified = (indent: string, flow: boolean) =>
    head === null ? "" : flow ? `, verified_at: ${head}` : `${indent}verified_at: ${head}\n`;
  return NEW_PAGE.replace("lines: 2-3}", `lines: 2-3, fingerprint: ${claimPrint}${verified("", true)}}`).replace(
    "    path: src/app.ts\n",
    `    path: src/app.ts\n    fingerprint: ${appPrint}\n${verified("    ", false)}`,
  );
}

describe("the product stamps a finished run's evidence", () => {
  test("in git: each file source of the created and updated pages carries its fingerprint and HEAD, and the commit holds them", () => {
    box = sandbox();
    const root = repo(box, true);
    const head = gitIn(root, "rev-parse", "HEAD").trim();
    const record = runAgent(root);
    expect(record.status).toBe("done");
    expect(record.page_changes).toEqual({ created: ["concepts/queue"], updated: ["concepts/alias", "concepts/old"], deleted: [] });

    const page = (name: string) => readFileSync(join(root, "almanac", "concepts", name), "utf8");
    expect(page("queue.md")).toBe(stampedNewPage(head));
    // The stale stamp is replaced where it stands; its comment and every other byte stay.
    expect(page("old.md")).toBe(OLD_AFTER.replace('"0000000000000000"', appPrint).replace(OLD_SHA, head));
    expect(page("untouched.md")).toBe(UNTOUCHED);
    expect(lstatSync(join(root, "almanac", "concepts", "alias.md")).isSymbolicLink()).toBe(true);
    expect(gitIn(root, "ls-files", "-s", "almanac/concepts/alias.md").startsWith("120000 ")).toBe(true);

    // The product's commit holds the stamped pages as they are on disk, and nothing is left over.
    expect(record.wiki_commit).toMatchObject({ subject: "almanac: Added the queue page", files: 2 });
    expect(gitIn(root, "rev-parse", "HEAD~1").trim()).toBe(head);
    expect(gitIn(root, "show", "HEAD:almanac/concepts/queue.md")).toBe(stampedNewPage(head));
    expect(gitIn(root, "show", "HEAD:almanac/concepts/old.md")).toBe(page("old.md"));
    expect(gitIn(root, "show", "--name-only", "--format=", "HEAD").trim().split("\n").sort()).toEqual(["almanac/concepts/old.md", "almanac/concepts/queue.md"]);
    expect(gitIn(root, "status", "--porcelain").trim()).toBe("");

    const log = events(box, record.run_id);
    expect(log.map((e) => e.message)).toContain("stamped the evidence of 3 file sources on 2 pages");
    expect(log.filter((e) => e.kind === "warning").map((e) => e.message)).toEqual([
      "1 file source not stamped: concepts/queue [@past]: lines 50-60 run past the end of src/app.ts (1 line)",
    ]);
    const stamped = log.findIndex((e) => e.message.startsWith("stamped the evidence"));
    expect(stamped).toBeLessThan(log.findIndex((e) => e.message.startsWith("committed ")));
    expect(payloads(record.run_id)).toEqual([
      { pages: 2, sources: 3, written: 2 },
      { unstamped: [{ page: "concepts/queue", source: "past", reason: "lines 50-60 run past the end of src/app.ts (1 line)" }], count: 1 },
    ]);
  });

  test("outside git: the fingerprint alone, and a stale verified_at goes", () => {
    box = sandbox();
    const root = repo(box, false);
    const record = runAgent(root);
    expect(record).toMatchObject({ status: "done", wiki_commit: null });
    const page = (name: string) => readFileSync(join(root, "almanac", "concepts", name), "utf8");
    expect(page("queue.md")).toBe(stampedNewPage(null));
    expect(page("old.md")).toBe(OLD_AFTER.replace('"0000000000000000"', appPrint).replace(`    verified_at: ${OLD_SHA}\n`, ""));
    expect(page("untouched.md")).toBe(UNTOUCHED);
    expect(lstatSync(join(root, "almanac", "concepts", "alias.md")).isSymbolicLink()).toBe(true);
  });
});
