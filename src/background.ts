/**
 * Entry for the queue's background processes (`__run-worker`, `__run-executor`). They
 * skip the CLI parser entirely: each run starts two of them, so start-up time matters,
 * and their output goes to log files, not to a person.
 */
import { appendFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { App } from "./app.js";
import { exitCodeFor, oneLine } from "./core/errors.js";
import { QUEUE_UNSUPPORTED_MESSAGE, queueSupported } from "./core/platform.js";
import { executeRun } from "./queue/executor.js";
import { decodeDispatch } from "./queue/ports.js";
import { parseRunId } from "./runs/ids.js";

export async function runBackground(argv: string[], platform: NodeJS.Platform = process.platform): Promise<number> {
  if (!queueSupported(platform)) {
    process.stderr.write(`codealmanac: ${QUEUE_UNSUPPORTED_MESSAGE}\n`);
    return exitCodeFor.unavailable;
  }
  const [command, ...rest] = argv;
  const { options, standby } = parseArgs(rest);
  let sink: (text: string) => void = (text) => void process.stderr.write(text);
  const log = (line: string) => sink(`${new Date().toISOString()} [${process.pid}] ${line}\n`);
  const app = new App({ env: process.env, notice: log, log });
  try {
    if (command === "__run-worker") {
      const maxRuns = options.get("--max-runs");
      const worker = await app.worker();
      const result = await worker.drain(maxRuns !== undefined ? { maxRuns: positiveInteger(maxRuns) } : {});
      process.stdout.write(
        JSON.stringify({ lock_acquired: result.lockAcquired, ending: result.ending, processed: result.processed.map((r) => r.runId) }) +
          "\n",
      );
      return 0;
    }
    if (!standby) throw new UsageError("usage: __run-executor --standby (the worker starts it and writes its run to stdin)");
    const deps = await app.executorDeps();
    // Booted ahead of its run: wait for the worker to hand one over (EOF means not needed).
    const line = (await readAll(process.stdin)).trim();
    if (line === "") return 0;
    const dispatch = decodeDispatch(line);
    if (!dispatch) throw new UsageError(`__run-executor: not a dispatch: ${line.slice(0, 200)}`);
    const file = openRunLog(dispatch.logPath);
    sink = (text) => void appendFileSync(file, text);
    const request = { runId: dispatch.runId, executionId: dispatch.executionId, workerToken: dispatch.workerToken };
    return await executeRun(deps, { ...request, runId: parseRunId(request.runId) });
  } catch (error) {
    log(`${command} failed: ${error instanceof Error ? (error.stack ?? error.message) : oneLine(error)}`);
    return error instanceof UsageError ? 2 : 1;
  } finally {
    app.close();
  }
}

class UsageError extends Error {}

function parseArgs(args: string[]): { options: Map<string, string>; standby: boolean } {
  const options = new Map<string, string>();
  let standby = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--standby") standby = true;
    else if (!arg.startsWith("--")) throw new UsageError(`unexpected argument ${arg}`);
    else if (["--max-runs", "--cwd"].includes(arg) && i + 1 < args.length) options.set(arg, args[++i]!);
    else throw new UsageError(`unknown option ${arg}`);
  }
  return { options, standby };
}

function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => (text += chunk));
    stream.on("end", () => resolve(text));
    stream.on("error", reject);
  });
}

function openRunLog(path: string): string {
  mkdirSync(dirname(path), { recursive: true });
  return path;
}

function positiveInteger(text: string): number {
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new UsageError(`--max-runs must be a positive integer, got ${text}`);
  return Number(text);
}
