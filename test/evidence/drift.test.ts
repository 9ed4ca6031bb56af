import { afterEach, describe, expect, test } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { page, sandbox, writeWiki, type Sandbox } from "../support/cli.js";
import { fileFingerprint, fileLines, rangeFingerprint } from "../../src/wiki/evidence.js";

type Source = { id: string; path: string; lines: string | null; status: string; commits: string[]; reason: string };
type DriftJson = { head: string | null; notice?: string; pages: { slug: string; status: string; verified_at: string | null; sources: Source[] }[] };

const boxes: Sandbox[] = [];
afterEach(() => {
  for (const box of boxes.splice(0)) box.cleanup();
});

/** A repository with a wiki page citing `sources`, its files written as given, everything committed. */
function repository(files: Record<string, string>, sources: Record<string, string>[]) {
  const box = sandbox();
  boxes.push(box);
  const root = join(box.dir, "repo");
  mkdirSync(root);
  const git = (...args: string[]) => {
    const result = spawnSync("git", args, { cwd: root, env: box.env, encoding: "utf8" });
    if (result.status !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
    return result.stdout.trim();
  };
  git("init", "-q", "-b", "main");
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  for (const [path, text] of Object.entries(files)) write(path, text);
  const wikiPage = (list: Record<string, string>[]) =>
    page({ title: "Queue", topics: ["concepts"], sources: list.map((s) => ({ type: "file", ...s }) as never), body: `# Queue\n\n${list.map((s) => `[@${s.id}]`).join(" ")}` });
  writeWiki(root, { "arch/queue.md": wikiPage(sources) });
  const commit = (message: string) => {
    git("add", "-A");
    git("commit", "-q", "-m", message);
    return git("rev-parse", "HEAD");
  };
  const first = commit("initial");
  const drift = (...args: string[]) => box.run(["drift", "--json", "--all", ...args], { cwd: root });
  const report = (...args: string[]) => {
    const result = drift(...args);
    expect(result.code, result.stderr).toBe(0);
    return result.json<DriftJson>();
  };
  const queuePage = (...args: string[]) => report(...args).pages.find((p) => p.slug === "arch/queue")!;
  return { box, root, git, write, commit, first, drift, report, queuePage, rewritePage: (list: Record<string, string>[]) => write("almanac/arch/queue.md", wikiPage(list)) };
}

const numbered = (count: number, from = 1) => Array.from({ length: count }, (_, i) => `line ${i + from}`).join("\n") + "\n";

describe("ca drift on unstamped evidence (verified at the page's last commit)", () => {
  test("a cited file committed after the page is changed, with that commit; one committed before it is fresh", () => {
    const repo = repository({ "src/a.ts": "one\n", "src/b.ts": "two\n" }, [{ id: "a", path: "src/a.ts" }, { id: "b", path: "src/b.ts" }]);
    repo.write("src/b.ts", "two, edited before the page\n");
    repo.commit("edit b");
    repo.rewritePage([{ id: "a", path: "src/a.ts" }, { id: "b", path: "src/b.ts" }, { id: "c", path: "src/c.ts" }]);
    repo.write("src/c.ts", "three\n");
    const pageCommit = repo.commit("page cites c too");
    expect(repo.queuePage().status).toBe("fresh");

    repo.write("src/a.ts", "one, edited\n");
    const edit = repo.commit("edit a");
    repo.write("src/a.ts", "one, edited again\n");
    const again = repo.commit("edit a again");
    const page = repo.queuePage();
    expect(page.status).toBe("stale");
    expect(page.verified_at).toBe(pageCommit);
    expect(page.sources.map((s) => [s.id, s.status, s.commits])).toEqual([
      ["a", "changed", [again, edit]],
      ["b", "fresh", []],
      ["c", "fresh", []],
    ]);
  });

  test("uncommitted edits to a cited file make it changed, without commits", () => {
    const repo = repository({ "src/a.ts": "one\n" }, [{ id: "a", path: "src/a.ts" }]);
    repo.write("src/a.ts", "one, not committed\n");
    const source = repo.queuePage().sources[0]!;
    expect(source).toMatchObject({ status: "changed", commits: [], reason: "src/a.ts has uncommitted changes" });
  });

  test("a cited block edited is changed; lines moved down by an insertion above are moved", () => {
    const repo = repository({ "src/a.ts": numbered(30) }, [{ id: "block", path: "src/a.ts", lines: "10-12" }]);
    repo.write("src/a.ts", "inserted\ninserted\n" + numbered(30));
    repo.commit("insert above");
    expect(repo.queuePage().sources[0]).toMatchObject({ status: "moved", lines: "10-12", reason: "the cited lines moved to lines 12-14" });
    expect(repo.queuePage().status).toBe("moved");

    repo.write("src/a.ts", "inserted\ninserted\n" + numbered(30).replace("line 11\n", "line eleven\n"));
    const edit = repo.commit("edit the block");
    const page = repo.queuePage();
    expect(page.status).toBe("stale");
    expect(page.sources[0]).toMatchObject({ status: "changed", commits: [edit, expect.any(String)] });
  });

  test("cited lines past the end of the file are missing, whether the file shrank or the page cited too far", () => {
    const repo = repository({ "src/a.ts": numbered(30), "src/short.ts": numbered(5) }, [{ id: "block", path: "src/a.ts", lines: "25-28" }, { id: "far", path: "src/short.ts", lines: "8-9" }]);
    const page = repo.queuePage();
    expect(page.sources[1]).toMatchObject({ status: "missing", reason: "lines 8-9 run past the end of src/short.ts (5 lines)" });
    repo.write("src/a.ts", numbered(20));
    const shrink = repo.commit("shrink a");
    expect(repo.queuePage().sources[0]).toMatchObject({ status: "missing", commits: [shrink], reason: "lines 25-28 run past the end of src/a.ts (20 lines)" });
    expect(repo.queuePage().status).toBe("stale");
  });

  test("lines outside the cited range may change: the source stays fresh", () => {
    const repo = repository({ "src/a.ts": numbered(30) }, [{ id: "block", path: "src/a.ts", lines: "10-12" }]);
    repo.write("src/a.ts", numbered(30).replace("line 25\n", "line twenty-five\n"));
    repo.commit("edit below");
    expect(repo.queuePage().sources[0]!.status).toBe("fresh");
  });

  test("a cited file renamed is moved to its new path; deleted, it is missing", () => {
    const repo = repository({ "src/a.ts": numbered(20) }, [{ id: "a", path: "src/a.ts" }]);
    repo.git("mv", "src/a.ts", "src/renamed.ts");
    repo.commit("rename");
    expect(repo.queuePage().sources[0]).toMatchObject({ status: "moved", reason: "src/a.ts was renamed to src/renamed.ts" });

    repo.git("rm", "-q", "src/renamed.ts");
    const removal = repo.commit("delete");
    const page = repo.queuePage();
    expect(page.status).toBe("stale");
    expect(page.sources[0]).toMatchObject({ status: "missing", commits: [removal] });
  });
});

test("with merges: a commit merged in from another line counts even when the history lists it after the page's commit", () => {
  const repo = repository({ "src/a.ts": "a\n", "src/b.ts": "b\n" }, [{ id: "a", path: "src/a.ts" }, { id: "b", path: "src/b.ts" }]);
  repo.git("checkout", "-q", "-b", "side");
  repo.write("src/b.ts", "b, edited before the page\n");
  repo.commit("side edits b");
  repo.rewritePage([{ id: "a", path: "src/a.ts" }, { id: "b", path: "src/b.ts" }, { id: "b2", path: "src/b.ts" }]);
  const pageCommit = repo.commit("page verified on side");
  repo.git("checkout", "-q", "main");
  repo.write("src/a.ts", "a, edited on main\n");
  const mainEdit = repo.commit("main edits a");
  repo.git("merge", "-q", "--no-edit", "side");
  // git log --topo-order lists "main edits a" after the page's commit, though it is no ancestor of it.
  expect(repo.git("log", "--topo-order", "--format=%H").split("\n").indexOf(mainEdit)).toBeGreaterThan(repo.git("log", "--topo-order", "--format=%H").split("\n").indexOf(pageCommit));
  const page = repo.queuePage();
  expect(page.verified_at).toBe(pageCommit);
  expect(page.sources.map((s) => [s.id, s.status, s.commits])).toEqual([
    ["a", "changed", [mainEdit]],
    ["b", "fresh", []],
    ["b2", "fresh", []],
  ]);
});

describe("ca drift on stamped evidence", () => {
  test("a stamp is compared by fingerprint: fresh, moved by an insertion, changed by an edit", () => {
    const text = numbered(30);
    const stamp = rangeFingerprint(fileLines(text), { start: 5, end: 7 })!;
    const repo = repository({ "src/a.ts": text }, [{ id: "a", path: "src/a.ts", lines: "5-7", fingerprint: stamp }]);
    expect(repo.queuePage().sources[0]!.status).toBe("fresh");
    // Uncommitted, the insertion still moves the stamped lines: stamps compare content.
    repo.write("src/a.ts", "new\n" + text);
    expect(repo.queuePage().sources[0]).toMatchObject({ status: "moved", reason: "the cited lines moved to lines 6-8" });
    repo.write("src/a.ts", text.replace("line 6\n", "line six\n"));
    expect(repo.queuePage().sources[0]).toMatchObject({ status: "changed", reason: "lines 5-7 of src/a.ts has uncommitted changes" });
  });

  test("a whole-file stamp is the file's blob: any edit changes it, with the commits since verified_at", () => {
    const text = "export const a = 1;\n";
    const repo = repository({ "src/a.ts": text }, []);
    repo.rewritePage([{ id: "a", path: "src/a.ts", fingerprint: fileFingerprint(Buffer.from(text)), verified_at: repo.first }]);
    repo.commit("stamp");
    expect(repo.queuePage().sources[0]!.status).toBe("fresh");
    repo.write("src/a.ts", "export const a = 2;\n");
    const edit = repo.commit("edit");
    expect(repo.queuePage().sources[0]).toMatchObject({ status: "changed", commits: [edit] });
  });
});

describe("ca drift modes", () => {
  test("--base reports only the evidence the pull request's commits changed, and --fail-on stale exits 1", () => {
    const repo = repository({ "src/a.ts": "a\n", "src/b.ts": "b\n" }, [{ id: "a", path: "src/a.ts" }, { id: "b", path: "src/b.ts" }]);
    repo.write("src/a.ts", "a, changed on main\n");
    repo.commit("main changes a");
    repo.git("checkout", "-q", "-b", "feature");
    repo.write("src/b.ts", "b, changed in the pull request\n");
    const pr = repo.commit("pr changes b");
    const page = repo.report("--base", "main").pages;
    expect(page).toEqual([
      expect.objectContaining({ slug: "arch/queue", status: "stale", sources: [expect.objectContaining({ id: "b", status: "changed", commits: [pr] })] }),
    ]);
    expect(repo.drift("--base", "main", "--fail-on", "stale").code).toBe(1);
    repo.git("checkout", "-q", "main");
    expect(repo.drift("--base", "main", "--fail-on", "stale").code).toBe(0);
  });

  test("--ref compares with a commit's content instead of the working tree", () => {
    const repo = repository({ "src/a.ts": "a\n" }, [{ id: "a", path: "src/a.ts" }]);
    repo.write("src/a.ts", "a, uncommitted\n");
    expect(repo.queuePage().status).toBe("stale");
    expect(repo.queuePage("--ref", "HEAD").status).toBe("fresh");
    const bad = repo.box.run(["drift", "--ref", "no-such-branch"], { cwd: repo.root });
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim()).toBe("codealmanac: invalid --ref no-such-branch: not a commit in this repository");
  });

  test("outside git, stamped evidence is checked and unstamped evidence is unknown, said once", () => {
    const box = sandbox();
    boxes.push(box);
    const root = join(box.dir, "plain");
    mkdirSync(join(root, "src"), { recursive: true });
    writeFileSync(join(root, "src/a.ts"), "a\n");
    writeFileSync(join(root, "src/b.ts"), "b\n");
    const sources: { id: string; type: string; [key: string]: string }[] = [
      { id: "a", type: "file", path: "src/a.ts", fingerprint: fileFingerprint(Buffer.from("a\n")) },
      { id: "b", type: "file", path: "src/b.ts" },
    ];
    writeWiki(root, { "arch/queue.md": page({ title: "Queue", topics: ["concepts"], sources, body: "# Queue\n\n[@a] [@b]" }) });
    const json = box.run(["drift", "--json", "--all"], { cwd: root }).json<DriftJson>();
    expect(json.head).toBeNull();
    expect(json.notice).toContain("not a git work tree");
    expect(json.pages.find((p) => p.slug === "arch/queue")!.sources.map((s) => s.status)).toEqual(["fresh", "unknown"]);
    writeFileSync(join(root, "src/a.ts"), "a, edited\n");
    const text = box.run(["drift"], { cwd: root });
    expect(text.stdout.match(/not a git work tree/g)).toHaveLength(1);
    expect(text.stdout).toContain("a  src/a.ts  changed: src/a.ts differs from what was verified");
  });

  test("a page not committed yet is fresh until it is; an unknown slug is an error", () => {
    const repo = repository({ "src/a.ts": "a\n" }, [{ id: "a", path: "src/a.ts" }]);
    repo.write("almanac/arch/new.md", page({ title: "New", topics: ["concepts"], sources: [{ id: "a", type: "file", path: "src/a.ts" }], body: "# New\n\n[@a]" }));
    repo.write("src/a.ts", "a, edited\n");
    expect(repo.report().pages.find((p) => p.slug === "arch/new")).toMatchObject({ status: "fresh", verified_at: null });
    const missing = repo.drift("arch/none");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("arch/none");
  });

  test("the text listing names each drifting source with its reason; fresh pages only with --all", () => {
    const repo = repository({ "src/a.ts": "a\n" }, [{ id: "a", path: "src/a.ts" }]);
    expect(repo.box.run(["drift"], { cwd: repo.root }).stdout).toBe(`no drift: 2 pages checked at ${repo.first.slice(0, 10)}\n`);
    repo.write("src/a.ts", "a2\n");
    const head = repo.commit("edit");
    const out = repo.box.run(["drift"], { cwd: repo.root }).stdout;
    expect(out).toBe(
      [
        `stale  arch/queue  verified at ${repo.first.slice(0, 10)}`,
        `  a  src/a.ts  changed in 1 commit since verified: ${head.slice(0, 10)}`,
        `1 stale, 0 moved of 2 pages at ${head.slice(0, 10)}`,
        "",
      ].join("\n"),
    );
  });
});

