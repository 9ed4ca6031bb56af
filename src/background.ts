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
  let sink: (text: string) => void = (text) => void process.stderr.write(text);
  const log = (line: string) => sink(`${new Date().toISOString()} [${process.pid}] ${line}\n`);
  let parsed: Arguments;
  try {
    parsed = parseArgs(command, rest);
  } catch (error) {
    // A usage error is one line and exit 2, like every other entry point.
    process.stderr.write(`codealmanac: ${oneLine(error)}\n`);
    return 2;
  }
  const app = new App({ env: process.env, notice: log, log });
  try {
    await app.prepare();
    if (parsed.command === "__run-worker") {
      const worker = await app.worker();
      const result = await worker.drain(parsed.maxRuns !== undefined ? { maxRuns: parsed.maxRuns } : {});
      process.stdout.write(
        JSON.stringify({ lock_acquired: result.lockAcquired, ending: result.ending, processed: result.processed.map((r) => r.runId) }) +
          "\n",
      );
      return 0;
    }
    const stop = new AbortController();
    const deps = await app.executorDeps(stop.signal);
    // Booted ahead of its run: wait for the worker to hand one over (EOF means not needed).
    const line = (await readAll(process.stdin)).trim();
    if (line === "") return 0;
    // With a run: a stop (cancel or timeout) signals the whole process group, the agent
    // included. The executor outlives its agent, so the agent gets the whole grace period to
    // end on its own, and then exits without recording a failure: the stopper records the outcome.
    process.on("SIGTERM", () => {
      log("told to stop: waiting for the agent to end");
      stop.abort();
    });
    const dispatch = decodeDispatch(line);
    if (!dispatch) {
      log(`__run-executor: not a dispatch: ${line.slice(0, 200)}`);
      return 2;
    }
    const file = openRunLog(dispatch.logPath);
    sink = (text) => void appendFileSync(file, text);
    const request = { runId: dispatch.runId, executionId: dispatch.executionId, workerToken: dispatch.workerToken };
    return await executeRun(deps, { ...request, runId: parseRunId(request.runId) });
  } catch (error) {
    log(`${command} failed: ${error instanceof Error ? (error.stack ?? error.message) : oneLine(error)}`);
    return 1;
  } finally {
    app.close();
  }
}

type Arguments = { command: "__run-worker"; maxRuns?: number } | { command: "__run-executor" };

const WORKER_USAGE = "usage: __run-worker [--max-runs <n>] (lifecycle commands start it)";
const EXECUTOR_USAGE = "usage: __run-executor --standby (the worker starts it and writes its run to stdin)";

function parseArgs(command: string | undefined, args: string[]): Arguments {
  if (command === "__run-worker") {
    let maxRuns: number | undefined;
    for (let i = 0; i < args.length; i++) {
      const arg = args[i]!;
      if (arg === "--max-runs" && i + 1 < args.length) maxRuns = positiveInteger(args[++i]!);
      else throw new Error(`${describeArgument(arg)}; ${WORKER_USAGE}`);
    }
    return maxRuns === undefined ? { command } : { command, maxRuns };
  }
  if (args.length !== 1 || args[0] !== "--standby") {
    const wrong = args.find((arg) => arg !== "--standby");
    throw new Error(wrong === undefined ? EXECUTOR_USAGE : `${describeArgument(wrong)}; ${EXECUTOR_USAGE}`);
  }
  return { command: "__run-executor" };
}

function describeArgument(arg: string): string {
  if (arg === "--max-runs") return "--max-runs needs a value";
  return arg.startsWith("-") ? `unknown option ${arg}` : `unexpected argument ${arg}`;
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
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new Error(`--max-runs must be a positive integer, got ${text}`);
  return Number(text);
}
