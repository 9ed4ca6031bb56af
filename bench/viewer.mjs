// The `viewer` section of bench/run.mjs: `ca serve` on the 10 000-page wiki.
//
//   1. API latency with the index unchanged: the median time of `GET /api/overview` and of
//      `GET /api/page/<slug>` (a different page each time), measured from this process over
//      HTTP against the running server, after one warm-up request each.
//   2. Live jobs: an open `GET /api/jobs/<id>/events` stream on a queued run; an event is
//      appended to the ledger and the time until the stream delivers it is taken, 20 times.
//      That is the delay before a job view the browser has open can draw the new step.
import { spawn } from "node:child_process";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { TextDecoder } from "node:util";
import { homeEnv } from "./env.mjs";
import { Ledger } from "./queue.mjs";

const FAKE_BIN = fileURLToPath(new URL("../test/fixtures/bin", import.meta.url));
const PAGES = 10_000;
const REQUESTS = 60;
const EVENTS = 20;

/** Starts `ca serve` and resolves with its base URL once it prints it. */
function startServer(ctx, { cwd, stateHome, env }) {
  const child = spawn(process.execPath, [ctx.cli, "serve", "--no-open", "--port", "0"], {
    cwd,
    env: ctx.childEnv({ stateHome, env }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  const undo = ctx.defer(() => child.kill("SIGKILL"));
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const match = /(http:\/\/\S+)/.exec(out);
      if (match) resolve({ url: new URL(match[1]), stop: () => (child.kill("SIGTERM"), undo()) });
    });
    child.stderr.on("data", (chunk) => (err += chunk));
    child.on("exit", (code) => reject(new Error(`ca serve exited ${code}: ${err}`)));
  });
}

async function timeGet(url) {
  const started = performance.now();
  const response = await globalThis.fetch(url);
  const body = await response.text();
  const ms = performance.now() - started;
  if (!response.ok) throw new Error(`viewer bench: GET ${url} → ${response.status}: ${body.slice(0, 200)}`);
  return { ms, body };
}

/** Reads an SSE stream and calls `onData(text)` for each chunk. */
async function readStream(response, onData, signal) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  try {
    while (!signal.aborted) {
      const { value, done } = await reader.read();
      if (done) break;
      onData(decoder.decode(value, { stream: true }));
    }
  } catch (error) {
    if (!signal.aborted) throw error;
  }
}

export async function benchViewer(ctx) {
  const { default: Database } = await import("better-sqlite3");
  const home = join(ctx.tmp, "viewer-home");
  const env = homeEnv(home);
  const root = join(ctx.tmp, "viewer-repo");
  const gen = ctx.generate(root, PAGES, ctx.opts.seed);
  const stateHome = ctx.stateHome("viewer");
  ctx.ca(["reindex", "--json"], { cwd: root, stateHome, env });
  const server = await startServer(ctx, { cwd: root, stateHome, env });
  const result = { pages: PAGES, requests: REQUESTS };
  try {
    const api = (path) => new URL(path, server.url).toString();
    const overview = JSON.parse((await timeGet(api("/api/overview"))).body);
    const slugs = overview.navigation.map((p) => p.slug);
    const overviewMs = [];
    const pageMs = [];
    for (let i = 0; i < REQUESTS; i++) {
      overviewMs.push((await timeGet(api("/api/overview"))).ms);
      pageMs.push((await timeGet(api(`/api/page/${slugs[(i * 97) % slugs.length].split("/").map(encodeURIComponent).join("/")}`))).ms);
    }
    // The viewer's search box asks for the best 50, like the CLI.
    const searchUrl = (query) => api(`/api/search?q=${encodeURIComponent(query)}&limit=50`);
    await timeGet(searchUrl(gen.query));
    const searchMs = [];
    const broadMs = [];
    for (let i = 0; i < REQUESTS; i++) {
      searchMs.push((await timeGet(searchUrl(gen.query))).ms);
      broadMs.push((await timeGet(searchUrl(gen.broad_query))).ms);
    }
    const broadTotal = JSON.parse((await timeGet(searchUrl(gen.broad_query))).body).total;
    result.search = ctx.figure({ label: "viewer /api/search, best 50 (10k, unchanged)", what: "HTTP GET /api/search?q=<two title words>&limit=50", samples: searchMs });
    result.search_broad = ctx.figure({
      label: "viewer /api/search broad, best 50 (10k, unchanged)",
      what: "HTTP GET /api/search?q=<two words on most pages>&limit=50",
      samples: broadMs,
      fields: { query: gen.broad_query, matching_pages: broadTotal },
    });
    ctx.target("viewer_search_10k", { measurement: result.search, limitMs: 15, figure: "viewer.search" });
    ctx.target("viewer_search_broad_10k", { measurement: result.search_broad, limitMs: 15, figure: "viewer.search_broad" });
    result.overview = ctx.figure({ label: "viewer /api/overview (10k, unchanged)", what: "HTTP GET /api/overview", samples: overviewMs });
    result.page = ctx.figure({ label: "viewer /api/page/<slug> (10k, unchanged)", what: "HTTP GET /api/page/<slug>", samples: pageMs });
    ctx.target("viewer_overview_10k", { measurement: result.overview, limitMs: 50, figure: "viewer.overview" });
    ctx.target("viewer_page_10k", { measurement: result.page, limitMs: 50, figure: "viewer.page" });

    // A queued run that stays queued: the queue is parked by this process.
    const ledger = new Ledger(Database, stateHome);
    ledger.park();
    const keepParked = ctx.defer(() => ledger.unpark());
    const receipt = JSON.parse(ctx.ca(["garden", "--using", "claude", "--json"], { cwd: root, stateHome, env: { ...env, PATH: `${FAKE_BIN}${delimiter}${process.env.PATH ?? ""}` } }));
    const detail = JSON.parse((await timeGet(api(`/api/jobs/${receipt.run_id}`))).body);
    const abort = new AbortController();
    const stream = await globalThis.fetch(api(`/api/jobs/${receipt.run_id}/events?after=${detail.last_seq}`), { signal: abort.signal, headers: { Accept: "text/event-stream" } });
    let seen = "";
    const arrivals = new Map();
    const reading = readStream(stream, (text) => {
      seen += text;
      for (const match of seen.matchAll(/bench-event-(\d+)/gi)) if (!arrivals.has(match[1])) arrivals.set(match[1], performance.now());
    }, abort.signal);
    const delays = [];
    for (let i = 0; i < EVENTS; i++) {
      const written = performance.now();
      ledger.appendEvent(receipt.run_id, `bench-event-${i}`);
      const deadline = written + 5000;
      while (!arrivals.has(String(i)) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 2));
      if (!arrivals.has(String(i))) throw new Error(`viewer bench: event ${i} never reached the stream`);
      delays.push(arrivals.get(String(i)) - written);
      await new Promise((r) => setTimeout(r, 50 + (i % 5) * 37));
    }
    abort.abort();
    await reading;
    result.event_delay = ctx.figure({ label: "viewer event → job stream", what: "ledger event written → delivered on /api/jobs/<id>/events", samples: delays });
    ctx.target("viewer_event_delay", { measurement: result.event_delay, limitMs: 500, figure: "viewer.event_delay" });
    keepParked();
    ledger.unpark();
    ledger.close();
  } finally {
    server.stop();
  }
  return result;
}
