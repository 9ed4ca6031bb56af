/**
 * `ca garden --stale` through the whole queue with the fake claude, in a real git repository:
 * the run's prompt names only the stale pages, each with the diff of its changed evidence; a
 * stale page the agent leaves alone is re-stamped (confirmed), one it rewrites is stamped
 * (corrected), one whose cited file is gone stays stale, and `jobs show` lists which is which.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { fileLines, rangeFingerprint } from "../../src/wiki/evidence.js";
import { commitAll, sandbox, writeWiki, type Sandbox } from "../support/cli.js";
import { checkAndCleanUpAfterEach, events, holdQueue, releaseQueue, waitForExits, waitForIdle, waitForStatus, type JobRecord, type Receipt } from "../queue/support.js";

let box: Sandbox;
checkAndCleanUpAfterEach(() => box);

type StaleJob = JobRecord & {
  title: string;
  stale_pages: { targeted: string[]; confirmed: string[]; corrected: string[]; left_stale: string[]; no_longer_stale: string[] } | null;
};
type DriftJson = { head: string; pages: { slug: string; status: string }[] };

const A_TS = "export const a = 1;\nexport const b = 2;\nexport const c = 3;\n";
const Z_TS = "export const zebra = 1;\n";
const M_TS = "export const moth = 1;\n";

const A_PAGE = `---
title: A
topics: [concepts]
sources:
  - {id: b, type: file, path: src/a.ts, lines: 2}
---
# A

The b constant is two [@b].
`;

const Z_PAGE = `---
title: Zebra
topics: [concepts]
sources:
  - {id: zebra, type: file, path: src/z.ts}
---
# Zebra

The zebra constant is one [@zebra].
`;

const M_PAGE = `---
title: Moth
topics: [concepts]
sources:
  - {id: moth, type: file, path: src/m.ts}
---
# Moth

The moth constant is one [@moth].
`;

const HOME = `---
title: Home
summary: The landing page
topics: [concepts]
sources: []
---
# Home

See [A](concepts/a.md), [Zebra](concepts/zebra.md) and [Moth](concepts/moth.md).
`;

/** Three pages in git, each citing its own file; nothing has drifted yet. */
function repository(b: Sandbox): string {
  const root = writeWiki(join(b.dir, "repo"), { "README.md": HOME, "concepts/a.md": A_PAGE, "concepts/zebra.md": Z_PAGE, "concepts/moth.md": M_PAGE });
  for (const [path, text] of [["src/a.ts", A_TS], ["src/z.ts", Z_TS], ["src/m.ts", M_TS]] as const) {
    execFileSync("mkdir", ["-p", join(root, "src")]);
    writeFileSync(join(root, path), text);
  }
  return commitAll(root);
}

const gitIn = (root: string, ...args: string[]) => execFileSync("git", args, { cwd: root, encoding: "utf8", env: box.env }).trim();
const drift = (root: string) => box.run(["drift", "--json"], { cwd: root }).json<DriftJson>();
const pageText = (root: string, slug: string) => readFileSync(join(root, "almanac", `${slug}.md`), "utf8");

/** Changes b (committed), then adds a line on top without committing it: page A goes stale. */
function changeA(root: string): void {
  writeFileSync(join(root, "src", "a.ts"), A_TS.replace("b = 2", "b = 20"));
  commitAll(root, "b is twenty now");
  writeFileSync(join(root, "src", "a.ts"), `${A_TS.replace("b = 2", "b = 20")}export const d = 4;\n`);
}

function gardenStale(root: string, env: NodeJS.ProcessEnv = {}) {
  return box.run(["garden", "--stale", "--using", "claude", "--wait", "--json"], { cwd: root, env });
}

