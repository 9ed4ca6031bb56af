import type { Db } from "../../core/sqlite.js";
import { kebab } from "../../core/kebab.js";
import { invalid, notFound, ProductError } from "../../core/errors.js";
import { closeNames, didYouMean } from "../../core/suggest.js";
import { descendantsOf } from "./topic-graph.js";

export interface TopicSummary {
  slug: string;
  /** For a topic pages use but topics.yaml does not declare, a title made from the slug. */
  title: string;
  /** False for a topic only pages name (validate's `undeclared_topic`). */
  declared: boolean;
  description: string | null;
  parents: string[];
  children: string[];
  page_count: number;
}

export interface TopicDetail {
  slug: string;
  title: string;
  declared: boolean;
  description: string | null;
  parents: string[];
  children: string[];
  pages: string[];
  includes_descendants: boolean;
}

export function listTopics(db: Db): TopicSummary[] {
  const topics = (db.prepare("SELECT slug, title, description, declared FROM topics ORDER BY slug").all() as TopicRow[]).map(withDeclared);
  const counts = new Map(
    (db.prepare("SELECT topic, COUNT(*) AS n FROM page_topics GROUP BY topic").all() as { topic: string; n: number }[]).map(
      (r) => [r.topic, r.n],
    ),
  );
  const edges = db.prepare("SELECT child, parent FROM topic_parents ORDER BY child, parent").all() as {
    child: string;
    parent: string;
  }[];
  const parents = new Map<string, string[]>();
  const children = new Map<string, string[]>();
  for (const { child, parent } of edges) {
    push(parents, child, parent);
    push(children, parent, child);
  }
  return topics.map((t) => ({
    ...t,
    parents: parents.get(t.slug) ?? [],
    children: (children.get(t.slug) ?? []).sort(),
    page_count: counts.get(t.slug) ?? 0,
  }));
}

export function showTopic(db: Db, input: string, withDescendants: boolean): TopicDetail {
  const slug = topicSlug(input);
  const row = db.prepare("SELECT slug, title, description, declared FROM topics WHERE slug = ?").get(slug) as TopicRow | undefined;
  if (!row) throw notFound("topic", input.trim());
  const topic = withDeclared(row);
  const parents = db.prepare("SELECT parent FROM topic_parents WHERE child = ? ORDER BY parent").pluck().all(slug) as string[];
  const children = db.prepare("SELECT child FROM topic_parents WHERE parent = ? ORDER BY child").pluck().all(slug) as string[];
  const family = withDescendants ? [slug, ...descendantsOf(db, slug)] : [slug];
  const pages = db
    .prepare(
      "SELECT DISTINCT page_slug FROM page_topics WHERE topic IN (SELECT value FROM json_each(?)) ORDER BY page_slug",
    )
    .pluck()
    .all(JSON.stringify(family)) as string[];
  return { ...topic, parents, children, pages, includes_descendants: withDescendants };
}

interface TopicRow {
  slug: string;
  title: string;
  description: string | null;
  declared: number;
}

function withDeclared(row: TopicRow) {
  return { slug: row.slug, title: row.title, declared: row.declared === 1, description: row.description };
}

export function topicExists(db: Db, slug: string): boolean {
  return db.prepare("SELECT 1 FROM topics WHERE slug = ?").get(slug) !== undefined;
}

/**
 * The slugs of `inputs`, when the wiki knows each one (`known`: its topics' slugs). An
 * unknown topic is an error naming it with the closest slugs, and `listedBy` says where
 * they are all listed, instead of a search that quietly finds nothing.
 */
export function requireTopics(known: readonly string[], inputs: readonly string[], listedBy: string): string[] {
  const slugs = inputs.map(topicSlug);
  const missing = slugs.findIndex((slug) => !known.includes(slug));
  if (missing < 0) return slugs;
  const hint = didYouMean(closeNames(slugs[missing]!, known));
  throw new ProductError("not_found", `topic not found: ${inputs[missing]!.trim()}${hint}; ${listedBy}`);
}

export function topicSlug(input: string): string {
  const slug = kebab(input);
  if (slug === "") throw invalid(`topic must contain a letter or digit: "${input}"`);
  return slug;
}

function push(map: Map<string, string[]>, key: string, value: string): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
