import { describe, expect, test } from "vitest";
import { git, gitRepo, makeService, resolveError, tempDir, testEnv } from "./helpers.js";

function setup(extra: NodeJS.ProcessEnv = {}) {
  const repo = gitRepo();
  const service = makeService(testEnv(tempDir("ca-sources-home-"), extra));
  return { repo, service, ctx: { cwd: repo, repositoryRoot: repo } };
}

describe("GitHub addresses", () => {
  test("every spelling resolves without a network call", async () => {
    const { service, ctx } = setup();
    const refs = await service.resolve(
      [
        "github:pr:12",
        "github:issue:7",
        "github:acme/widgets#3",
        "github:acme/widgets/pull/4",
        "github:acme/widgets.git/issues/5",
        "https://github.com/acme/widgets/pull/12/files",
        "https://www.github.com/acme/widgets/issues/7",
      ],
      ctx,
    );
    expect(refs.map(({ kind, title, number, repository, url, kindPending }) => ({ kind, title, number, repository, url, kindPending }))).toEqual([
      { kind: "github_pr", title: "GitHub pull request #12", number: 12, repository: undefined, url: undefined, kindPending: undefined },
      { kind: "github_issue", title: "GitHub issue #7", number: 7, repository: undefined, url: undefined, kindPending: undefined },
      { kind: "github_issue", title: "GitHub issue or pull request acme/widgets#3", number: 3, repository: "acme/widgets", url: undefined, kindPending: true },
      { kind: "github_pr", title: "GitHub pull request acme/widgets#4", number: 4, repository: "acme/widgets", url: "https://github.com/acme/widgets/pull/4", kindPending: undefined },
      { kind: "github_issue", title: "GitHub issue acme/widgets#5", number: 5, repository: "acme/widgets", url: "https://github.com/acme/widgets/issues/5", kindPending: undefined },
      { kind: "github_pr", title: "GitHub pull request acme/widgets#12", number: 12, repository: "acme/widgets", url: "https://github.com/acme/widgets/pull/12", kindPending: undefined },
      { kind: "github_issue", title: "GitHub issue acme/widgets#7", number: 7, repository: "acme/widgets", url: "https://github.com/acme/widgets/issues/7", kindPending: undefined },
    ]);
  });

  test("a bare number is pinned to the repository gh would pick from the remotes", async () => {
    const { repo, service, ctx } = setup();
    git(repo, "remote", "add", "origin", "git@github.com:me/fork.git");
    git(repo, "remote", "add", "upstream", "https://github.com/acme/widgets.git");
    const [ref] = await service.resolve(["github:pr:12"], ctx);
    expect(ref).toMatchObject({ title: "GitHub pull request acme/widgets#12", repository: "acme/widgets", url: "https://github.com/acme/widgets/pull/12" });
    git(repo, "config", "remote.origin.gh-resolved", "base");
    const [chosen] = await service.resolve(["github:pr:12"], ctx);
    expect(chosen!.repository).toBe("me/fork");
  });

  test("a remote on another host leaves the choice to gh", async () => {
    const { repo, service, ctx } = setup();
    git(repo, "remote", "add", "origin", "https://ghe.example.com/acme/widgets.git");
    const [ref] = await service.resolve(["github:issue:3"], ctx);
    expect(ref!.repository).toBeUndefined();
  });

  test("malformed addresses are one-line errors", async () => {
    const { repo, service } = setup();
    const forms = "github:pr:<n>, github:issue:<n>, github:<owner>/<repo>#<n>, …/pull/<n> or …/issues/<n>";
    expect(await resolveError(service, ["github:pull:12"], repo)).toBe(`invalid GitHub address: github:pull:12 (expected ${forms})`);
    expect(await resolveError(service, ["github:acme"], repo)).toBe(`invalid GitHub address: github:acme (expected ${forms})`);
    expect(await resolveError(service, ["github:pr:0"], repo)).toBe("GitHub number must be a positive whole number: github:pr:0");
    expect(await resolveError(service, ["github:pr:-3"], repo)).toBe("GitHub number must be a positive whole number: github:pr:-3");
    expect(await resolveError(service, ["github:acme/widgets#x"], repo)).toBe("GitHub number must be a positive whole number: github:acme/widgets#x");
    expect(await resolveError(service, ["https://github.com/acme/widgets/pull/abc"], repo)).toBe(
      "GitHub number must be a positive whole number: https://github.com/acme/widgets/pull/abc",
    );
  });

  test("gh must be installed", async () => {
    const { repo } = setup();
    const service = makeService(testEnv(tempDir("ca-sources-home-"), { PATH: tempDir() }));
    expect(await resolveError(service, ["github:pr:1"], repo)).toBe(
      "gh not found on PATH: install the GitHub CLI (https://cli.github.com) to ingest pull requests and issues",
    );
  });

  test("gh must be logged in, unless a token is in the environment", async () => {
    const { repo, service } = setup({ FAKE_GH_SCENARIO: "logged-out" });
    expect(await resolveError(service, ["https://github.com/acme/widgets/pull/1"], repo)).toBe("gh is not logged in: run `gh auth login`");
    for (const variable of ["GH_TOKEN", "GITHUB_TOKEN"]) {
      const withToken = makeService(testEnv(tempDir("ca-sources-home-"), { FAKE_GH_SCENARIO: "logged-out", [variable]: "t0ken" }));
      await expect(withToken.resolve(["github:pr:1"], { cwd: repo, repositoryRoot: repo })).resolves.toHaveLength(1);
    }
  });

  test("other github.com URLs are ordinary web pages", async () => {
    const { service, ctx } = setup({ PATH: tempDir() });
    const [ref] = await service.resolve(["https://github.com/acme/widgets/blob/main/README.md"], ctx);
    expect(ref).toMatchObject({ kind: "url", url: "https://github.com/acme/widgets/blob/main/README.md" });
  });
});
