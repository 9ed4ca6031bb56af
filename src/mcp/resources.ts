import type { ListResourcesResult, ReadResourceResult, Resource } from "@modelcontextprotocol/sdk/types.js";
import { isProductError } from "../core/errors.js";
import { PROTOCOL, ProtocolError, protocolError } from "./errors.js";
import type { LiveIndex } from "../index/freshness.js";
import { pagesByPath, type PageRow } from "../index/views/viewer.js";
import { truncationOf } from "../index/views/pages.js";
import { overviewResource, overviewText, overviewUri } from "./overview.js";
import { pageUri, URI_SCHEME } from "./shapes.js";
import type { Wikis } from "./wikis.js";

/** Pages per resources/list answer. */
export const RESOURCE_PAGE_SIZE = 100;

export const PAGE_TEMPLATE = {
  uriTemplate: "almanac://{wiki}/{+slug}",
  name: "page",
  title: "Wiki page",
  description: "A page of a CodeAlmanac wiki, as Markdown, by wiki name and page slug (e.g. almanac://my-repo/architecture/run-queue).",
  mimeType: "text/markdown",
};

export interface WikiState {
  repositoryId: string;
  generation: number;
}

interface Cursor {
  wiki: string;
  /** The file path (relative to almanac/) of the last page already listed. */
  after: string;
}

/**
 * The selected wiki's overview (`almanac://<wiki>`: where to start) and every one of its
 * pages are resources: the overview first, then the pages in file-path order, a hundred at
 * a time. The sorted list is kept until the wiki changes, so walking all pages of a large
 * wiki reads the index once.
 */
export class PageResources {
  private cached: { live: LiveIndex; generation: number; rows: PageRow[] } | null = null;

  constructor(
    private readonly wikis: Wikis,
    private readonly log: (line: string) => void,
  ) {}

  /** A resources/list answer, and the state of the wiki it shows (null: no wiki). */
  async list(cursor: string | undefined): Promise<{ answer: ListResourcesResult; shows: WikiState | null }> {
    const from = cursor === undefined ? null : decodeCursor(cursor);
    let wiki;
    try {
      wiki = await this.wikis.open();
    } catch (error) {
      // No wiki (or a wiki that is gone) has no pages: an empty list, not an error.
      if (isProductError(error) && from === null) return { answer: { resources: [] }, shows: null };
      throw protocolError(error, this.log, "resources/list");
    }
    const name = wiki.repository.name;
    if (from !== null && from.wiki !== name) throw new ProtocolError(PROTOCOL.invalidParams, `this cursor lists the wiki "${from.wiki}", not "${name}"; list again without it`);
    const rows = await this.rows(wiki.live);
    const start = from === null ? 0 : firstAfter(rows, from.after);
    const page = rows.slice(start, start + RESOURCE_PAGE_SIZE);
    const more = start + page.length < rows.length;
    return {
      answer: {
        resources: [...(from === null ? [overviewResource(name, rows.length)] : []), ...page.map((row) => resourceOf(name, row))],
        ...(more ? { nextCursor: encodeCursor({ wiki: name, after: page[page.length - 1]!.rel_path }) } : {}),
      },
      shows: { repositoryId: wiki.repository.repositoryId, generation: wiki.live.generation },
    };
  }

  async read(uri: string): Promise<ReadResourceResult> {
    const address = parseResourceUri(uri);
    if (!address) throw new ProtocolError(PROTOCOL.invalidParams, `not a wiki resource URI: ${uri} (expected almanac://<wiki> or almanac://<wiki>/<slug>)`);
    try {
      const wiki = await this.wikis.open(address.wiki);
      if (address.slug === null) {
        const text = await overviewText(wiki, await this.rows(wiki.live));
        return { contents: [{ uri: overviewUri(wiki.repository.name), mimeType: "text/markdown", text }] };
      }
      const view = await wiki.index.show(address.slug);
      // A resource is only its text, so a cut page says so at its end.
      const cut = truncationOf(view);
      const text = cut === null ? view.body : `${view.body}\n\n> codealmanac: ${cut}.\n`;
      return { contents: [{ uri: pageUri(wiki.repository.name, view.slug), mimeType: "text/markdown", text }] };
    } catch (error) {
      throw protocolError(error, this.log, `resources/read ${uri}`);
    }
  }

  private async rows(live: LiveIndex): Promise<PageRow[]> {
    const known = this.cached;
    if (known && known.live === live && known.generation === live.generation) return known.rows;
    const rows = await live.index.read(pagesByPath);
    this.cached = { live, generation: live.generation, rows };
    return rows;
  }
}

function resourceOf(wiki: string, row: PageRow): Resource {
  return {
    uri: pageUri(wiki, row.slug),
    name: row.slug,
    title: row.title,
    ...(row.summary ? { description: row.summary } : {}),
    mimeType: "text/markdown",
  };
}

/** Index of the first row whose path sorts after `path` (rows are in path order). */
function firstAfter(rows: PageRow[], path: string): number {
  let low = 0;
  let high = rows.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (rows[mid]!.rel_path <= path) low = mid + 1;
    else high = mid;
  }
  return low;
}

function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.wiki, cursor.after]), "utf8").toString("base64url");
}

function decodeCursor(text: string): Cursor {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === "string" && typeof value[1] === "string") {
      return { wiki: value[0], after: value[1] };
    }
  } catch {
    // reported below
  }
  throw new ProtocolError(PROTOCOL.invalidParams, `invalid cursor: ${JSON.stringify(text)} (pass back the nextCursor of a previous answer)`);
}

/** `almanac://<wiki>/<slug>` → its parts, `almanac://<wiki>` (the overview) → a null slug, or null when it is neither. */
export function parseResourceUri(uri: string): { wiki: string; slug: string | null } | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return null;
  }
  if (url.protocol !== URI_SCHEME || url.host === "" || url.search !== "" || url.hash !== "") return null;
  try {
    const wiki = decodeURIComponent(url.host);
    const slug = url.pathname.replace(/^\/+/, "").split("/").map(decodeURIComponent).join("/");
    return { wiki, slug: slug === "" ? null : slug };
  } catch {
    return null;
  }
}
