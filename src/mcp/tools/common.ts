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

/** `n thing` / `n things`. */
export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
