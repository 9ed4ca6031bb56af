import type { Context } from "hono";
import type { HttpBindings } from "@hono/node-server";
import { isProductError } from "../core/errors.js";
import type { Freshness, LiveIndex } from "../index/freshness.js";
import type { Repository } from "../repositories/model.js";
import type { ViewerDeps } from "./deps.js";
import { noWiki } from "./errors.js";

export interface ViewerEnv {
  Variables: { wiki?: SelectedWiki };
  /** The Node request behind each call (the client's address bounds its event streams). */
  Bindings: HttpBindings;
}

export interface SelectedWiki {
  repository: Repository;
  live: LiveIndex;
}

export const REFRESH_HEADER = "X-CodeAlmanac-Refresh";

/**
 * The wiki a request reads: the `--wiki` one when scoped; else `?wiki=`; else the one the
 * start directory selects (walking up like the CLI); else the first available registered
 * wiki. With none at all the answer is `no_wiki`, which the client shows as an empty state.
 */
export function repositoryFor(deps: ViewerDeps, requested: string | undefined): Repository {
  if (deps.scopedWiki !== null) return deps.repositories.byName(deps.scopedWiki);
  const wanted = requested?.trim();
  if (wanted) return deps.repositories.byName(wanted);
  try {
    return deps.repositories.select(deps.startCwd);
  } catch (error) {
    if (!isProductError(error) || error.code !== "repository_not_selected") throw error;
  }
  const first = deps.repositories.list().find((listing) => listing.status === "available");
  if (!first) throw noWiki();
  return first.repository;
}

/**
 * Selects the request's wiki and brings its index up to date, once per request; the
 * header tells what that cost (`skipped`, `checked` or `refreshed`).
 */
export async function selectedWiki(c: Context<ViewerEnv>, deps: ViewerDeps): Promise<SelectedWiki> {
  const known = c.get("wiki");
  if (known) return known;
  const repository = repositoryFor(deps, c.req.query("wiki"));
  const live = deps.indexes.get(repository);
  const freshness: Freshness = await live.ensureFresh();
  c.header(REFRESH_HEADER, freshness);
  const wiki = { repository, live };
  c.set("wiki", wiki);
  return wiki;
}
