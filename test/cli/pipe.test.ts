import { afterEach, describe, expect, test } from "vitest";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { BIN, page, sandbox, writeWiki, type Sandbox } from "../support/cli.js";

let box: Sandbox;
afterEach(() => box?.cleanup());

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
