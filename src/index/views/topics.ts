import type { Db } from "../../core/sqlite.js";
import { kebab } from "../../core/kebab.js";
import { invalid, notFound } from "../../core/errors.js";
import { descendantsOf } from "./topic-graph.js";

export interface TopicSummary {
  slug: string;
  title: string;
  description: string | null;
  parents: string[];
  children: string[];
  page_count: number;
}

export interface TopicDetail {
  slug: string;
  title: string;
  description: string | null;
  parents: string[];
  children: string[];
  pages: string[];
  includes_descendants: boolean;
}

export function listTopics(db: Db): TopicSummary[] {
  const topics = db.prepare("SELECT slug, title, description FROM topics ORDER BY slug").all() as {
    slug: string;
    title: string;
    description: string | null;
  }[];
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
  const topic = db.prepare("SELECT slug, title, description FROM topics WHERE slug = ?").get(slug) as
    | { slug: string; title: string; description: string | null }
    | undefined;
  if (!topic) throw notFound("topic", input.trim());
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

export function topicExists(db: Db, slug: string): boolean {
  return db.prepare("SELECT 1 FROM topics WHERE slug = ?").get(slug) !== undefined;
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
