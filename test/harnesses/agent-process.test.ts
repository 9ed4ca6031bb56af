import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { runAgentProcess } from "../../src/harnesses/agent-process.js";

const DAY = 86_400_000;
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "ca-agent-process-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("an agent process under long limits", () => {
  test("a run and idle timeout of 25 days (past Node's 24.8-day timer limit) do not stop the agent", async () => {
    const release = join(dir, "release");
    // The agent says it is up, then waits until the test has seen that line and lets it finish.
    const agent = `console.log("ready"); const wait = setInterval(() => { if (require("fs").existsSync(${JSON.stringify(release)})) { clearInterval(wait); console.log("done"); } }, 20);`;
    const lines: string[] = [];
    const exit = await runAgentProcess(
      { command: process.execPath, args: ["-e", agent], cwd: dir, env: process.env, stdin: null, timeoutMs: 25 * DAY, idleTimeoutMs: 25 * DAY, exitAfterFinishMs: 5_000 },
      (line) => {
        lines.push(line);
        if (line === "ready") writeFileSync(release, "");
      },
    );
    expect(existsSync(release)).toBe(true);
    expect(lines).toEqual(["ready", "done"]);
    expect(exit).toMatchObject({ stopReason: null, stoppedByUs: false, exitCode: 0 });
  });
});
