import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { vocabulary } from "./search-terms.js";
import type { ParsedFile, PageParser } from "./parse-file.js";
import type { ScannedFile } from "./scan.js";

export interface ParseJob {
  file: ScannedFile;
  hash?: string;
}

/**
 * Parses batches of files: on worker threads when they are available and worth starting,
 * and always on the calling thread too (`parseHere`), which the writer does while the batch
 * it needs next is still on a worker.
 */
export interface BatchParser {
  /** Worker threads parsing (0: every batch is parsed on the calling thread). */
  readonly threads: number;
  /** A worker can take another batch now. */
  canTake(): boolean;
  /** Parses a batch on a worker; only when `canTake()`. */
  parse(jobs: ParseJob[]): Promise<ParsedFile[]>;
  /** Parses a batch on the calling thread. */
  parseHere(jobs: ParseJob[]): ParsedFile[];
  close(): Promise<void>;
}

/** Below this many files, starting workers costs more than it saves. */
export const PARALLEL_THRESHOLD = 300;

/**
 * Sets the number of parse worker threads for big rebuilds (0: parse inline, on the
 * writing thread). A diagnostic switch: tests compare both paths, benchmarks size the pool.
 */
export const PARSE_WORKERS_ENV = "CODEALMANAC_PARSE_WORKERS";

/** Batches posted to one worker at once, so it starts the next while the writer is busy parsing or writing. */
const BATCHES_PER_WORKER = 2;

/** `wikiRoot` is the wiki folder's real path, which every page read must stay inside. */
export function inlineParser(parser: PageParser, wikiRoot: string): BatchParser {
  const parseHere = (jobs: ParseJob[]) => jobs.map((job) => parser.parseFile(job.file, wikiRoot, job.hash));
  return {
    threads: 0,
    canTake: () => false,
    parse: async (jobs) => parseHere(jobs),
    parseHere,
    close: async () => undefined,
  };
}

interface PoolWorker {
  worker: Worker;
  /** The worker's term numbers, as numbers in this thread's vocabulary. */
  terms: number[];
  pending: Map<number, { resolve: (results: ParsedFile[]) => void; reject: (error: unknown) => void }>;
}

/**
 * Worker threads for big rebuilds. The bundle ships the worker next to the CLI
 * (dist/parse-worker.js); when it is absent (tests running sources) parsing stays inline.
 */
export function createBatchParser(parser: PageParser, fileCount: number, wikiRoot: string): BatchParser {
  const inline = inlineParser(parser, wikiRoot);
  const script = workerScript();
  const size = workerCount();
  if (fileCount < PARALLEL_THRESHOLD || !script || size === 0) return inline;
  const workers = Array.from({ length: size }, () => startWorker(script));
  const leastBusy = () => workers.reduce((best, w) => (w.pending.size < best.pending.size ? w : best));
  let nextId = 0;
  return {
    threads: size,
    canTake: () => leastBusy().pending.size < BATCHES_PER_WORKER,
    parse(jobs) {
      const target = leastBusy();
      const id = nextId++;
      return new Promise<ParsedFile[]>((resolve, reject) => {
        target.pending.set(id, { resolve, reject });
        target.worker.postMessage({ id, root: wikiRoot, files: jobs });
      });
    },
    parseHere: inline.parseHere,
    async close() {
      await Promise.all(workers.map((w) => w.worker.terminate()));
    },
  };
}

/**
 * A parse worker's young generation, in MB. V8's default (three 16 MB semi-spaces) let each
 * worker hold about 25 MB more of short-lived parse garbage on the 10,000-page bench rebuild,
 * with no measurable gain in speed; a page's parse needs little live memory, and bigger
 * objects go to V8's large-object space whatever this says.
 */
const WORKER_YOUNG_GENERATION_MB = 4;

function startWorker(script: URL): PoolWorker {
  const worker = new Worker(script, { resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB } });
  const entry: PoolWorker = { worker, terms: [], pending: new Map() };
  entry.worker.on("message", (message: { id: number; results: ParsedFile[]; terms: { from: number; names: string[] } }) => {
    const request = entry.pending.get(message.id);
    entry.pending.delete(message.id);
    try {
      request?.resolve(renumbered(entry, message.results, message.terms));
    } catch (error) {
      request?.reject(error);
    }
  });
  entry.worker.on("error", (error) => {
    for (const request of entry.pending.values()) request.reject(error);
    entry.pending.clear();
  });
  return entry;
}

/** A worker's results with their sections' terms in this thread's numbering (messages arrive in the order the worker numbered them). */
function renumbered(entry: PoolWorker, results: ParsedFile[], terms: { from: number; names: string[] }): ParsedFile[] {
  if (terms.from !== entry.terms.length) throw new Error(`parse worker sent term ${terms.from}, expected ${entry.terms.length}`);
  for (const name of terms.names) entry.terms.push(vocabulary.number(name));
  for (const result of results) {
    const numbers = result.page?.search.terms ?? [];
    for (let i = 0; i < numbers.length; i++) numbers[i] = entry.terms[numbers[i]!]!;
  }
  return results;
}

/**
 * One worker fewer than the machine has cores (at most 4), because the writing thread parses
 * too while it waits: two cores run one worker and the writer, not three threads on two cores.
 */
function workerCount(): number {
  const forced = process.env[PARSE_WORKERS_ENV];
  if (forced !== undefined && /^\d+$/.test(forced)) return Math.min(16, Number(forced));
  return Math.max(1, Math.min(4, availableParallelism() - 1));
}
function workerScript(): URL | null {
  for (const candidate of ["./parse-worker.js", "../parse-worker.js"]) {
    const url = new URL(candidate, import.meta.url);
    if (existsSync(fileURLToPath(url))) return url;
  }
  return null;
}
