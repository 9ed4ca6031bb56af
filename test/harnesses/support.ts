import { randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
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

/**
 * A mark for one fake agent's environment, which every process it starts inherits, so a test
 * can check that none is left alive whether or not the fake got far enough to say it started
 * (a run or idle timeout may stop it while it still boots on a busy machine). Linux only:
 * elsewhere it finds nothing.
 */
export function processMark(): { env: Record<string, string>; alive(): number[] } {
  const value = randomUUID();
  const entry = `FAKE_TEST_MARK=${value}`;
  return {
    env: { FAKE_TEST_MARK: value },
    alive: () => {
      let names: string[];
      try {
        names = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
      } catch {
        return [];
      }
      return names.map(Number).filter((pid) => {
        try {
          const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
          const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
          return state !== "Z" && state !== "X" && readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(entry);
        } catch {
          return false;
        }
      });
    },
  };
}
