import * as z from "zod/mini";
import { badRequest } from "./errors.js";
import { walkRepositoryPath } from "../wiki/repository-path.js";

/** Query and path parameters, checked where they enter; a bad one is a 422 naming it. */

const DIGITS = z.string().check(z.regex(/^\d{1,15}$/));
const RUN_ID = z.string().check(z.regex(/^[A-Za-z0-9_-]{1,200}$/));
const FLAG = z.enum(["1", "true", "yes", "0", "false", "no", ""]);

export function limitParam(value: string | undefined, options: { fallback: number; max: number }): number {
  return countParam(value, "limit", options);
}

/** A whole number from 0 to `max`. */
export function countParam(value: string | undefined, name: string, options: { fallback: number; max: number }): number {
  if (value === undefined) return options.fallback;
  const parsed = DIGITS.safeParse(value.trim());
  const n = parsed.success ? Number(parsed.data) : NaN;
  if (!(n <= options.max)) throw badRequest(`invalid ${name} "${value}": it must be an integer from 0 to ${options.max}`);
  return n;
}

export function runIdParam(value: string): string {
  const parsed = RUN_ID.safeParse(value);
  if (!parsed.success) throw badRequest(`invalid run id "${value}": it must match ^[A-Za-z0-9_-]+$`);
  return parsed.data;
}

export function flagParam(value: string | undefined, name: string): boolean {
  if (value === undefined) return false;
  const parsed = FLAG.safeParse(value.trim().toLowerCase());
  if (!parsed.success) throw badRequest(`invalid ${name} "${value}": use 1 or 0`);
  return ["1", "true", "yes"].includes(parsed.data);
}

/** Repeatable or comma-separated values from a fixed set; absent or empty means no filter. */
export function choiceParam<T extends string>(values: string[], allowed: readonly T[], name: string): T[] | undefined {
  const items = values.flatMap((v) => v.split(",")).map((v) => v.trim().toLowerCase()).filter((v) => v !== "");
  const parsed = z.array(z.enum(allowed as unknown as [T, ...T[]])).safeParse(items);
  if (!parsed.success) {
    const bad = items.find((item) => !(allowed as readonly string[]).includes(item));
    throw badRequest(`invalid ${name} "${bad}": expected ${allowed.join(", ")}`);
  }
  return parsed.data.length > 0 ? (parsed.data as T[]) : undefined;
}

/**
 * A repository-relative file or folder path as pages cite it, normalized as file sources are
 * (wiki/repository-path.ts): never absolute, never climbing out with `..`, never empty.
 */
export function repositoryPathParam(value: string | undefined): string {
  const text = (value ?? "").trim();
  const absolute = text.startsWith("/") || text.startsWith("\\") || /^[A-Za-z]:/.test(text) || text.startsWith("~");
  const walked = absolute ? null : walkRepositoryPath(text, { climb: "refuse" });
  if (walked === null || walked.path === "") throw badRequest(`invalid path "${value ?? ""}": file path must be repo-relative`);
  return walked.path;
}
