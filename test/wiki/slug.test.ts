import { describe, expect, test } from "vitest";
import { ProductError } from "../../src/core/errors.js";
import { isLandingPath, slugForRelPath } from "../../src/wiki/slug.js";

describe("slugForRelPath", () => {
  test.each([
    ["README.md", "README"],
    ["getting-started.md", "getting-started"],
    ["architecture/README.md", "architecture"],
    ["architecture/wiki/page-identity.md", "architecture/wiki/page-identity"],
    ["Notes/My Page.md", "Notes/My Page"],
    ["readme.md", "readme"],
    ["a/b/README.md", "a/b"],
    [".obsidian/x.md", ".obsidian/x"],
  ])("%s → %s", (rel, slug) => {
    expect(slugForRelPath(rel)).toBe(slug);
  });

  test.each(["", "a//b.md", "./a.md", "a/../b.md", "a/./b.md", "/a.md", "a/", "a/.md"])(
    "rejects the malformed path %j",
    (rel) => {
      expect(() => slugForRelPath(rel)).toThrow(/invalid wiki page path/);
    },
  );

  test("rejects files that are not Markdown", () => {
    for (const rel of ["notes.txt", "a/b.markdown", "README", "a/page.MD"]) {
      let error: unknown;
      try {
        slugForRelPath(rel);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ProductError);
      expect((error as ProductError).code).toBe("validation_failed");
      expect((error as ProductError).message).toBe(`wiki page must be markdown: ${rel}`);
    }
  });
});

describe("isLandingPath", () => {
  test("only a file named exactly README.md is a landing page", () => {
    expect(isLandingPath("README.md")).toBe(true);
    expect(isLandingPath("architecture/README.md")).toBe(true);
    expect(isLandingPath("readme.md")).toBe(false);
    expect(isLandingPath("a/README.markdown")).toBe(false);
    expect(isLandingPath("a/NOT-README.md")).toBe(false);
  });
});
