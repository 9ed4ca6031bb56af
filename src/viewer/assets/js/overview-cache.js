// The overview (page navigation, topics) feeds both the left rail and the overview view;
// requests made within a few seconds of each other share one response.
import { api } from "./api.js";

const SHARE_MS = 3000;
const cache = new Map();
const listeners = new Set();

export function loadOverview(wiki) {
  const hit = cache.get(wiki);
  if (hit && Date.now() - hit.at < SHARE_MS) return hit.promise;
  const entry = { at: Date.now(), promise: api("/api/overview", { wiki }) };
  cache.set(wiki, entry);
  entry.promise.then(
    (data) => {
      for (const listener of listeners) listener(wiki, data);
    },
    () => {
      if (cache.get(wiki) === entry) cache.delete(wiki);
    },
  );
  return entry.promise;
}

/** Called with (wiki, overview) whenever a fresh overview arrives. */
export function onOverview(listener) {
  listeners.add(listener);
}