test("reading a cited file never follows a link out of the repository", () => {
  const repo = repository({ "src/a.ts": "a\n" }, [{ id: "a", path: "src/link.ts", fingerprint: fileFingerprint(Buffer.from("secret\n")) }]);
  const outside = join(repo.box.dir, "outside.ts");
  writeFileSync(outside, "secret\n");
  spawnSync("ln", ["-s", outside, join(repo.root, "src/link.ts")]);
  expect(repo.queuePage().sources[0]).toMatchObject({ status: "unknown", reason: "src/link.ts cannot be read" });
  rmSync(outside);
  expect(readFileSync(join(repo.root, "src/a.ts"), "utf8")).toBe("a\n");
});

describe("the drift cache", () => {
  const fromCache = (result: { stderr: string }) => Number(/drift: (\d+) pages from the cache/.exec(result.stderr)?.[1] ?? "NaN");

  test("an unchanged rerun answers from the cache; an edit, a commit or a staged change judges again only what they touch", () => {
    const repo = repository({ "src/a.ts": "a\n", "src/b.ts": "b\n" }, [{ id: "a", path: "src/a.ts" }]);
    repo.write("almanac/arch/other.md", page({ title: "Other", topics: ["concepts"], sources: [{ id: "b", type: "file", path: "src/b.ts" }], body: "# Other\n\n[@b]" }));
    repo.commit("other page");
    const traced = (...args: string[]) => repo.box.run(["drift", "--json", "--all", ...args], { cwd: repo.root, env: { CODEALMANAC_TRACE: "1" } });
    expect(fromCache(traced())).toBe(0);
    const again = traced();
    expect(fromCache(again)).toBe(3);
    expect(again.json<DriftJson>().pages.map((p) => p.status)).toEqual(["fresh", "fresh", "fresh"]);

    repo.write("src/a.ts", "a, edited\n");
    const edited = traced();
    expect(fromCache(edited)).toBe(2);
    expect(edited.json<DriftJson>().pages.map((p) => [p.slug, p.status])).toEqual([["README", "fresh"], ["arch/other", "fresh"], ["arch/queue", "stale"]]);

    repo.git("add", "src/a.ts");
    expect(fromCache(traced())).toBe(0);
    repo.commit("edit a");
    const committed = traced();
    expect(fromCache(committed)).toBe(0);
    expect(committed.json<DriftJson>().pages.find((p) => p.slug === "arch/queue")!.sources[0]!.commits).toHaveLength(1);
    expect(fromCache(traced("arch/other"))).toBe(1);
  });
});

