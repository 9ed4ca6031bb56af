import type { Hono } from "hono";
import type { ViewerDeps } from "../deps.js";
import { selectedWiki, type ViewerEnv } from "../selection.js";

/**
 * `GET /api/health`: the findings the overview's health card counts (the index's errors
 * and warnings, as `ca validate` lists them without the drift and secret scans), errors first.
 */
export function healthRoutes(app: Hono<ViewerEnv>, deps: ViewerDeps): void {
  app.get("/api/health", async (c) => {
    const wiki = await selectedWiki(c, deps);
    const issues = await wiki.live.index.issues();
    const errors = issues.filter((issue) => issue.severity === "error");
    const warnings = issues.filter((issue) => issue.severity !== "error");
    return c.json({
      wiki: wiki.repository.name,
      errors: errors.length,
      warnings: warnings.length,
      issues: [...errors, ...warnings].map((issue) => ({
        category: issue.category,
        severity: issue.severity,
        message: issue.message,
        page: issue.page,
        topic: issue.topic,
        path: issue.path,
      })),
    });
  });
}
