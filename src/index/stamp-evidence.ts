/**
 * The product's evidence stamp (almanac/architecture/wiki.md): each `type: file` source of
 * the given pages gets the fingerprint of what it cites, read from the working tree now, and
 * the commit it was read at. Only regular page files inside the wiki are written, never
 * through a symlink; a cited file is read only when it lies inside the repository.
 */
import { closeSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { oneLine } from "../core/errors.js";
import { openFileWithin, realpathOrNull } from "../core/fs.js";
import { fileLines, formatLineRange, parseLineRange, type LineRange } from "../wiki/evidence.js";
import { normalizeRefPath } from "../wiki/file-refs.js";
import { citedFingerprint, fileSourceEntries, stampPageSources, type SourceStamp } from "../wiki/stamp-sources.js";
import { writeFileAtomic } from "../wiki/atomic-write.js";
import { readWholePage } from "./page-file.js";
import type { WikiIndex } from "./service.js";

/** A source (or, with `source` null, a whole page) that got no stamp, and why. */
export interface UnstampedSource {
  page: string;
  source: string | null;
  reason: string;
}

export interface EvidenceStampReport {
  /** Pages holding at least one stamped source. */
  pages: number;
  /** Sources that now carry a stamp of what they cite (already equal ones included). */
  sources: number;
  /** Page files rewritten (a page whose stamps were all equal is not). */
  written: number;
  /** Sources that cite something with no lines to fingerprint, or that could not be read. */
  unstamped: UnstampedSource[];
}

type Cited = { bytes: Buffer } | { absent: string };

/**
 * Stamps the file sources of `slugs` (pages the caller changed) with `verifiedAt` (the HEAD
 * commit, or null outside git). A folder, a missing file and a range past the end get no
 * stamp, and their entries are left as they are. Each page is read and written under the
 * index's write lock, as `tag` does, so an organizer never interleaves with it.
 */
export async function stampEvidence(index: WikiIndex, slugs: readonly string[], verifiedAt: string | null): Promise<EvidenceStampReport> {
  const report: EvidenceStampReport = { pages: 0, sources: 0, written: 0, unstamped: [] };
  if (slugs.length === 0) return report;
  const root = index.repository.rootPath;
  const realRoot = realpathOrNull(root) ?? root;
  const cited = new Map<string, Cited>();
  const read = (shape: string): Cited => {
    let file = cited.get(shape);
    if (!file) cited.set(shape, (file = readCited(root, shape, realRoot)));
    return file;
  };
  const relPaths = await index.read((db) => {
    const query = db.prepare("SELECT rel_path FROM pages WHERE slug = ?").pluck();
    return slugs.map((slug) => ({ slug, rel: query.get(slug) as string | undefined }));
  });
  for (const { slug, rel } of relPaths) {
    if (rel === undefined) continue;
    const path = join(index.almanacPath, rel);
    // A page reached through a symlink is never rewritten (that would replace the link with
    // a copy); the index follows links only inside the wiki, so its target is a page of its
    // own, changed and stamped as such.
    if (realpathOrNull(path) !== join(index.wikiRoot, rel)) continue;
    try {
      await index.read((db) => db.transaction(() => stampPage(slug, path, index.wikiRoot, verifiedAt, read, report)).immediate());
    } catch (error) {
      report.unstamped.push({ page: slug, source: null, reason: oneLine(error) });
    }
  }
  index.invalidate();
  return report;
}

function stampPage(slug: string, path: string, wikiRoot: string, verifiedAt: string | null, read: (shape: string) => Cited, report: EvidenceStampReport): void {
  const text = readWholePage(path, wikiRoot);
  const stamps = new Map<number, SourceStamp>();
  for (const entry of fileSourceEntries(text, path)) {
    const shape = normalizeRefPath(entry.path);
    if (shape === null || shape.isDir) continue;
    const file = read(shape.shape);
    const fingerprint = "bytes" in file ? citedFingerprint(file.bytes, entry.range) : null;
    if (fingerprint === null) {
      const reason = "absent" in file ? file.absent : pastEnd(shape.shape, entry.range!, file.bytes);
      report.unstamped.push({ page: slug, source: entry.id, reason });
      continue;
    }
    stamps.set(entry.index, { fingerprint, verified_at: verifiedAt });
  }
  if (stamps.size === 0) return;
  const next = stampPageSources(text, stamps, path);
  if (next !== text) {
    writeFileAtomic(path, next);
    report.written++;
  }
  report.pages++;
  report.sources += stamps.size;
}

/** The whole cited file, or why there is none to fingerprint. */
function readCited(root: string, shape: string, realRoot: string): Cited {
  const path = join(root, shape);
  try {
    if (statSync(path).isDirectory()) return { absent: `${shape} is a folder` };
    const { fd } = openFileWithin(path, realRoot);
    try {
      return { bytes: readFileSync(fd) };
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { absent: `${shape} does not exist` };
    if (code === "EOUTSIDE") return { absent: `${shape} leads outside the repository` };
    if (code === "ENOTREG") return { absent: `${shape} is not a regular file` };
    return { absent: `${shape} cannot be read: ${oneLine(error)}` };
  }
}

function pastEnd(shape: string, range: LineRange, bytes: Buffer): string {
  const count = fileLines(bytes.toString("utf8")).length;
  return `lines ${formatLineRange(range)} run past the end of ${shape} (${count} line${count === 1 ? "" : "s"})`;
}

/** Moved evidence to re-anchor: a page's source (by id and the path it cites) and where its text is now. */
export interface Reanchor {
  slug: string;
  sources: { id: string; path: string; now: { path: string; lines: string | null } }[];
}

export interface ReanchorReport {
  /** Each source re-anchored: its page, id, and where it pointed before and points now. */
  fixed: { page: string; source: string; from: { path: string; lines: string | null }; to: { path: string; lines: string | null } }[];
  unstamped: UnstampedSource[];
}

/**
 * `ca drift --fix`: writes each moved source's new path and lines and a new stamp of what
 * they cite now, and touches no other source. Pages are written as `stampEvidence` writes them.
 */
export async function reanchorEvidence(index: WikiIndex, moves: readonly Reanchor[], verifiedAt: string | null): Promise<ReanchorReport> {
  const report: ReanchorReport = { fixed: [], unstamped: [] };
  const root = index.repository.rootPath;
  const realRoot = realpathOrNull(root) ?? root;
  const relPaths = await index.read((db) => {
    const query = db.prepare("SELECT rel_path FROM pages WHERE slug = ?").pluck();
    return new Map(moves.map((move) => [move.slug, query.get(move.slug) as string | undefined]));
  });
  for (const move of moves) {
    const rel = relPaths.get(move.slug);
    if (rel === undefined) continue;
    const path = join(index.almanacPath, rel);
    if (realpathOrNull(path) !== join(index.wikiRoot, rel)) continue;
    try {
      await index.read((db) => db.transaction(() => reanchorPage(move, path, index.wikiRoot, verifiedAt, (shape) => readCited(root, shape, realRoot), report)).immediate());
    } catch (error) {
      report.unstamped.push({ page: move.slug, source: null, reason: oneLine(error) });
    }
  }
  index.invalidate();
  return report;
}

function reanchorPage(move: Reanchor, path: string, wikiRoot: string, verifiedAt: string | null, read: (shape: string) => Cited, report: ReanchorReport): void {
  const text = readWholePage(path, wikiRoot);
  const stamps = new Map<number, SourceStamp>();
  const fixed: ReanchorReport["fixed"] = [];
  for (const entry of fileSourceEntries(text, path)) {
    const shape = normalizeRefPath(entry.path);
    const wanted = move.sources.find((s) => s.id === entry.id && shape !== null && s.path === shape.shape);
    if (!wanted) continue;
    const parsed = wanted.now.lines === null ? null : parseLineRange(wanted.now.lines);
    const range = parsed !== null && "range" in parsed ? parsed.range : null;
    const file = read(wanted.now.path);
    const fingerprint = "bytes" in file ? citedFingerprint(file.bytes, range) : null;
    if (fingerprint === null) {
      report.unstamped.push({ page: move.slug, source: entry.id, reason: "absent" in file ? file.absent : pastEnd(wanted.now.path, range!, file.bytes) });
      continue;
    }
    const renamed = wanted.now.path !== wanted.path;
    stamps.set(entry.index, {
      fingerprint,
      verified_at: verifiedAt,
      ...(wanted.now.lines !== (entry.range === null ? null : formatLineRange(entry.range)) ? { lines: wanted.now.lines } : {}),
      ...(renamed ? { path: wanted.now.path } : {}),
    });
    fixed.push({ page: move.slug, source: entry.id, from: { path: wanted.path, lines: entry.range === null ? null : formatLineRange(entry.range) }, to: wanted.now });
  }
  if (stamps.size === 0) return;
  const next = stampPageSources(text, stamps, path);
  if (next !== text) writeFileAtomic(path, next);
  report.fixed.push(...fixed);
}
