import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { OrderedWrites, redactStrings } from "../../src/lifecycle/redacted-record.js";
import { scanForSecrets, secretFoundMessage } from "../../src/lifecycle/secret-gate.js";
import { generator } from "../privacy/corpus.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const token = (seed: number) => `ghp_${generator(seed).pick("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", 36)}`;

describe("scanForSecrets", () => {
  test("names each secret by its file relative to the root, line and kind; a symlink is not followed, a missing file is skipped", async () => {
    const root = mkdtempSync(join(tmpdir(), "ca-gate-"));
    dirs.push(root);
    mkdirSync(join(root, "almanac", "concepts"), { recursive: true });
    const secret = token(1);
    writeFileSync(join(root, "almanac", "concepts", "a.md"), `# A\n\nplain\n\nwith ${secret}\n`);
    writeFileSync(join(root, "outside.txt"), `elsewhere ${token(2)}\n`);
    symlinkSync(join(root, "outside.txt"), join(root, "almanac", "link.md"));
    const files = ["almanac/concepts/a.md", "almanac/link.md", "almanac/gone.md"].map((rel) => join(root, rel));
    expect(await scanForSecrets(root, files, {})).toEqual([{ file: "almanac/concepts/a.md", line: 5, kind: "github-token" }]);
  });

  test("the user's own patterns are secrets too", async () => {
    const root = mkdtempSync(join(tmpdir(), "ca-gate-"));
    dirs.push(root);
    writeFileSync(join(root, "page.md"), "one\ninternal id ACME-12345-XYZ here\n");
    expect(await scanForSecrets(root, [join(root, "page.md")], {})).toEqual([]);
    expect(await scanForSecrets(root, [join(root, "page.md")], { patterns: ["ACME-\\d{5}-[A-Z]{3}"] })).toEqual([{ file: "page.md", line: 2, kind: "user-pattern" }]);
  });
});

describe("secretFoundMessage", () => {
  test("one line: the first three findings, how many more, that nothing was committed, and the fix", () => {
    const findings = [1, 2, 3, 4, 5].map((line) => ({ file: "almanac/a.md", line, kind: "aws-access-key" }));
    expect(secretFoundMessage(findings, "garden-1")).toBe(
      "5 secrets found in the wiki: almanac/a.md line 1 (aws-access-key), almanac/a.md line 2 (aws-access-key), almanac/a.md line 3 (aws-access-key) and 2 more; nothing was committed. " +
        "Fix: edit the page to remove the secret, then commit it yourself or run `codealmanac jobs retry garden-1`",
    );
    expect(secretFoundMessage(findings.slice(0, 1), "garden-1")).toMatch(/^a secret found in the wiki: almanac\/a\.md line 1 \(aws-access-key\); nothing was committed\. Fix: /);
  });
});

describe("what the agent reports is recorded redacted, in order", () => {
  test("redactStrings redacts every string at any depth and keeps the shape and the other values", async () => {
    const secret = token(3);
    const event = { kind: "tool_use", message: "Write a.md", tool_input: JSON.stringify({ content: `key ${secret}` }), nested: [{ text: secret, n: 2 }, true, null] };
    const redacted = await redactStrings(event, {});
    expect(redacted).toEqual({
      kind: "tool_use",
      message: "Write a.md",
      tool_input: JSON.stringify({ content: "key [redacted: github-token]" }),
      nested: [{ text: "[redacted: github-token]", n: 2 }, true, null],
    });
    expect(JSON.stringify(redacted)).not.toContain(secret);
  });

  test("OrderedWrites runs each write after the one before it ends; drain rejects with the first failure once all ran", async () => {
    const writes = new OrderedWrites();
    const done: number[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    writes.add(async () => {
      await held;
      done.push(1);
    });
    writes.add(async () => {
      done.push(2);
      throw new Error("ledger write failed");
    });
    writes.add(async () => {
      done.push(3);
      throw new Error("a later failure");
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(done).toEqual([]);
    release();
    await expect(writes.drain()).rejects.toThrow("ledger write failed");
    expect(done).toEqual([1, 2, 3]);
  });
});
