import type { Hono } from "hono";
import type { RepositoryListing } from "../../repositories/service.js";
import type { ViewerDeps } from "../deps.js";
import { repositoryFor, type ViewerEnv } from "../selection.js";

/** `GET /api/wikis`: the wiki switcher. Never fails for want of a wiki: an empty list is the empty state. */
export function wikiRoutes(app: Hono<ViewerEnv>, deps: ViewerDeps): void {
  app.get("/api/wikis", (c) => {
    // First: selecting from the start directory may register its wiki, which the list then shows.
    const selected = selectedName(deps, c.req.query("wiki"));
    const wikis = [...visible(deps)]
      .sort((a, b) => Number(b.status === "available") - Number(a.status === "available"))
      .map((l) => ({ name: l.repository.name, root_path: l.repository.rootPath, status: l.status }));
    return c.json({ wikis, selected });
  });
}

/** Scoped with --wiki, the switcher offers that wiki only. */
function visible(deps: ViewerDeps): RepositoryListing[] {
  const listings = deps.repositories.list();
  if (deps.scopedWiki === null) return listings;
  const id = selectedId(deps);
  return listings.filter((l) => l.repository.repositoryId === id);
}

function selectedId(deps: ViewerDeps): string | null {
  try {
    return deps.repositories.byName(deps.scopedWiki ?? "").repositoryId;
  } catch {
    return null;
  }
}

/** The wiki the other endpoints would read for the same `?wiki=`, or null when there is none. */
function selectedName(deps: ViewerDeps, requested: string | undefined): string | null {
  try {
    return repositoryFor(deps, requested).name;
  } catch {
    return null;
  }
}
