import { Document, isAlias, isMap, isScalar, isSeq, YAMLSeq } from "yaml";
import type { YAMLMap } from "yaml";
import { conflict, invalid, notFound } from "../core/errors.js";
import { kebab, titleForSlug } from "../core/kebab.js";
import { ancestorsOf } from "./topic-graph.js";
import { interpretSource, interpretValue, nonEmptyString, scalarText } from "./topics-model.js";
import type { TopicDef } from "./types.js";

const BOM = "\uFEFF";
const STRINGIFY = { lineWidth: 0, flowCollectionPadding: false } as const;
/** `topics:` followed by `- …` at column 0: the file writes its list flush with the key. */
const FLUSH_TOPIC_LIST = /^topics:[ \t]*(?:#.*)?\r?\n(?:[ \t]*(?:#.*)?\r?\n)*-/m;

/**
 * Edits `topics.yaml` in place. Comments, key order and quoting survive because
 * edits go through the YAML document model; an unedited document is returned
 * byte for byte. Mutations on a duplicated slug act on its first entry, except
 * rename and delete, which act on every entry.
 */
export class TopicsDocument {
  private dirty = false;

  private constructor(
    private readonly doc: Document,
    private readonly original: string,
    private readonly eol: "\n" | "\r\n",
    private readonly indentSeq: boolean,
  ) {}

  /** Refuses a file that the read path would report, so a malformed file is never overwritten. */
  static parse(text: string | null, path: string): TopicsDocument {
    const original = text ?? "";
    const { problems, parsed } = interpretSource(original);
    const problem = problems[0];
    if (problem) {
      if (problem.kind === "not_mapping") throw invalid(`topics.yaml must be a YAML mapping: ${path}`);
      if (problem.kind === "not_list") throw invalid(`topics.yaml topics must be a list: ${path}`);
      throw invalid(`invalid topics.yaml: ${path}: ${problem.detail}`);
    }
    const doc = parsed?.doc ?? new Document();
    const eol = original.includes("\r\n") ? "\r\n" : "\n";
    return new TopicsDocument(doc, original, eol, !FLUSH_TOPIC_LIST.test(original));
  }

  topics(): TopicDef[] {
    return interpretValue(this.doc.toJS({ maxAliasCount: 100 }), () => null).topics;
  }

  has(slug: string): boolean {
    return this.get(slug) !== undefined;
  }

  get(slug: string): TopicDef | undefined {
    const wanted = kebab(slug);
    return this.topics().find((topic) => topic.slug === wanted);
  }

  /**
   * Adds the topic unless defined. A given title also replaces an existing
   * entry's title when that one is absent or still the derived default.
   */
  ensureTopic(slug: string, title?: string): "created" | "existing" {
    const key = requireSlug(slug);
    const wantedTitle = title?.trim() || undefined;
    const entry = this.firstEntry(key);
    if (entry) {
      const current = this.entryText(entry, "title");
      if (wantedTitle && wantedTitle !== current && (current === null || current === titleForSlug(key))) {
        this.setScalar(entry, "title", wantedTitle);
      }
      return "existing";
    }
    const created = this.doc.createNode({ slug: key, title: wantedTitle ?? titleForSlug(key), parents: [] });
    const parents = created.get("parents", true);
    if (isSeq(parents)) parents.flow = true;
    this.entriesSeq(true).items.push(created);
    this.dirty = true;
    return "created";
  }

  setTitle(slug: string, title: string): void {
    const entry = this.requireEntry(slug);
    const text = title.trim();
    if (text === "") this.deleteKey(entry, "title");
    else this.setScalar(entry, "title", text);
  }

  setDescription(slug: string, text: string | null): void {
    const entry = this.requireEntry(slug);
    const description = text?.trim() ?? "";
    if (description === "") this.deleteKey(entry, "description");
    else this.setScalar(entry, "description", description, ["title", "slug"]);
  }

  /** False when the edge already exists; refuses self-edges and edges closing a cycle. */
  addParent(child: string, parent: string): boolean {
    const childKey = requireSlug(child);
    const parentKey = requireSlug(parent);
    if (childKey === parentKey) throw invalid("topic cannot be its own parent");
    const entry = this.requireEntry(childKey);
    const topics = this.topics();
    if (topics.find((topic) => topic.slug === childKey)?.parents.includes(parentKey)) return false;
    if (ancestorsOf(topics, parentKey).has(childKey)) {
      throw conflict(`adding ${parentKey} as parent of ${childKey} would create a cycle`);
    }
    const parents = entry.get("parents", true);
    if (isSeq(parents)) parents.items.push(this.doc.createNode(parentKey));
    else {
      const list = new YAMLSeq(this.doc.schema);
      list.flow = true;
      list.items.push(this.doc.createNode(parentKey));
      entry.set("parents", list);
    }
    this.dirty = true;
    return true;
  }

  removeParent(child: string, parent: string): boolean {
    const childKey = kebab(child);
    const parentKey = kebab(parent);
    let removed = false;
    for (const entry of this.entries().filter((e) => this.entrySlug(e) === childKey)) {
      removed = this.filterParents(entry, (slug) => slug !== parentKey) || removed;
    }
    return removed;
  }

  renameTopic(oldSlug: string, newSlug: string): void {
    const from = requireSlug(oldSlug);
    const to = requireSlug(newSlug);
    if (from === to) return;
    if (this.has(to)) throw conflict(`topic "${to}" already exists; delete it first if you intend to merge`);
    for (const entry of this.entries()) {
      if (this.entrySlug(entry) === from) {
        this.setScalar(entry, "slug", to);
        if (this.entryText(entry, "title") === titleForSlug(from)) this.setScalar(entry, "title", titleForSlug(to));
      }
      this.renameParents(entry, from, to);
    }
  }

  /** Removes every entry defining `slug` and every parent edge to it; true when anything changed. */
  deleteTopic(slug: string): boolean {
    const key = kebab(slug);
    const seq = this.entriesSeq(false);
    if (!seq) return false;
    const before = seq.items.length;
    seq.items = seq.items.filter((item) => !(isMap(item) && this.entrySlug(item) === key));
    let changed = seq.items.length !== before;
    for (const entry of this.entries()) changed = this.filterParents(entry, (parent) => parent !== key) || changed;
    if (changed) this.dirty = true;
    return changed;
  }

  /** True once a mutation changed the document. */
  get changed(): boolean {
    return this.dirty;
  }

  toString(): string {
    if (!this.dirty && this.original.trim() !== "") return this.original;
    this.entriesSeq(true);
    const text = this.doc.toString({ ...STRINGIFY, indentSeq: this.indentSeq });
    const withEol = this.eol === "\r\n" ? text.replace(/\r?\n/g, "\r\n") : text;
    return this.original.startsWith(BOM) ? BOM + withEol : withEol;
  }

  private entriesSeq(create: true): YAMLSeq;
  private entriesSeq(create: false): YAMLSeq | null;
  private entriesSeq(create: boolean): YAMLSeq | null {
    if (!isMap(this.doc.contents)) {
      if (!create) return null;
      this.doc.contents = this.doc.createNode({ topics: [] });
    }
    const root = this.doc.contents as YAMLMap;
    const seq = root.get("topics", true);
    if (isSeq(seq)) return seq;
    if (!create) return null;
    const fresh = new YAMLSeq(this.doc.schema);
    root.set("topics", fresh);
    return fresh;
  }

  private entries(): YAMLMap[] {
    return (this.entriesSeq(false)?.items ?? []).filter((item): item is YAMLMap => isMap(item));
  }

  private firstEntry(key: string): YAMLMap | undefined {
    return this.entries().find((entry) => this.entrySlug(entry) === key);
  }

  private requireEntry(slug: string): YAMLMap {
    const entry = this.firstEntry(kebab(slug));
    if (!entry) throw notFound("topic", slug);
    return entry;
  }

  private entrySlug(entry: YAMLMap): string {
    const text = scalarText(this.resolved(entry.get("slug", true)));
    return text === null ? "" : kebab(text);
  }

  private entryText(entry: YAMLMap, key: string): string | null {
    return nonEmptyString(this.resolved(entry.get(key, true)));
  }

  private resolved(node: unknown): unknown {
    const target = isAlias(node) ? node.resolve(this.doc) : node;
    return isScalar(target) ? target.value : undefined;
  }

  /** Keeps the existing scalar node (and so its quoting and comments) when there is one. */
  private setScalar(entry: YAMLMap, key: string, value: string, insertAfter: readonly string[] = []): void {
    const node = entry.get(key, true);
    if (isScalar(node)) {
      if (node.value === value) return;
      node.value = value;
    } else if (node !== undefined) {
      entry.set(key, value);
    } else {
      const pair = this.doc.createPair(key, value);
      const anchor = insertAfter.map((name) => entry.items.findIndex((p) => keyName(p.key) === name)).find((i) => i >= 0);
      entry.items.splice(anchor === undefined ? entry.items.length : anchor + 1, 0, pair);
    }
    this.dirty = true;
  }

  private deleteKey(entry: YAMLMap, key: string): void {
    if (entry.delete(key)) this.dirty = true;
  }

  /** Keeps the parent items whose slug passes `keep`; true when any was dropped. */
  private filterParents(entry: YAMLMap, keep: (slug: string) => boolean): boolean {
    const parents = entry.get("parents", true);
    if (!isSeq(parents)) return false;
    const before = parents.items.length;
    parents.items = parents.items.filter((item) => {
      const text = scalarText(this.resolved(item));
      return text === null || keep(kebab(text));
    });
    const changed = parents.items.length !== before;
    if (changed) this.dirty = true;
    return changed;
  }

  private renameParents(entry: YAMLMap, from: string, to: string): void {
    const parents = entry.get("parents", true);
    if (!isSeq(parents)) return;
    const seen = new Set<string>();
    const kept: unknown[] = [];
    for (const item of parents.items) {
      const text = scalarText(this.resolved(item));
      const renamed = text !== null && kebab(text) === from;
      const slug = renamed ? to : text === null ? null : kebab(text);
      if (slug !== null && seen.has(slug)) {
        this.dirty = true;
        continue;
      }
      if (slug !== null) seen.add(slug);
      if (!renamed) {
        kept.push(item);
        continue;
      }
      this.dirty = true;
      if (isScalar(item)) {
        item.value = to;
        kept.push(item);
      } else kept.push(this.doc.createNode(to));
    }
    parents.items = kept;
  }
}

function keyName(key: unknown): unknown {
  return isScalar(key) ? key.value : key;
}

function requireSlug(input: string): string {
  const slug = kebab(input);
  if (slug === "") throw invalid(`invalid topic slug: ${input}`);
  return slug;
}