describe("ca drift --fix", () => {
  test("re-anchors moved lines and a renamed file in place, then the page is fresh; a changed source is left as it was", () => {
    const repo = repository({ "src/a.ts": numbered(30), "src/b.ts": "b\n", "src/c.ts": "c\n" }, []);
    const pagePath = join(repo.root, "almanac/arch/queue.md");
    const before = [
      "---",
      "title: Queue",
      "topics: [concepts]   # kept",
      "sources:",
      "  - {id: block, type: file, path: src/a.ts, lines: 10-12}",
      "  - id: whole",
      "    type: file",
      "    path: src/b.ts  # renamed below",
      "  - {id: edited, type: file, path: src/c.ts}",
      "---",
      "",
      "# Queue",
      "",
      "[@block] [@whole] [@edited]",
      "",
    ].join("\n");
    writeFileSync(pagePath, before);
    repo.commit("page");
    repo.write("src/a.ts", "new\nnew\nnew\n" + numbered(30));
    repo.git("mv", "src/b.ts", "src/moved-b.ts");
    repo.write("src/c.ts", "c, edited\n");
    const head = repo.commit("move things");
    expect(repo.queuePage().sources.map((s) => s.status)).toEqual(["moved", "moved", "changed"]);

    const fix = repo.box.run(["drift", "--fix"], { cwd: repo.root });
    expect(fix.code, fix.stderr).toBe(0);
    expect(fix.stdout).toBe(
      [
        "re-anchored  arch/queue  block  src/a.ts:10-12 -> src/a.ts:13-15",
        "re-anchored  arch/queue  whole  src/b.ts -> src/moved-b.ts",
        "fixed 2 sources on 1 page",
        "",
      ].join("\n"),
    );
    const aLines = fileLines(readFileSync(join(repo.root, "src/a.ts"), "utf8"));
    const bBytes = readFileSync(join(repo.root, "src/moved-b.ts"));
    expect(readFileSync(pagePath, "utf8")).toBe(
      before
        .replace("lines: 10-12}", `lines: 13-15, fingerprint: ${rangeFingerprint(aLines, { start: 13, end: 15 })}, verified_at: ${head}}`)
        .replace("    path: src/b.ts  # renamed below", `    path: src/moved-b.ts  # renamed below\n    fingerprint: ${fileFingerprint(bBytes)}\n    verified_at: ${head}`),
    );
    const after = repo.queuePage();
    expect(after.sources.map((s) => [s.id, s.path, s.lines, s.status])).toEqual([
      ["block", "src/a.ts", "13-15", "fresh"],
      ["whole", "src/moved-b.ts", null, "fresh"],
      ["edited", "src/c.ts", null, "changed"],
    ]);
    expect(repo.box.run(["drift", "--fix"], { cwd: repo.root }).stdout).toBe("nothing to fix: no moved evidence\n");
  });
});

