import { join } from "node:path";
import { conflict, invalid, notFound } from "../core/errors.js";
import { kebab, titleForSlug } from "../core/kebab.js";
import { TopicsDocument } from "../wiki/topics-file.js";
import { readTopicsForRewrite, rewritePageTopics, type TopicRename } from "../wiki/rewrite.js";
import { writeFileAtomic } from "../wiki/atomic-write.js";
import { resolveSlug } from "./views/pages.js";
import { topicExists, topicSlug } from "./views/topics.js";
import type { WikiIndex } from "./service.js";
import { readWholePage } from "./page-file.js";

export interface TopicChange {
  slug: string;
  action: "created" | "updated" | "described" | "linked" | "unlinked" | "unchanged" | "renamed" | "deleted";
  changed: boolean;
  parent?: string;
  old_slug?: string;
  pages_updated?: number;
}

export interface TagChange {
  slug: string;
  topics: string[];
  changed: string[];
  unchanged: string[];
}

interface PlannedWrite {
  path: string;
  content: string;
}

/**
 * Topic and tag mutations. Each one holds the index's write lock from planning to the
 * last rename, so two organizers never interleave, and plans every file before writing
 * any: a malformed page aborts the whole change with nothing written.
 */
export class OrganizeService {
  async createTopic(index: WikiIndex, name: string, parents: string[]): Promise<TopicChange> {
    const slug = topicSlug(name);
    const parentSlugs = [...new Set(parents.map(topicSlug))];
    await index.refresh();
    return this.mutate(index, (doc) => {
      for (const parent of parentSlugs) {
        if (parent === slug) throw invalid("topic cannot be its own parent");
        if (!topicExists(index.db, parent)) throw notFound("topic", parent);
      }
      const existedAnywhere = topicExists(index.db, slug);
      for (const parent of parentSlugs) if (!doc.has(parent)) doc.ensureTopic(parent);
      const title = name.trim();
      const outcome = doc.ensureTopic(slug, title);
      const current = doc.get(slug);
      if (outcome === "existing" && (!current?.title || current.title === titleForSlug(slug))) doc.setTitle(slug, title);
      for (const parent of parentSlugs) doc.addParent(slug, parent);
      return { slug, action: existedAnywhere ? "updated" : "created", changed: true };
    });
  }

  async describeTopic(index: WikiIndex, input: string, description: string): Promise<TopicChange> {
    const slug = topicSlug(input);
    await index.refresh();
    return this.mutate(index, (doc) => {
      if (!topicExists(index.db, slug) && !doc.has(slug)) throw notFound("topic", input.trim());
      if (!doc.has(slug)) doc.ensureTopic(slug);
      const text = description.trim();
      doc.setDescription(slug, text === "" ? null : text);
      return { slug, action: "described", changed: true };
    });
  }

  async linkTopics(index: WikiIndex, childInput: string, parentInput: string): Promise<TopicChange> {
    const child = topicSlug(childInput);
    const parent = topicSlug(parentInput);
    if (child === parent) throw invalid("topic cannot be its own parent");
    await index.refresh();
    return this.mutate(index, (doc) => {
      for (const slug of [child, parent]) {
        if (!topicExists(index.db, slug) && !doc.has(slug)) throw notFound("topic", slug);
      }
      if (doc.get(child)?.parents.includes(parent)) return { slug: child, parent, action: "unchanged", changed: false };
      for (const slug of [child, parent]) if (!doc.has(slug)) doc.ensureTopic(slug);
      doc.addParent(child, parent);
      return { slug: child, parent, action: "linked", changed: true };
    });
  }

  async unlinkTopics(index: WikiIndex, childInput: string, parentInput: string): Promise<TopicChange> {
    const child = topicSlug(childInput);
    const parent = topicSlug(parentInput);
    await index.refresh();
    return this.mutate(index, (doc) => {
      const changed = doc.removeParent(child, parent);
      return { slug: child, parent, action: changed ? "unlinked" : "unchanged", changed };
    });
  }

  async renameTopic(index: WikiIndex, oldInput: string, newInput: string): Promise<TopicChange> {
    const oldSlug = topicSlug(oldInput);
    const newSlug = topicSlug(newInput);
    if (oldSlug === newSlug) return { slug: oldSlug, action: "unchanged", changed: false };
    await index.refresh();
    return this.mutate(index, (doc, pages) => {
      if (!topicExists(index.db, oldSlug) && !doc.has(oldSlug)) throw notFound("topic", oldInput.trim());
      if (topicExists(index.db, newSlug) || doc.has(newSlug)) {
        throw conflictTopic(newSlug);
      }
      if (doc.has(oldSlug)) doc.renameTopic(oldSlug, newSlug);
      const updated = pages.retag(oldSlug, (topics) => topics.map((t) => (t === oldSlug ? newSlug : t)), {
        from: oldSlug,
        to: newSlug,
      });
      return { slug: newSlug, old_slug: oldSlug, action: "renamed", changed: true, pages_updated: updated };
    });
  }

