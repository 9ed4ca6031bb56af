import * as z from "zod/mini";

/** The optional `wiki` argument every reading tool takes. */
export const wikiArgument = z.optional(
  z
    .string()
    .check(
      z.minLength(1),
      z.describe(
        "Name of a registered wiki (see list_wikis). Leave it out to read the wiki of the repository this server runs in.",
      ),
    ),
);

export const wikiField = z.string().check(z.describe("the wiki that answered"));

/** A count in a tool's output: an integer from 0 (its JSON Schema says so, and nothing about safe integers). */
export const countField = (description?: string) =>
  description === undefined ? z.int().check(z.minimum(0)) : z.int().check(z.minimum(0), z.describe(description));

/** `n thing` / `n things`. */
export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