describe("garden --stale", () => {
  test("the prompt names only the stale page, with its diff; left unedited, the page is re-stamped and drift calls it fresh", () => {
    box = sandbox();
    const root = repository(box);
    changeA(root);
    expect(drift(root).pages.map((p) => [p.slug, p.status])).toEqual([["concepts/a", "stale"]]);
    const head = gitIn(root, "rev-parse", "HEAD");
    const verified = gitIn(root, "rev-parse", "HEAD~1");

    const promptFile = join(box.dir, "prompt.txt");
    const result = gardenStale(root, { FAKE_CLAUDE_PROMPT_FILE: promptFile, FAKE_CLAUDE_RESULT_TEXT: "Confirmed concepts/a" });
    const record = result.json<StaleJob>();
    expect(record.status).toBe("done");
    expect(result.code).toBe(0);

    const prompt = readFileSync(promptFile, "utf8");
    expect(prompt).toContain("# Garden operation: stale pages");
    expect(prompt).not.toContain("# Garden operation\n");
    expect(prompt).not.toContain('"garden": {');
    expect(prompt).toContain('"slug": "concepts/a"');
    expect(prompt).toContain(`"verified_at": "${verified}"`);
    expect(prompt).toContain(
      [
        `<stale-page n="1" slug="concepts/a">`,
        `# concepts/a (almanac/concepts/a.md, verified at ${verified.slice(0, 12)})`,
        "",
        "Stale evidence:",
        `- [@b] src/a.ts lines 2: changed: lines 2 of src/a.ts changed in 1 commit since it was verified (${head.slice(0, 12)})`,
        "",
        `## src/a.ts since ${verified.slice(0, 12)} (cited by [@b] lines 2)`,
        "diff --git a/src/a.ts b/src/a.ts",
      ].join("\n"),
    );
    // The committed change and the uncommitted one, in one diff.
    expect(prompt).toContain(" export const a = 1;\n-export const b = 2;\n+export const b = 20;\n export const c = 3;\n+export const d = 4;\n</stale-page>");
    for (const other of ["concepts/zebra", "concepts/moth", "zebra", "moth"]) expect(prompt, other).not.toContain(other);

    expect(record.title).toBe("Garden stale page concepts/a");
    expect(record.page_changes).toEqual({ created: [], updated: [], deleted: [] });
    expect(record.stale_pages).toEqual({ targeted: ["concepts/a"], confirmed: ["concepts/a"], corrected: [], left_stale: [], no_longer_stale: [] });
    // Re-stamped as verified at the HEAD the run saw, from the lines as they are now; the other pages keep their bytes.
    const print = rangeFingerprint(fileLines(readFileSync(join(root, "src", "a.ts"), "utf8")), { start: 2, end: 2 })!;
    expect(pageText(root, "concepts/a")).toBe(A_PAGE.replace("lines: 2}", `lines: 2, fingerprint: ${print}, verified_at: ${head}}`));
    expect(pageText(root, "concepts/zebra")).toBe(Z_PAGE);
    expect(record.wiki_commit).toMatchObject({ subject: "almanac: Confirmed concepts/a", files: 1 });
    expect(drift(root).pages).toEqual([]);

    const show = box.run(["jobs", "show", record.run_id]).stdout;
    expect(show).toContain("stale:      1 confirmed, 0 corrected, 0 left stale\n  ✓ concepts/a (confirmed)\n");
    expect(events(box, record.run_id).map((e) => e.message)).toEqual(
      expect.arrayContaining(["prepared the evidence diffs of 1 stale page", "stamped the evidence of 1 file source on 1 page", "stale pages: 1 confirmed, 0 corrected, 0 left stale"]),
    );
  });

  test("a rewritten page is stamped and corrected, a page whose file is gone is left stale, and other pages the agent touched are reported", () => {
    box = sandbox();
    const root = repository(box);
    changeA(root);
    unlinkSync(join(root, "src", "m.ts"));
    commitAll(root, "no more moths");
    const head = gitIn(root, "rev-parse", "HEAD");
    const corrected = A_PAGE.replace("The b constant is two", "The b constant is twenty").replace("lines: 2}", "lines: 2-3}");
    const extra = "---\ntitle: Extra\ntopics: [concepts]\nsources: []\n---\n# Extra\n\nNot asked for. See [home](../README.md).\n";
    const promptFile = join(box.dir, "prompt.txt");
    const record = gardenStale(root, {
      FAKE_CLAUDE_PROMPT_FILE: promptFile,
      FAKE_CLAUDE_WRITE_FILES: JSON.stringify({ "almanac/concepts/a.md": corrected, "almanac/concepts/extra.md": extra }),
    }).json<StaleJob>();
    expect(record.status).toBe("done");

    const prompt = readFileSync(promptFile, "utf8");
    expect(prompt).toMatch(/<stale-page n="1" slug="concepts\/a">[\s\S]*\+export const b = 20;[\s\S]*<\/stale-page>\n\n<stale-page n="2" slug="concepts\/moth">\n# concepts\/moth /);
    expect(prompt).toContain("- [@moth] src/m.ts: missing: src/m.ts is gone (");
    expect(prompt).toMatch(/## src\/m\.ts since [0-9a-f]{12} \(cited by \[@moth\], gone now\)\n[\s\S]*-export const moth = 1;\n<\/stale-page>/);
    expect(prompt).not.toContain("zebra");

    expect(record.stale_pages).toEqual({ targeted: ["concepts/a", "concepts/moth"], confirmed: [], corrected: ["concepts/a"], left_stale: ["concepts/moth"], no_longer_stale: [] });
    expect(pageText(root, "concepts/a")).toContain(`lines: 2-3, fingerprint: `);
    expect(pageText(root, "concepts/a")).toContain(`verified_at: ${head}}`);
    expect(pageText(root, "concepts/moth")).toBe(M_PAGE);
    expect(drift(root).pages.map((p) => [p.slug, p.status])).toEqual([["concepts/moth", "stale"]]);

    const warnings = events(box, record.run_id).filter((e) => e.kind === "warning").map((e) => e.message);
    expect(warnings).toEqual(
      expect.arrayContaining(["1 page is still stale after the run: concepts/moth", "the run changed pages it was not asked to: concepts/extra"]),
    );
    const show = box.run(["jobs", "show", record.run_id]).stdout;
    expect(show).toContain("stale:      0 confirmed, 1 corrected, 1 left stale\n  ~ concepts/a (corrected)\n  ! concepts/moth (left stale)\n");
    const json = box.run(["jobs", "show", record.run_id, "--json"]).json<StaleJob>();
    expect(json.stale_pages).toEqual(record.stale_pages);
  });

  test("a page left unedited whose cited lines are gone is left stale, and drift still calls it stale", () => {
    box = sandbox();
    const root = repository(box);
    const short = `---
title: Short
topics: [concepts]
sources:
  - {id: tail, type: file, path: src/a.ts, lines: 3}
  - {id: zebra, type: file, path: src/z.ts}
---
# Short

The c constant is three [@tail], beside the zebra [@zebra]. See [A](a.md).
`;
    writeFileSync(join(root, "almanac", "concepts", "short.md"), short);
    commitAll(root, "short page");
    writeFileSync(join(root, "src", "a.ts"), "export const a = 1;\n");
    commitAll(root, "a shrinks");
    expect(drift(root).pages.map((p) => [p.slug, p.status])).toEqual([
      ["concepts/a", "stale"],
      ["concepts/short", "stale"],
    ]);
    const record = gardenStale(root).json<StaleJob>();
    expect(record.status).toBe("done");
    expect(record.stale_pages).toMatchObject({ confirmed: [], corrected: [], left_stale: ["concepts/a", "concepts/short"] });
    // The line past the end is missing however recent the page's commit.
    expect(drift(root).pages.map((p) => [p.slug, p.status])).toEqual([
      ["concepts/a", "stale"],
      ["concepts/short", "stale"],
    ]);
    // The zebra source got its stamp; the line past the end got none.
    expect(pageText(root, "concepts/short")).toMatch(/\{id: tail, type: file, path: src\/a\.ts, lines: 3\}\n {2}- \{id: zebra, type: file, path: src\/z\.ts, fingerprint: [0-9a-f]{16}, verified_at: [0-9a-f]{40}\}/);
  });

  test("with no stale page it says so in one line and queues nothing", () => {
    box = sandbox();
    const root = repository(box);
    const text = box.run(["garden", "--stale", "--using", "claude"], { cwd: root });
    expect(text).toMatchObject({ code: 0, stdout: "no stale pages in repo: nothing to garden\n", stderr: "" });
    const json = box.run(["garden", "--stale", "--using", "claude", "--wait", "--json"], { cwd: root });
    expect(json.code).toBe(0);
    expect(json.json()).toEqual({ run_id: null, repository: "repo", stale_pages: [] });
    expect(box.run(["jobs", "--json"]).json()).toEqual([]);
  });

  test("the receipt names the stale pages it targets", async () => {
    box = sandbox();
    const root = repository(box);
    changeA(root);
    box.run(["jobs"]);
    holdQueue(box);
    const receipt = box.run(["garden", "--stale", "--using", "claude", "--json"], { cwd: root }).json<Receipt & { stale_pages: string[] }>();
    expect(receipt).toMatchObject({ status: "queued", repository: "repo", stale_pages: ["concepts/a"] });
    const text = box.run(["garden", "--stale", "--using", "claude"], { cwd: root });
    expect(text.stdout).toContain("  1 stale page: concepts/a\n");
    await waitForExits([receipt.child_pid]);
    releaseQueue(box);
    box.run(["jobs"]);
    await waitForStatus(box, receipt.run_id, ["done"]);
    await waitForIdle(box);
  });

  test("a failed run re-stamps nothing and records no outcome", () => {
    box = sandbox();
    const root = repository(box);
    changeA(root);
    const result = gardenStale(root, { FAKE_CLAUDE_SCENARIO: "crash" });
    expect(result.code).toBe(1);
    expect(result.json<StaleJob>()).toMatchObject({ status: "failed", stale_pages: null });
    expect(pageText(root, "concepts/a")).toBe(A_PAGE);
    expect(drift(root).pages.map((p) => [p.slug, p.status])).toEqual([["concepts/a", "stale"]]);
  });

  test("pages that are fresh again when the run starts are not given to an agent", async () => {
    box = sandbox();
    const root = repository(box);
    changeA(root);
    box.run(["jobs"]);
    holdQueue(box);
    const invocations = join(box.dir, "invocations.jsonl");
    const receipt = box.run(["garden", "--stale", "--using", "claude", "--json"], { cwd: root, env: { FAKE_CLAUDE_INVOCATION_LOG: invocations } }).json<Receipt>();
    await waitForExits([receipt.child_pid]);
    // Someone puts line 2 back while the run waits in the queue.
    writeFileSync(join(root, "src", "a.ts"), A_TS);
    releaseQueue(box);
    box.run(["jobs"]);
    await waitForStatus(box, receipt.run_id, ["done", "failed"]);
    const record = box.run(["jobs", "show", receipt.run_id, "--json"]).json<StaleJob>();
    expect(record).toMatchObject({ status: "done", summary: "nothing to garden: the targeted pages are no longer stale" });
    expect(record.stale_pages).toEqual({ targeted: [], confirmed: [], corrected: [], left_stale: [], no_longer_stale: ["concepts/a"] });
    expect(existsSync(invocations)).toBe(false);
    expect(pageText(root, "concepts/a")).toBe(A_PAGE);
  });
});
