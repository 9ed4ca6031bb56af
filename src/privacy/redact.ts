import { detectorSpans } from "./detector.js";
import { ownSpans } from "./patterns.js";
import { applySpans, type Redacted } from "./spans.js";

export type { Redacted, RedactionCount } from "./spans.js";
export { marker } from "./spans.js";

/**
 * The one redactor every prompt's material passes through: each secret becomes
 * `[redacted: <kind>]` and the rest of the text stays, so the agent still learns what
 * happened. `redactions` counts the secrets per kind; the secrets themselves go nowhere.
 */
export async function redact(text: string): Promise<Redacted> {
  const spans = [...ownSpans(text), ...(await detectorSpans(text))];
  return applySpans(text, spans);
}
