import { describe, expect, test } from "vitest";
import { walkRepositoryPath } from "../../src/wiki/repository-path.js";

/** The one walk that makes a written path repository-relative (file sources, rendered links, viewer and MCP paths). */

const resolve = (text: string, from?: string[]) => walkRepositoryPath(text, from ? { climb: "resolve", from } : { climb: "resolve" });
const refuse = (text: string) => walkRepositoryPath(text, { climb: "refuse" });

describe("walking a path", () => {
  test("drops empty and . segments, reads \\ as /, and a trailing /, . or .. names a folder", () => {
    expect(resolve("src//lib/./x.ts")).toEqual({ path: "src/lib/x.ts", isDir: false });
    expect(resolve("src\\lib\\x.ts")).toEqual({ path: "src/lib/x.ts", isDir: false });
    expect(resolve("src/")).toEqual({ path: "src/", isDir: true });
    expect(resolve("src/.")).toEqual({ path: "src/", isDir: true });
    expect(resolve("src/lib/..")).toEqual({ path: "src/", isDir: true });
    expect(resolve("src/lib/../x.ts")).toEqual({ path: "src/x.ts", isDir: false });
  });

  test("nothing left is the root", () => {
    for (const text of ["", ".", "./", "src/..", "//"]) expect(resolve(text), text).toEqual({ path: "", isDir: true });
  });

  test("climbs from the folder it starts in, never above the root", () => {
    expect(resolve("../x.ts", ["almanac", "guides"])).toEqual({ path: "almanac/x.ts", isDir: false });
    expect(resolve("../../src/", ["almanac", "guides"])).toEqual({ path: "src/", isDir: true });
    expect(resolve("x.md", ["almanac"])).toEqual({ path: "almanac/x.md", isDir: false });
    expect(resolve("../../../x", ["almanac", "guides"])).toBeNull();
    expect(resolve("..")).toBeNull();
  });

  test("refusing climbs, any .. is no path at all", () => {
    expect(refuse("src/lib/x.ts")).toEqual({ path: "src/lib/x.ts", isDir: false });
    expect(refuse("src/lib/../x.ts")).toBeNull();
    expect(refuse("..")).toBeNull();
    expect(refuse("a..b/c")).toEqual({ path: "a..b/c", isDir: false });
  });
});
