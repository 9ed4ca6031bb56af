import { join } from "node:path";
import { unavailable } from "../errors.js";
import type { SourceTools } from "../context.js";
import { counted, fenced, formatCount, formatSize } from "../text.js";
import { fenceLanguage, readTextFile, type TextFile } from "./file.js";
import { listFolder } from "./folder-listing.js";
import { orderCandidates, type Candidate } from "./folder-selection.js";
import type { Preparer } from "./material.js";

interface IncludedFile extends Candidate {
  file: TextFile;
}

export const prepareFolder: Preparer = async (ref, ctx, tools) => {
  const folder = ref.path!;
  const display = ref.display ?? folder;
  const listing = await listFolder(folder, ctx.repositoryRoot, tools).catch((error: Error) => {
    throw unavailable(`folder is not readable: ${display} (${error.message})`);
  });
  const ordered = orderCandidates(listing.candidates);
  const { included, skipped, remaining } = await readSelection(folder, ordered, tools);
  const notes = [...listing.notes, ...selectionNotes(listing.candidates.length, included, skipped, remaining, listing.source)];
  return { text: renderFolder(display, listing.source, included), notes, cut: "head" };
};

async function readSelection(folder: string, ordered: Candidate[], tools: SourceTools) {
  const included: IncludedFile[] = [];
  let skipped = 0;
  let next = 0;
  for (; next < ordered.length && included.length < tools.limits.folderFiles; next += 1) {
    const candidate = ordered[next]!;
    const file = await readTextFile(join(folder, candidate.path), tools.limits.fileReadBytes).catch(() => null);
    if (file) included.push({ ...candidate, file });
    else skipped += 1;
  }
  return { included, skipped, remaining: ordered.length - next };
}

function selectionNotes(total: number, included: IncludedFile[], skipped: number, remaining: number, source: "git" | "walk"): string[] {
  const notes: string[] = [];
  const order = source === "git" ? "changed files first, then spread across subfolders" : "spread across subfolders";
  if (remaining > 0) {
    notes.push(`${included.length} of ${formatCount(total)} files are included (${order}); read the others from the repository when needed.`);
  }
  if (skipped > 0) notes.push(`${counted(skipped, "binary, unreadable or deleted file")} skipped.`);
  const cut = included.filter((entry) => entry.file.cut).length;
  if (cut > 0) notes.push(`${counted(cut, "large file")} read only in part, from the start.`);
  return notes;
}

function renderFolder(display: string, source: "git" | "walk", included: IncludedFile[]): string {
  const heading = display === "." ? "# Folder (repository root)" : `# Folder ${display}/`;
  if (included.length === 0) return `${heading}\n\n(no readable files)\n`;
  const prefix = display === "." ? "" : `${display}/`;
  const tree = included.map((entry) => `- ${prefix}${entry.path}${entry.changed ? " [changed]" : ""} (${formatSize(entry.file.size)})`);
  const files = included.map((entry) => {
    const partial = entry.file.cut ? `\n\n(only the start of this ${formatSize(entry.file.size)} file)` : "";
    return `## ${prefix}${entry.path}${partial}\n\n${fenced(entry.file.text, fenceLanguage(entry.path))}`;
  });
  const listedBy = source === "git" ? "listed by git" : "listed by walking the folder";
  return `${heading}\n\nFiles (${listedBy}):\n${tree.join("\n")}\n\n${files.join("\n\n")}\n`;
}
