import type { Hono } from "hono";
import type { ViewerDeps } from "./deps.js";
import { HttpError, routeNotFound } from "./errors.js";
import type { ViewerEnv } from "./selection.js";

/** Paths the client's router may own: segments of letters, digits, `-` and `_`, outside /assets/. */
const APP_PATH = /^\/(?!assets\/)[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*\/?$/;

/**
 * The client: packaged assets by exact path, and the app shell for `/` and other
 * route-like paths. Anything else (a dotted name that is not an asset, an encoded
 * character) is a 404, never a file read.
 */
export function clientRoutes(app: Hono<ViewerEnv>, deps: ViewerDeps): void {
  app.get("*", (c) => {
    const path = c.req.path;
    if (path.startsWith("/api/") || path === "/api") throw routeNotFound(c.req.method, path);
    const asset = deps.assets.get(path);
    if (asset) {
      c.header("Cache-Control", "no-cache");
      c.header("ETag", asset.etag);
      if (c.req.header("if-none-match") === asset.etag) return c.body(null, 304);
      c.header("Content-Type", asset.type);
      return c.body(new Uint8Array(asset.body));
    }
    if (path !== "/" && path !== "/index.html" && !APP_PATH.test(path)) throw new HttpError(404, "not_found", `not found: ${path}`);
    if (deps.assets.shell === null) {
      throw new HttpError(503, "unavailable", `the viewer's assets are missing (looked in ${deps.assets.searched.join(", ")})`);
    }
    // The shell carries the launch token: never cached.
    c.header("Cache-Control", "no-store");
    return c.html(deps.assets.shell);
  });
}
