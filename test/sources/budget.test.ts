import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { cutText, fairShares } from "../../src/sources/budget.js";
import { SourcePreparationError } from "../../src/sources/service.js";
import { gitRepo, makeService, tempDir, testEnv } from "./helpers.js";

describe("fair shares", () => {
  test("equal shares when every source is large", () => {
    expect(fairShares([5000, 5000, 5000], 3000)).toEqual([1000, 1000, 1000]);
  });

  test("what small sources leave is shared by the large ones", () => {
    expect(fairShares([100, 5000, 9000], 3000)).toEqual([100, 1450, 1450]);
    expect(fairShares([100, 1200, 9000], 3000)).toEqual([100, 1200, 1700]);
  });

  test("everything fits when the budget allows, and the shares never exceed it", () => {
    expect(fairShares([10, 20], 1000)).toEqual([10, 20]);
    const budget = 10_001;
    const shares = fairShares([7, 7001, 9999, 12345], budget);
    expect(shares.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(budget);
    expect(shares[0]).toBe(7);
  });
});

describe("cutting text", () => {
  const lines = Array.from({ length: 200 }, (_, index) => `line ${index}`).join("\n");

  test("head keeps the start and says where the rest is", () => {
    const cut = cutText(lines, 400, "head", "/tmp/run/sources/01-file.md");
    expect(cut.length).toBeLessThanOrEqual(400);
    expect(cut.startsWith("line 0\nline 1\n")).toBe(true);
    expect(cut).toMatch(/\[… [\d,]+ characters cut here; the whole material is in \/tmp\/run\/sources\/01-file\.md …\]\n\n$/);
    expect(cut).not.toContain("line 199");
  });

  test("ends keeps the start and the end, cut at line breaks", () => {
    const cut = cutText(lines, 400, "ends", "/m.md");
    expect(cut.length).toBeLessThanOrEqual(400);
    expect(cut.startsWith("line 0\n")).toBe(true);
    expect(cut.endsWith("line 198\nline 199")).toBe(true);
    const omitted = Number(/\[… ([\d,]+) characters cut here/.exec(cut)![1]!.replace(/,/g, ""));
    const kept = cut.replace(/\n\n\[….*…\]\n\n/, "\n");
    expect(kept.length - 1 + omitted).toBe(lines.length);
  });

  test("text within the limit is untouched; a limit smaller than the marker gives nothing", () => {
    expect(cutText("short", 10, "head", "/m.md")).toBe("short");
    expect(cutText(lines, 20, "head", "/m.md")).toBe("");
  });
});

describe("briefs and material files", () => {
  function setup() {
    const repo = gitRepo({ "small.md": "tiny\n", "big.ts": `${"export const value = 1;\n".repeat(2000)}` });
    const work = join(tempDir("ca-sources-run-"), "run-1");
    const service = makeService(testEnv(tempDir("ca-sources-home-")));
    return { repo, work, service };
  }

  test("a source over its share is cut, with the whole material written under the run folder", async () => {
    const { repo, work, service } = setup();
    const refs = await service.resolve(["small.md", "big.ts"], { cwd: repo, repositoryRoot: repo });
    const budget = 6000;
    const briefs = await service.prepare(refs, { repositoryRoot: repo, workDir: work, budgetChars: budget });
    const [small, big] = briefs;
    expect(small).toMatchObject({ kind: "file", title: "File small.md", truncated: false, notes: [] });
    expect(small!.content).toBe("# File small.md\n\n```md\ntiny\n```\n");
    expect(small!.totalChars).toBe(small!.content.length);
    expect(small!.materialPath).toBeUndefined();
    expect(small!.hint).toMatch(/^A file from the repository/);

    const materialPath = join(work, "sources", "02-file.md");
    expect(big).toMatchObject({ truncated: true, materialPath });
    expect(big!.content.length).toBeLessThanOrEqual(budget - small!.content.length);
    expect(big!.content.length).toBeGreaterThan(5000);
    expect(readFileSync(materialPath, "utf8").length).toBe(big!.totalChars);
    expect(big!.notes).toEqual([
      `Cut to ${big!.content.length.toLocaleString("en-US")} of ${big!.totalChars.toLocaleString("en-US")} characters to fit the prompt (its beginning is shown); the whole material is in ${materialPath}.`,
    ]);
    expect(existsSync(join(repo, "sources"))).toBe(false);
  });

  test("a file that changed after queuing is read as it is now, and the brief says so", async () => {
    const { repo, work, service } = setup();
    const refs = await service.resolve(["small.md"], { cwd: repo, repositoryRoot: repo });
    writeFileSync(join(repo, "small.md"), "changed\n");
    const [brief] = await service.prepare(refs, { repositoryRoot: repo, workDir: work, budgetChars: 10_000 });
    expect(brief!.content).toContain("changed");
    expect(brief!.notes).toEqual(["The file changed after the ingest was queued; this is its content when the run started."]);
  });

  test("a large file is read only up to the byte limit, and the brief says so", async () => {
    const { repo, work } = setup();
    const service = makeService(testEnv(tempDir("ca-sources-home-")), { fileReadBytes: 1024 });
    const refs = await service.resolve(["big.ts"], { cwd: repo, repositoryRoot: repo });
    const [brief] = await service.prepare(refs, { repositoryRoot: repo, workDir: work, budgetChars: 100_000 });
    expect(brief!.notes).toContain("Only the first 1 KB of this 46.9 KB file were read.");
    const readLimit = 1024;
    expect(brief!.content.length).toBeLessThan(readLimit + 200); // the read bytes plus the section header
  });

  test("a file that became unusable while queued fails preparation with one line naming the address", async () => {
    const { repo, work, service } = setup();
    const refs = await service.resolve(["small.md", "big.ts"], { cwd: repo, repositoryRoot: repo });
    const prepare = () => service.prepare(refs, { repositoryRoot: repo, workDir: work, budgetChars: 10_000 }).catch((error: unknown) => error);
    writeFileSync(join(repo, "big.ts"), Buffer.from([0, 1, 2]));
    const binary = await prepare();
    expect(binary).toBeInstanceOf(SourcePreparationError);
    expect((binary as Error).message).toBe("big.ts: not a text file: big.ts");
    rmSync(join(repo, "small.md"));
    expect(((await prepare()) as Error).message).toBe("small.md: file no longer exists: small.md");
  });

  test("material is never written inside the repository", async () => {
    const { repo, service } = setup();
    const refs = await service.resolve(["big.ts"], { cwd: repo, repositoryRoot: repo });
    await expect(service.prepare(refs, { repositoryRoot: repo, workDir: join(repo, ".runs"), budgetChars: 100 })).rejects.toThrow(
      /lies inside the repository/,
    );
    expect(existsSync(join(repo, ".runs"))).toBe(false);
  });
});
