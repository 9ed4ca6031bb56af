import type * as z from "zod/mini";

type Issue = z.core.$ZodIssue;

const KINDS: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "true or false",
  array: "an array",
  object: "an object",
  record: "an object",
};

/**
 * Every problem with a tool's arguments, on one line: `"limit" must be at most 100 (got
 * 5000); missing required argument "slug"`. A model reads this and retries, so it names
 * the argument and what it must be.
 */
export function argumentProblems(issues: readonly Issue[], args: unknown): string {
  return tightest(issues).map((issue) => describe(issue, args)).join("; ");
}

/**
 * One bound per argument: an integer also carries the implicit safe-integer range, and
 * "at most 9007199254740991" beside "at most 100" would only confuse.
 */
function tightest(issues: readonly Issue[]): Issue[] {
  const kept = new Map<string, Issue>();
  for (const issue of issues) {
    const key = `${issue.code}:${pathText(issue.path)}`;
    const known = kept.get(key);
    if (!known) kept.set(key, issue);
    else if (issue.code === "too_big" && known.code === "too_big" && Number(issue.maximum) < Number(known.maximum)) kept.set(key, issue);
    else if (issue.code === "too_small" && known.code === "too_small" && Number(issue.minimum) > Number(known.minimum)) kept.set(key, issue);
  }
  return [...kept.values()];
}

function describe(issue: Issue, args: unknown): string {
  const name = `"${pathText(issue.path)}"`;
  const got = valueAt(args, issue.path);
  switch (issue.code) {
    case "invalid_type":
      if (got === undefined) return `missing required argument ${name}`;
      return `${name} must be ${KINDS[issue.expected] ?? issue.expected} (got ${shown(got)})`;
    case "too_big":
      return `${name} ${limitText("most", issue.origin, issue.maximum)} (got ${shown(got)})`;
    case "too_small":
      if ((issue.origin === "string" || issue.origin === "array") && Number(issue.minimum) === 1) return `${name} must not be empty`;
      return `${name} ${limitText("least", issue.origin, issue.minimum)} (got ${shown(got)})`;
    case "invalid_value":
      return `${name} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")} (got ${shown(got)})`;
    case "unrecognized_keys": {
      const where = issue.path.length > 0 ? ` in ${name}` : "";
      return `unknown argument${issue.keys.length === 1 ? "" : "s"} ${issue.keys.map((k) => `"${k}"`).join(", ")}${where}`;
    }
    default:
      return `${name} is invalid (got ${shown(got)})`;
  }
}

function limitText(bound: "most" | "least", origin: string, limit: number | bigint): string {
  if (origin === "string") return `must be at ${bound} ${limit} characters`;
  if (origin === "array") return `must have at ${bound} ${limit} items`;
  return `must be at ${bound} ${limit}`;
}

function pathText(path: readonly PropertyKey[]): string {
  return path.reduce<string>((text, key) => (typeof key === "number" ? `${text}[${key}]` : text === "" ? String(key) : `${text}.${String(key)}`), "");
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/** A value as a short, single-line token. */
export function shown(value: unknown): string {
  if (value === undefined) return "nothing";
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  text = text.replace(/\s+/g, " ");
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
