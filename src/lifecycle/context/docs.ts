/**
 * The repository's own documentation, which a build reads as statements of intent and
 * then checks against the code. Found from paths only; ordered so the documents that
 * orient a newcomer (the root README, agent instructions, contributing and architecture
 * notes, decision records) come before docs pages, nested READMEs and, last, Markdown
 * found elsewhere in the tree.
 */
export interface DocFile {
  path: string;
  kind: DocKind;
}

export type DocKind =
  | "readme"
  | "agent instructions"
  | "contributing"
  | "architecture"
  | "decision record"
  | "docs"
  | "changelog"
  | "other markdown";

const DOC_EXTENSION = /\.(?:md|mdx|markdown|rst|adoc)$/i;
/** A docs folder at the root or in a workspace package (`packages/x/docs/`). */
const DOCS_FOLDER = /^(?:[^/]+\/[^/]+\/)?(?:docs?|documentation|guides?)\//i;
const DECISION_FOLDER = /(?:^|\/)(?:adrs?|decisions|decision-records|architecture-decisions|rfcs?)\//i;
/** Markdown under tests and fixtures describes test data, not the project. */
const TEST_FOLDER = /(?:^|\/)(?:tests?|__tests__|spec|fixtures?|testdata|examples?)\//i;

const RANK: Record<DocKind, number> = {
  readme: 0,
  "agent instructions": 1,
  contributing: 2,
  architecture: 3,
  "decision record": 4,
  docs: 5,
  changelog: 6,
  "other markdown": 7,
};

export function findDocs(paths: readonly string[]): DocFile[] {
  const docs: DocFile[] = [];
  for (const path of paths) {
    const kind = docKind(path);
    if (kind) docs.push({ path, kind });
  }
  return docs.sort((a, b) => rank(a) - rank(b) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function docKind(path: string): DocKind | null {
  const name = path.slice(path.lastIndexOf("/") + 1);
  if (/^readme(?:\.[A-Za-z]+)?$/i.test(name)) return "readme";
  if (/^(?:CLAUDE|AGENTS|GEMINI)\.md$/i.test(name) || path === ".github/copilot-instructions.md") return "agent instructions";
  if (!DOC_EXTENSION.test(name)) return null;
  const prominent = !path.includes("/") || DOCS_FOLDER.test(path) || path.startsWith(".github/");
  if (prominent && /^contributing\b/i.test(name)) return "contributing";
  if (path.startsWith(".github/")) return null;
  if (TEST_FOLDER.test(path)) return null;
  if (DECISION_FOLDER.test(path)) return "decision record";
  if (!prominent) return "other markdown";
  if (/^(?:architecture|design)\b/i.test(name)) return "architecture";
  if (/^(?:changelog|changes|history|news)\b/i.test(name)) return "changelog";
  return "docs";
}

/** A nested README (a package's, a folder's) orients less than the root one: it sorts with the docs. */
function rank(doc: DocFile): number {
  if (doc.kind === "readme" && doc.path.includes("/")) return RANK.docs;
  return RANK[doc.kind];
}
