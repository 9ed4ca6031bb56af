import { copyFileSync, mkdirSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { page, ROOT, sandbox, writeWiki, type Sandbox } from "../support/cli.js";
import { holdQueue } from "../queue/support.js";
import { dataOf, errorOf, mcpWiki, startMcp, textOf } from "./support.js";

const TRANSCRIPTS = join(ROOT, "test", "fixtures", "sources", "transcripts");

let box: Sandbox;
let root: string;

beforeEach(() => {
  box = sandbox();
  root = mcpWiki(box.dir);
});
afterEach(() => box.cleanup());

describe("ca mcp keeps to the repository", () => {
  test("a wiki folder that leads out of its repository is refused by read_page, search and resources", async () => {
    const outside = writeWiki(join(box.dir, "elsewhere"), {
      "secret.md": page({ title: "Secret", topics: [], sources: [], body: "# Secret\n\nroot:x:0:0" }),
    });
    const repo = join(box.dir, "linked");
    mkdirSync(repo);
    symlinkSync(join(outside, "almanac"), join(repo, "almanac"));
    const mcp = await startMcp(box, { cwd: repo });
    const refusal = `the wiki folder ${join(repo, "almanac")} resolves to ${join(outside, "almanac")}, outside its repository ${repo}; refusing to read or write it (make almanac/ a folder inside the repository)`;
    expect(errorOf(await mcp.call("read_page", { slug: "secret" }))).toBe(refusal);
    expect(errorOf(await mcp.call("search", { query: "root" }))).toBe(refusal);
    const read = await mcp.client.readResource({ uri: "almanac://linked/secret" }).then(
      () => null,
      (error: unknown) => String(error),
    );
    expect(read).toContain(refusal);
  });

  test("pages_for_file does not tell what exists behind a symlink that leads out of the repository", async () => {
    mkdirSync(join(box.dir, "elsewhere", "folder"), { recursive: true });
    symlinkSync(join(box.dir, "elsewhere"), join(root, "out"));
    const mcp = await startMcp(box, { cwd: root });
    const existing = dataOf<{ kind: string; path: string }>(await mcp.call("pages_for_file", { path: "out/folder" }));
    const missing = dataOf<{ kind: string; path: string }>(await mcp.call("pages_for_file", { path: "out/missing" }));
    expect([existing.kind, existing.path]).toEqual(["file", "out/folder"]);
    expect([missing.kind, missing.path]).toEqual(["file", "out/missing"]);
    // A folder really inside the repository is still recognised.
    expect(dataOf<{ kind: string }>(await mcp.call("pages_for_file", { path: "src/queue" })).kind).toBe("directory");
  });
});

describe("ca mcp reads an oversized page from its first 2 MB", () => {
  test("read_page and resources/read are cut at 2 MB and say so", async () => {
    const path = join(root, "almanac", "big.md");
    writeFileSync(path, `---\ntitle: Big\ntopics: []\nsources: []\n---\n\n# Big\n\n${"word ".repeat(700_000)}\n`);
    truncateSync(path, 64 * 1024 * 1024);
    const mcp = await startMcp(box, { cwd: root });
    const note = "this page is 64.0 MB; only its first 2 MB are shown";

    const result = await mcp.call("read_page", { slug: "big" });
    const data = dataOf<{ truncated: boolean; body: string }>(result);
    expect(data.truncated).toBe(true);
    expect(Buffer.byteLength(data.body)).toBeLessThanOrEqual(2 * 1024 * 1024);
    expect(textOf(result).split("\n").slice(0, 3)).toEqual(["# Big", expect.stringMatching(/^slug: big · wiki: repo · /), `truncated: ${note}`]);
    expect(dataOf<{ truncated: boolean }>(await mcp.call("read_page", { slug: "architecture/run-queue" })).truncated).toBe(false);

    const read = await mcp.client.readResource({ uri: "almanac://repo/big" });
    const text = (read.contents[0] as { text: string }).text;
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(2 * 1024 * 1024 + 200);
    expect(text.endsWith(`\n\n> codealmanac: ${note}.\n`)).toBe(true);
  });
});

describe("ca mcp ingest answers a path it may not look at exactly as a missing one", () => {
  beforeEach(() => {
    expect(box.run(["jobs"], { cwd: root }).code).toBe(0);
    holdQueue(box);
  });

  test("transcript and plain paths outside the repository and the transcript folders", async () => {
    const outside = join(box.dir, "elsewhere");
    mkdirSync(join(outside, "folder"), { recursive: true });
    writeFileSync(join(outside, "passwd"), "root:x:0:0:root:/root:/bin/bash\n");
    copyFileSync(join(TRANSCRIPTS, "claude-2.0.jsonl"), join(outside, "session.jsonl"));
    // A Codex home holds more than sessions (its config, its login): none of that is open either.
    mkdirSync(join(box.home, ".codex"), { recursive: true });
    writeFileSync(join(box.home, ".codex", "auth.json"), "{}\n");
    const mcp = await startMcp(box, { cwd: root, args: ["--allow-queue"] });
    const answer = async (input: string) => errorOf(await mcp.call("ingest", { inputs: [input] }));

    for (const [present, absent] of [
      ["../elsewhere/passwd", "../elsewhere/no-such-file"],
      ["../elsewhere/folder", "../elsewhere/no-such-folder"],
      ["../elsewhere/session.jsonl", "../elsewhere/no-such.jsonl"],
      [join(box.home, ".codex", "auth.json"), join(box.home, ".codex", "no-such.json")],
    ] as const) {
      for (const prefix of ["transcript:", ""]) {
        const seen = await answer(`${prefix}${present}`);
        const unseen = await answer(`${prefix}${absent}`);
        expect(seen.replaceAll(present.replace(/^\.\.\//, ""), "<path>").replaceAll(present, "<path>"), `${prefix}${present}`).toBe(
          unseen.replaceAll(absent.replace(/^\.\.\//, ""), "<path>").replaceAll(absent, "<path>"),
        );
        expect(seen).not.toMatch(/outside|not a Claude|is a folder|permission/);
      }
    }
    expect(await answer("transcript:../../etc/passwd")).toBe(`unreadable transcript: ${join(root, "../../etc/passwd")}: no such file`);
    expect(await answer("../../etc/passwd")).toBe("path not found: ../../etc/passwd");
  });

  test("a transcript in the agents' own folders is still taken", async () => {
    const projects = join(box.home, ".claude", "projects", "-repo");
    mkdirSync(projects, { recursive: true });
    const session = join(projects, "44444444-4444-4444-8444-444444444444.jsonl");
    copyFileSync(join(TRANSCRIPTS, "claude-2.0.jsonl"), session);
    const mcp = await startMcp(box, { cwd: root, args: ["--allow-queue"] });
    for (const input of [`transcript:${session}`, "transcript:44444444-4444-4444-8444-444444444444"]) {
      const result = await mcp.call("ingest", { inputs: [input] });
      expect(dataOf<{ status: string }>(result).status, input).toBe("queued");
    }
  });
});
