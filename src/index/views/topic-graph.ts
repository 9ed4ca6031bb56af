import type { Db } from "../../core/sqlite.js";

const MAX_DEPTH = 32;

/** Every topic below `topic` in the DAG (depth-bounded, so hand-made cycles terminate). */
export function descendantsOf(db: Db, topic: string): string[] {
  return db
    .prepare(
      `WITH RECURSIVE d(slug, depth) AS (
         SELECT child, 1 FROM topic_parents WHERE parent = ?
         UNION
         SELECT tp.child, d.depth + 1 FROM topic_parents tp JOIN d ON tp.parent = d.slug WHERE d.depth < ${MAX_DEPTH}
       )
       SELECT DISTINCT slug FROM d WHERE slug != ? ORDER BY slug`,
    )
    .pluck()
    .all(topic, topic) as string[];
}
