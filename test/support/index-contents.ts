import { createHash } from "node:crypto";
import Database from "better-sqlite3";
import { SECTION_SLOTS } from "../../src/index/layout.js";
import { decodeInto, type Postings } from "../../src/index/postings.js";

/** Times of the refresh itself, which differ between any two builds. */
const CLOCK_COLUMNS = new Set(["checked_at"]);

export interface IndexContents {
  tables: Record<string, unknown[]>;
  searchTerms: { count: number; sha256: string };
}

/**
 * Every table's rows of an index file, sorted, without the times of the refresh that wrote
 * them; the postings decoded, one line per term and section (term, section, weight, length), hashed.
 * Two indexes of the same wiki must give equal contents however they were built. With
 * `byRoute`, page ids (which an incremental refresh and a rebuild assign differently, and
 * which section rowids encode) are replaced by the page's slug and the section's ordinal.
 */
export function indexContents(file: string, { byRoute = false } = {}): IndexContents {
  const db = new Database(file);
  try {
    const names = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'postings' ORDER BY name")
      .pluck()
      .all() as string[];
    const tables: Record<string, unknown[]> = {};
    const slugOf = new Map((db.prepare("SELECT id, slug FROM pages").raw().all() as [number, string][]).map(([id, slug]) => [id, slug]));
    const route = (rowid: number) => (byRoute ? `${slugOf.get(Math.floor(rowid / SECTION_SLOTS))}#${rowid % SECTION_SLOTS}` : rowid);
    for (const name of names) {
      const rows = (db.prepare(`SELECT * FROM "${name}"`).all() as Record<string, unknown>[]).map((row) => {
        for (const column of CLOCK_COLUMNS) delete row[column];
        if (byRoute && name === "pages") delete row.id;
        if (byRoute && name === "sections") {
          row.id = route(row.id as number);
          delete row.page_id;
        }
        // The snapshot and topics stamp carry the time of the refresh that wrote them; the
        // registration, when the wiki was registered and in which state database (each build has its own).
        if (name === "meta" && typeof row.value === "string") {
          row.value = row.value.replace(/"(checkedAt|registeredAt)":\d+(\.\d+)?/g, '"$1":0').replace(/"ledgerId":"[0-9a-f]+"/, '"ledgerId":""');
        }
        return JSON.stringify(row);
      });
      tables[name] = rows.sort();
    }
    // Postings rows depend on page ids and how pages fall into segments; what they hold must not.
    const hash = createHash("sha256");
    let count = 0;
    const lines: string[] = [];
    for (const [term, segment, data] of db.prepare("SELECT term, segment, data FROM postings").raw().all() as [string, number, Buffer][]) {
      const postings: Postings = { rowids: [], weights: [], lengths: [] };
      decodeInto(segment, data, postings);
      postings.rowids.forEach((rowid, i) => lines.push(JSON.stringify([term, route(rowid), postings.weights[i], postings.lengths[i]])));
    }
    for (const line of lines.sort()) {
      hash.update(`${line}\n`);
      count++;
    }
    return { tables, searchTerms: { count, sha256: hash.digest("hex") } };
  } finally {
    db.close();
  }
}
