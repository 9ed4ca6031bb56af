import { Hono, type Context, type MiddlewareHandler } from "hono";
import { getRequestListener } from "@hono/node-server";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ProductError } from "../core/errors.js";
import { graphRoutes } from "./api/graph.js";
import { healthRoutes } from "./api/health.js";
import { jobRoutes } from "./api/jobs.js";
import { overviewRoutes } from "./api/overview.js";
import { pageRoutes } from "./api/page.js";
import { searchRoutes } from "./api/search.js";
import { topicRoutes } from "./api/topic.js";
import { wikiRoutes } from "./api/wikis.js";
import { clientRoutes } from "./client-routes.js";
import type { ViewerDeps } from "./deps.js";
import { errorReply, forbidden, reply, routeNotFound, stateGone, type ErrorReply } from "./errors.js";
import {
  allowedHosts,
  cookieValue,
  hostAllowed,
  hostWithPort,
  isLoopbackHost,
  newLaunchToken,
  SECURITY_HEADERS,
  TOKEN_COOKIE,
  TOKEN_HEADER,
  TOKEN_QUERY,
  tokenCookie,
  tokenMatches,
  unsafeTarget,
} from "./safety.js";
import type { ViewerEnv } from "./selection.js";
import { loadAssets } from "./static.js";
import { STREAM_LIMITS, StreamSlots, type StreamLimits } from "./stream-slots.js";
import { setMaxListeners } from "node:events";

const SHUTDOWN_GRACE_MS = 1_000;

/** The hono app: safety first, then the API, then the client. */
export function createViewerApp(deps: ViewerDeps): Hono<ViewerEnv> {
  const app = new Hono<ViewerEnv>();
  app.use("*", responseHeaders());
  app.use("*", tokenGate(deps));
  app.use("/api/*", stateGate(deps));
  wikiRoutes(app, deps);
  overviewRoutes(app, deps);
  pageRoutes(app, deps);
  searchRoutes(app, deps);
  topicRoutes(app, deps);
  graphRoutes(app, deps);
  healthRoutes(app, deps);
  jobRoutes(app, deps);
  clientRoutes(app, deps);
  app.notFound((c) => errorJson(c, errorReply(routeNotFound(c.req.method, c.req.path))));
  app.onError((error, c) => {
    const answer = errorReply(error);
    if (answer.internal) deps.log(`codealmanac viewer: ${c.req.method} ${c.req.path} failed: ${answer.internal}`);
    return errorJson(c, answer);
  });
  return app;
}

function errorJson(c: Context<ViewerEnv>, answer: ErrorReply): Response {
  return c.json(answer.body, answer.status as 400);
}

/** Security headers on every answer, errors included; API answers are never cached. */
function responseHeaders(): MiddlewareHandler<ViewerEnv> {
  return async (c, next) => {
    await next();
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.res.headers.set(name, value);
    if (c.req.path.startsWith("/api/")) c.res.headers.set("Cache-Control", "no-store");
  };
}

/**
 * Off loopback every request needs the launch token: the `X-CodeAlmanac-Token` header,
 * the cookie set when the printed URL (`?token=`) was opened, or that query parameter.
 */
function tokenGate(deps: ViewerDeps): MiddlewareHandler<ViewerEnv> {
  return async (c, next) => {
    if (deps.access.loopback) return next();
    const { token } = deps.access;
    const fromQuery = c.req.query(TOKEN_QUERY);
    const fromCookie = cookieValue(c.req.header("cookie"), TOKEN_COOKIE);
    if (!tokenMatches(c.req.header(TOKEN_HEADER), token) && !tokenMatches(fromCookie, token) && !tokenMatches(fromQuery, token)) {
      throw forbidden("this viewer needs its launch token: open the URL `ca serve` printed");
    }
    await next();
    if (tokenMatches(fromQuery, token) && !tokenMatches(fromCookie, token)) c.res.headers.append("Set-Cookie", tokenCookie(token));
  };
}

/**
 * Once the state root is gone every API request is refused (410): answering from the
 * handles still open would show deleted wikis, and opening the state database again would
 * leave a new, empty one where `uninstall` removed it.
 */
function stateGate(deps: ViewerDeps): MiddlewareHandler<ViewerEnv> {
  return async (_c, next) => {
    if (deps.stateGone()) throw stateGone();
    await next();
  };
}

export interface ViewerLaunch {
  host: string;
  /** 0 picks a free port. */
  port: number;
}

export type ViewerOptions = Omit<ViewerDeps, "assets" | "access" | "closing" | "streams"> & ViewerLaunch & { streamLimits?: StreamLimits };

export interface RunningViewer {
  /** What to open: with `?token=` when not on loopback. */
  url: string;
  port: number;
  loopback: boolean;
  close(): Promise<void>;
}

/** Binds the server; a port in use or an address we cannot bind is a ProductError (exit 3). */
export async function startViewer(options: ViewerOptions): Promise<RunningViewer> {
  const token = newLaunchToken();
  const loopback = isLoopbackHost(options.host);
  const closing = new AbortController();
  const limits = options.streamLimits ?? STREAM_LIMITS;
  // Every open event stream listens for the shutdown; their number is bounded by the slots.
  setMaxListeners(limits.total + 8, closing.signal);
  const deps: ViewerDeps = {
    ...options,
    assets: loadAssets({ token, bindHost: options.host }),
    access: { token, loopback },
    closing: closing.signal,
    streams: new StreamSlots(limits),
  };
  const listener = getRequestListener(createViewerApp(deps).fetch);
  let hosts = new Set<string>();
  const server = createServer((req, res) => {
    const refused = refusal(req, hosts);
    if (refused) return send(res, refused);
    // Host names are case-insensitive; the request adapter compares them case-sensitively.
    req.headers.host = req.headers.host!.toLowerCase();
    void listener(req, res);
  });
  const port = await listen(server, options.host, options.port);
  hosts = allowedHosts(options.host, port);
  const base = `http://${hostWithPort(options.host, port)}/`;
  return {
    url: loopback ? base : `${base}?${TOKEN_QUERY}=${token}`,
    port,
    loopback,
    close: async () => {
      // Event streams end first and finish their responses; whatever is still open after
      // a grace period is cut.
      closing.abort();
      await new Promise<void>((resolve) => {
        const cut = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
        server.close(() => {
          clearTimeout(cut);
          resolve();
        });
        server.closeIdleConnections();
      });
      options.indexes.close();
    },
  };
}

/**
 * Checked on the raw request before any parsing or routing: a foreign Host header is DNS
 * rebinding (421), and dot segments or backslashes never name anything we serve (404).
 */
function refusal(req: IncomingMessage, hosts: Set<string>): ErrorReply | null {
  if (!hostAllowed(req.headers.host, hosts)) {
    return reply(421, "misdirected", `this viewer does not answer for host "${req.headers.host ?? ""}"`);
  }
  const unsafe = unsafeTarget(req.url ?? "");
  return unsafe ? reply(404, "not_found", `not found: ${unsafe}`) : null;
}

function send(res: ServerResponse, answer: ErrorReply): void {
  const body = JSON.stringify(answer.body);
  res.writeHead(answer.status, {
    ...SECURITY_HEADERS,
    "Content-Type": "application/json",
    "Cache-Control": "no-store",
    "Content-Length": Buffer.byteLength(body),
  });
  res.end(body);
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => {
      const message =
        error.code === "EADDRINUSE"
          ? `port ${port} is in use on ${host}; pass --port`
          : `cannot listen on ${hostWithPort(host, port)}: ${error.code ?? error.message}`;
      reject(new ProductError("unavailable", message));
    });
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}
