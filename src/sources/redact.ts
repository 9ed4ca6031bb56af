import { redact, type PrivacyRules, type RedactionCount } from "../privacy/redact.js";
import type { Material } from "./prepare/material.js";
import { counted } from "./text.js";

/**
 * Every source's text (a transcript, a file, a diff, a page, an issue) and its title pass
 * through the one redactor before they become prompt material. A note tells the agent what
 * the markers are, so it neither asks for the values nor copies a marker into a page as fact.
 */
export async function redactMaterial(material: Material, rules: PrivacyRules = {}): Promise<Material> {
  const body = await redact(material.text, rules);
  const title = material.title === undefined ? undefined : await redact(material.title, rules);
  const all = [...body.redactions, ...(title?.redactions ?? [])];
  if (all.length === 0) return material;
  return {
    ...material,
    ...(title ? { title: title.text } : {}),
    text: body.text,
    notes: [...material.notes, redactionNote(all)],
  };
}

function redactionNote(redactions: RedactionCount[]): string {
  const byKind = new Map<string, number>();
  for (const { kind, count } of redactions) byKind.set(kind, (byKind.get(kind) ?? 0) + count);
  const total = [...byKind.values()].reduce((sum, count) => sum + count, 0);
  const kinds = [...byKind].map(([kind, count]) => `${count} ${kind}`).join(", ");
  return `${counted(total, "secret was", "secrets were")} replaced by [redacted: <kind>] markers before this material reached you (${kinds}); never write a marker or a guessed value into a page.`;
}
