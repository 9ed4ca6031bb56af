import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { gitRepo, makeService, resolveError, tempDir, testEnv, writeFiles } from "./helpers.js";

function setup() {
  const home = tempDir("ca-sources-home-");
  const repo = gitRepo({ "src/app.ts": "export const app = 1;\n", "docs/guide.md": "# Guide\n", "almanac/index.md": "# Wiki\n" });
  return { home, repo, service: makeService(testEnv(home)) };
}

describe("file and folder addresses", () => {
  test("a relative path resolves against the user's cwd, not the repository root", async () => {
    const { repo, service } = setup();
    const [ref] = await service.resolve(["app.ts"], { cwd: join(repo, "src"), repositoryRoot: repo });
    expect(ref).toMatchObject({ address: "app.ts", kind: "file", title: "File src/app.ts", path: join(repo, "src/app.ts"), display: "src/app.ts" });
    expect(ref!.fingerprint).toMatch(/^[0-9a-f]{64}$/);
  });

  test("folders become folder refs, the repository root included", async () => {
    const { repo, service } = setup();
    const refs = await service.resolve(["src", "./docs/", "."], { cwd: repo, repositoryRoot: repo });
    expect(refs.map((ref) => [ref.kind, ref.title, ref.display])).toEqual([
      ["folder", "Folder src/", "src"],
      ["folder", "Folder docs/", "docs"],
      ["folder", "Folder (repository root)", "."],
    ]);
  });

  test("~ expands to HOME", async () => {
    const { home, service } = setup();
    const repo = gitRepo({ "notes.md": "hello\n" }, home);
    const [ref] = await service.resolve(["~/repo/notes.md"], { cwd: "/", repositoryRoot: repo });
    expect(ref).toMatchObject({ kind: "file", display: "notes.md" });
  });

  test("a missing path is refused", async () => {
    const { repo, service } = setup();
    expect(await resolveError(service, ["src/nope.ts"], repo)).toBe("path not found: src/nope.ts");
  });

  test("a path outside the repository is refused, symlinks resolved first", async () => {
    const { repo, service } = setup();
    const outside = tempDir();
    writeFileSync(join(outside, "secret.txt"), "x\n");
    symlinkSync(join(outside, "secret.txt"), join(repo, "link.txt"));
    expect(await resolveError(service, [join(outside, "secret.txt")], repo)).toBe(
      `path is outside repository ${repo}: ${join(outside, "secret.txt")}`,
    );
    expect(await resolveError(service, ["link.txt"], repo)).toBe(`path is outside repository ${repo}: ${join(outside, "secret.txt")}`);
    expect(await resolveError(service, [outside], repo)).toBe(`path is outside repository ${repo}: ${outside}`);
  });

  test("the wiki's own folder is refused", async () => {
    const { repo, service } = setup();
    expect(await resolveError(service, ["almanac"], repo)).toBe("path is inside the wiki folder almanac/: almanac");
    expect(await resolveError(service, ["almanac/index.md"], repo)).toBe("path is inside the wiki folder almanac/: almanac/index.md");
  });

  test("a binary file is refused at queue time", async () => {
    const { repo, service } = setup();
    writeFileSync(join(repo, "logo.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
    expect(await resolveError(service, ["logo.png"], repo)).toBe("not a text file: logo.png");
  });

  test("something that is neither file nor folder is refused", async () => {
    const { repo, service } = setup();
    expect(await resolveError(service, ["/dev/null"], repo)).toBe("not a file or folder: /dev/null");
  });

  test("a blank address and an unsupported scheme are refused", async () => {
    const { repo, service } = setup();
    expect(await resolveError(service, ["  "], repo)).toBe("source address must not be blank");
    expect(await resolveError(service, ["ftp://example.com/x"], repo)).toBe(
      "unsupported address scheme: ftp://example.com/x (URLs must start with http:// or https://)",
    );
  });

  test("the first bad address is the one reported", async () => {
    const { repo, service } = setup();
    expect(await resolveError(service, ["src/app.ts", "missing-one", "missing-two"], repo)).toBe("path not found: missing-one");
  });

  test("an existing path wins over the bare-range reading of its name", async () => {
    const { repo, service } = setup();
    writeFiles(repo, { "a..b": "a file with dots\n" });
    const [ref] = await service.resolve(["a..b"], { cwd: repo, repositoryRoot: repo });
    expect(ref).toMatchObject({ kind: "file", display: "a..b" });
  });

  test("a JSONL file that is no transcript stays a file", async () => {
    const { repo, service } = setup();
    mkdirSync(join(repo, "data"));
    writeFileSync(join(repo, "data/rows.jsonl"), '{"id":1}\n{"id":2}\n');
    const [ref] = await service.resolve(["data/rows.jsonl"], { cwd: repo, repositoryRoot: repo });
    expect(ref).toMatchObject({ kind: "file" });
  });
});
