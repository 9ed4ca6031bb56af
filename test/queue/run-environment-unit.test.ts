import { afterEach, describe, expect, test } from "vitest";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RunEnvironments } from "../../src/queue/run-environment.js";

/** A queued run's environment on disk: written before the run is committed, taken once by its executor. */

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const NOW = Date.UTC(2026, 0, 1);
const MINUTE = 60_000;

/** Environments under a runs folder that does not exist yet, at a fixed clock. */
function environments(): { envs: RunEnvironments; runsDir: string } {
  dir = mkdtempSync(join(tmpdir(), "ca-run-env-"));
  const runsDir = join(dir, "state", "runs");
  return { envs: new RunEnvironments(runsDir, () => NOW), runsDir };
}

const fileOf = (runsDir: string, runId: string) => join(runsDir, runId, "environment.json");
const mode = (path: string) => statSync(path).mode & 0o777;

describe("saving", () => {
  test("writes the environment alone in a 0600 file in a 0700 run folder, without unset values or another run's marker", () => {
    const { envs, runsDir } = environments();
    envs.save("run-a", { PATH: "/bin", ANTHROPIC_API_KEY: "sk-1", EMPTY: "", UNSET: undefined, CODEALMANAC_EXECUTION_ID: "other-run" });
    const file = fileOf(runsDir, "run-a");
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ PATH: "/bin", ANTHROPIC_API_KEY: "sk-1", EMPTY: "" });
    expect(mode(file)).toBe(0o600);
    expect(mode(join(runsDir, "run-a"))).toBe(0o700);
    expect(readdirSync(join(runsDir, "run-a"))).toEqual(["environment.json"]);
  });

  test("saving again replaces it (a retry queued under the same id)", () => {
    const { envs } = environments();
    envs.save("run-a", { A: "1" });
    envs.save("run-a", { B: "2" });
    expect(envs.take("run-a")).toEqual({ B: "2" });
  });
});

describe("taking", () => {
  test("returns what was saved and removes it, so a second take finds nothing", () => {
    const { envs, runsDir } = environments();
    envs.save("run-a", { HOME: "/home/u", KEY: "v" });
    expect(envs.take("run-a")).toEqual({ HOME: "/home/u", KEY: "v" });
    expect(existsSync(fileOf(runsDir, "run-a"))).toBe(false);
    expect(envs.take("run-a")).toBeNull();
  });

  test("a damaged file is no environment, and is removed too; only string values are kept", () => {
    const { envs, runsDir } = environments();
    const write = (text: string) => {
      mkdirSync(join(runsDir, "run-a"), { recursive: true });
      writeFileSync(fileOf(runsDir, "run-a"), text);
    };
    for (const text of ["", "{", "null", "[1,2]", '"PATH"', "7"]) {
      write(text);
      expect(envs.take("run-a"), text).toBeNull();
      expect(existsSync(fileOf(runsDir, "run-a")), text).toBe(false);
    }
    write('{"A":"1","N":2,"O":{},"B":"two"}');
    expect(envs.take("run-a")).toEqual({ A: "1", B: "two" });
  });

  test("discarding removes it, and is harmless when there is none", () => {
    const { envs, runsDir } = environments();
    envs.save("run-a", { A: "1" });
    envs.discard("run-a");
    expect(existsSync(fileOf(runsDir, "run-a"))).toBe(false);
    expect(() => envs.discard("run-a")).not.toThrow();
    expect(() => envs.discard("never-saved")).not.toThrow();
  });
});

describe("sweeping what crashes left", () => {
  test("removes the environments of ended runs, keeps queued and running ones, and counts what it removed", () => {
    const { envs, runsDir } = environments();
    for (const runId of ["queued", "running", "done", "failed", "cancelled"]) envs.save(runId, { A: runId });
    const asked: string[][] = [];
    const removed = envs.sweep((runIds) => {
      asked.push([...runIds].sort());
      return new Map(runIds.map((id) => [id, id]));
    });
    expect(asked).toEqual([["cancelled", "done", "failed", "queued", "running"]]);
    expect(removed).toBe(3);
    expect(readdirSync(runsDir).filter((id) => existsSync(fileOf(runsDir, id))).sort()).toEqual(["queued", "running"]);
  });

  test("an environment of a run the ledger does not know is kept for ten minutes (its run may be being committed), then removed", () => {
    const { envs, runsDir } = environments();
    const aged = (runId: string, ageMs: number) => {
      envs.save(runId, { A: "1" });
      const at = (NOW - ageMs) / 1000;
      utimesSync(fileOf(runsDir, runId), at, at);
    };
    aged("young", 10 * MINUTE - 1_000);
    aged("exactly-ten", 10 * MINUTE);
    aged("old", 60 * MINUTE);
    expect(envs.sweep(() => new Map())).toBe(2);
    expect(existsSync(fileOf(runsDir, "young"))).toBe(true);
    expect(existsSync(fileOf(runsDir, "exactly-ten"))).toBe(false);
    expect(existsSync(fileOf(runsDir, "old"))).toBe(false);
  });

  test("a run folder without an environment, or no runs folder at all, removes nothing", () => {
    const { envs, runsDir } = environments();
    expect(envs.sweep(() => new Map())).toBe(0);
    mkdirSync(join(runsDir, "done-run"), { recursive: true });
    expect(envs.sweep(() => new Map([["done-run", "done"]]))).toBe(0);
    expect(existsSync(join(runsDir, "done-run"))).toBe(true);
  });
});
