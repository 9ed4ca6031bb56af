import { describe, expect, test } from "vitest";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { page, writeWiki, type Sandbox } from "../support/cli.js";
import {
  BASE_TIME,
  almanac,
  expectFailure,
  expectJsonFailure,
  expectOk,
  expectSyntaxScreen,
  freshSandboxes,
  setMtime,
} from "./helpers.js";

const TOPICS_YAML = `# Topic graph for the wiki
topics:
  # the root of everything
  - slug: concepts
    title: Concepts
    description: Core ideas
    parents: []
  - slug: security # keep this first among the domains
    title: Security
    parents: []
  - slug: auth
    title: Auth
    parents: [security]
  - slug: tokens
    parents:
      - auth # tokens are an auth detail
`;

const LOGIN = `---
# who owns this: the auth team
title: Login
topics:
  - auth # primary
  - concepts
sources: []
---

# Login

How login works. [A link](jwt).
`;

function authWiki(box: Sandbox): string {
  return writeWiki(
    join(box.dir, "repo"),
    {
      "login.md": LOGIN,
      "jwt.md": page({ title: "JWT", topics: ["tokens"], sources: [], body: "Tokens." }),
      "policy.md": page({ title: "Policy", topics: ["security"], sources: [], body: "Policy." }),
      "runbook.md": page({ title: "Runbook", topics: ["ops"], sources: [], body: "Ad hoc topic." }),
    },
    TOPICS_YAML,
  );
}

const topicsFile = (repo: string) => readFileSync(almanac(repo, "topics.yaml"), "utf8");

