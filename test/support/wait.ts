import { onTestFinished } from "vitest";

/**
 * Waiting in tests: for an event (a file appears, a line is printed, a state is reached),
 * never against a deadline of its own. The test's own timeout (vitest.config.ts) is the only
 * bound, so a machine with both cores busy makes a test slower, never red. A long wait says
 * what it is still waiting for every half minute on stderr, so a test that does time out
 * leaves the reason in its output.
 */

const REPORT_EVERY_MS = 30_000;
const POLL_MS = 25;

interface PendingWait {
  what: () => string;
  abandoned: boolean;
}

const pending = new Set<PendingWait>();
let watching = false;

export async function waitFor<T>(probe: () => T | undefined | null | false, what: string | (() => string) = "condition"): Promise<T> {
  const wait: PendingWait = { what: typeof what === "string" ? () => what : what, abandoned: false };
  pending.add(wait);
  abandonWhenTheTestEnds();
  const started = Date.now();
  let reported = started;
  try {
    for (;;) {
      const value = probe();
      if (value) return value;
      if (wait.abandoned) throw new Error(`the test ended while waiting for ${wait.what()}`);
      if (Date.now() - reported >= REPORT_EVERY_MS) {
        reported = Date.now();
        process.stderr.write(`[test] still waiting for ${wait.what()} (${Math.round((reported - started) / 1000)} s)\n`);
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  } finally {
    pending.delete(wait);
  }
}

/** A wait the test no longer needs (it timed out or failed) stops polling instead of running on. */
function abandonWhenTheTestEnds(): void {
  if (watching) return;
  try {
    onTestFinished(() => {
      for (const wait of pending) wait.abandoned = true;
      watching = false;
    });
    watching = true;
  } catch {
    // Outside a test body (a hook): the wait ends with the hook.
  }
}
