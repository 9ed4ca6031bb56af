import { SCHEME } from "./repository-path.js";
/**
 * Resolves a Markdown link href, written on page `sourceSlug`, to the slug of the
 * page it points at, or null when it is not a page link (external, in-page,
 * root-absolute, a file, or escaping the wiki). `x.md`, `x`, `dir/` and
 * `dir/README.md` all name the same page, so links stay GitHub-renderable.
 */
export function resolvePageHref(href: string, sourceSlug: string, isLanding: boolean): string | null {
  const path = hrefPath(href.trim());
  if (path === null) return null;
  const segments = pageSegments(path);
  if (segments === null) return null;

  const target = baseSegments(sourceSlug, isLanding);
  for (const segment of segments) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (target.length === 0) return null;
      target.pop();
      continue;
    }
    target.push(segment);
  }
  // An href that walks back to the wiki root names the root landing page.
  return target.length === 0 ? "README" : target.join("/");
}


/** The decoded path part of a relative href, or null when it cannot be a page link. */
function hrefPath(href: string): string | null {
  if (href === "" || href.startsWith("#") || href.startsWith("/") || href.includes("\\")) return null;
  if (SCHEME.test(href)) return null;
  const hash = href.indexOf("#");
  const withoutFragment = hash < 0 ? href : href.slice(0, hash);
  if (withoutFragment.includes("?")) return null;
  let decoded: string;
  try {
    decoded = decodeURIComponent(withoutFragment);
  } catch {
    return null;
  }
  if (/\s/.test(decoded) || decoded.includes("\\")) return null;
  const trimmed = decoded.replace(/^\/+|\/+$/g, "");
  return trimmed === "" ? null : trimmed;
}

/** Segments to walk, with `.md` and `README` endings folded onto the page they name. */
function pageSegments(path: string): string[] | null {
  const segments = path.split("/");
  const last = segments[segments.length - 1] ?? "";
  if (last === "." || last === "..") return segments;
  let name = last;
  if (name.endsWith(".md") && name.length > ".md".length) name = name.slice(0, -".md".length);
  else if (name.includes(".")) return null;
  // A folder's README is the folder's landing page, whose slug is the folder.
  if (name === "README") return segments.slice(0, -1);
  return [...segments.slice(0, -1), name];
}

function baseSegments(sourceSlug: string, isLanding: boolean): string[] {
  if (sourceSlug === "README" || sourceSlug === "") return [];
  const segments = sourceSlug.split("/");
  return isLanding ? segments : segments.slice(0, -1);
}
