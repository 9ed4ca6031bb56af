import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Affiliator, mainCheckoutPath } from "../../src/repositories/affiliation.js";
import type { Repository } from "../../src/repositories/model.js";

let dir: string;
const repo = (name: string, rootPath: string): Repository => ({ repositoryId: `repo_${name}`, name, description: "", rootPath, registeredAt: 0 });
const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, stdio: "pipe", env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null" } });

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "ca-affiliation-")));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("Affiliator", () => {
  it("matches the root, a subdirectory, and prefers the deepest registered root", () => {
    const outer = join(dir, "mono");
    const inner = join(outer, "services", "api");
    mkdirSync(join(inner, "src"), { recursive: true });
    const affiliator = new Affiliator([repo("mono", outer), repo("api", inner)]);
    expect(affiliator.affiliate(outer)).toMatchObject({ ok: true, kind: "root", repository: { name: "mono" } });
    expect(affiliator.affiliate(join(outer, "services"))).toMatchObject({ ok: true, kind: "subdirectory", repository: { name: "mono" } });
    expect(affiliator.affiliate(join(inner, "src"))).toMatchObject({ ok: true, kind: "subdirectory", repository: { name: "api" } });
  });

  it("does not match a sibling whose name only starts with the root's", () => {
    mkdirSync(join(dir, "app"), { recursive: true });
    mkdirSync(join(dir, "app-2"), { recursive: true });
    expect(new Affiliator([repo("app", join(dir, "app"))]).affiliate(join(dir, "app-2"))).toEqual({ ok: false, reason: "unregistered-cwd" });
  });

  it("follows a symlinked path to the repository", () => {
    mkdirSync(join(dir, "real", "lib"), { recursive: true });
    symlinkSync(join(dir, "real"), join(dir, "link"));
    const affiliator = new Affiliator([repo("real", join(dir, "real"))]);
    expect(affiliator.affiliate(join(dir, "link", "lib"))).toMatchObject({ ok: true, kind: "symlink", repository: { name: "real" } });
  });

  it("maps a linked git worktree (and a folder inside it) to its main checkout", () => {
    const main = join(dir, "main");
    mkdirSync(main);
    git(main, "init", "-q");
    writeFileSync(join(main, "a.txt"), "a");
    git(main, "add", ".");
    git(main, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "a");
    const tree = join(dir, "trees", "feature");
    git(main, "worktree", "add", "-q", tree);
    mkdirSync(join(tree, "pkg"));
    expect(mainCheckoutPath(join(tree, "pkg"))).toBe(join(main, "pkg"));
    const affiliator = new Affiliator([repo("main", main)]);
    expect(affiliator.affiliate(tree)).toMatchObject({ ok: true, kind: "worktree", repository: { name: "main" } });
    expect(affiliator.affiliate(join(tree, "pkg"))).toMatchObject({ ok: true, kind: "worktree" });
    expect(mainCheckoutPath(main)).toBeNull();
  });

  it("reports a directory that no longer exists, and one that is simply not registered", () => {
    mkdirSync(join(dir, "elsewhere"));
    const affiliator = new Affiliator([repo("x", join(dir, "x"))]);
    expect(affiliator.affiliate(join(dir, "gone"))).toEqual({ ok: false, reason: "cwd-missing" });
    expect(affiliator.affiliate(join(dir, "elsewhere"))).toEqual({ ok: false, reason: "unregistered-cwd" });
  });
});
