import { interpretSource } from "./topics-model.js";
import type { TopicDef } from "./types.js";

export { findCycles } from "./topic-graph.js";
export { TopicsDocument } from "./topics-document.js";
export type { TopicDef } from "./types.js";

export type TopicsFileProblem = { message: string; line: number | null };

export type TopicsFile = { ok: boolean; topics: TopicDef[]; problems: TopicsFileProblem[] };

/**
 * Read path for `almanac/topics.yaml`. Lenient (good entries still count) but
 * never silent: every reason something is ignored becomes a problem.
 */
export function parseTopicsFile(text: string | null): TopicsFile {
  const { topics, problems } = interpretSource(text ?? "");
  return {
    ok: problems.length === 0,
    topics,
    problems: problems.map(({ message, line }) => ({ message, line })),
  };
}
