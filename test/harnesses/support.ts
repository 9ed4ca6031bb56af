import { existsSync, readFileSync } from "node:fs";
import { expect } from "vitest";
import type { HarnessEvent } from "../../src/harnesses/events.js";
import { HarnessEventSchema } from "../../src/harnesses/events-schema.js";
import type { HarnessRunResult } from "../../src/harnesses/types.js";
import { waitFor } from "../support/wait.js";

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGKILLs every pid in the list (a fake's leftovers) and empties it. */
export function killAll(pids: number[]): void {
  for (const pid of pids.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

/** Waits for a file a fake writes (the event), never a bare sleep and never a deadline of its own. */
export async function waitForFile(path: string): Promise<string> {
  return waitFor(() => (existsSync(path) ? readFileSync(path, "utf8") : undefined), path);
}

/** The invariants every run result keeps, whatever happened: live events = result events, one `done`, last. */
export function expectWellFormed(result: HarnessRunResult, live: HarnessEvent[]): void {
  expect(live).toEqual(result.events);
  expect(result.events.filter((event) => event.kind === "done")).toHaveLength(1);
  const done = result.events.at(-1)!;
  expect(done.kind).toBe("done");
  expect(done.status).toBe(result.status);
  if (result.failure) expect(done.failure).toEqual(result.failure);
  else expect(done.failure).toBeUndefined();
  expect(result.outputText.trim()).not.toBe("");
  for (const event of result.events) {
    expect(event.message.trim()).not.toBe("");
    expect(HarnessEventSchema.safeParse(event).success, JSON.stringify(event)).toBe(true);
  }
}
