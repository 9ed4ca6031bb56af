import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { utimesSync } from "node:fs";
import { join } from "node:path";
import { sandbox, type RunResult, type Sandbox } from "../support/cli.js";

/** A fresh sandbox per call, removed after the test that made it. */
export function freshSandboxes(): () => Sandbox {
  const made: Sandbox[] = [];
  afterEach(() => {
    while (made.length > 0) made.pop()!.cleanup();
  });
  return () => {
    const box = sandbox();
    made.push(box);
    return box;
  };
}

/**
 * One sandbox shared by the read-only tests of a describe block: `setup` builds the
 * wiki once; the tests only read it, so their order never matters.
 */
export function sharedSandbox<T>(setup: (box: Sandbox) => T): { box: () => Sandbox; fixture: () => T } {
  let box: Sandbox | undefined;
  let fixture: T | undefined;
  beforeAll(() => {
    box = sandbox();
    fixture = setup(box);
  });
  afterAll(() => box?.cleanup());
  return { box: () => box!, fixture: () => fixture as T };
}

/** Gives a file a fixed modification time (seconds since the epoch). */
export function setMtime(path: string, epochSeconds: number): void {
  utimesSync(path, epochSeconds, epochSeconds);
}

export const DAY = 86_400;
export const BASE_TIME = 1_700_000_000;

export function expectOk(result: RunResult): RunResult {
  expect(result.code, `stderr: ${result.stderr}`).toBe(0);
  return result;
}

/** A product failure without --json: one line on stderr, nothing on stdout. */
export function expectFailure(result: RunResult, message: string | RegExp, code = 1): void {
  expect(result.code, `stdout: ${result.stdout}\nstderr: ${result.stderr}`).toBe(code);
  expect(result.stdout).toBe("");
  const lines = result.stderr.split("\n").filter((l) => l !== "");
  expect(lines).toHaveLength(1);
  if (typeof message === "string") expect(lines[0]).toBe(`codealmanac: ${message}`);
  else expect(lines[0]).toMatch(message);
}

/** A product failure under --json: one JSON object on stderr, nothing on stdout. */
export function expectJsonFailure(result: RunResult, code: string, message: string | RegExp): void {
  expect(result.code, `stderr: ${result.stderr}`).toBe(1);
  expect(result.stdout).toBe("");
  expect(result.stderr.endsWith("\n")).toBe(true);
  expect(result.stderr.trim().split("\n")).toHaveLength(1);
  const parsed = JSON.parse(result.stderr) as { error: { code: string; message: string } };
  expect(Object.keys(parsed)).toEqual(["error"]);
  expect(Object.keys(parsed.error).sort()).toEqual(["code", "message"]);
  expect(parsed.error.code).toBe(code);
  if (typeof message === "string") expect(parsed.error.message).toBe(message);
  else expect(parsed.error.message).toMatch(message);
}

/** The syntax-error screen: exit 2, stderr only. */
export function expectSyntaxScreen(result: RunResult, title: string): string {
  expect(result.code, `stderr: ${result.stderr}`).toBe(2);
  expect(result.stdout).toBe("");
  const lines = result.stderr.split("\n");
  expect(lines[0]).toBe("◆ codealmanac");
  expect(lines[2]).toBe(title);
  expect(lines[4]).toBe("You ran:");
  return result.stderr;
}

export function almanac(root: string, ...parts: string[]): string {
  return join(root, "almanac", ...parts);
}

export function slugs(result: RunResult): string[] {
  return result.json<{ slug: string }[]>().map((h) => h.slug);
}

export function stdoutLines(result: RunResult): string[] {
  return result.stdout.split("\n").filter((l) => l !== "");
}
