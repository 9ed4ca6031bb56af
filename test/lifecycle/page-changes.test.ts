import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { sandbox, waitFor, writeWiki, type Sandbox } from "../support/cli.js";
import { waitForFile, waitForStatus } from "../queue/support.js";

let box: Sandbox;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

it("a run records the pages it created even when another reader refreshed the index while its agent worked", async () => {
  const root = writeWiki(join(box.dir, "repo"), {});
  box.run(["reindex"], { cwd: root });
  const started = join(box.dir, "started");
  const page = "---\ntitle: Live\ntopics: [concepts]\nsources: []\n---\n# Live\n\nWritten by the agent.\n";
  const env = {
    FAKE_CLAUDE_STARTED_FILE: started,
    FAKE_CLAUDE_WRITE_FILES: JSON.stringify({ "almanac/concepts/live.md": page }),
    FAKE_CLAUDE_DELAY_MS: "2000",
  };
  const receipt = box.run(["garden", "--using", "claude", "--json"], { cwd: root, env }).json<{ run_id: string }>();
  const agentPid = Number(await waitForFile(started));
  await waitFor(() => existsSync(join(root, "almanac", "concepts", "live.md")) && readFileSync(join(root, "almanac", "concepts", "live.md"), "utf8") === page, "the agent's page");
  // The agent is paused inside its wait; a reader refreshes the index and sees the new page first.
  process.kill(agentPid, "SIGSTOP");
  try {
    expect(box.run(["search", "--slugs"], { cwd: root }).stdout).toContain("concepts/live");
  } finally {
    process.kill(agentPid, "SIGCONT");
  }
  const show = () => box.run(["jobs", "show", receipt.run_id, "--json"]).json<{ status: string; page_changes: { created: string[] } | null }>();
  await waitForStatus(box, receipt.run_id, ["done", "failed"]);
  expect(show()).toMatchObject({ status: "done", page_changes: { created: ["concepts/live"] } });
});
