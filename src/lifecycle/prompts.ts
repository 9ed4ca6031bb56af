import { join } from "node:path";
import type { RunRecord } from "../runs/model.js";
import type { RunSpec } from "../runs/spec.js";
import type { SourceBrief } from "../sources/model.js";
import type { StalePageBrief } from "./context/stale.js";

/**
 * The prompt an agent receives: stable instructions, the run's runtime context as JSON,
 * then (for ingest) the source material in delimited blocks. The writing manual is read
 * from disk (`manual_root`: the wiki's own almanac/manual/, else the packaged copy, which
 * both agents may read outside the repository), not pasted in. Every command the prompt names is one
 * the agent's permissions let through (agent-tools.ts, and each harness adapter).
 */

/** Characters of source material an ingest prompt carries; the rest goes to files. */
export const SOURCE_BUDGET_CHARS = 60_000;
/** Characters of wiki summary and findings a garden prompt carries. */
export const GARDEN_BUDGET_CHARS = 24_000;
/** Characters of evidence diffs a `garden --stale` prompt carries; the rest goes to files. */
export const STALE_BUDGET_CHARS = 60_000;
/** Characters of repository inventory a build prompt carries. */
export const BUILD_BUDGET_CHARS = 16_000;

const KERNEL = `You maintain this repository's CodeAlmanac wiki: Markdown pages under almanac/ that record what the code cannot say (decisions, invariants, cross-file flows, incidents, gotchas) for future coding agents.

Rules:
- The wiki root is almanac/. A page's identity is its path without .md; README.md is a folder's landing page.
- Every page has front matter with title, summary, topics (declared in almanac/topics.yaml) and sources.
- Cite non-obvious claims inline with [@source-id]; list every cited source under sources: (type: file for repository paths, directories end with /). Code is the authority when documents disagree.
- For a material claim about code (a behaviour, a default, an order, a failure mode), cite the lines that show it: add \`lines: 40-88\` (or one line, \`lines: 40\`) beside the file source's path, checked against the file as it is now, and give a claim resting on other lines its own source entry. After the run CodeAlmanac stamps each file source with \`fingerprint\` and \`verified_at\`, so it can tell when the cited code changes; never write or edit those two keys.
- Link pages with relative Markdown links to pages that exist or that you create in this run.
- Write durable knowledge only: no scratch notes, activity logs or raw inventories. Doing nothing is a valid outcome.
- Edit only files under almanac/. Never write outside the repository; runtime state lives outside it and is not yours to change. Changes outside almanac/ are reported to the user.
- Find the pages related to what you write before you write it: \`codealmanac search <words>\` ranks pages (\`--mentions <path>\` finds the pages citing a file or folder, \`--topic <topic>\` the pages on a topic), and \`codealmanac show <slug>\` prints one page. Prefer them to grepping almanac/.
- Run \`codealmanac validate\` before you finish and fix every error it reports.
- These three are the only codealmanac commands you can run here. Git is read-only for you (status, diff, log): never stage or commit; CodeAlmanac handles the wiki's changes after the run (see source_control).
- The first line of your final answer is the run's summary: say in a few words what changed in the wiki.`;

const OPERATIONS: Record<RunSpec["kind"], string> = {
  build: `# Build operation
Survey the repository (docs, entry points, modules, workflows, persistence, configuration, tests), plan the pages a future agent needs, then write them. The runtime context's repository inventory is a starting map, not the territory: verify in the code. Read the writing manual in manual_root first. Organize pages in folders by type (concepts/, architecture/, guides/, decisions/, reference/) and connect them with topics and links. Cite the lines of code that show each material claim.`,
  ingest: `# Ingest operation
Fold the selected inputs into the existing wiki. The material is in the <source> blocks below the runtime context; when a block says it was cut, the whole material is in the file it names. Understand each input, extract what is durable, find its right home in the existing pages (search them with \`codealmanac search\`), verify important claims against the code and cite the lines that show them, and prefer updating evolving pages over creating new ones. The writing manual in manual_root says how (start with its README.md and ingest.md).`,
  garden: `# Garden operation
Improve the wiki as a whole graph: merge duplicates, fix stale or unsupported claims, repair broken links and references, strengthen topics and hub pages. The runtime context's \`garden\` object summarizes the wiki (largest topics, most-linked pages, pages nothing links to, recent changes) and its current findings, sampled when there are many (\`codealmanac validate --json\` lists them all). Errors that exist now do not fail this run; errors you introduce do. Current code is the truth: when you check or correct a claim about code, point its source's \`lines\` at where the code now shows it. Avoid churn. The writing manual in manual_root says how (start with its README.md and garden.md).`,
};

/** `garden --stale`: only these pages, each with what changed under it. */
const STALE_GARDEN = `# Garden operation: stale pages
The code cited by the pages in the runtime context's \`stale_pages\` changed since each page was verified. These pages are the whole task: do not edit, create or delete any other page. For each one, read the page and what changed under it: its \`<stale-page>\` block below the runtime context lists the page's drifting evidence and holds the diff of each changed or missing file since the commit the page was verified at, committed and uncommitted changes together (when a block says it was cut, the whole material is in the file it names). Check the page's claims against the code as it is now, then either:
- correct it: rewrite what the change made wrong, point each source's \`lines\` at where the code now shows the claim, and drop or replace a source whose file is gone; or
- confirm it: when every claim still holds, leave the page file exactly as it is. CodeAlmanac then records the page as verified against the current code.
Errors that exist now do not fail this run; errors you introduce do. The first line of your final answer says which pages you corrected and which you confirmed.`;

