import type { PrepareContext, SourceTools } from "../context.js";
import type { SourceKind, SourceRef } from "../model.js";

/** The whole prepared text of one source, before the prompt budget cuts it. */
export interface Material {
  /** A better title learned at run time (a pull request's own title). */
  title?: string;
  /** The kind learned at run time (an `owner/repo#n` that turned out to be a pull request). */
  kind?: SourceKind;
  text: string;
  notes: string[];
  /** How to cut it: a session keeps its start (the task) and its end (the outcome). */
  cut: "head" | "ends";
}

export type Preparer = (ref: SourceRef, ctx: PrepareContext, tools: SourceTools) => Promise<Material>;
