import type { LiveIndex } from "../../index/freshness.js";
import type { SelectedWiki } from "../selection.js";

/** One computed answer per live index, kept until its generation moves on. */
export class GenerationCache<T> {
  private readonly entries = new WeakMap<LiveIndex, { generation: number; value: T }>();

  async get(wiki: SelectedWiki, compute: () => Promise<T> | T): Promise<T> {
    const generation = wiki.live.generation;
    const hit = this.entries.get(wiki.live);
    if (hit && hit.generation === generation) return hit.value;
    const value = await compute();
    this.entries.set(wiki.live, { generation, value });
    return value;
  }
}
