import { describe, expect, test } from "vitest";
import { retryWhileBusy } from "../../src/core/sqlite.js";
import { sandbox } from "../support/cli.js";

const busy = () => Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });

describe("retryWhileBusy", () => {
  test("tries again after SQLITE_BUSY and returns the first success", () => {
    let calls = 0;
    const result = retryWhileBusy(() => {
      calls++;
      if (calls < 3) throw busy();
      return "done";
    }, 1_000);
    expect([result, calls]).toEqual(["done", 3]);
  });

  test("gives up with SQLite's own error once the timeout has passed", () => {
    const clock = { now: 0 };
    let calls = 0;
    const attempt = () => {
      calls++;
      clock.now += 400;
      throw busy();
    };
    expect(() => retryWhileBusy(attempt, 1_000, () => clock.now)).toThrow("database is locked");
    expect(calls).toBe(3);
  });

  test("never retries other failures", () => {
    let calls = 0;
    const attempt = () => {
      calls++;
      throw Object.assign(new Error("disk I/O error"), { code: "SQLITE_IOERR" });
    };
    expect(() => retryWhileBusy(attempt, 1_000)).toThrow("disk I/O error");
    expect(calls).toBe(1);
  });
});

describe("first use on a fresh machine", () => {
  test("processes creating the state database at the same moment all succeed", async () => {
    // Switching a new file to WAL can deadlock between processes; SQLite then answers
    // SQLITE_BUSY without waiting, which used to reach the user as "database is locked".
    for (let round = 0; round < 4; round++) {
      const box = sandbox();
      try {
        const results = await Promise.all(Array.from({ length: 8 }, () => box.runAsync(["list", "--json"])));
        for (const result of results) expect([result.code, result.stderr]).toEqual([0, ""]);
      } finally {
        box.cleanup();
      }
    }
  });
});
