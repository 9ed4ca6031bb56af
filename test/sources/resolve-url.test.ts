import { describe, expect, test } from "vitest";
import { makeService, resolveError, tempDir, testEnv } from "./helpers.js";

describe("URL addresses", () => {
  test("http and https URLs are checked for syntax and normalized, not fetched", async () => {
    const repo = tempDir();
    const service = makeService(testEnv(tempDir()), {}, () => {
      throw new Error("queue time must not fetch");
    });
    const refs = await service.resolve(["https://Example.COM", "HTTP://example.com/a b?x=1#frag"], { cwd: repo, repositoryRoot: repo });
    expect(refs).toEqual([
      { address: "https://Example.COM", kind: "url", title: "Web page https://example.com/", url: "https://example.com/" },
      { address: "HTTP://example.com/a b?x=1#frag", kind: "url", title: "Web page http://example.com/a%20b?x=1#frag", url: "http://example.com/a%20b?x=1#frag" },
    ]);
  });

  test("a malformed URL is refused", async () => {
    const repo = tempDir();
    const service = makeService(testEnv(tempDir()));
    expect(await resolveError(service, ["https://"], repo)).toBe("invalid URL: https://");
    expect(await resolveError(service, ["http://exa mple.com/"], repo)).toBe("invalid URL: http://exa mple.com/");
  });
});
