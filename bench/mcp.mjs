// The `mcp` section of bench/run.mjs: `ca mcp` on the 10 000-page wiki, driven over its
// stdio by a minimal JSON-RPC client in this process (no SDK, so only the server is timed).
//
//   1. Start-up: spawn `node dist/bin.js mcp` → the `initialize` reply arrives, per run;
//      compared with the bare `node -e 0` baseline.
//   2. Tool calls with the wiki unchanged: the round-trip time of `search` for the best 50
//      (the generator's narrow two-word query, and its broad one whose words are on most
//      pages) and of `read_page` (a different page each time), on one server that stays up,
//      after one warm-up call each.
//   3. The same right after one page is touched: before each call a page gets a new content
//      change (alternating between two pages), so each call includes an incremental refresh.
import { spawn } from "node:child_process";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { homeEnv } from "./env.mjs";

const PAGES = 10_000;
const CALLS = 60;
const TOUCHES = 20;
const PROTOCOL_VERSION = "2025-06-18";

/** One `ca mcp` process and the requests in flight to it. */
class McpProcess {
  constructor(ctx, { cwd, stateHome, env }) {
    this.child = spawn(process.execPath, [ctx.cli, "mcp"], { cwd, env: ctx.childEnv({ stateHome, env }), stdio: ["pipe", "pipe", "pipe"] });
    this.undo = ctx.defer(() => this.child.kill("SIGKILL"));
    this.pending = new Map();
    this.nextId = 1;
    this.stderr = "";
    let buffer = "";
    this.child.stdout.on("data", (chunk) => {
      buffer += chunk;
      let newline;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        const message = JSON.parse(line);
        // Notifications (list_changed after a touch) carry no id.
        if (message.id === undefined) continue;
        const waiter = this.pending.get(message.id);
        this.pending.delete(message.id);
        waiter?.(message);
      }
    });
    this.child.stderr.on("data", (chunk) => (this.stderr += chunk));
    this.exited = new Promise((resolve) => this.child.on("exit", (code) => resolve(code)));
    this.child.on("exit", (code) => {
      for (const waiter of this.pending.values()) waiter({ error: { message: `ca mcp exited (${code}): ${this.stderr}` } });
    });
  }

  request(method, params = {}) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, (message) => (message.error ? reject(new Error(`mcp bench: ${method} → ${message.error.message}`)) : resolve(message.result)));
      this.child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    });
  }

  notify(method) {
    this.child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method }) + "\n");
  }

  async initialize() {
    const result = await this.request("initialize", { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "bench", version: "1" } });
    this.notify("notifications/initialized");
    return result;
  }

  /** A tool call's round-trip time; an error result fails the benchmark. */
  async timeTool(name, args) {
    const started = performance.now();
    const result = await this.request("tools/call", { name, arguments: args });
    const ms = performance.now() - started;
    if (result.isError) throw new Error(`mcp bench: ${name} ${JSON.stringify(args)} → ${result.content?.[0]?.text}`);
    return { ms, result };
  }

  /** Closes stdin, as a client does, and waits for a clean exit (which also saves the compile cache). */
  async stop() {
    this.child.stdin.end();
    const code = await this.exited;
    this.undo();
    if (code !== 0) throw new Error(`mcp bench: ca mcp exited ${code}: ${this.stderr}`);
  }
}

/** Every page's path under almanac/, README pages left out (the touch targets). */
function pageFiles(root) {
  const out = [];
  const walk = (dir, rel) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(join(dir, entry.name), path);
      else if (entry.name.endsWith(".md") && entry.name !== "README.md") out.push(path);
    }
  };
  walk(join(root, "almanac"), "");
  return out.sort();
}

async function startupFigure(ctx, where) {
  const samples = [];
  for (let i = 0; i < ctx.opts.warmup + ctx.opts.runs; i++) {
    const started = performance.now();
    const server = new McpProcess(ctx, where);
    const reply = await server.initialize();
    const ms = performance.now() - started;
    if (reply.serverInfo?.name !== "codealmanac") throw new Error(`mcp bench: unexpected initialize reply ${JSON.stringify(reply)}`);
    await server.stop();
    if (i >= ctx.opts.warmup) samples.push(ms);
  }
  return ctx.figure({ label: "mcp start → initialize reply (10k)", what: "spawn `ca mcp` → initialize result received", samples });
}

