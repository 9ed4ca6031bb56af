import { invalid } from "../core/errors.js";

const LANDING_FILE = "README.md";

/** A page's identity comes from its path only: `a/README.md` → `a`, `a/b.md` → `a/b`. */
export function slugForRelPath(rel: string): string {
  const parts = rel.split("/");
  if (parts.some((part) => part === "" || part === "." || part === "..")) {
    throw invalid(`invalid wiki page path: ${rel}`);
  }
  const name = parts[parts.length - 1] ?? "";
  if (!name.endsWith(".md")) throw invalid(`wiki page must be markdown: ${rel}`);
  // `.md` alone would give an empty last slug segment.
  if (name === ".md") throw invalid(`invalid wiki page path: ${rel}`);
  if (name === LANDING_FILE) return parts.length === 1 ? "README" : parts.slice(0, -1).join("/");
  return rel.slice(0, -".md".length);
}

export function isLandingPath(rel: string): boolean {
  const name = rel.slice(rel.lastIndexOf("/") + 1);
  return name === LANDING_FILE;
}
