import { describe, expect, test } from "vitest";
import type { ExecutionTarget, ProcessInfo } from "../../../src/core/processes/index.js";
import { selectExecutionProcesses } from "../../../src/core/processes/tree.js";

// The selection rules over hand-written process tables: cases that real
// processes cannot be made to show on demand.

function row(pid: number, ppid: number, pgid: number, startTime: number, state = "S"): ProcessInfo {
  return { pid, ppid, pgid, startTime: String(startTime), state };
}

const executor: ExecutionTarget = { pid: 100, startTime: "500", pgid: 100, marker: { key: "RUN", value: "r1" } };

function select(
  table: ProcessInfo[],
  options: { target?: ExecutionTarget; excluded?: number[]; env?: Record<number, string> } = {},
): number[] {
  return selectExecutionProcesses(table, options.target ?? executor, {
    excluded: new Set(options.excluded ?? []),
    carryingMarker: (pids, marker) =>
      new Set(pids.filter((pid) => marker.key === "RUN" && options.env?.[pid] === marker.value)),
  }).map((id) => id.pid);
}

describe("selectExecutionProcesses", () => {
  test("walks through a zombie parent whose children were not re-parented yet", () => {
    const table = [row(1, 0, 1, 1), row(100, 50, 100, 500), row(101, 100, 100, 510, "Z"), row(102, 101, 102, 520)];
    expect(select(table)).toEqual([100, 102]);
  });

  test("returns the executor first, each pid once, and no zombies", () => {
    const table = [row(103, 100, 100, 530), row(100, 50, 100, 500), row(101, 100, 100, 510, "Z")];
    expect(select(table, { env: { 103: "r1" } })).toEqual([100, 103]);
  });

  test("a zombie executor with the recorded start time still anchors its group", () => {
    const table = [row(100, 50, 100, 500, "Z"), row(101, 1, 100, 510)];
    expect(select(table)).toEqual([101]);
  });

  test("a group whose leader pid now holds another process is not ours, even as a zombie", () => {
    for (const state of ["S", "Z"]) {
      const table = [row(100, 50, 100, 900, state), row(101, 100, 100, 910)];
      expect(select(table)).toEqual([]);
    }
  });

  test("the marker needs the exact value and a start no earlier than the executor", () => {
    const table = [row(100, 50, 100, 500), row(200, 1, 200, 600), row(201, 1, 201, 600), row(202, 1, 202, 400)];
    expect(select(table, { env: { 200: "r1", 201: "r1x", 202: "r1" } })).toEqual([100, 200]);
  });

  test("start times that cannot be compared never qualify", () => {
    const table = [row(100, 50, 100, 500), { pid: 101, ppid: 1, pgid: 100, startTime: "bogus", state: "S" }];
    expect(select(table)).toEqual([100]);
  });

  test("excluded processes are neither returned nor walked through", () => {
    const table = [row(100, 50, 100, 500), row(101, 100, 100, 510), row(102, 101, 102, 520)];
    expect(select(table, { excluded: [101] })).toEqual([100]);
  });

  test("process groups 0 and 1 are never taken as the execution's group", () => {
    for (const pgid of [0, 1]) {
      const table = [row(1, 0, 1, 1), row(2, 0, 0, 1), row(300, 1, pgid, 600)];
      expect(select(table, { target: { pid: 100, startTime: "500", pgid } })).toEqual([]);
    }
  });

  test("pid 1 is never returned, even when it matches", () => {
    const table = [row(1, 0, 100, 600), row(100, 50, 100, 500)];
    expect(select(table)).toEqual([100]);
  });
});
