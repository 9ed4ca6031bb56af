/**
 * The material of a `garden --stale` run, against a real git repository: each stale page's
 * changed files diffed since the commit it was verified at (committed and uncommitted
 * changes), one git process per distinct commit and file, within a fair share of the budget,
 * the whole diff in the run folder when cut.
 */
import { afterEach, describe, expect, test } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { CommandRunner } from "../../src/core/command.js";
import { runCommand } from "../../src/core/exec.js";
import type { PageDrift, SourceDrift } from "../../src/evidence/types.js";
import type { PageEvidence } from "../../src/index/views/evidence.js";
import { staleMaterial } from "../../src/lifecycle/context/stale.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()!();
});

function tempDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function write(root: string, rel: string, content: string): void {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), content);
}

function git(root: string, ...args: string[]): string {
  const result = spawnSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", ...args], { cwd: root, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${result.stderr}`);
  return result.stdout.trim();
}

const source = (id: string, path: string, status: SourceDrift["status"], extra: Partial<SourceDrift> = {}): SourceDrift => ({
  id,
  path,
  lines: null,
  status,
  commits: [],
  reason: `${path} ${status}`,
  ...extra,
});

const stalePage = (slug: string, verifiedAt: string | null, sources: SourceDrift[]): PageDrift => ({
  slug,
  file: `almanac/${slug}.md`,
  status: "stale",
  verified_at: verifiedAt,
  sources,
});

/** Counts the git processes the material starts. */
function countingRunner(): { run: CommandRunner; diffs: string[][] } {
  const diffs: string[][] = [];
  return {
    diffs,
    run: (file, args, request) => {
      if (file === "git" && args.includes("diff")) diffs.push(args);
      return runCommand(file, args, request);
    },
  };
}

/** A repository with three files committed at `verified`, then changed: one committed edit, one uncommitted, one deleted. */
function changedRepository(): { root: string; verified: string } {
  const root = tempDir("ca-stale-repo-");
  git(root, "init", "-q", "-b", "main");
  write(root, "src/a.ts", "export const a = 1;\nexport const b = 2;\n");
  write(root, "src/gone.ts", "export const gone = true;\n");
  write(root, "src/quiet.ts", "export const quiet = 1;\n");
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", "initial");
  const verified = git(root, "rev-parse", "HEAD");
  write(root, "src/a.ts", "export const a = 1;\nexport const b = 20;\n");
  unlinkSync(join(root, "src/gone.ts"));
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", "change");
  // And an uncommitted edit on top of the committed one.
  write(root, "src/a.ts", "export const a = 1;\nexport const b = 20;\nexport const c = 3;\n");
  return { root, verified };
}