export interface PromptMaterial {
  sources?: SourceBrief[];
  /** `garden --stale`: the targeted pages still stale when the run started, and those no longer stale. */
  stale?: { pages: StalePageBrief[]; noLongerStale: string[] };
  garden?: unknown;
  build?: unknown;
}

/** `manualRoot`: the writing manual's folder (see LifecycleDeps.manualRoot); the wiki's own by default. */
export function renderPrompt(
  record: RunRecord,
  spec: RunSpec,
  almanacPath: string,
  material: PromptMaterial = {},
  manualRoot: string = join(almanacPath, "manual"),
): string {
  const context = {
    run_id: record.runId,
    operation: spec.kind,
    repository_name: record.repositoryName,
    repository_root: record.repositoryRoot,
    almanac_root: almanacPath,
    topics_file: join(almanacPath, "topics.yaml"),
    manual_root: manualRoot,
    ...(material.sources ? { sources: material.sources.map(sourceSummary) } : {}),
    ...(material.garden !== undefined ? { garden: material.garden } : {}),
    ...(material.stale ? { stale_pages: material.stale.pages.map(staleSummary) } : {}),
    ...(material.build !== undefined ? { repository_inventory: material.build } : {}),
    guidance: spec.guidance,
    source_control: sourceControl(spec.auto_commit),
  };
  const blocks = material.sources?.length
    ? `\nSource material:\n\n${material.sources.map(sourceBlock).join("\n\n")}\n`
    : material.stale?.pages.length
      ? `\nEvidence diffs:\n\n${material.stale.pages.map(staleBlock).join("\n\n")}\n`
      : "";
  const operation = material.stale ? STALE_GARDEN : OPERATIONS[spec.kind];
  return `${KERNEL}\n\n---\n\n${operation}\n\nrun_id: ${record.runId}\n\nRuntime context:\n${JSON.stringify(context, null, 2)}\n${blocks}`;
}

function sourceSummary(brief: SourceBrief, index: number) {
  return {
    source: index + 1,
    address: brief.address,
    kind: brief.kind,
    title: brief.title,
    hint: brief.hint,
    characters: brief.totalChars,
    truncated: brief.truncated,
    ...(brief.materialPath ? { full_material: brief.materialPath } : {}),
    ...(brief.notes.length ? { notes: brief.notes } : {}),
  };
}

/** A delimited block; a closing tag inside the material is escaped so it cannot end the block early. */
function sourceBlock(brief: SourceBrief, index: number): string {
  const body = brief.content.replace(/<\/source>/gi, "<\\/source>");
  const cut = brief.truncated ? ` truncated="true"${brief.materialPath ? ` full_material="${brief.materialPath}"` : ""}` : "";
  return `<source n="${index + 1}" title="${brief.title.replace(/"/g, "'")}"${cut}>\n${body}\n</source>`;
}

/** Counts only: the evidence itself is in the page's block, within the budget. */
function staleSummary(brief: StalePageBrief, index: number) {
  return {
    page: index + 1,
    slug: brief.slug,
    file: brief.file,
    verified_at: brief.verified_at,
    stale_evidence: brief.stale.length,
    moved_evidence: brief.moved.length,
    characters: brief.totalChars,
    truncated: brief.truncated,
    ...(brief.materialPath ? { full_material: brief.materialPath } : {}),
  };
}

/** A page's material in a delimited block; a closing tag inside a diff is escaped so it cannot end the block early. */
function staleBlock(brief: StalePageBrief, index: number): string {
  const body = brief.text.trimEnd().replace(/<\/stale-page>/gi, "<\\/stale-page>");
  const cut = brief.truncated ? ` truncated="true" full_material="${brief.materialPath}"` : "";
  return `<stale-page n="${index + 1}" slug="${brief.slug.replace(/"/g, "'")}"${cut}>\n${body}\n</stale-page>`;
}

/** What happens to the wiki changes after the run: the product commits them, the agent never does. */
function sourceControl(autoCommit: boolean) {
  return {
    auto_commit: autoCommit,
    instructions: autoCommit
      ? "Do not stage or commit anything. When the run succeeds, CodeAlmanac commits the files you changed under almanac/ itself, as 'almanac: <the first line of your final answer>'."
      : "Do not stage or commit anything. Your changes under almanac/ stay in the working tree for the user to review.",
  };
}

export function preparationMessage(spec: RunSpec, material: PromptMaterial = {}): string {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  switch (spec.kind) {
    case "build":
      return "prepared minimal wiki and repository inventory";
    case "garden": {
      if (!material.stale) return "prepared garden context";
      const { pages, noLongerStale } = material.stale;
      const cut = pages.filter((p) => p.truncated).length;
      const named = noLongerStale.slice(0, 5).join(", ") + (noLongerStale.length > 5 ? ` and ${noLongerStale.length - 5} more` : "");
      const gone = noLongerStale.length ? `; ${plural(noLongerStale.length, "targeted page")} no longer stale: ${named}` : "";
      return `prepared the evidence diffs of ${plural(pages.length, "stale page")}${cut ? ` (${cut} cut to fit the prompt; full diffs in the run folder)` : ""}${gone}`;
    }
    case "ingest": {
      const list = material.sources ?? [];
      const cut = list.filter((b) => b.truncated).length;
      const count = `${list.length} source${list.length === 1 ? "" : "s"}`;
      return `prepared ${count}${cut ? ` (${cut} cut to fit the prompt; full material in the run folder)` : ""}`;
    }
  }
}
