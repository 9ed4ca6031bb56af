import { afterEach, describe, expect, test } from "vitest";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stateRootHazard } from "../../src/setup/state-root.js";

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function fresh(): string {
  dir = mkdtempSync(join(tmpdir(), "ca-state-root-"));
  return dir;
}

describe("which state directories uninstall may delete", () => {
  test("the usual one under home", () => {
    const home = join(fresh(), "home");
    expect(stateRootHazard({ root: join(home, ".codealmanac"), home, repositoryRoots: [join(dir, "repo")] })).toBeNull();
  });

  test("never the filesystem root, home, or a parent of home", () => {
    const home = join(fresh(), "users", "me");
    expect(stateRootHazard({ root: "/", home, repositoryRoots: [] })).toBe("it is the filesystem root");
    expect(stateRootHazard({ root: home, home, repositoryRoots: [] })).toBe("it is your home folder or contains it");
    expect(stateRootHazard({ root: join(dir, "users"), home, repositoryRoots: [] })).toBe("it is your home folder or contains it");
  });

  test("never a folder holding a registered repository, or one that looks like a repository", () => {
    const root = join(fresh(), "state");
    const home = join(dir, "home");
    expect(stateRootHazard({ root, home, repositoryRoots: [join(root, "work", "app")] })).toBe(`it contains the repository ${join(root, "work", "app")}`);
    expect(stateRootHazard({ root, home, repositoryRoots: [join(dir, "state-2")] })).toBeNull();
    mkdirSync(join(root, "almanac"), { recursive: true });
    expect(stateRootHazard({ root, home, repositoryRoots: [] })).toBe("it looks like a repository");
  });
});
