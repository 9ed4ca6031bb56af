import { join } from "node:path";
import type { RunRecord } from "../runs/model.js";
import type { RunSpec } from "../runs/spec.js";

/**
 * The prompt an agent receives: stable instructions, then the run's runtime context as
 * JSON. The full operation manuals are read from disk (`manual_root`), not pasted in.
 */
const KERNEL = `You maintain this repository's CodeAlmanac wiki: Markdown pages under almanac/ that record what the code cannot say (decisions, invariants, cross-file flows, incidents, gotchas) for future coding agents.

Rules:
- The wiki root is almanac/. A page's identity is its path without .md; README.md is a folder's landing page.
- Every page has front matter with title, summary, topics (declared in almanac/topics.yaml) and sources.
- Cite non-obvious claims inline with [@source-id]; list every cited source under sources: (type: file for repository paths, directories end with /). Code is the authority when documents disagree.
- Link pages with relative Markdown links to pages that exist or that you create in this run.
- Write durable knowledge only: no scratch notes, activity logs or raw inventories. Doing nothing is a valid outcome.
- Edit only files under almanac/. Runtime state lives outside the repository.
- Run \`codealmanac validate\` before you finish and fix every error it reports.`;

const OPERATIONS: Record<RunSpec["kind"], string> = {
  build: `# Build operation
Survey the repository (docs, entry points, modules, workflows, persistence, configuration, tests), plan the pages a future agent needs, then write them. Read the writing manual in manual_root first. Organize pages in folders by type (concepts/, architecture/, guides/, decisions/, reference/) and connect them with topics and links.`,
  ingest: `# Ingest operation
Fold the selected inputs into the existing wiki. Understand each input, extract what is durable, find its right home in the existing pages, verify important claims against the code, and prefer updating evolving pages over creating new ones.`,
  garden: `# Garden operation
Improve the wiki as a whole graph: merge duplicates, fix stale or unsupported claims, repair broken links and references, strengthen topics and hub pages. Current code is the truth. Avoid churn.`,
};

export function renderPrompt(record: RunRecord, spec: RunSpec, almanacPath: string): string {
  const context = {
    run_id: record.runId,
    operation: spec.kind,
    repository_name: record.repositoryName,
    repository_root: record.repositoryRoot,
    almanac_root: almanacPath,
    topics_file: join(almanacPath, "topics.yaml"),
    manual_root: join(almanacPath, "manual"),
    inputs: spec.inputs,
    guidance: spec.guidance,
    source_control: sourceControl(spec.auto_commit),
  };
  return `${KERNEL}\n\n---\n\n${OPERATIONS[spec.kind]}\n\nrun_id: ${record.runId}\n\nRuntime context:\n${JSON.stringify(context, null, 2)}\n`;
}

function sourceControl(autoCommit: boolean) {
  return {
    auto_commit: autoCommit,
    allowed_files: ["almanac/**/*.md", "almanac/topics.yaml"],
    commit_message: "almanac: <summary>",
    instructions: autoCommit
      ? "You may commit wiki changes with ordinary git from the repository root, staging only the allowed files, with the message shape above."
      : "Do not stage or commit anything; leave the wiki changes in the working tree for the user to review.",
  };
}

export function preparationMessage(spec: RunSpec): string {
  switch (spec.kind) {
    case "build":
      return "prepared minimal wiki";
    case "garden":
      return "prepared garden context";
    case "ingest":
      return `resolved ${spec.inputs.length} source${spec.inputs.length === 1 ? "" : "s"}`;
  }
}
