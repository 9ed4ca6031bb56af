import { join } from "node:path";
import { sandbox, writeWiki, type Sandbox } from "../support/cli.js";
import { holdQueue } from "../queue/support.js";

/**
 * A sandbox with one registered, indexed wiki at `<dir>/repo` and the queue held, so the
 * runs a sync queues stay queued for the test to read. Codex's home (and any other
 * variable in `env`) is cleared, so only the transcripts the test writes are found.
 */
export function parkedSyncSandbox(env: NodeJS.ProcessEnv = {}): { box: Sandbox; repo: string } {
  const box = sandbox({ CODEX_HOME: "", ...env });
  const repo = writeWiki(join(box.dir, "repo"), {});
  box.run(["reindex"], { cwd: repo });
  box.run(["jobs"]);
  holdQueue(box);
  return { box, repo };
}
