import { afterEach, describe, expect, test } from "vitest";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { BIN, page, ROOT, sandbox, writeWiki, type Sandbox } from "../support/cli.js";

const NONBLOCKING = join(ROOT, "test", "fixtures", "startup", "nonblocking-stdout.cjs");

let box: Sandbox;
afterEach(() => box?.cleanup());

/** A wiki of `count` notes that all hold the word zephyr, indexed. */
function zephyrWiki(count: number): string {
  box = sandbox();
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    files[`notes/note-${i}.md`] = page({ title: `Note ${i}`, topics: ["concepts"], sources: [], body: `# Note ${i}\n\nThe shared word zephyr, ${"and more words ".repeat(20)}${i}.` });
  }
  const root = writeWiki(join(box.dir, "repo"), files);
  expect(box.run(["reindex"], { cwd: root }).code).toBe(0);
  return root;
}

/** Runs a command with stdout and stderr on pipes, reading both to the end. */
function piped(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...box.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

// The CLI writes to its descriptors directly (src/core/stdio.ts); these hold it to the
// whole output, in order, whatever the reader's pace and the descriptor's mode.
describe("output through a pipe", () => {
  test("several megabytes of results arrive whole", async () => {
    const root = zephyrWiki(3000);
    const { code, stdout, stderr } = await piped(["search", "zephyr", "--all", "--json"], root);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(stdout.length).toBeGreaterThan(1 << 20);
    expect((JSON.parse(stdout) as unknown[]).length).toBe(3000);
  });

  test("a non-blocking pipe that fills up still gets every byte", async () => {
    const root = zephyrWiki(3000);
    const expected = (await piped(["search", "zephyr", "--all", "--json"], root)).stdout;
    const { code, stdout, stderr } = await piped(["search", "zephyr", "--all", "--json"], root, { NODE_OPTIONS: `--require ${NONBLOCKING}` });
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(stdout.length).toBeGreaterThan(1 << 20);
    expect(stdout).toBe(expected);
  });
});

describe("output to a reader that goes away", () => {
  test("`ca search … | head` ends quietly: exit 0, no stack trace", async () => {
    box = sandbox();
    const files: Record<string, string> = {};
    // Far more JSON than a pipe buffer holds, so the CLI is still writing when the reader leaves.
    for (let i = 0; i < 1000; i++) {
      files[`notes/note-${i}.md`] = page({ title: `Note ${i}`, topics: ["concepts"], sources: [], body: `# Note ${i}\n\nThe shared word zephyr, ${"and more words ".repeat(20)}${i}.` });
    }
    const root = writeWiki(join(box.dir, "repo"), files);
    expect(box.run(["reindex"], { cwd: root }).code).toBe(0);
    const child = spawn(process.execPath, [BIN, "search", "zephyr", "--all", "--json"], { cwd: root, env: box.env, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    child.stdout.once("data", () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });
});
