import type { App } from "../../app.js";
import { EXECUTION_ENV } from "../../queue/ports.js";
import { executeRun } from "../../queue/executor.js";
import { parseRunId } from "../../runs/ids.js";
import type { CliContext } from "../context.js";
import type { Opts } from "../context.js";

/** `__run-worker`: drains the queue; its output goes to the worker log. */
export async function runWorker(ctx: CliContext, app: App, _args: unknown[], opts: Opts): Promise<void> {
  const worker = await app.worker();
  const maxRuns = opts.maxRuns as number | undefined;
  const result = await worker.drain(maxRuns !== undefined ? { maxRuns } : {});
  ctx.write(
    JSON.stringify({ lock_acquired: result.lockAcquired, ending: result.ending, processed: result.processed.map((r) => r.runId) }) + "\n",
  );
}

/** `__run-executor`: executes one claimed run; the exit code tells the worker how it went. */
export async function runExecutor(ctx: CliContext, app: App, args: unknown[], opts: Opts): Promise<void> {
  const executionId = opts.execution as string;
  // Every process the agent starts inherits this marker, so the whole tree can be found later.
  process.env[EXECUTION_ENV] = executionId;
  ctx.exitCode = await executeRun(await app.executorDeps(), {
    runId: parseRunId(args[0] as string),
    executionId,
    workerToken: (opts.workerToken as string | undefined) ?? null,
  });
}
