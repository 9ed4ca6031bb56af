import { spawn, type ChildProcess } from "node:child_process";
import { request } from "node:http";
import { afterEach } from "vitest";
import { BIN, type Sandbox } from "../support/cli.js";
import type { PageSummary as ServerPageSummary } from "../../src/viewer/shapes.js";

export interface Viewer {
  /** As printed, e.g. `http://127.0.0.1:41234/` (with `?token=` off loopback). */
  url: string;
  /** `http://127.0.0.1:<port>`, without a trailing slash. */
  origin: string;
  port: number;
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit once the process is gone. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const running = new Set<ChildProcess>();

/** Every viewer a test started is killed after it, whatever happened. */
afterEach(() => {
  for (const child of running) child.kill("SIGKILL");
  running.clear();
});

export interface StartOptions {
  cwd?: string;
  args?: string[];
  env?: NodeJS.ProcessEnv;
  /** Let `serve` open a browser (tests put a fake opener on PATH). */
  open?: boolean;
}

/** Runs the built CLI's `serve --no-open --port 0` and waits for the URL it prints. */
export async function startViewer(box: Sandbox, options: StartOptions = {}): Promise<Viewer> {
  const flags = [...(options.open ? [] : ["--no-open"]), "--port", "0", ...(options.args ?? [])];
  const child = spawn(process.execPath, [BIN, "serve", ...flags], {
    cwd: options.cwd ?? box.dir,
    env: { ...box.env, ...(options.env ?? {}) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(child);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => (stdout += d));
  child.stderr!.on("data", (d) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    }),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const check = () => {
      const match = /codealmanac viewer: (\S+)\n/.exec(stdout);
      if (match) resolve(match[1]!);
    };
    child.stdout!.on("data", check);
    void exited.then(({ code }) => reject(new Error(`serve exited (${code}) before printing its URL:\n${stdout}\n${stderr}`)));
  });
  const port = Number(new URL(url).port);
  return { url, origin: `http://127.0.0.1:${port}`, port, child, stdout: () => stdout, stderr: () => stderr, exited };
}

/** Runs `serve` to its end (for startup failures). */
export function serveUntilExit(box: Sandbox, args: string[], cwd = box.dir): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return box.runAsync(["serve", "--no-open", ...args], { cwd });
}

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json<T = ErrorBody>(): T;
}

/** The one error shape of every failure. */
export interface ErrorBody {
  error: { code: string; message: string };
}

/** The server's page summary; search results add the matched heading and an excerpt. */
export type PageSummary = ServerPageSummary & { matched_heading?: string | null; excerpt?: string | null };

export interface JobRun {
  run_id: string;
  kind: string;
  status: string;
  title: string | null;
  page_changes: { created: string[]; updated: string[]; deleted: string[] } | null;
  warnings: number;
  [field: string]: unknown;
}

export interface JobStep {
  key: string;
  sequence: number;
  kind: string;
  title: string;
  status?: string;
  body?: string;
  [field: string]: unknown;
}

/**
 * A raw HTTP request: the path goes on the wire exactly as given (fetch would normalize
 * `..` and `%2e%2e` away), and the Host header can be anything.
 */
export function raw(origin: string, path: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Reply> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path, method: options.method ?? "GET", headers: options.headers ?? {} }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body, json: () => JSON.parse(body) }));
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

export async function getJson<T = ErrorBody>(viewer: Viewer, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: T; headers: Headers }> {
  const res = await fetch(viewer.origin + path, { headers });
  return { status: res.status, body: (await res.json()) as T, headers: res.headers };
}

/** The launch token the shell carries on loopback. */
export async function shellToken(viewer: Viewer): Promise<string | null> {
  const html = await (await fetch(viewer.origin + "/")).text();
  return /<meta name="codealmanac-token" content="([^"]*)">/.exec(html)?.[1] ?? null;
}

export function cancel(viewer: Viewer, runId: string, headers: Record<string, string>): Promise<Reply> {
  return raw(viewer.origin, `/api/jobs/${runId}/cancel`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: "{}" });
}

export interface ServerEvent {
  event: string;
  data: string;
  id: string | null;
}

/** Reads a text/event-stream response event by event. */
export async function openEvents(viewer: Viewer, path: string, headers: Record<string, string> = {}) {
  const abort = new AbortController();
  const res = await fetch(viewer.origin + path, { headers, signal: abort.signal });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const comments: string[] = [];
  const next = async (): Promise<ServerEvent | null> => {
    for (;;) {
      const end = buffer.indexOf("\n\n");
      if (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = parseEvent(block, comments);
        if (event) return event;
        continue;
      }
      const { value, done } = await reader.read();
      if (done) return null;
      buffer += value;
    }
  };
  return {
    status: res.status,
    headers: res.headers,
    next,
    /** Every event until the stream ends (the server closes it after `end`). */
    async rest(): Promise<ServerEvent[]> {
      const all: ServerEvent[] = [];
      for (let e = await next(); e; e = await next()) all.push(e);
      return all;
    },
    close: () => abort.abort(),
  };
}

function parseEvent(block: string, comments: string[]): ServerEvent | null {
  let event = "message";
  const data: string[] = [];
  let id: string | null = null;
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) comments.push(line);
    else if (line.startsWith("event: ")) event = line.slice(7);
    else if (line.startsWith("data: ")) data.push(line.slice(6));
    else if (line.startsWith("id: ")) id = line.slice(4);
  }
  return data.length > 0 ? { event, data: data.join("\n"), id } : null;
}
