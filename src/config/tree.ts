import type { KeySpec, StoredValue } from "./keys.js";
import type { TomlTree } from "./schema.js";

/**
 * The parsed document an edit must produce. Comparing it with what the edited text
 * actually parses to catches every form the line editor does not understand.
 */
export function withValue(tree: TomlTree, spec: KeySpec, value: StoredValue): TomlTree {
  const copy = clone(tree);
  let node = copy;
  for (const part of tablePath(spec)) {
    const next = node[part];
    node = (node[part] = isTable(next) ? next : {}) as TomlTree;
  }
  node[spec.name] = value;
  return copy;
}

export function withoutKey(tree: TomlTree, spec: KeySpec): TomlTree {
  const copy = clone(tree);
  let node: unknown = copy;
  for (const part of tablePath(spec)) node = isTable(node) ? node[part] : undefined;
  if (isTable(node)) delete node[spec.name];
  return copy;
}

/** A string found at a dotted path, if there is one. */
export function stringAt(tree: TomlTree, path: readonly string[]): string | undefined {
  let node: unknown = tree;
  for (const part of path) node = isTable(node) ? node[part] : undefined;
  return typeof node === "string" ? node : undefined;
}

/** Equal documents, where an empty table counts as absent (removing a key may leave its header). */
export function sameTree(a: TomlTree, b: TomlTree): boolean {
  return canonical(a) === canonical(b);
}

function canonical(value: unknown): string {
  return JSON.stringify(prune(value)) ?? "";
}

function prune(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(prune);
  if (!isTable(value)) return value instanceof Date ? value.toISOString() : value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const child = prune(value[key]);
    if (isTable(child) && Object.keys(child).length === 0) continue;
    out[key] = child;
  }
  return out;
}

function tablePath(spec: KeySpec): string[] {
  return spec.table ? spec.table.split(".") : [];
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function clone(tree: TomlTree): TomlTree {
  return prune(tree) as TomlTree;
}
