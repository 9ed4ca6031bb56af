import { describe, expect, test } from "vitest";
import { fileRefsFromSources, normalizeRefPath } from "../../src/wiki/file-refs.js";
import type { PageSource, SourceType } from "../../src/wiki/page.js";

function source(target: string | null, type: SourceType = "file", id = "s"): PageSource {
  return { source_id: id, source_type: type, target, title: null, retrieved_at: null, note: null, lines: null, fingerprint: null, verified_at: null };
}

describe("normalizeRefPath", () => {
  test.each([
    ["./Src/Auth/", { shape: "Src/Auth/", isDir: true }],
    ["/Src/Auth.py", { shape: "Src/Auth.py", isDir: false }],
    ["src\\auth\\x.ts", { shape: "src/auth/x.ts", isDir: false }],
    ["  src/auth.py  ", { shape: "src/auth.py", isDir: false }],
    ["././src//a///b.ts", { shape: "src/a/b.ts", isDir: false }],
    ["src/auth//", { shape: "src/auth/", isDir: true }],
    ["src\\auth\\", { shape: "src/auth/", isDir: true }],
    ["//src/x", { shape: "src/x", isDir: false }],
    ["src/./x.ts", { shape: "src/x.ts", isDir: false }],
    ["src/.", { shape: "src/", isDir: true }],
    [".github/workflows/ci.yml", { shape: ".github/workflows/ci.yml", isDir: false }],
  ])("%j", (raw, expected) => {
    expect(normalizeRefPath(raw)).toEqual(expected);
  });

  test.each(["../secrets.txt", "src/../../x", "a/..", "/", "", "   ", "./", ".", "//"])(
    "%j is not a file reference",
    (raw) => {
      expect(normalizeRefPath(raw)).toBeNull();
    },
  );
});

describe("fileRefsFromSources", () => {
  test("only file sources with a usable target make references", () => {
    const refs = fileRefsFromSources([
      source("src/a.ts"),
      source("https://example.com", "web"),
      source(null),
      source("../outside"),
      source("src/b.ts", "conversation"),
    ]);
    expect(refs).toEqual([{ path: "src/a.ts", original_path: "src/a.ts", is_dir: false }]);
  });

  test("path is case-folded, original_path keeps the author's case", () => {
    expect(fileRefsFromSources([source("./Src/Auth/")])).toEqual([
      { path: "src/auth/", original_path: "Src/Auth/", is_dir: true },
    ]);
  });

  test("dedupes by path and kind, keeping the first spelling, and sorts by path then kind", () => {
    const refs = fileRefsFromSources([
      source("src/z.ts"),
      source("Src/Auth"),
      source("src/auth/"),
      source("SRC/AUTH"),
      source("src/auth"),
      source("a.md"),
    ]);
    expect(refs).toEqual([
      { path: "a.md", original_path: "a.md", is_dir: false },
      { path: "src/auth", original_path: "Src/Auth", is_dir: false },
      { path: "src/auth/", original_path: "src/auth/", is_dir: true },
      { path: "src/z.ts", original_path: "src/z.ts", is_dir: false },
    ]);
  });
});
