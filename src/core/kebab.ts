/**
 * Kebab-case shared by topics and repository names. Unlike the reference it keeps
 * letters of every script (日本 stays 日本) and folds accents (Über → uber), so
 * non-Latin names never collapse to an empty slug.
 */
export function kebab(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "-")
    .replace(/^-+|-+$/g, "");
}

/** `auth-flow` → `Auth Flow`. */
export function titleForSlug(slug: string): string {
  return slug
    .split("-")
    .filter((part) => part !== "")
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join(" ");
}