  async deleteTopic(index: WikiIndex, input: string): Promise<TopicChange> {
    const slug = topicSlug(input);
    await index.refresh();
    return this.mutate(index, (doc, pages) => {
      if (!topicExists(index.db, slug) && !doc.has(slug)) throw notFound("topic", input.trim());
      doc.deleteTopic(slug);
      const updated = pages.retag(slug, (topics) => topics.filter((t) => t !== slug));
      return { slug, action: "deleted", changed: true, pages_updated: updated };
    });
  }

  async tag(index: WikiIndex, page: string, topics: string[], mode: "tag" | "untag"): Promise<TagChange> {
    const wanted = [...new Set(topics.map((t) => kebab(t)).filter((t) => t !== ""))];
    if (wanted.length === 0) throw invalid("topics must not be empty");
    await index.refresh();
    const { slug, relPath } = await index.read((db) => {
      const slug = resolveSlug(db, page);
      return { slug, relPath: db.prepare("SELECT rel_path FROM pages WHERE slug = ?").pluck().get(slug) as string };
    });
    const path = join(index.almanacPath, relPath);
    const result = await index.read((db) =>
      db.transaction((): TagChange => {
        const text = readForRewrite(path, index.wikiRoot);
        const current = readTopicsForRewrite(text, path).map((t) => kebab(t));
        const changed = mode === "tag" ? wanted.filter((t) => !current.includes(t)) : wanted.filter((t) => current.includes(t));
        const unchanged = wanted.filter((t) => !changed.includes(t));
        if (changed.length > 0) {
          const next = mode === "tag" ? [...current, ...changed] : current.filter((t) => !changed.includes(t));
          writeFileAtomic(path, rewritePageTopics(text, next, path));
        }
        return { slug, topics: wanted, changed, unchanged };
      }).immediate(),
    );
    index.invalidate();
    return result;
  }

  private async mutate(
    index: WikiIndex,
    plan: (doc: TopicsDocument, pages: PagePlanner) => TopicChange,
  ): Promise<TopicChange> {
    const topicsPath = join(index.almanacPath, "topics.yaml");
    // A damaged index is rebuilt and the plan made again (nothing is written before the plan is complete).
    const result = await index.read((db) =>
      db.transaction((): TopicChange => {
        const original = readTopicsText(topicsPath, index.wikiRoot);
        const doc = TopicsDocument.parse(original, topicsPath);
        const pages = new PagePlanner(index);
        const change = plan(doc, pages);
        const writes: PlannedWrite[] = [];
        const text = doc.toString();
        if (text !== original) writes.push({ path: topicsPath, content: text });
        writes.push(...pages.writes);
        for (const write of writes) writeFileAtomic(write.path, write.content);
        return change;
      }).immediate(),
    );
    index.invalidate();
    await index.refresh();
    return result;
  }
}

/** Plans topic rewrites of every page tagged with a topic; nothing is written here. */
class PagePlanner {
  readonly writes: PlannedWrite[] = [];
  constructor(private readonly index: WikiIndex) {}

  retag(topic: string, edit: (topics: string[]) => string[], rename?: TopicRename): number {
    const rows = this.index.db
      .prepare(
        "SELECT p.rel_path FROM page_topics t JOIN pages p ON p.slug = t.page_slug WHERE t.topic = ? ORDER BY p.rel_path",
      )
      .pluck()
      .all(topic) as string[];
    for (const rel of rows) {
      const path = join(this.index.almanacPath, rel);
      const text = readForRewrite(path, this.index.wikiRoot);
      const current = readTopicsForRewrite(text, path).map((t) => kebab(t));
      const next = [...new Set(edit(current))];
      const content = rewritePageTopics(text, next, path, rename);
      if (content !== text) this.writes.push({ path, content });
    }
    return this.writes.length;
  }
}


function conflictTopic(slug: string) {
  return conflict(`topic "${slug}" already exists; delete it first if you intend to merge`);
}

/** topics.yaml's text, or null when there is none; read like a page, never through a link out of the wiki. */
function readTopicsText(path: string, wikiRoot: string): string | null {
  try {
    return readForRewrite(path, wikiRoot);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/** A file about to be rewritten, whole; one that leads out of the wiki or is no regular file is refused by name. */
function readForRewrite(path: string, wikiRoot: string): string {
  try {
    return readWholePage(path, wikiRoot);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EOUTSIDE" || code === "ENOTREG") throw invalid(`${(error as Error).message}; not rewritten`);
    throw error;
  }
}
