import { z } from "zod";
import { RUN_KINDS } from "./model.js";

/**
 * The durable request behind a queued run. Unknown fields pass through, so a spec
 * written by a newer version never poisons an older reader.
 */
export const RunSpecSchema = z
  .looseObject({
    version: z.literal(1),
    kind: z.enum(RUN_KINDS),
    harness: z.enum(["claude", "codex"]),
    model: z.string().trim().min(1),
    inputs: z.array(z.string().trim().min(1)).default([]),
    title: z.string().trim().min(1).nullable().default(null),
    guidance: z.string().trim().min(1).nullable().default(null),
    auto_commit: z.boolean().default(true),
  })
  .superRefine((spec, ctx) => {
    if (spec.kind === "ingest" && spec.inputs.length === 0) {
      ctx.addIssue({ code: "custom", message: "an ingest run needs at least one input", path: ["inputs"] });
    }
    if (spec.kind !== "ingest" && spec.inputs.length > 0) {
      ctx.addIssue({ code: "custom", message: `a ${spec.kind} run takes no inputs`, path: ["inputs"] });
    }
  });

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
