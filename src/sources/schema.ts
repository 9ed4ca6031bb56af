import * as z from "zod/mini";
import { invalid } from "../core/errors.js";
import { SOURCE_KINDS, type SourceKind, type SourceRef } from "./model.js";

/**
 * Refs come back from a stored run spec, possibly written by another version. Unknown
 * fields pass through (a newer writer never poisons an older reader); what a kind needs
 * in order to be prepared must be there.
 */
const PinnedSchema = z.object({ from: z.optional(z.string()), to: z.optional(z.string()) });

const ByteRangeSchema = z.object({
  fromByte: z.int().check(z.nonnegative()),
  toByte: z.int().check(z.positive()),
});

const SourceRefSchema = z.looseObject({
  address: z.string(),
  kind: z.enum(SOURCE_KINDS),
  title: z.string(),
  path: z.optional(z.string()),
  display: z.optional(z.string()),
  url: z.optional(z.string()),
  repository: z.optional(z.string()),
  number: z.optional(z.int().check(z.positive())),
  revision: z.optional(z.string()),
  pinned: z.optional(PinnedSchema),
  format: z.optional(z.enum(["claude", "codex"])),
  fingerprint: z.optional(z.string()),
  kindPending: z.optional(z.boolean()),
  range: z.optional(ByteRangeSchema),
});

type StoredRef = z.infer<typeof SourceRefSchema>;

const REQUIRED: Record<SourceKind, (ref: StoredRef) => string | null> = {
  file: (ref) => (ref.path ? null : "path"),
  folder: (ref) => (ref.path ? null : "path"),
  transcript: (ref) => (!ref.path ? "path" : !ref.format ? "format" : null),
  git_range: (ref) => (ref.pinned?.from && ref.pinned.to ? null : "pinned.from and pinned.to"),
  git_diff: (ref) => (ref.pinned?.from && ref.pinned.to ? null : "pinned.from and pinned.to"),
  git_commit: (ref) => (ref.pinned?.to ? null : "pinned.to"),
  github_pr: (ref) => (ref.number ? null : "number"),
  github_issue: (ref) => (ref.number ? null : "number"),
  url: (ref) => (ref.url ? null : "url"),
};

const SourceRefsSchema = z.array(
  SourceRefSchema.check(
    z.superRefine((ref, context) => {
      const missing = REQUIRED[ref.kind](ref);
      if (missing) context.issues.push({ code: "custom", message: `a ${ref.kind} source needs ${missing}`, input: ref });
      if (ref.range && ref.range.fromByte >= ref.range.toByte) {
        context.issues.push({ code: "custom", message: "a byte range needs fromByte < toByte", input: ref, path: ["range"] });
      }
    }),
  ),
);

export function parseSourceRefs(value: unknown): SourceRef[] {
  const parsed = SourceRefsSchema.safeParse(value);
  if (parsed.success) return parsed.data as SourceRef[];
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
  throw invalid(`stored sources are invalid: ${where}${issue?.message ?? "unknown problem"}`);
}
