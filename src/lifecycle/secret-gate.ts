/**
 * The secret gate before the product's commit: every file the run created or changed under
 * the wiki folder is scanned with the redactor's detectors (src/privacy/), and one secret
 * fails the run with `secret_found` before anything is staged. The findings name the file,
 * the line and the kind, never the secret, and the page stays in the working tree for the
 * user to fix (almanac/architecture/privacy.md).
 */
import { lstat, readFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import type { CommandRunner } from "../core/command.js";
import { findSecrets, type PrivacyRules } from "../privacy/redact.js";
import type { SecretFinding } from "../runs/model.js";
import { takeSnapshot, wikiChanges, type GitSnapshot } from "./write-boundary.js";

/** The findings the error line names; the run record keeps them all. */
const NAMED_LIMIT = 3;

/**
 * The files under the wiki folder the run wrote, as absolute paths: what git says changed
 * since the snapshot before the agent (what the commit would take), and the files of the
 * pages the index saw created or updated (`pageFiles`, which also covers a wiki outside git
 * or one git ignores). Deleted files hold nothing to scan.
 */
export async function writtenWikiFiles(
  request: { root: string; before: GitSnapshot | null; pageFiles: readonly string[] },
  git: CommandRunner,
  env: NodeJS.ProcessEnv,
): Promise<string[]> {
  const files = new Set(request.pageFiles);
  const after = request.before ? await takeSnapshot(request.root, git, env) : null;
  if (request.before && after) {
    for (const change of wikiChanges(request.before, after, request.root)) {
      if (change.change !== "deleted") files.add(join(after.top, change.path));
    }
  }
  return [...files].sort();
}

/**
 * Each secret in `files`, named by the file relative to `root`, its line and its kind. A
 * symbolic link is not followed: git commits the link, not what it points at. A file that
 * is gone is skipped; any other read failure throws, so the run fails rather than commit
 * what was not scanned.
 */
export async function scanForSecrets(root: string, files: readonly string[], rules: PrivacyRules): Promise<SecretFinding[]> {
  const findings: SecretFinding[] = [];
  for (const path of files) {
    const text = await readIfFile(path);
    if (text === null) continue;
    const file = relative(root, path).split(sep).join("/");
    for (const found of await findSecrets(text, rules)) findings.push({ file, line: found.line, kind: found.kind });
  }
  return findings;
}

async function readIfFile(path: string): Promise<string | null> {
  try {
    if (!(await lstat(path)).isFile()) return null;
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/** The run's error: where the secrets are (the first few), that nothing was committed, and the fix. */
export function secretFoundMessage(findings: readonly SecretFinding[], runId: string): string {
  const named = findings.slice(0, NAMED_LIMIT).map((f) => `${f.file} line ${f.line} (${f.kind})`);
  const more = findings.length > NAMED_LIMIT ? ` and ${findings.length - NAMED_LIMIT} more` : "";
  const count = findings.length === 1 ? "a secret" : `${findings.length} secrets`;
  return (
    `${count} found in the wiki: ${named.join(", ")}${more}; nothing was committed. ` +
    `Fix: edit the page to remove the secret, then commit it yourself or run \`codealmanac jobs retry ${runId}\``
  );
}
