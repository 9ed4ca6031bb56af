import { describe, expect, test } from "vitest";
import { decodeDispatch, encodeDispatch, type Dispatch } from "../../src/queue/ports.js";

/** The one line a worker hands a standby executor on its stdin. */

const DISPATCH: Dispatch = { runId: "garden-1", executionId: "e-1", workerToken: "w-1", logPath: "/logs/garden-1.log" };

describe("a dispatch line", () => {
  test("is one JSON line, and reads back as the same dispatch", () => {
    const line = encodeDispatch(DISPATCH);
    expect(line).toBe('{"runId":"garden-1","executionId":"e-1","workerToken":"w-1","logPath":"/logs/garden-1.log"}\n');
    expect(decodeDispatch(line)).toEqual(DISPATCH);
    expect(decodeDispatch(line.trim())).toEqual(DISPATCH);
  });

  test("keeps only the four fields of a dispatch", () => {
    expect(decodeDispatch(JSON.stringify({ ...DISPATCH, extra: 1 }))).toEqual(DISPATCH);
  });

  test("anything else is not a dispatch: not JSON, not an object, a field missing, empty or not a string", () => {
    const notDispatches = [
      "",
      "{",
      "garden-1",
      "null",
      "42",
      '"text"',
      "true",
      "[]",
      "{}",
      JSON.stringify([DISPATCH.runId, DISPATCH.executionId, DISPATCH.workerToken, DISPATCH.logPath]),
      ...(["runId", "executionId", "workerToken", "logPath"] as const).flatMap((field) => [
        JSON.stringify({ ...DISPATCH, [field]: undefined }),
        JSON.stringify({ ...DISPATCH, [field]: "" }),
        JSON.stringify({ ...DISPATCH, [field]: 7 }),
        JSON.stringify({ ...DISPATCH, [field]: null }),
      ]),
    ];
    for (const line of notDispatches) expect(decodeDispatch(line), line).toBeNull();
  });
});
