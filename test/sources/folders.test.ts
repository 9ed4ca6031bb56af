import { symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { changedPaths } from "../../src/sources/prepare/folder-listing.js";
import { orderCandidates } from "../../src/sources/prepare/folder-selection.js";
import { git, gitRepo, makeService, tempDir, testEnv, writeFiles } from "./helpers.js";

const unchanged = (...paths: string[]) => paths.map((path) => ({ path, changed: false }));

describe("folder selection order", () => {
  test("every subfolder offers one file before any offers a second", () => {
    const order = orderCandidates(unchanged("a/1.ts", "a/2.ts", "a/3.ts", "b/1.ts", "b/2.ts", "c/1.ts", "top.ts"));
    expect(order.map((candidate) => candidate.path)).toEqual(["top.ts", "a/1.ts", "b/1.ts", "c/1.ts", "a/2.ts", "b/2.ts", "a/3.ts"]);
  });

  test("changed files come first, then the rest", () => {
    const order = orderCandidates([...unchanged("a/x.ts", "b/y.ts"), { path: "b/changed.md", changed: true }]);
    expect(order.map((candidate) => candidate.path)).toEqual(["b/changed.md", "a/x.ts", "b/y.ts"]);
  });

  test("within a subfolder: entry points, then structure, source before config, shallow before deep, lock files last", () => {
    const order = orderCandidates(unchanged("s/zeta.ts", "s/package-lock.json", "s/notes.md", "s/deep/x/main.ts", "s/types.ts", "s/main.ts", "s/__init__.py"));
    expect(order.map((candidate) => candidate.path)).toEqual([
      "s/main.ts",
      "s/deep/x/main.ts",
      "s/types.ts",
      "s/zeta.ts",
      "s/notes.md",
      "s/package-lock.json",
      "s/__init__.py",
    ]);
  });

  test("porcelain parsing consumes the old path of renames and copies", () => {
    const porcelain = ["R  new.ts", "old.ts", " M src/a.ts", "?? docs/new file.md", "C  copy.ts", "orig.ts", ""].join("\0");
    expect([...changedPaths(porcelain)]).toEqual(["new.ts", "src/a.ts", "docs/new file.md", "copy.ts"]);
  });
});

describe("folder material", () => {
  function prepareFolder(repo: string, folder: string, limits = {}) {
    const service = makeService(testEnv(tempDir("ca-sources-home-")), limits);
    return service
      .resolve([folder], { cwd: repo, repositoryRoot: repo })
      .then((refs) => service.prepare(refs, { repositoryRoot: repo, workDir: tempDir("ca-sources-run-"), budgetChars: 1_000_000 }))
      .then((briefs) => briefs[0]!);
  }

  function sampleRepo(): string {
    return gitRepo({
      ".gitignore": "dist/\n*.log\n",
      "src/app.ts": "export const app = 1;\n",
      "src/util/strings.ts": "export const s = 1;\n",
      "lib/main.py": "print('hi')\n",
      "node_modules/pkg/index.js": "tracked by mistake\n",
      ".env.local": "SECRET=1\n",
      "almanac/page.md": "# A wiki page\n",
      "logo.bin": Buffer.from([1, 0, 2, 0]),
    });
  }

  test("inside git: git lists the files, changed first, ignores and the wiki left out", async () => {
    const repo = sampleRepo();
    writeFiles(repo, { "lib/main.py": "print('changed')\n", "docs/new.md": "# New\n", "dist/bundle.js": "built\n", "debug.log": "noise\n" });
    const brief = await prepareFolder(repo, ".");
    expect(brief.title).toBe("Folder (repository root)");
    expect(brief.content).toContain(
      "Files (listed by git):\n- lib/main.py [changed] (17 bytes)\n- docs/new.md [changed] (6 bytes)\n- src/app.ts (22 bytes)\n- src/util/strings.ts (20 bytes)\n\n",
    );
    for (const hidden of ["A wiki page", "tracked by mistake", "SECRET", "built", "noise", "## logo.bin"]) expect(brief.content).not.toContain(hidden);
    expect(brief.notes).toEqual(["1 binary, unreadable or deleted file skipped."]);
  });

  test("a repository reached through a symlink still keeps the wiki out", async () => {
    const repo = sampleRepo();
    const link = join(tempDir(), "link");
    symlinkSync(repo, link);
    const service = makeService(testEnv(tempDir("ca-sources-home-")));
    const refs = await service.resolve(["."], { cwd: link, repositoryRoot: link });
    const [brief] = await service.prepare(refs, { repositoryRoot: link, workDir: tempDir("ca-sources-run-"), budgetChars: 1_000_000 });
    expect(brief!.content).toContain("## src/app.ts");
    expect(brief!.content).not.toContain("A wiki page");
  });

  test("a subfolder lists only its own files, with repository-relative names", async () => {
    const repo = sampleRepo();
    const brief = await prepareFolder(repo, "src");
    expect(brief.content).toContain("# Folder src/");
    expect(brief.content).toContain("## src/app.ts\n\n```ts\nexport const app = 1;\n```");
    expect(brief.content).toContain("## src/util/strings.ts");
    expect(brief.content).not.toContain("main.py");
  });

  test("the file count is bounded, and the brief says how many were left out", async () => {
    const files = Object.fromEntries(Array.from({ length: 8 }, (_, index) => [`pkg/m${index}/file.ts`, `export const n = ${index};\n`]));
    const repo = gitRepo(files);
    const brief = await prepareFolder(repo, "pkg", { folderFiles: 3 });
    expect(brief.content.match(/^## pkg\//gm)).toHaveLength(3);
    expect(brief.notes[0]).toBe("3 of 8 files are included (changed files first, then spread across subfolders); read the others from the repository when needed.");
  });

  test("outside git: a walk that honours .gitignore, skips symlinks and the wiki", async () => {
    const root = tempDir();
    writeFiles(root, { ".gitignore": "*.log\nbuild/\n", "a.ts": "a\n", "notes/b.md": "b\n", "x.log": "log\n", "build/out.js": "out\n", "almanac/p.md": "wiki\n" });
    symlinkSync(join(root, "a.ts"), join(root, "link.ts"));
    const brief = await prepareFolder(root, ".");
    expect(brief.content).toContain("Files (listed by walking the folder):\n- a.ts (2 bytes)\n- notes/b.md (2 bytes)\n\n");
    for (const hidden of ["log\n", "out\n", "wiki", "link.ts"]) expect(brief.content).not.toContain(hidden);
  });

  test("a folder with nothing readable says so", async () => {
    const repo = gitRepo({ "bin/blob": Buffer.from([0, 0, 0]) });
    const brief = await prepareFolder(repo, "bin");
    expect(brief.content).toBe("# Folder bin/\n\n(no readable files)\n");
  });

  test("a large file in a folder is read in part, and the brief says so", async () => {
    const repo = gitRepo({ "big/data.txt": "y".repeat(5000) });
    writeFileSync(join(repo, "big/other.txt"), "small\n");
    git(repo, "add", "-A");
    const brief = await prepareFolder(repo, "big", { fileReadBytes: 1000 });
    expect(brief.content).toContain("## big/data.txt\n\n(only the start of this 4.9 KB file)");
    expect(brief.notes).toContain("1 large file read only in part, from the start.");
  });
});