describe("ca drift --markdown", () => {
  test("the list as Markdown for a job summary: the tally, each drifting page and its drifting sources", () => {
    const repo = repository({ "src/a.ts": "one\n", "src/b.ts": "two\n" }, [{ id: "a", path: "src/a.ts" }, { id: "b", path: "src/b.ts" }]);
    repo.write("src/a.ts", "one, edited\n");
    const edit = repo.commit("edit a");
    const result = repo.box.run(["drift", "--markdown"], { cwd: repo.root });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      [
        "## CodeAlmanac drift",
        "",
        `**1 stale, 0 moved** of 2 pages at \`${edit.slice(0, 10)}\`.`,
        "",
        `- **stale** \`arch/queue\` (verified at \`${repo.first.slice(0, 10)}\`)`,
        `  - \`src/a.ts\` changed in 1 commit since verified: \`${edit.slice(0, 10)}\``,
        "",
      ].join("\n"),
    );
    const both = repo.box.run(["drift", "--markdown", "--json"], { cwd: repo.root });
    expect([both.code, JSON.parse(both.stderr).error.message]).toEqual([1, "--json and --markdown cannot be combined"]);
  });
});

test("a wiki in a subfolder of its git work tree judges its sources by paths from that folder", () => {
  const box = sandbox();
  boxes.push(box);
  const top = join(box.dir, "mono");
  const root = join(top, "packages", "app");
  mkdirSync(join(root, "src"), { recursive: true });
  const git = (...args: string[]) => {
    const result = spawnSync("git", args, { cwd: top, env: box.env, encoding: "utf8" });
    if (result.status !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
    return result.stdout.trim();
  };
  git("init", "-q", "-b", "main");
  writeFileSync(join(root, "src/a.ts"), numbered(20));
  const sources = [{ id: "a", type: "file", path: "src/a.ts", lines: "5-6" }];
  writeWiki(root, { "arch/queue.md": page({ title: "Queue", topics: ["concepts"], sources, body: "# Queue\n\n[@a]" }) });
  git("add", "-A");
  git("commit", "-q", "-m", "initial");
  writeFileSync(join(root, "src/a.ts"), "top\n" + numbered(20));
  git("commit", "-q", "-am", "insert");
  const report = box.run(["drift", "--json"], { cwd: root }).json<DriftJson>();
  expect(report.pages.map((p) => [p.slug, p.sources.map((s) => [s.path, s.status, s.reason])])).toEqual([
    ["arch/queue", [["src/a.ts", "moved", "the cited lines moved to lines 6-7"]]],
  ]);
  git("mv", "packages/app/src/a.ts", "packages/app/src/b.ts");
  git("commit", "-q", "-m", "rename");
  const renamed = box.run(["drift", "--json"], { cwd: root }).json<DriftJson>();
  expect(renamed.pages[0]!.sources[0]).toMatchObject({ status: "moved", reason: "the cited lines moved to src/b.ts:6-7" });
});

test("without git on PATH, drift says so once and still checks stamped evidence", () => {
  const repo = repository({ "src/a.ts": "a\n" }, []);
  repo.rewritePage([{ id: "a", path: "src/a.ts", fingerprint: fileFingerprint(Buffer.from("a\n")) }, { id: "b", path: "src/a.ts" }]);
  const bin = join(repo.box.dir, "node-only");
  mkdirSync(bin);
  spawnSync("ln", ["-s", process.execPath, join(bin, "node")]);
  const result = repo.box.run(["drift", "--json", "--all"], { cwd: repo.root, env: { PATH: bin } });
  expect(result.code, result.stderr).toBe(0);
  const json = result.json<DriftJson>();
  expect(json.notice).toBe(`${repo.root}: git is not on PATH, so only stamped evidence can be checked; unstamped sources are unknown`);
  expect(json.pages.find((p) => p.slug === "arch/queue")!.sources.map((s) => s.status)).toEqual(["fresh", "unknown"]);
});