describe("topics: reading", () => {
  const fresh = freshSandboxes();

  test("`topics` lists every topic (declared, parent-only and ad hoc) with direct page counts", () => {
    const box = fresh();
    const repo = authWiki(box);
    const result = expectOk(box.run(["topics"], { cwd: repo }));
    expect(result.stdout).toBe(
      [
        "TOPIC     PAGES      TITLE",
        "auth      (1 page)   Auth",
        "concepts  (2 pages)  Concepts",
        "ops       (1 page)   — (not declared in topics.yaml: `codealmanac topics create <slug>` declares it)",
        "security  (1 page)   Security",
        "tokens    (1 page)   Tokens",
        "",
      ].join("\n"),
    );
  });

  test("`topics --json` has slug, title, description, parents, children and page_count", () => {
    const box = fresh();
    const repo = authWiki(box);
    const topics = expectOk(box.run(["topics", "--json"], { cwd: repo })).json<Record<string, unknown>[]>();
    expect(topics).toEqual([
      { slug: "auth", title: "Auth", declared: true, description: null, parents: ["security"], children: ["tokens"], page_count: 1 },
      { slug: "concepts", title: "Concepts", declared: true, description: "Core ideas", parents: [], children: [], page_count: 2 },
      // Only a page names it: its title is made from the slug, and it says so.
      { slug: "ops", title: "Ops", declared: false, description: null, parents: [], children: [], page_count: 1 },
      { slug: "security", title: "Security", declared: true, description: null, parents: [], children: ["auth"], page_count: 1 },
      { slug: "tokens", title: "Tokens", declared: true, description: null, parents: ["auth"], children: [], page_count: 1 },
    ]);
  });

  test("a wiki without topics says how to create one", () => {
    const box = fresh();
    const repo = writeWiki(
      join(box.dir, "repo"),
      { "README.md": page({ title: "Home", body: "Hello." }) },
      "topics: []\n",
    );
    const result = expectOk(box.run(["topics"], { cwd: repo }));
    expect(result.stdout).toBe("no topics. create one with `codealmanac topics create <name>` or tag a page.\n");
    expect(expectOk(box.run(["topics", "--json"], { cwd: repo })).stdout).toBe("[]\n");
  });

  test("`topics show` prints parents, children and directly tagged pages", () => {
    const box = fresh();
    const repo = authWiki(box);
    const result = expectOk(box.run(["topics", "show", "security"], { cwd: repo }));
    expect(result.stdout).toBe(
      [
        "slug:         security",
        "title:        Security",
        "description:  —",
        "parents:      —",
        "children:     auth",
        "pages:",
        "  policy",
        "",
      ].join("\n"),
    );
  });

  test("`topics show --descendants` includes pages of every narrower topic", () => {
    const box = fresh();
    const repo = authWiki(box);
    const result = expectOk(box.run(["topics", "show", "security", "--descendants"], { cwd: repo }));
    expect(result.stdout).toContain("pages (incl. descendants):\n  jwt\n  login\n  policy\n");
    const json = expectOk(box.run(["topics", "show", "security", "--descendants", "--json"], { cwd: repo })).json();
    expect(json).toEqual({
      slug: "security",
      title: "Security",
      declared: true,
      description: null,
      parents: [],
      children: ["auth"],
      pages: ["jwt", "login", "policy"],
      includes_descendants: true,
    });
  });

  test("`topics show --json` without descendants", () => {
    const box = fresh();
    const repo = authWiki(box);
    const json = expectOk(box.run(["topics", "show", "Auth", "--json"], { cwd: repo })).json();
    expect(json).toEqual({
      slug: "auth",
      title: "Auth",
      declared: true,
      description: null,
      parents: ["security"],
      children: ["tokens"],
      pages: ["login"],
      includes_descendants: false,
    });
  });

  test("a topic without pages shows an em dash", () => {
    const box = fresh();
    const repo = writeWiki(join(box.dir, "repo"), {}, "topics:\n  - slug: concepts\n  - slug: lonely\n    description: Nobody here\n");
    const result = expectOk(box.run(["topics", "show", "lonely"], { cwd: repo }));
    expect(result.stdout).toBe(
      ["slug:         lonely", "title:        Lonely", "description:  Nobody here", "parents:      —", "children:     —", "pages:", "  —", ""].join(
        "\n",
      ),
    );
  });

  test("an unknown topic is not found, plain and under --json", () => {
    const box = fresh();
    const repo = authWiki(box);
    expectFailure(box.run(["topics", "show", "nope"], { cwd: repo }), "topic not found: nope");
    expectJsonFailure(box.run(["topics", "show", "nope", "--json"], { cwd: repo }), "not_found", "topic not found: nope");
  });

  test("`topics list` is a syntax error that points at `codealmanac topics`", () => {
    const box = fresh();
    const repo = authWiki(box);
    const screen = expectSyntaxScreen(box.run(["topics", "list"], { cwd: repo }), "Unknown command");
    expect(screen).toContain("Use this instead:\n  codealmanac topics\n");
    expect(screen).toContain("Topic commands");
  });

  test("an unknown topics subcommand is a syntax error", () => {
    const box = fresh();
    const repo = authWiki(box);
    const screen = expectSyntaxScreen(box.run(["topics", "frobnicate"], { cwd: repo }), "Unknown command");
    expect(screen).toContain("Topic commands");
  });

  test("--wiki is accepted before and after the subcommand", () => {
    const box = fresh();
    const repo = authWiki(box);
    expectOk(box.run(["topics"], { cwd: repo })); // registers "repo"
    const elsewhere = box.home;
    for (const args of [
      ["topics", "--wiki", "repo", "show", "auth", "--json"],
      ["topics", "show", "auth", "--wiki", "repo", "--json"],
      ["topics", "show", "--wiki=repo", "auth", "--json"],
    ]) {
      const result = box.run(args, { cwd: elsewhere });
      expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(0);
      expect(result.json<{ slug: string }>().slug).toBe("auth");
    }
    expect(expectOk(box.run(["topics", "--wiki", "repo", "--json"], { cwd: elsewhere })).json<unknown[]>()).toHaveLength(5);
    expect(expectOk(box.run(["topics", "--wiki", "repo", "create", "before"], { cwd: elsewhere })).stdout).toBe("before: created\n");
    expect(expectOk(box.run(["topics", "create", "after", "--wiki", "repo"], { cwd: elsewhere })).stdout).toBe("after: created\n");
    expect(topicsFile(repo)).toContain("- slug: before");
    expect(topicsFile(repo)).toContain("- slug: after");
  });

  test("`--json` given to the group applies to the subcommand", () => {
    const box = fresh();
    const repo = authWiki(box);
    const result = expectOk(box.run(["topics", "--json", "show", "auth"], { cwd: repo }));
    expect(result.json<{ slug: string }>().slug).toBe("auth");
  });
});

