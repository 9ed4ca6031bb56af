import { afterEach, describe, expect, test } from "vitest";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { repositoryPath } from "../../src/mcp/paths.js";
import { isProductError } from "../../src/core/errors.js";

/** How MCP tools turn the path an agent gave them into a repository-relative one. */

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A repository folder (with src/app.ts) and a folder beside it, both under a real temporary path. */
function layout(): { root: string; beside: string } {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "ca-mcp-paths-")));
  const root = join(dir, "repo");
  mkdirSync(join(root, "src"), { recursive: true });
  writeFileSync(join(root, "src", "app.ts"), "");
  mkdirSync(join(dir, "beside"));
  return { root, beside: join(dir, "beside") };
}

function refusal(read: () => unknown): string {
  try {
    read();
  } catch (error) {
    if (isProductError(error)) return `${error.code}: ${error.message}`;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("relative paths", () => {
  test("are taken from the repository root, normalized, with a folder's trailing slash kept once", () => {
    const { root } = layout();
    expect(repositoryPath("src/app.ts", root)).toBe("src/app.ts");
    expect(repositoryPath("  ./src//app.ts  ", root)).toBe("src/app.ts");
    expect(repositoryPath("src\\app.ts", root)).toBe("src/app.ts");
    expect(repositoryPath("src/../lib/x.ts", root)).toBe("lib/x.ts");
    expect(repositoryPath("src/lib/..", root)).toBe("src/");
    expect(repositoryPath("src/", root)).toBe("src/");
    expect(repositoryPath("src//", root)).toBe("src/");
    expect(repositoryPath("src", root)).toBe("src");
    expect(repositoryPath("..foo/bar", root)).toBe("..foo/bar");
    expect(repositoryPath("missing/file.md", root)).toBe("missing/file.md");
  });

  test("that climb out of the repository are refused, naming the root and the path as given", () => {
    const { root } = layout();
    for (const input of ["..", "../beside", "src/../../beside/x", "..\\x", " ../x "]) {
      expect(refusal(() => repositoryPath(input, root)), input).toBe(`validation_failed: path is outside the repository ${root}: ${input.trim()}`);
    }
  });

  test("that name the root itself, or nothing, are refused", () => {
    const { root } = layout();
    for (const input of [".", "./", "src/..", "./."]) {
      expect(refusal(() => repositoryPath(input, root)), input).toBe("validation_failed: path names the repository root; name a file or folder inside it");
    }
    expect(refusal(() => repositoryPath("", root))).toBe("validation_failed: path must not be empty");
    expect(refusal(() => repositoryPath("   ", root))).toBe("validation_failed: path must not be empty");
  });
});

describe("absolute paths", () => {
  test("inside the repository become relative, a folder keeping its slash", () => {
    const { root } = layout();
    expect(repositoryPath(join(root, "src", "app.ts"), root)).toBe("src/app.ts");
    expect(repositoryPath(`${join(root, "src")}/`, root)).toBe("src/");
    expect(repositoryPath(join(root, "not-yet", "x.md"), root)).toBe("not-yet/x.md");
  });

  test("the root itself is refused as the root; a path outside it, or a sibling sharing its prefix, as outside", () => {
    const { root, beside } = layout();
    expect(refusal(() => repositoryPath(root, root))).toBe("validation_failed: path names the repository root; name a file or folder inside it");
    expect(refusal(() => repositoryPath(`${root}/`, root))).toBe("validation_failed: path names the repository root; name a file or folder inside it");
    for (const input of [beside, join(beside, "x"), `${root}-other/x`, "/etc/passwd"]) {
      expect(refusal(() => repositoryPath(input, root)), input).toBe(`validation_failed: path is outside the repository ${root}: ${input}`);
    }
  });

  test("a path that reaches the repository through a symlink is taken by where it resolves", () => {
    const { root } = layout();
    symlinkSync(root, join(dir, "alias"));
    expect(repositoryPath(join(dir, "alias", "src", "app.ts"), root)).toBe("src/app.ts");
    // The link to the root resolves to the root itself.
    expect(refusal(() => repositoryPath(join(dir, "alias"), root))).toBe("validation_failed: path names the repository root; name a file or folder inside it");
    // Through a link, a path that does not exist cannot be resolved, so it stays outside.
    expect(refusal(() => repositoryPath(join(dir, "alias", "missing"), root))).toBe(`validation_failed: path is outside the repository ${root}: ${join(dir, "alias", "missing")}`);
  });

  test("~ is the home folder", () => {
    const { root } = layout();
    expect(refusal(() => repositoryPath("~/notes.md", root))).toBe(`validation_failed: path is outside the repository ${root}: ~/notes.md`);
    const home = join(homedir(), "repo-in-home");
    mkdirSync(home, { recursive: true });
    try {
      expect(repositoryPath("~/repo-in-home/a.md", home)).toBe("a.md");
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
