import type { PrivacyRules } from "./redact.js";
import { redact } from "./redact.js";

/**
 * A structured brief (a build's inventory of the repository, a garden's wiki summary) with
 * every string in it redacted, keys included: what a file's manifest or a page's title holds
 * reaches the prompt through the same redactor as a source's text.
 */
export async function redactLeaves<T>(value: T, rules: PrivacyRules = {}): Promise<T> {
  return (await walk(value, rules)) as T;
}

async function walk(value: unknown, rules: PrivacyRules): Promise<unknown> {
  if (typeof value === "string") return (await redact(value, rules)).text;
  if (Array.isArray(value)) return Promise.all(value.map((item) => walk(item, rules)));
  if (value === null || typeof value !== "object") return value;
  const entries = await Promise.all(Object.entries(value).map(async ([key, item]) => [(await redact(key, rules)).text, await walk(item, rules)] as const));
  return Object.fromEntries(entries);
}