describe("topics: mutations", () => {
  const fresh = freshSandboxes();

  test("create appends an entry with the typed title, keeps comments, and the topic is listed", () => {
    const box = fresh();
    const repo = authWiki(box);
    expect(expectOk(box.run(["topics", "create", "Rate Limits", "--parent", "security"], { cwd: repo })).stdout).toBe(
      "rate-limits: created\n",
    );
    const text = topicsFile(repo);
    expect(text.startsWith(TOPICS_YAML)).toBe(true);
    expect(text.slice(TOPICS_YAML.length)).toBe("  - slug: rate-limits\n    title: Rate Limits\n    parents: [security]\n");
    const shown = expectOk(box.run(["topics", "show", "rate-limits", "--json"], { cwd: repo })).json<{ title: string; parents: string[] }>();
    expect(shown.title).toBe("Rate Limits");
    expect(shown.parents).toEqual(["security"]);
  });

  test("create with several parents promotes an ad hoc parent into topics.yaml", () => {
    const box = fresh();
    const repo = authWiki(box);
    const result = expectOk(box.run(["topics", "create", "incidents", "--parent", "security", "--parent", "ops", "--json"], { cwd: repo }));
    expect(result.json()).toEqual({ slug: "incidents", action: "created", changed: true });
    const text = topicsFile(repo);
    expect(text).toContain("  - slug: ops\n    title: Ops\n    parents: []\n");
    expect(text).toContain("  - slug: incidents\n    title: incidents\n    parents: [security, ops]\n");
    expect(text.startsWith(TOPICS_YAML)).toBe(true);
  });

  test("create of an existing topic reports `updated`", () => {
    const box = fresh();
    const repo = authWiki(box);
    expect(expectOk(box.run(["topics", "create", "auth"], { cwd: repo })).stdout).toBe("auth: updated\n");
    expect(expectOk(box.run(["topics", "create", "ops", "--json"], { cwd: repo })).json()).toEqual({
      slug: "ops",
      action: "updated",
      changed: true,
    });
  });

  test("create refuses an unknown parent and a self parent, writing nothing", () => {
    const box = fresh();
    const repo = authWiki(box);
    expectFailure(box.run(["topics", "create", "x", "--parent", "nope"], { cwd: repo }), "topic not found: nope");
    expectFailure(box.run(["topics", "create", "x", "--parent", "X"], { cwd: repo }), "topic cannot be its own parent");
    expectJsonFailure(box.run(["topics", "create", "x", "--parent", "nope", "--json"], { cwd: repo }), "not_found", "topic not found: nope");
    expect(topicsFile(repo)).toBe(TOPICS_YAML);
  });

  test("create refuses a name without letters or digits", () => {
    const box = fresh();
    const repo = authWiki(box);
    expectFailure(box.run(["topics", "create", "!!!"], { cwd: repo }), /^codealmanac: topic must contain a letter or digit/);
    expect(topicsFile(repo)).toBe(TOPICS_YAML);
  });

  test("describe sets a description and an empty text removes it", () => {
    const box = fresh();
    const repo = authWiki(box);
    expect(expectOk(box.run(["topics", "describe", "auth", "  Sign-in and sessions  "], { cwd: repo })).stdout).toBe("auth: described\n");
    expect(topicsFile(repo)).toContain("description: Sign-in and sessions");
    expect(expectOk(box.run(["topics", "show", "auth", "--json"], { cwd: repo })).json<{ description: string }>().description).toBe(
      "Sign-in and sessions",
    );
    expect(expectOk(box.run(["topics", "describe", "auth", "", "--json"], { cwd: repo })).json()).toEqual({
      slug: "auth",
      action: "described",
      changed: true,
    });
    expect(topicsFile(repo)).toBe(TOPICS_YAML);
    expect(expectOk(box.run(["topics", "show", "auth", "--json"], { cwd: repo })).json<{ description: unknown }>().description).toBeNull();
  });

  test("describe removes a description that was in the original file", () => {
    const box = fresh();
    const repo = authWiki(box);
    expectOk(box.run(["topics", "describe", "concepts", ""], { cwd: repo }));
    expect(topicsFile(repo)).not.toContain("description");
    expect(topicsFile(repo)).toContain("# the root of everything");
  });

  test("describe of an unknown topic is not found", () => {
    const box = fresh();
    const repo = authWiki(box);
    expectFailure(box.run(["topics", "describe", "nope", "text"], { cwd: repo }), "topic not found: nope");
  });

  test("describe a missing description argument is a syntax error", () => {
    const box = fresh();
    const repo = authWiki(box);
    expectSyntaxScreen(box.run(["topics", "describe", "auth"], { cwd: repo }), "Missing argument");
  });

  test("link adds an edge; linking again is a no-op that writes nothing", () => {
    const box = fresh();
    const repo = authWiki(box);
    expect(expectOk(box.run(["topics", "link", "tokens", "concepts"], { cwd: repo })).stdout).toBe("linked tokens -> concepts\n");
    expect(expectOk(box.run(["topics", "show", "tokens", "--json"], { cwd: repo })).json<{ parents: string[] }>().parents).toEqual([
      "auth",
      "concepts",
    ]);
    const path = almanac(repo, "topics.yaml");
    setMtime(path, BASE_TIME);
    const before = readFileSync(path, "utf8");
    expect(expectOk(box.run(["topics", "link", "tokens", "concepts"], { cwd: repo })).stdout).toBe("edge tokens -> concepts already exists\n");
    expect(expectOk(box.run(["topics", "link", "tokens", "concepts", "--json"], { cwd: repo })).json()).toEqual({
      slug: "tokens",
      parent: "concepts",
      action: "unchanged",
      changed: false,
    });
    expect(readFileSync(path, "utf8")).toBe(before);
    expect(statSync(path).mtimeMs).toBe(BASE_TIME * 1000);
    expect(topicsFile(repo)).toContain("# tokens are an auth detail");
  });

  test("link --json reports the new edge", () => {
    const box = fresh();
    const repo = authWiki(box);
    expect(expectOk(box.run(["topics", "link", "ops", "security", "--json"], { cwd: repo })).json()).toEqual({
      slug: "ops",
      parent: "security",
      action: "linked",
      changed: true,
    });
    expect(topicsFile(repo)).toContain("- slug: ops");
  });

  test("link refuses a cycle (conflict) and a self parent, writing nothing", () => {
    const box = fresh();
    const repo = authWiki(box);
    expectFailure(box.run(["topics", "link", "security", "tokens"], { cwd: repo }), "adding tokens as parent of security would create a cycle");
    expectJsonFailure(
      box.run(["topics", "link", "security", "tokens", "--json"], { cwd: repo }),
      "conflict",
      "adding tokens as parent of security would create a cycle",
    );
    expectFailure(box.run(["topics", "link", "auth", "Auth"], { cwd: repo }), "topic cannot be its own parent");
    expectJsonFailure(box.run(["topics", "link", "auth", "auth", "--json"], { cwd: repo }), "validation_failed", "topic cannot be its own parent");
    expect(topicsFile(repo)).toBe(TOPICS_YAML);
  });

  test("link refuses unknown topics", () => {
    const box = fresh();
    const repo = authWiki(box);
    expectFailure(box.run(["topics", "link", "nope", "auth"], { cwd: repo }), "topic not found: nope");
    expectFailure(box.run(["topics", "link", "auth", "nope"], { cwd: repo }), "topic not found: nope");
    expect(topicsFile(repo)).toBe(TOPICS_YAML);
  });

  test("unlink removes an edge; with no edge it says so and exits 0", () => {
    const box = fresh();
    const repo = authWiki(box);
    expect(expectOk(box.run(["topics", "unlink", "auth", "security"], { cwd: repo })).stdout).toBe("unlinked auth -> security\n");
    expect(expectOk(box.run(["topics", "show", "auth", "--json"], { cwd: repo })).json<{ parents: string[] }>().parents).toEqual([]);
    expect(expectOk(box.run(["topics", "unlink", "auth", "security"], { cwd: repo })).stdout).toBe("no edge auth -> security\n");
    expect(expectOk(box.run(["topics", "unlink", "nope", "security", "--json"], { cwd: repo })).json()).toEqual({
      slug: "nope",
      parent: "security",
      action: "unchanged",
      changed: false,
    });
    expect(topicsFile(repo)).toContain("# tokens are an auth detail");
  });

  test("unlink --json reports the removed edge, and a block-list parent keeps its neighbours' comments", () => {
    const box = fresh();
    const repo = authWiki(box);
    expect(expectOk(box.run(["topics", "unlink", "tokens", "auth", "--json"], { cwd: repo })).json()).toEqual({
      slug: "tokens",
      parent: "auth",
      action: "unlinked",
      changed: true,
    });
    expect(topicsFile(repo)).toContain("# Topic graph for the wiki");
    expect(expectOk(box.run(["topics", "show", "tokens", "--json"], { cwd: repo })).json<{ parents: string[] }>().parents).toEqual([]);
  });

  test("rename rewrites topics.yaml and every tagged page, preserving comments and bodies", () => {
    const box = fresh();
    const repo = authWiki(box);
    expect(expectOk(box.run(["topics", "rename", "auth", "identity"], { cwd: repo })).stdout).toBe("renamed auth -> identity (1 page updated)\n");
    const text = topicsFile(repo);
    expect(text).not.toMatch(/\bauth\b(?! detail)/);
    expect(text).toContain("- slug: identity");
    expect(text).toContain("# tokens are an auth detail");
    expect(text).toContain("# keep this first among the domains");
    const login = readFileSync(almanac(repo, "login.md"), "utf8");
    expect(login).toBe(LOGIN.replace("  - auth # primary", "  - identity # primary"));
    const shown = expectOk(box.run(["topics", "show", "identity", "--json"], { cwd: repo })).json<Record<string, unknown>>();
    expect(shown.parents).toEqual(["security"]);
    expect(shown.children).toEqual(["tokens"]);
    expect(shown.pages).toEqual(["login"]);
    expectFailure(box.run(["topics", "show", "auth"], { cwd: repo }), "topic not found: auth");
    expect(expectOk(box.run(["search", "--topic", "identity", "--json"], { cwd: repo })).json<{ slug: string }[]>().map((h) => h.slug).sort()).toEqual([
      "jwt",
      "login",
    ]);
  });

  test("rename --json counts the pages it rewrote; an ad hoc topic renames in pages only", () => {
    const box = fresh();
    const repo = authWiki(box);
    expect(expectOk(box.run(["topics", "rename", "ops", "operations", "--json"], { cwd: repo })).json()).toEqual({
      slug: "operations",
      old_slug: "ops",
      action: "renamed",
      changed: true,
      pages_updated: 1,
    });
    expect(readFileSync(almanac(repo, "runbook.md"), "utf8")).toContain("topics: [operations]");
    expect(topicsFile(repo)).toBe(TOPICS_YAML);
  });

  test("rename to an existing topic is a conflict; to the same slug it is unchanged", () => {
    const box = fresh();
    const repo = authWiki(box);
    expectFailure(
      box.run(["topics", "rename", "auth", "security"], { cwd: repo }),
      'topic "security" already exists; delete it first if you intend to merge',
    );
    expectJsonFailure(box.run(["topics", "rename", "auth", "ops", "--json"], { cwd: repo }), "conflict", /^topic "ops" already exists/);
    expect(expectOk(box.run(["topics", "rename", "auth", "Auth"], { cwd: repo })).stdout).toBe("topic auth unchanged\n");
    expectFailure(box.run(["topics", "rename", "nope", "other"], { cwd: repo }), "topic not found: nope");
    expect(topicsFile(repo)).toBe(TOPICS_YAML);
    expect(readFileSync(almanac(repo, "login.md"), "utf8")).toBe(LOGIN);
  });

  test("delete removes the entry, its parent references and every page tag", () => {
    const box = fresh();
    const repo = authWiki(box);
    expect(expectOk(box.run(["topics", "delete", "security"], { cwd: repo })).stdout).toBe("deleted security (1 page untagged)\n");
    const text = topicsFile(repo);
    expect(text).not.toContain("security");
    expect(text).toContain("# Topic graph for the wiki");
    expect(text).toContain("# tokens are an auth detail");
    expect(readFileSync(almanac(repo, "policy.md"), "utf8")).toContain("topics: []");
    expect(readFileSync(almanac(repo, "policy.md"), "utf8")).toContain("\nPolicy.\n");
    expect(expectOk(box.run(["topics", "show", "auth", "--json"], { cwd: repo })).json<{ parents: string[] }>().parents).toEqual([]);
    expectFailure(box.run(["topics", "show", "security"], { cwd: repo }), "topic not found: security");
  });

  test("delete --json counts pages; pages are never deleted", () => {
    const box = fresh();
    const repo = authWiki(box);
    expect(expectOk(box.run(["topics", "delete", "auth", "--json"], { cwd: repo })).json()).toEqual({
      slug: "auth",
      action: "deleted",
      changed: true,
      pages_updated: 1,
    });
    const login = readFileSync(almanac(repo, "login.md"), "utf8");
    expect(login).toBe(LOGIN.replace("  - auth # primary\n", ""));
    expect(expectOk(box.run(["show", "login", "--topics"], { cwd: repo })).stdout).toBe("concepts\n");
  });

  test("delete of an unknown topic is not found", () => {
    const box = fresh();
    const repo = authWiki(box);
    expectFailure(box.run(["topics", "delete", "nope"], { cwd: repo }), "topic not found: nope");
    expectJsonFailure(box.run(["topics", "delete", "nope", "--json"], { cwd: repo }), "not_found", "topic not found: nope");
  });

  test("mutations refuse a malformed topics.yaml and never overwrite it", () => {
    const box = fresh();
    const broken = "topics:\n  - slug: concepts\n    parents: [unclosed\n";
    const repo = writeWiki(join(box.dir, "repo"), {}, broken);
    expectFailure(box.run(["topics", "create", "x"], { cwd: repo }), /^codealmanac: invalid topics\.yaml: /);
    expectJsonFailure(box.run(["topics", "describe", "concepts", "x", "--json"], { cwd: repo }), "validation_failed", /^invalid topics\.yaml: /);
    expect(topicsFile(repo)).toBe(broken);
    // Reads keep working: the page topics still form an ad hoc topic set.
    expect(expectOk(box.run(["topics", "--json"], { cwd: repo })).json<{ slug: string }[]>().map((t) => t.slug)).toEqual(["concepts"]);
  });

  test("topics.yaml with CRLF line endings keeps them after a mutation", () => {
    const box = fresh();
    const crlf = TOPICS_YAML.replace(/\n/g, "\r\n");
    const repo = writeWiki(join(box.dir, "repo"), { "login.md": LOGIN }, crlf);
    expectOk(box.run(["topics", "create", "extra"], { cwd: repo }));
    const text = topicsFile(repo);
    expect(text.startsWith(crlf)).toBe(true);
    expect(text.replace(/\r\n/g, "")).not.toContain("\n");
  });
});
