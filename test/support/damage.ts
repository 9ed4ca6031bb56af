import Database from "better-sqlite3";
import { closeSync, existsSync, openSync, readdirSync, readSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { page, writeWiki } from "./cli.js";

/**
 * Damage done to real SQLite files the way disks and people do it: a page overwritten,
 * a file cut short or zeroed. Pages are found through SQLite's own dbstat table, so a
 * test garbles exactly the b-tree page it means to.
 */

/** The page size from the file header (bytes 16-17, big-endian; 1 means 65536). */
export function pageSize(file: string): number {
  const header = Buffer.alloc(100);
  const fd = openSync(file, "r");
  try {
    readSync(fd, header, 0, 100, 0);
  } finally {
    closeSync(fd);
  }
  const size = header.readUInt16BE(16);
  return size === 1 ? 65_536 : size;
}

/** The pages (1-based) of one table's or index's b-tree, of one kind (`internal`, `leaf`, `overflow`). */
export function btreePages(file: string, name: string, kind: "internal" | "leaf" | "overflow"): number[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare("SELECT pageno FROM dbstat WHERE name = ? AND pagetype = ? ORDER BY pageno").pluck().all(name, kind) as number[];
  } finally {
    db.close();
  }
}

/** Overwrites one whole page with a byte pattern no b-tree page has. */
export function garblePage(file: string, pageno: number): void {
  const size = pageSize(file);
  const fd = openSync(file, "r+");
  try {
    writeSync(fd, Buffer.alloc(size, 0xa5), 0, size, (pageno - 1) * size);
  } finally {
    closeSync(fd);
  }
}

/** Whether SQLite's full integrity check passes. */
export function integrityOk(file: string): boolean {
  const db = new Database(file, { readonly: true });
  try {
    return db.pragma("integrity_check(1)", { simple: true }) === "ok";
  } finally {
    db.close();
  }
}

/** Device and inode: which file is at the path. */
export function fileIdentity(file: string): string {
  const stat = statSync(file);
  return `${stat.dev}:${stat.ino}`;
}

/** The one wiki index under a state root. */
export function onlyIndexFile(state: string): string {
  const repos = join(state, "repos");
  const ids = readdirSync(repos);
  if (ids.length !== 1) throw new Error(`expected one index folder under ${repos}, found ${ids.join(", ")}`);
  const file = join(repos, ids[0]!, "index.db");
  if (!existsSync(file)) throw new Error(`no index at ${file}`);
  return file;
}

/**
 * A wiki big enough that every table an answer reads spans several pages (so its b-tree
 * has an interior page to garble): `count` pages, each with a word of its own and a few
 * hundred words shared by all.
 */
export function sizableWiki(root: string, count = 150): string {
  const files: Record<string, string> = {};
  const shared = Array.from({ length: 60 }, (_, i) => `ledger${i % 12} index rebuild`).join(" ");
  for (let i = 0; i < count; i++) {
    files[`notes/note-${String(i).padStart(3, "0")}.md`] = page({
      title: `Note ${i} about the ledger`,
      summary: `A note, number ${i}, that says something about storage and recovery in plain words`,
      topics: ["concepts"],
      body: `# Note ${i}\n\nThe word zebra${i} is on this page only. ${shared}\n\n## Details\n\nSee [the home page](../README.md). ${shared}`,
    });
  }
  return writeWiki(root, files);
}
