/**
 * Secrets in the wiki, for `validate`: every file the index saw under almanac/ (pages, and
 * Markdown that is not indexed as one) and `topics.yaml`, through the redactor's detectors
 * (src/privacy/). Each secret is an error naming the file, its line and its kind, never the
 * secret, so CI catches one a person wrote; the lifecycle runs have their own gate before
 * their commit (src/lifecycle/secret-gate.ts). Files are read as the index reads them
 * (page-file.ts): inside the wiki, and no further than its first 2 MB, past which a page
 * is reported `page_truncated` and nothing reads it.
 */
import { join } from "node:path";
import type { Db } from "../../core/sqlite.js";
import { findSecrets, type PrivacyRules } from "../../privacy/redact.js";
import { readPageHead } from "../page-file.js";
import { SEVERITY, type ValidationIssue } from "./validate.js";

const TOPICS_FILE = "topics.yaml";

export async function secretIssues(db: Db, wiki: { almanacPath: string; wikiRoot: string }, rules: PrivacyRules): Promise<ValidationIssue[]> {
  const files = db.prepare("SELECT rel_path, slug, state FROM files ORDER BY rel_path").all() as { rel_path: string; slug: string | null; state: string }[];
  const issues: ValidationIssue[] = [];
  const targets = [...files.map((f) => ({ path: f.rel_path, page: f.state === "page" ? f.slug : null })), { path: TOPICS_FILE, page: null }];
  for (const target of targets) {
    const text = readText(join(wiki.almanacPath, target.path), wiki.wikiRoot);
    if (text === null) continue;
    for (const found of await findSecrets(text, rules)) {
      issues.push({
        category: "secret_found",
        severity: SEVERITY.secret_found ?? "error",
        message: `a secret (${found.kind}) at line ${found.line} of ${target.path}: remove it`,
        page: target.page,
        topic: null,
        path: target.path,
        line: found.line,
        kind: found.kind,
      });
    }
  }
  return issues;
}

/** The file's text, or null when it is gone or cannot be read (the index reports those files itself). */
function readText(path: string, wikiRoot: string): string | null {
  try {
    return readPageHead(path, wikiRoot).bytes.toString("utf8");
  } catch {
    return null;
  }
}
