import * as z from "zod/mini";
import { RUN_KINDS } from "./model.js";

/**
 * The durable request behind a queued run. Unknown fields pass through, so a spec
 * written by a newer version never poisons an older reader.
 */
const nonBlank = z.string().check(z.refine((value) => value.trim() !== "", "must not be blank"));

export const RunSpecSchema = z
  .looseObject({
    version: z.literal(1),
    kind: z.enum(RUN_KINDS),
    // Any name: which harnesses exist is the harness registry's business, and a spec
    // written by a newer version with a harness this one lacks must still parse.
    harness: nonBlank,
    model: nonBlank,
    inputs: z._default(z.array(nonBlank), []),
    // Ingest sources resolved when the run was queued; the sources domain validates them.
    sources: z._default(z.array(z.unknown()), []),
    title: z._default(z.nullable(nonBlank), null),
    guidance: z._default(z.nullable(nonBlank), null),
    auto_commit: z._default(z.boolean(), true),
    // `garden --stale`: the pages drift called stale when the run was queued, the only ones
    // the run looks at (their evidence diffs are computed when it runs).
    stale_pages: z.optional(z.array(nonBlank)),
  })
  .check(
    z.refine((spec) => spec.kind !== "ingest" || spec.inputs.length > 0, {
      message: "an ingest run needs at least one input",
      path: ["inputs"],
    }),
    z.refine((spec) => spec.kind === "ingest" || spec.inputs.length === 0, {
      message: "only an ingest run takes inputs",
      path: ["inputs"],
    }),
    z.refine((spec) => spec.stale_pages === undefined || (spec.kind === "garden" && spec.stale_pages.length > 0), {
      message: "only a garden run targets stale pages, and at least one",
      path: ["stale_pages"],
    }),
  );

export type RunSpec = z.infer<typeof RunSpecSchema>;
export const SPEC_VERSION = 1;

export type SpecParse = { ok: true; spec: RunSpec } | { ok: false; error: string };

export function parseSpec(json: string): SpecParse {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (error) {
    return { ok: false, error: `spec is not valid JSON: ${(error as Error).message}` };
  }
  const parsed = RunSpecSchema.safeParse(raw);
  if (parsed.success) return { ok: true, spec: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
  return { ok: false, error: `spec is invalid: ${where}${issue?.message ?? "unknown problem"}` };
}