export async function benchMcp(ctx) {
  const env = homeEnv(join(ctx.tmp, "mcp-home"));
  const root = join(ctx.tmp, "mcp-repo");
  const gen = ctx.generate(root, PAGES, ctx.opts.seed);
  const stateHome = ctx.stateHome("mcp");
  ctx.ca(["reindex", "--json"], { cwd: root, stateHome, env });
  const where = { cwd: root, stateHome, env };
  const result = { pages: PAGES, calls: CALLS, touches: TOUCHES, query: gen.query };

  result.startup = await startupFigure(ctx, where);
  ctx.target("mcp_startup_10k", { measurement: result.startup, marginMs: 150, figure: "mcp.startup" });

  const server = new McpProcess(ctx, where);
  try {
    await server.initialize();
    const files = pageFiles(root);
    const slugs = files.map((f) => f.replace(/\.md$/, ""));
    // The best 50, as agents ask: a narrow query (two title words) and a broad one (two words each on most pages).
    const search = { query: gen.query, limit: 50 };
    const broad = { query: gen.broad_query, limit: 50 };
    await server.timeTool("search", search);
    await server.timeTool("search", broad);
    await server.timeTool("read_page", { slug: slugs[0] });
    const searchMs = [];
    const broadMs = [];
    const readMs = [];
    let broadTotal = null;
    for (let i = 0; i < CALLS; i++) {
      searchMs.push((await server.timeTool("search", search)).ms);
      const broadCall = await server.timeTool("search", broad);
      broadMs.push(broadCall.ms);
      broadTotal = broadCall.result.structuredContent?.total ?? null;
      readMs.push((await server.timeTool("read_page", { slug: slugs[(i * 97) % slugs.length] })).ms);
    }
    result.broad_query = gen.broad_query;
    result.search = ctx.figure({ label: "mcp search, best 50 (10k, unchanged)", what: "tools/call search round trip, limit 50", samples: searchMs });
    result.search_broad = ctx.figure({
      label: "mcp broad search, best 50 (10k, unchanged)",
      what: "tools/call search round trip, limit 50, words on most pages",
      samples: broadMs,
      fields: { matching_pages: broadTotal },
    });
    result.read_page = ctx.figure({ label: "mcp read_page (10k, unchanged)", what: "tools/call read_page round trip", samples: readMs });
    ctx.target("mcp_search_10k", { measurement: result.search, limitMs: 15, figure: "mcp.search" });
    ctx.target("mcp_search_broad_10k", { measurement: result.search_broad, limitMs: 15, figure: "mcp.search_broad" });
    ctx.target("mcp_read_page_10k", { measurement: result.read_page, limitMs: 15, figure: "mcp.read_page" });

    const touched = [files[Math.floor(files.length / 3)], files[Math.floor((2 * files.length) / 3)]];
    const originals = touched.map((f) => readFileSync(join(root, "almanac", f), "utf8"));
    let edits = 0;
    const touch = () => {
      const k = edits % touched.length;
      // The size changes as well as the content, so no change detector can miss it.
      writeFileSync(join(root, "almanac", touched[k]), `${originals[k]}\nBenchmark edit ${edits}:${" The probe rewrote this.".repeat(1 + (edits % 3))}\n`);
      edits++;
    };
    const touchedSearch = [];
    const touchedRead = [];
    try {
      for (let i = 0; i < TOUCHES; i++) {
        touch();
        touchedSearch.push((await server.timeTool("search", search)).ms);
        touch();
        touchedRead.push((await server.timeTool("read_page", { slug: slugs[(i * 31) % slugs.length] })).ms);
      }
    } finally {
      touched.forEach((f, k) => writeFileSync(join(root, "almanac", f), originals[k]));
    }
    result.touched_pages = touched;
    result.search_after_touch = ctx.figure({ label: "mcp search after touching one page (10k)", what: "page rewritten → tools/call search round trip", samples: touchedSearch });
    result.read_page_after_touch = ctx.figure({
      label: "mcp read_page after touching one page (10k)",
      what: "page rewritten → tools/call read_page round trip",
      samples: touchedRead,
    });
    ctx.target("mcp_search_after_touch_10k", { measurement: result.search_after_touch, limitMs: 120, figure: "mcp.search_after_touch" });
    ctx.target("mcp_read_page_after_touch_10k", { measurement: result.read_page_after_touch, limitMs: 120, figure: "mcp.read_page_after_touch" });
  } finally {
    await server.stop();
  }
  return result;
}
