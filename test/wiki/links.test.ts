import { describe, expect, test } from "vitest";
import { resolvePageHref } from "../../src/wiki/links.js";

describe("resolvePageHref: the spec's table", () => {
  test.each([
    ["architecture/indexing", false, "wiki-tree", "architecture/wiki-tree"],
    ["architecture/indexing", false, "decisions/source-provenance", "architecture/decisions/source-provenance"],
    ["architecture/indexing", false, "../decisions/local-first-python", "decisions/local-first-python"],
    ["architecture", true, "wiki-tree", "architecture/wiki-tree"],
    ["README", true, "architecture/viewer", "architecture/viewer"],
    ["architecture/indexing", false, "session-store#details", "architecture/session-store"],
    ["architecture/auth-flow", false, "session-store", "architecture/session-store"],
    ["guides/x", false, "../architecture", "architecture"],
  ])("on %s (landing: %s) %j → %s", (source, isLanding, href, target) => {
    expect(resolvePageHref(href, source, isLanding)).toBe(target);
  });

  test.each([
    "https://example.com",
    "mailto:a@b.c",
    "#section",
    "/architecture/viewer",
    "src/auth/session.py",
    "v1.2-notes",
    "a?b=1",
    "page?x#y",
    "",
    "   ",
    "#",
    "my page",
    "my%20page",
    "a\\b",
    "//host/path",
    "C:/x",
  ])("%j is not a page link", (href) => {
    expect(resolvePageHref(href, "architecture/indexing", false)).toBeNull();
  });

  test("a link climbing above the wiki root is ignored", () => {
    expect(resolvePageHref("../../y", "guides/x", false)).toBeNull();
    expect(resolvePageHref("../x", "README", true)).toBeNull();
    expect(resolvePageHref("../x", "top-level", false)).toBeNull();
  });
});

describe("resolvePageHref: x.md, x, dir/ and dir/README.md name the same page", () => {
  const from = (href: string) => resolvePageHref(href, "guides/setup", false);

  test("a .md suffix is dropped", () => {
    expect(from("other.md")).toBe("guides/other");
    expect(from("other")).toBe("guides/other");
    expect(from("./other.md")).toBe("guides/other");
    expect(from("../concepts/auth.md#flow")).toBe("concepts/auth");
  });

  test("a folder, its trailing slash and its README all mean the folder's landing page", () => {
    for (const href of ["../concepts", "../concepts/", "../concepts/README.md", "../concepts/README"]) {
      expect(from(href)).toBe("concepts");
    }
    expect(from("README.md")).toBe("guides");
    expect(from("./")).toBe("guides");
  });

  test("walking back to the wiki root names the root README", () => {
    expect(from("../README.md")).toBe("README");
    expect(from("../")).toBe("README");
    expect(from("..")).toBe("README");
    expect(resolvePageHref("README.md", "README", true)).toBe("README");
    expect(resolvePageHref("README.md", "top", false)).toBe("README");
  });

  test("a landing page resolves relative to its own folder", () => {
    expect(resolvePageHref("flow.md", "architecture", true)).toBe("architecture/flow");
    expect(resolvePageHref("../decisions/", "architecture", true)).toBe("decisions");
    expect(resolvePageHref("README.md", "architecture", true)).toBe("architecture");
  });

  test("a dotted name is reachable through its .md file name", () => {
    expect(from("v1.2-notes.md")).toBe("guides/v1.2-notes");
    expect(from("v1.2-notes")).toBeNull();
  });

  test("other extensions are file links", () => {
    for (const href of ["diagram.png", "notes.markdown", "page.MD", "README.txt", ".md", "x.md.bak"]) {
      expect(from(href)).toBeNull();
    }
  });
});

describe("resolvePageHref: decoding and cleanup", () => {
  test("percent escapes are decoded", () => {
    expect(resolvePageHref("%E6%97%A5%E6%9C%AC", "README", true)).toBe("日本");
    expect(resolvePageHref("caf%C3%A9.md", "a/b", false)).toBe("a/café");
  });

  test("a malformed escape is not a page link", () => {
    expect(resolvePageHref("bad%E0%A4", "a/b", false)).toBeNull();
  });

  test("empty and dot segments are skipped", () => {
    expect(resolvePageHref("a//./b", "x/y", false)).toBe("x/a/b");
  });

  test("the href is trimmed and a fragment is dropped", () => {
    expect(resolvePageHref("  other#part  ", "a/b", false)).toBe("a/other");
    expect(resolvePageHref("other#", "a/b", false)).toBe("a/other");
  });

  test("self-links resolve like any other", () => {
    expect(resolvePageHref("b", "a/b", false)).toBe("a/b");
  });
});
