import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { commitAll, page, writeWiki } from "./cli.js";

export interface DriftedWiki {
  root: string;
  /** The commit the pages were verified at (their last commit). */
  verified: string;
  /** The later commit that changed the lines `queue/worker` cites. */
  change: string;
}

/** Lines 1..n of a source file, `line 1` to `line n`. */
export function numberedLines(n: number, edit: Record<number, string> = {}): string {
  return Array.from({ length: n }, (_, i) => edit[i + 1] ?? `line ${i + 1}`).join("\n") + "\n";
}

/**
 * A git repository at `<dir>/<name>` whose wiki has one stale page and one fresh one:
 * `queue/worker` cites lines 10-12 of src/queue/worker.ts, which a commit after the wiki's
 * changed; `queue/ledger` cites src/queue/ledger.ts, which no commit touched since.
 */
export function driftedWiki(dir: string, name = "repo"): DriftedWiki {
  const root = join(dir, name);
  writeWiki(root, {
    "README.md": page({ title: "Home", summary: "The landing page", topics: ["concepts"], sources: [], body: "# Home\n\nSee [the worker](queue/worker) and [the ledger](queue/ledger)." }),
    "queue/worker.md": page({
      title: "Worker",
      summary: "How the worker claims runs",
      topics: ["concepts"],
      sources: [{ id: "claim", type: "file", path: "src/queue/worker.ts", lines: "10-12" }],
      body: "# Worker\n\nThe worker claims one run at a time [@claim].",
    }),
    "queue/ledger.md": page({
      title: "Ledger",
      summary: "Where runs wait",
      topics: ["concepts"],
      sources: [{ id: "ledger", type: "file", path: "src/queue/ledger.ts" }],
      body: "# Ledger\n\nRuns wait in the ledger [@ledger].",
    }),
  });
  mkdirSync(join(root, "src", "queue"), { recursive: true });
  writeFileSync(join(root, "src", "queue", "worker.ts"), numberedLines(20));
  writeFileSync(join(root, "src", "queue", "ledger.ts"), numberedLines(5));
  commitAll(root, "wiki");
  const verified = head(root);
  writeFileSync(join(root, "src", "queue", "worker.ts"), numberedLines(20, { 11: "claim two runs at once" }));
  commitAll(root, "worker claims two");
  return { root, verified, change: head(root) };
}

export const STALE_REASON = "lines 10-12 of src/queue/worker.ts changed in 1 commit since it was verified";

function head(root: string): string {
  return spawnSync("git", ["rev-parse", "HEAD"], { cwd: root, encoding: "utf8" }).stdout.trim();
}
