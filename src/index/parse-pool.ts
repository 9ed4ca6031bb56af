import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { ParsedFile, PageParser } from "./parse-file.js";
import type { ScannedFile } from "./scan.js";

export interface ParseJob {
  file: ScannedFile;
  hash?: string;
}

/** Parses batches of files, on worker threads when they are available and worth starting. */
export interface BatchParser {
  /** Worker threads parsing (0: parsing runs inline on the calling thread). */
  readonly threads: number;
  parse(jobs: ParseJob[]): Promise<ParsedFile[]>;
  close(): Promise<void>;
}

/** Below this many files, starting workers costs more than it saves. */
export const PARALLEL_THRESHOLD = 300;

/**
 * Sets the number of parse worker threads for big rebuilds (0: parse inline, on the
 * writing thread). A diagnostic switch: tests compare both paths, benchmarks size the pool.
 */
export const PARSE_WORKERS_ENV = "CODEALMANAC_PARSE_WORKERS";

/** `wikiRoot` is the wiki folder's real path, which every page read must stay inside. */
export function inlineParser(parser: PageParser, wikiRoot: string): BatchParser {
  return {
    threads: 0,
    parse: async (jobs) => jobs.map((job) => parser.parseFile(job.file, wikiRoot, job.hash)),
    close: async () => undefined,
  };
}

/**
 * Worker threads for big rebuilds. The bundle ships the worker next to the CLI
 * (dist/parse-worker.js); when it is absent (tests running sources) parsing stays inline.
 */
export function createBatchParser(parser: PageParser, fileCount: number, wikiRoot: string): BatchParser {
  const script = workerScript();
  const size = workerCount();
  if (fileCount < PARALLEL_THRESHOLD || !script || size === 0) return inlineParser(parser, wikiRoot);
  const workers = Array.from({ length: size }, () => new Worker(script));
  const idle = [...workers];
  const waiting: ((worker: Worker) => void)[] = [];
  let nextId = 0;
  const acquire = () =>
    new Promise<Worker>((resolve) => {
      const worker = idle.pop();
      if (worker) resolve(worker);
      else waiting.push(resolve);
    });
  const release = (worker: Worker) => {
    const next = waiting.shift();
    if (next) next(worker);
    else idle.push(worker);
  };
  return {
    threads: size,
    async parse(jobs) {
      const worker = await acquire();
      const id = nextId++;
      try {
        return await new Promise<ParsedFile[]>((resolve, reject) => {
          const onMessage = (message: { id: number; results: ParsedFile[] }) => {
            if (message.id !== id) return;
            worker.off("message", onMessage);
            worker.off("error", reject);
            resolve(message.results);
          };
          worker.on("message", onMessage);
          worker.once("error", reject);
          worker.postMessage({ id, root: wikiRoot, files: jobs });
        });
      } finally {
        release(worker);
      }
    },
    async close() {
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}

function workerCount(): number {
  const forced = process.env[PARSE_WORKERS_ENV];
  if (forced !== undefined && /^\d+$/.test(forced)) return Math.min(16, Number(forced));
  return Math.max(1, Math.min(4, availableParallelism()));
}

function workerScript(): URL | null {
  for (const candidate of ["./parse-worker.js", "../parse-worker.js"]) {
    const url = new URL(candidate, import.meta.url);
    if (existsSync(fileURLToPath(url))) return url;
  }
  return null;
}
