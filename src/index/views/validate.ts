import { join } from "node:path";
import type { Db } from "../../core/sqlite.js";
import type { WikiScan } from "../scan.js";
import { healthReport, type HealthReport } from "./health.js";
import { readMeta } from "../meta.js";
import { rangeFindings } from "./source-ranges.js";

export type Severity = "error" | "warning";

export interface ValidationIssue {
  category: string;
  severity: Severity;
  message: string;
  page: string | null;
  topic: string | null;
  path: string | null;
  /** `secret_found` only: the secret's 1-based line in the file and its kind (the secret itself is never reported). */
  line?: number;
  kind?: string;
}

/** Errors fail `validate`; warnings only with --strict (almanac/decisions/validation-severities.md). */
export const SEVERITY: Record<string, Severity> = {
  page_routes: "error",
  page_unreadable: "error",
  page_undecodable: "error",
  frontmatter_invalid: "error",
  source_invalid: "error",
  runtime_state: "error",
  topics_invalid: "error",
  topic_cycle: "error",
  broken_links: "error",
  broken_xwiki: "error",
  missing_source_citations: "error",
  secret_found: "error", // scanned by the commands (views/secrets.ts), not collected here
  orphans: "warning",
  dead_refs: "warning",
  lines_past_end: "warning",
  empty_topics: "warning",
  empty_pages: "warning",
  unused_sources: "warning",
  duplicate_sources: "warning",
  undeclared_topic: "warning",
  stale_pages: "warning", // judged by drift (git), so added by the commands: src/evidence/freshness.ts
  page_truncated: "warning",
  binary_page: "warning",
  symlink_loop: "warning",
  symlink_outside: "warning",
  unreadable: "warning",
};

export function collectIssues(db: Db, scan: WikiScan, repositoryRoot: string): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const add = (category: string, message: string, at: { page?: string | null; topic?: string | null; path?: string | null }) =>
    issues.push({
      category,
      severity: SEVERITY[category] ?? "error",
      message,
      page: at.page ?? null,
      topic: at.topic ?? null,
      path: at.path ?? null,
    });

  const problems = db
    .prepare(
      `SELECT p.rel_path, p.category, p.message, p.line, f.slug FROM file_problems p
       LEFT JOIN files f ON f.rel_path = p.rel_path ORDER BY p.rel_path, p.ordinal`,
    )
    .all() as { rel_path: string; category: string; message: string; line: number | null; slug: string | null }[];
  for (const p of problems) {
    const where = p.line !== null && !/line \d+/.test(p.message) ? ` (line ${p.line})` : "";
    add(p.category, `${p.message}${where}`, { page: p.slug, path: p.rel_path });
  }

  const collisions = db
    .prepare(
      `SELECT c.rel_path AS loser, c.slug, o.rel_path AS owner FROM files c
       LEFT JOIN files o ON o.slug = c.slug AND o.state = 'page'
       WHERE c.state = 'collision' ORDER BY c.slug, c.rel_path`,
    )
    .all() as { loser: string; slug: string; owner: string | null }[];
  for (const c of collisions) {
    const owner = c.owner ? join(scan.almanacPath, c.owner) : "another file";
    add(
      "page_routes",
      `page route collision: ${c.slug} maps to both ${owner} and ${join(scan.almanacPath, c.loser)}; the second is not indexed`,
      { page: c.slug, path: c.loser },
    );
  }

  for (const name of scan.runtimeEntries) {
    add("runtime_state", "runtime state belongs under the CodeAlmanac state directory, not in almanac/", { path: name });
  }
  for (const w of scan.warnings) add(w.category, w.message, { path: w.path });

  const topicsProblems = readMeta<{ message: string; line: number | null }[]>(db, "topics_problems") ?? [];
  for (const p of topicsProblems) {
    const where = p.line !== null && !/line \d+/.test(p.message) ? ` (line ${p.line})` : "";
    add("topics_invalid", `${p.message}${where}`, { path: "topics.yaml" });
  }
  for (const cycle of readMeta<string[][]>(db, "topic_cycles") ?? []) {
    const text = cycle.length === 1 ? `topic ${cycle[0]} is its own parent` : `topic cycle: ${[...cycle, cycle[0]].join(" -> ")}`;
    add("topic_cycle", text, { topic: cycle[0] ?? null, path: "topics.yaml" });
  }

  addHealth(healthReport(db, repositoryRoot), add);
  addRanges(db, repositoryRoot, add);

  if (topicsProblems.length === 0) {
    const undeclared = db
      .prepare(
        `SELECT pt.page_slug, pt.topic FROM page_topics pt JOIN topics t ON t.slug = pt.topic
         WHERE t.declared = 0 ORDER BY pt.page_slug, pt.topic`,
      )
      .all() as { page_slug: string; topic: string }[];
    for (const u of undeclared) {
      add("undeclared_topic", `topic is not declared in topics.yaml: ${u.topic}`, { page: u.page_slug, topic: u.topic });
    }
  }
  return issues;
}

type Add = (category: string, message: string, at: { page?: string | null; topic?: string | null; path?: string | null }) => void;

/**
 * Cited lines that are not there. A folder is the page's mistake (an error, like a range
 * that runs backwards); a file now shorter than the range is the code moving on, a warning
 * like a cited file that no longer exists.
 */
function addRanges(db: Db, repositoryRoot: string, add: Add): void {
  for (const f of rangeFindings(db, repositoryRoot)) {
    if (f.kind === "folder") {
      add("source_invalid", `source ${f.source_id}: lines ${f.lines} cite a folder (${f.path}); cite a file, or drop lines`, { page: f.slug, path: f.path });
    } else {
      const count = `${f.line_count} line${f.line_count === 1 ? "" : "s"}`;
      add("lines_past_end", `source ${f.source_id}: lines ${f.lines} run past the end of ${f.path} (${count})`, { page: f.slug, path: f.path });
    }
  }
}

function addHealth(report: HealthReport, add: Add): void {
  for (const o of report.orphans) add("orphans", "page has no topics", { page: o.slug });
  for (const d of report.dead_refs) add("dead_refs", `file source does not exist: ${d.path}`, { page: d.slug, path: d.path });
  for (const b of report.broken_links) {
    add("broken_links", `Markdown page link target does not exist: ${b.target_slug}`, { page: b.source_slug });
  }
  for (const t of report.empty_topics) add("empty_topics", "topic has no pages", { topic: t.slug });
  for (const e of report.empty_pages) add("empty_pages", "page has no body content after heading text", { page: e.slug });
  for (const m of report.missing_source_citations) {
    add("missing_source_citations", `citation has no matching source: ${m.source_id}`, { page: m.slug });
  }
  for (const u of report.unused_sources) add("unused_sources", `source is not cited in page body: ${u.source_id}`, { page: u.slug });
  for (const d of report.duplicate_sources) add("duplicate_sources", `source id is duplicated: ${d.source_id}`, { page: d.slug });
}
