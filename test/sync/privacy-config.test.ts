/**
 * `privacy.redact` and `privacy.exclude` from config.toml, end to end: the user's own
 * pattern is hidden in a synced session's prompt and stops a run's commit; a session that
 * ran in an excluded folder is skipped by sync and refused as an ingest source.
 */
import { appendFileSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { commitAll, page, sandbox, writeWiki, type Sandbox } from "../support/cli.js";
import { checkAndCleanUpAfterEach, waitForStatus } from "../queue/support.js";
import { claudeSession, hoursAgo } from "./transcripts.js";

let box: Sandbox;
checkAndCleanUpAfterEach(() => box);

const TICKET = "ACME-482913";

function userLine(sessionId: string, cwd: string, at: Date, content: string): string {
  return JSON.stringify({ type: "user", uuid: `u-${content.length}`, parentUuid: null, sessionId, cwd, timestamp: at.toISOString(), isSidechain: false, entrypoint: "cli", message: { role: "user", content } }) + "\n";
}

type Skip = { transcript_path: string; reason: string };

describe("privacy settings in config.toml", () => {
  test("a user pattern is hidden in the prompt; a session in an excluded folder is skipped by sync and refused by ingest", async () => {
    box = sandbox({ CODEX_HOME: "" });
    const open = writeWiki(join(box.dir, "open"), {});
    const hidden = writeWiki(join(box.home, "clients", "acme", "repo"), {});
    box.run(["reindex"], { cwd: open });
    box.run(["reindex"], { cwd: hidden });
    expect(box.run(["config", "set", "privacy.redact", "ACME-[0-9]{6}"]).code).toBe(0);
    expect(box.run(["config", "set", "privacy.exclude", "~/clients/acme"]).code).toBe(0);

    const at = hoursAgo(1);
    const kept = claudeSession(box.home, open, at);
    appendFileSync(kept.path, userLine(kept.sessionId, open, at, `ticket ${TICKET} says deploy fails`));
    utimesSync(kept.path, at, at);
    const excluded = claudeSession(box.home, hidden, at);
    appendFileSync(excluded.path, userLine(excluded.sessionId, hidden, at, "the acme contract terms"));
    utimesSync(excluded.path, at, at);

    // `sync status` counts what each transcript's run would have hidden, and never shows it.
    const status = box.run(["sync", "status", "--json"]);
    expect(status.json<{ ready: unknown[] }>().ready).toEqual([
      expect.objectContaining({
        repository_root: open,
        redaction_count: 1,
        transcripts: [{ transcript_path: kept.path, redaction_count: 1, redactions: [{ kind: "user-pattern", count: 1 }] }],
      }),
    ]);
    const statusText = box.run(["sync", "status"]).stdout;
    expect(statusText).toContain(`      ${kept.path}: 1 redaction (1 user-pattern)\n`);
    expect(statusText).toContain("  transcripts eligible: 1\n  wikis ready: 1\n");
    expect(status.stdout + statusText).not.toContain(TICKET);

    const prompt = join(box.dir, "prompt.txt");
    const summary = box
      .run(["sync", "--using", "claude", "--json"], { env: { FAKE_CLAUDE_PROMPT_FILE: prompt, FAKE_CLAUDE_DELAY_MS: "0" } })
      .json<{ started: { run_id: string; transcript_paths: string[] }[]; skipped: Skip[] }>();
    expect(summary.started.map((s) => s.transcript_paths)).toEqual([[kept.path]]);
    expect(summary.skipped).toContainEqual(expect.objectContaining({ transcript_path: excluded.path, reason: "excluded-by-privacy" }));
    await waitForStatus(box, summary.started[0]!.run_id, ["done"]);
    const text = readFileSync(prompt, "utf8");
    expect(text).toContain("ticket [redacted: user-pattern] says deploy fails");
    expect(text).not.toContain(TICKET);
    expect(text).not.toContain("acme contract");

    // Named directly, the excluded session is still not read: the run fails saying why.
    const ingest = box.run(["ingest", excluded.path, "--using", "claude", "--wait", "--json"], { cwd: hidden, env: { FAKE_CLAUDE_PROMPT_FILE: prompt } });
    expect(ingest.code).toBe(1);
    const record = ingest.json<{ status: string; error: string }>();
    expect(record.status).toBe("failed");
    expect(record.error).toContain(`the session ran in ${hidden}, inside ${join(box.home, "clients", "acme")}, which privacy.exclude lists; it was not read`);
    expect(readFileSync(prompt, "utf8")).not.toContain("acme contract");
  });

  test("a page holding a user pattern stops the run's commit, and validate reports it", () => {
    box = sandbox();
    const repo = writeWiki(join(box.dir, "repo"), {});
    writeFileSync(join(repo, "notes.txt"), "outage notes\n");
    const root = commitAll(repo);
    expect(box.run(["config", "set", "privacy.redact", `["ACME-[0-9]{6}", "project-falcon"]`]).code).toBe(0);
    const content = page({ title: "Tickets", summary: "Where tickets live", topics: [], sources: [], body: `# Tickets\n\nSee ${TICKET} for the outage.` });
    const result = box.run(["ingest", "notes.txt", "--using", "claude", "--wait", "--json"], {
      cwd: root,
      env: { FAKE_CLAUDE_WRITE_FILES: JSON.stringify({ "almanac/tickets.md": content }) },
    });
    expect(result.code).toBe(1);
    const record = result.json<{ failure_category: string; secret_findings: unknown[] }>();
    expect(record).toMatchObject({ failure_category: "secret_found", secret_findings: [{ file: "almanac/tickets.md", line: content.split("\n").findIndex((l) => l.includes(TICKET)) + 1, kind: "user-pattern" }] });
    const validate = box.run(["validate", "--json"], { cwd: root });
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain("user-pattern");
    expect(validate.stdout).not.toContain(TICKET);
  });
});