describe("the stale pages' material", () => {
  test("diffs each stale file since the page was verified, committed and uncommitted changes together; a gone file says so", async () => {
    const { root, verified } = changedRepository();
    const workDir = tempDir("ca-stale-run-");
    const { run, diffs } = countingRunner();
    const pages = [
      stalePage("concepts/a", verified, [
        source("a", "src/a.ts", "changed", { lines: "2", commits: ["f".repeat(40)] }),
        // Two sources citing one file since one commit share one diff.
        source("a-again", "src/a.ts", "changed"),
        source("gone", "src/gone.ts", "missing"),
        source("quiet", "src/quiet.ts", "fresh"),
        source("moved", "src/quiet.ts", "moved", { lines: "3" }),
      ]),
    ];
    const [brief, ...rest] = await staleMaterial({ root, workDir, budgetChars: 60_000, pages, evidence: [], run, env: process.env });
    expect(rest).toEqual([]);
    expect(diffs).toHaveLength(2);
    expect(brief).toMatchObject({ slug: "concepts/a", file: "almanac/concepts/a.md", verified_at: verified, truncated: false });
    expect(brief!.stale.map((s) => [s.id, s.status, s.commits])).toEqual([
      ["a", "changed", ["f".repeat(40)]],
      ["a-again", "changed", []],
      ["gone", "missing", []],
    ]);
    expect(brief!.moved.map((s) => s.id)).toEqual(["moved"]);
    const diff = brief!.text;
    // First what drift says of each drifting source, then the diffs.
    expect(diff.startsWith(
      [
        `# concepts/a (almanac/concepts/a.md, verified at ${verified.slice(0, 12)})`,
        "",
        "Stale evidence:",
        `- [@a] src/a.ts lines 2: changed: src/a.ts changed (${"f".repeat(12)})`,
        "- [@a-again] src/a.ts: changed: src/a.ts changed",
        "- [@gone] src/gone.ts: missing: src/gone.ts missing",
        "",
        "Moved evidence (the cited text is unchanged; point `lines` at where it is now):",
        "- [@moved] src/quiet.ts lines 3: moved: src/quiet.ts moved",
        "",
        "## src/a.ts since ",
      ].join("\n"),
    ), diff).toBe(true);
    expect(diff).toContain(`## src/a.ts since ${verified.slice(0, 12)} (cited by [@a] lines 2, [@a-again])\n`);
    expect(diff).toContain("-export const b = 2;\n+export const b = 20;\n+export const c = 3;\n");
    expect(diff).toContain(`## src/gone.ts since ${verified.slice(0, 12)} (cited by [@gone], gone now)\n`);
    expect(diff).toContain("-export const gone = true;\n");
    expect(diff).not.toContain("## src/quiet.ts");
    expect(brief!.totalChars).toBe(diff.length);
    expect(existsSync(join(workDir, "stale"))).toBe(false);
  });

  test("a source's own stamp commit comes first; one git no longer has falls back to the page's commit", async () => {
    const { root, verified } = changedRepository();
    const later = git(root, "rev-parse", "HEAD");
    const evidence: PageEvidence[] = [
      {
        slug: "concepts/a",
        rel_path: "concepts/a.md",
        sources: [
          { source_id: "since-later", target: "src/a.ts", lines: null, fingerprint: "0".repeat(16), verified_at: later },
          { source_id: "rewritten", target: "src/gone.ts", lines: null, fingerprint: "0".repeat(16), verified_at: "e".repeat(40) },
        ],
      },
    ];
    const pages = [stalePage("concepts/a", verified, [source("since-later", "src/a.ts", "changed"), source("rewritten", "src/gone.ts", "missing")])];
    const [brief] = await staleMaterial({ root, workDir: tempDir("ca-stale-run-"), budgetChars: 60_000, pages, evidence, run: runCommand, env: process.env });
    // Since the later commit only the uncommitted line differs.
    expect(brief!.text).toContain(`## src/a.ts since ${later.slice(0, 12)} (cited by [@since-later])\ndiff --git`);
    expect(brief!.text).toMatch(/ export const b = 20;\n\+export const c = 3;\n/);
    expect(brief!.text).not.toContain("-export const b = 2;");
    expect(brief!.text).toMatch(
      new RegExp(`## src/gone\\.ts since ${verified.slice(0, 12)} \\(cited by \\[@rewritten\\], gone now\\)\\n\\(src/gone\\.ts: git cannot diff since eeeeeeeeeeee: .*\\)\\ndiff --git`),
    );
  });

  test("past its fair share a page's diff is cut and written whole to the run folder; small pages keep theirs", async () => {
    const root = tempDir("ca-stale-repo-");
    git(root, "init", "-q", "-b", "main");
    write(root, "src/big.ts", "");
    write(root, "src/small.ts", "export const small = 1;\n");
    git(root, "add", "-A");
    git(root, "commit", "-q", "-m", "initial");
    const verified = git(root, "rev-parse", "HEAD");
    write(root, "src/big.ts", Array.from({ length: 3_000 }, (_, i) => `export const line${i} = ${i};\n`).join(""));
    write(root, "src/small.ts", "export const small = 2;\n");
    const workDir = tempDir("ca-stale-run-");
    const pages = [
      stalePage("concepts/big", verified, [source("big", "src/big.ts", "changed")]),
      stalePage("guides/small", verified, [source("small", "src/small.ts", "changed")]),
    ];
    const budget = 10_000;
    const [big, small] = await staleMaterial({ root, workDir, budgetChars: budget, pages, evidence: [], run: runCommand, env: process.env });
    expect(small).toMatchObject({ truncated: false });
    expect(small!.text).toContain("+export const small = 2;");
    expect(big!.truncated).toBe(true);
    expect(big!.materialPath).toBe(join(workDir, "stale", "01-concepts_big.md"));
    const whole = readFileSync(big!.materialPath!, "utf8");
    expect(whole.length).toBe(big!.totalChars);
    expect(whole).toContain("+export const line2999 = 2999;");
    expect(big!.text.length + small!.text.length).toBeLessThanOrEqual(budget);
    expect(big!.text.startsWith("# concepts/big (almanac/concepts/big.md, verified at ")).toBe(true);
    expect(big!.text).toContain(`the whole material is in ${big!.materialPath}`);
    expect(big!.text).not.toContain("line2999");
  });

  test("a page with many drifting sources is cut with its diffs: the material stays within the budget", async () => {
    const { root, verified } = changedRepository();
    const many = Array.from({ length: 400 }, (_, i) => source(`s${i}`, "src/a.ts", "changed", { lines: `${i + 1}`, reason: `lines ${i + 1} of src/a.ts changed in 1 commit since it was verified` }));
    const pages = Array.from({ length: 30 }, (_, i) => stalePage(`concepts/p${i}`, verified, many));
    const budget = 20_000;
    const briefs = await staleMaterial({ root, workDir: tempDir("ca-stale-run-"), budgetChars: budget, pages, evidence: [], run: runCommand, env: process.env });
    expect(briefs).toHaveLength(30);
    expect(briefs.every((b) => b.truncated && b.stale.length === 400)).toBe(true);
    expect(briefs.reduce((sum, b) => sum + b.text.length, 0)).toBeLessThanOrEqual(budget);
  });

  test("a page verified nowhere in git gets no diff, and says why", async () => {
    const root = tempDir("ca-stale-plain-");
    const [brief] = await staleMaterial({
      root,
      workDir: tempDir("ca-stale-run-"),
      budgetChars: 1_000,
      pages: [stalePage("concepts/a", null, [source("a", "src/a.ts", "changed")])],
      evidence: [],
      run: runCommand,
      env: process.env,
    });
    expect(brief!.text).toBe(
      "# concepts/a (almanac/concepts/a.md)\n\nStale evidence:\n- [@a] src/a.ts: changed: src/a.ts changed\n\n## src/a.ts (cited by [@a]): no diff\n(src/a.ts: no commit to compare with (the page was never verified in git))\n",
    );
  });
});
