import { createHash } from "node:crypto";
import Database from "better-sqlite3";
import { SECTION_SLOTS } from "../../src/index/layout.js";

/** Times of the refresh itself, which differ between any two builds. */
const CLOCK_COLUMNS = new Set(["checked_at"]);

export interface IndexContents {
  tables: Record<string, unknown[]>;
  searchTerms: { count: number; sha256: string };
}

/**
 * Every table's rows of an index file, sorted, without the times of the refresh that wrote
 * them; the search table as its full term instance list (term, row, column, offset), hashed.
 * Two indexes of the same wiki must give equal contents however they were built. With
 * `byRoute`, page ids (which an incremental refresh and a rebuild assign differently, and
 * which section rowids encode) are replaced by the page's slug and the section's ordinal.
 */
export function indexContents(file: string, { byRoute = false } = {}): IndexContents {
  const db = new Database(file);
  try {
    const names = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'sections_fts%' ORDER BY name")
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
    // Contentless FTS5 keeps no text to compare; its vocabulary, instance by instance, is the index itself.
    db.exec("CREATE VIRTUAL TABLE temp.terms USING fts5vocab(main, sections_fts, 'instance')");
    const hash = createHash("sha256");
    let count = 0;
    const instances = (db.prepare("SELECT term, doc, col, offset FROM temp.terms").raw().all() as [string, number, string, number][]).map(
      ([term, doc, col, offset]) => JSON.stringify([term, route(doc), col, offset]),
    );
    for (const line of instances.sort()) {
      hash.update(`${line}\n`);
      count++;
    }
    tables.sections_fts_docsize = (db.prepare("SELECT id, sz FROM sections_fts_docsize").raw().all() as [number, Buffer][])
      .map(([id, sz]) => `${route(id)}:${sz.toString("hex")}`)
      .sort();
    return { tables, searchTerms: { count, sha256: hash.digest("hex") } };
  } finally {
    db.close();
  }
}
