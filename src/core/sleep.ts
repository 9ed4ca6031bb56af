/**
 * Waits `ms`, or less when `signal` aborts. The abort listener is removed when the wait
 * ends either way: a poll loop sleeping thousands of times must not pile up listeners.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
  });
}
