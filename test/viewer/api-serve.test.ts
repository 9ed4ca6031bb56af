import { afterEach, describe, expect, test } from "vitest";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { BIN, page, ROOT, sandbox, waitFor, writeWiki, type Sandbox } from "../support/cli.js";
import { emptyRepo, parkedRun } from "../queue/support.js";
import { fixtureWiki } from "./fixture.js";
import { getJson, openEvents, serveUntilExit, startViewer, type PageSummary, type Viewer } from "./support.js";

let box: Sandbox;
afterEach(() => box?.cleanup());

interface Wikis {
  wikis: { name: string; root_path: string; status: string }[];
  selected: string | null;
}

/** A wiki named after its folder under the sandbox, registered the way any read registers it. */
function registered(name: string, title = name): string {
  const root = writeWiki(join(box.dir, name), {
    "notes.md": page({ title: `${title} notes`, summary: "Notes", topics: ["concepts"], sources: [], body: "Some notes." }),
  });
  expect(box.run(["search"], { cwd: root }).code).toBe(0);
  return root;
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });
}

async function refreshHeader(viewer: Viewer, path = "/api/overview"): Promise<string | null> {
  const res = await fetch(viewer.origin + path);
  await res.arrayBuffer();
  return res.headers.get("x-codealmanac-refresh");
}

describe("ca serve", () => {
  test("--help describes the command and its options", () => {
    box = sandbox();
    const result = box.run(["serve", "--help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Usage: codealmanac serve [options]");
    for (const text of ["--wiki <name>", "--host <host>", "(default: \"127.0.0.1\")", "--port <n>", "(default: 3927)", "--no-open", "Ctrl-C stops it."]) {
      expect(result.stdout).toContain(text);
    }
  });

  test.each([["abc"], ["1.5"], ["70000"], ["-1"]])("--port %s is a syntax error (exit 2)", (port) => {
    box = sandbox();
    const result = box.run(["serve", "--no-open", "--port", port]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
  });

  test("a port in use is exit 3 with one line", async () => {
    box = sandbox();
    const first = await startViewer(box, { cwd: emptyRepo(box) });
    const second = await serveUntilExit(box, ["--port", String(first.port)]);
    expect(second).toMatchObject({ code: 3, stdout: "", stderr: `codealmanac: port ${first.port} is in use on 127.0.0.1; pass --port\n` });
  });

  test("an unknown --wiki is refused at start", async () => {
    box = sandbox();
    const result = await serveUntilExit(box, ["--wiki", "nope"]);
    expect(result).toMatchObject({ code: 1, stdout: "", stderr: "codealmanac: repository not found: nope\n" });
  });

  test.each([["SIGINT" as const], ["SIGTERM" as const]])("%s stops it with exit 0, open event streams included, and frees the port", async (signal) => {
    box = sandbox();
    const root = emptyRepo(box);
    const run = await parkedRun(box, root);
    const viewer = await startViewer(box, { cwd: root });
    const stream = await openEvents(viewer, `/api/jobs/${run.run_id}/events`);
    expect(await stream.next()).not.toBeNull();
    viewer.child.kill(signal);
    expect(await viewer.exited).toEqual({ code: 0, signal: null });
    // The stream is closed cleanly (no socket error), without claiming the run ended.
    expect((await stream.rest()).map((e) => e.event)).not.toContain("end");
    expect(await portIsFree(viewer.port)).toBe(true);
  });

  test("opens the browser with the URL it prints, unless --no-open", async () => {
    box = sandbox();
    const bin = join(box.dir, "opener-bin");
    const log = join(box.dir, "opened.txt");
    mkdirSync(bin);
    writeFileSync(join(bin, "xdg-open"), `#!/bin/sh\nprintf '%s\\n' "$@" >> '${log}'\n`);
    chmodSync(join(bin, "xdg-open"), 0o755);
    const env = { PATH: `${bin}:${box.env.PATH}` };
    const viewer = await startViewer(box, { cwd: emptyRepo(box), open: true, env });
    expect(await waitFor(() => existsSync(log) && readFileSync(log, "utf8").trim(), "the opener")).toBe(viewer.url);
    const quiet = await startViewer(box, { cwd: emptyRepo(box), env });
    expect(quiet.url).not.toBe(viewer.url);
    expect(readFileSync(log, "utf8").trim()).toBe(viewer.url);
  });

  test("`ca --version` and `ca search` never load the server (hono stays in its own chunk)", () => {
    box = sandbox();
    const root = emptyRepo(box);
    const hook = join(box.dir, "record-loaded.cjs");
    writeFileSync(hook, `process.on("exit", () => require("node:fs").writeFileSync(process.env.LOADED_LIST, Object.keys(require.cache).join("\\n")));\n`);
    const marker = "getRequestListener";
    const chunks = readdirSync(join(ROOT, "dist", "chunks")).map((name) => join(ROOT, "dist", "chunks", name));
    expect(chunks.some((file) => readFileSync(file, "utf8").includes(marker))).toBe(true);
    for (const args of [["--version"], ["search", "--json"]]) {
      const list = join(box.dir, `loaded-${args[0]}.txt`);
      const result = spawnSync(process.execPath, ["-r", hook, BIN, ...args], { cwd: root, env: { ...box.env, LOADED_LIST: list }, encoding: "utf8" });
      expect(result.status, result.stderr).toBe(0);
      const loaded = readFileSync(list, "utf8").split("\n").filter((file) => file.startsWith(join(ROOT, "dist")));
      expect(loaded.length).toBeGreaterThan(0);
      expect(loaded.filter((file) => readFileSync(file, "utf8").includes(marker))).toEqual([]);
    }
  });
});

describe("ca serve: which wiki", () => {
  test("started outside any repository it falls back to the first available wiki", async () => {
    box = sandbox();
    const gone = registered("alpha");
    registered("beta");
    rmSync(join(gone, "almanac"), { recursive: true });
    const viewer = await startViewer(box, { cwd: box.dir });
    const { body } = await getJson<Wikis>(viewer, "/api/wikis");
    expect(body).toEqual({
      wikis: [
        { name: "beta", root_path: join(box.dir, "beta"), status: "available" },
        { name: "alpha", root_path: gone, status: "missing_almanac" },
      ],
      selected: "beta",
    });
    const overview = await getJson<{ wiki: { name: string }; navigation: PageSummary[] }>(viewer, "/api/overview");
    expect(overview.body.wiki.name).toBe("beta");
    expect(overview.body.navigation.map((p) => p.title)).toEqual(["Home", "beta notes"]);
    expect((await getJson<{ wiki: string }>(viewer, "/api/jobs")).body.wiki).toBe("beta");
  });

  test("with no wikis at all: an empty list, and no_wiki for everything that needs one", async () => {
    box = sandbox();
    const viewer = await startViewer(box, { cwd: box.dir });
    expect((await getJson<Wikis>(viewer, "/api/wikis")).body).toEqual({ wikis: [], selected: null });
    const noWiki = { error: { code: "no_wiki", message: "No wikis yet. Run `ca init` in a repository." } };
    for (const path of ["/api/overview", "/api/search?q=x", "/api/page/README", "/api/graph", "/api/jobs", "/api/topic/x", "/api/file?path=a"]) {
      const { status, body } = await getJson(viewer, path);
      expect([path, status, body]).toEqual([path, 404, noWiki]);
    }
    expect((await fetch(viewer.origin + "/")).status).toBe(200);
  });

  test("--wiki scopes every request to that wiki and the switcher to it alone", async () => {
    box = sandbox();
    const alpha = registered("alpha");
    registered("beta");
    const viewer = await startViewer(box, { cwd: alpha, args: ["--wiki", "beta"] });
    expect((await getJson<Wikis>(viewer, "/api/wikis?wiki=alpha")).body).toEqual({
      wikis: [{ name: "beta", root_path: join(box.dir, "beta"), status: "available" }],
      selected: "beta",
    });
    expect((await getJson<{ wiki: { name: string } }>(viewer, "/api/overview?wiki=alpha")).body.wiki.name).toBe("beta");
    expect((await getJson<{ wiki: string }>(viewer, "/api/search?wiki=alpha")).body.wiki).toBe("beta");
  });

  test("?wiki= switches wikis; without it, a subfolder of a repository selects that repository", async () => {
    box = sandbox();
    const alpha = registered("alpha");
    registered("beta");
    mkdirSync(join(alpha, "src", "deep"), { recursive: true });
    const viewer = await startViewer(box, { cwd: join(alpha, "src", "deep") });
    expect((await getJson<Wikis>(viewer, "/api/wikis")).body.selected).toBe("alpha");
    expect((await getJson<{ wiki: { name: string } }>(viewer, "/api/overview")).body.wiki.name).toBe("alpha");
    expect((await getJson<{ wiki: { name: string } }>(viewer, "/api/overview?wiki=beta")).body.wiki.name).toBe("beta");
    expect((await getJson<Wikis>(viewer, "/api/wikis?wiki=beta")).body.selected).toBe("beta");
  });
});

describe("ca serve: index freshness", () => {
  test("an unchanged wiki is not refreshed again; an edit is seen on the very next request", async () => {
    box = sandbox();
    const root = fixtureWiki(box.dir);
    const viewer = await startViewer(box, { cwd: root });
    // The first request builds the index and starts watching its folders; the second
    // scans once more, for changes made before the watches began.
    const warmUp = [await refreshHeader(viewer), await refreshHeader(viewer), await refreshHeader(viewer)];
    expect(warmUp).toEqual(["refreshed", "checked", "skipped"]);
    for (let i = 0; i < 3; i++) expect(await refreshHeader(viewer)).toBe("skipped");
    expect(await refreshHeader(viewer, "/api/page/guides/setup")).toBe("skipped");

    writeFileSync(join(root, "almanac", "concepts", "cache.md"), page({ title: "Cache v2", summary: "Edited", topics: ["caching"], sources: [], body: "Edited body." }));
    const edited = await fetch(viewer.origin + "/api/page/concepts/cache");
    expect(edited.headers.get("x-codealmanac-refresh")).toBe("refreshed");
    expect(await edited.json()).toMatchObject({ title: "Cache v2", summary: "Edited", body: "Edited body." });
    expect((await getJson<{ pages: PageSummary[] }>(viewer, "/api/overview")).body.pages.find((p) => p.slug === "concepts/cache")?.title).toBe("Cache v2");

    mkdirSync(join(root, "almanac", "fresh"));
    writeFileSync(join(root, "almanac", "fresh", "new.md"), page({ title: "Brand new", topics: ["guides"], sources: [], body: "New." }));
    const added = await fetch(viewer.origin + "/api/page/fresh/new");
    expect(added.headers.get("x-codealmanac-refresh")).toBe("refreshed");
    expect(added.status).toBe(200);
    writeFileSync(join(root, "almanac", "fresh", "new.md"), page({ title: "Brand new, edited", topics: ["guides"], sources: [], body: "New." }));
    expect((await getJson<{ title: string }>(viewer, "/api/page/fresh/new")).body.title).toBe("Brand new, edited");
  });

  test("without folder watches every request costs a stat scan only, and an edit is still seen at once", async () => {
    box = sandbox();
    const root = fixtureWiki(box.dir);
    const viewer = await startViewer(box, { cwd: root, env: { CODEALMANAC_VIEWER_WATCH: "0" } });
    expect(await refreshHeader(viewer)).toBe("refreshed");
    for (let i = 0; i < 3; i++) expect(await refreshHeader(viewer)).toBe("checked");
    writeFileSync(join(root, "almanac", "guides", "setup.md"), page({ title: "Setup v2", topics: ["guides"], sources: [], body: "Changed." }));
    const edited = await fetch(viewer.origin + "/api/page/guides/setup");
    expect(edited.headers.get("x-codealmanac-refresh")).toBe("refreshed");
    expect(await edited.json()).toMatchObject({ title: "Setup v2" });
    expect(await refreshHeader(viewer)).toBe("checked");
  });

  test("an index another process brought up to date first is still seen in the cached overview", async () => {
    box = sandbox();
    const root = fixtureWiki(box.dir);
    const viewer = await startViewer(box, { cwd: root });
    const titleOf = async () => (await getJson<{ pages: PageSummary[] }>(viewer, "/api/overview")).body.pages.find((p) => p.slug === "concepts/cache")?.title;
    expect(await titleOf()).toBe("Cache");
    writeFileSync(join(root, "almanac", "concepts", "cache.md"), page({ title: "Cache, refreshed elsewhere", topics: ["caching"], sources: [], body: "Text." }));
    // A CLI read refreshes the shared index before the viewer's next request does.
    expect(box.run(["search", "--json"], { cwd: root }).code).toBe(0);
    expect(await titleOf()).toBe("Cache, refreshed elsewhere");
  });

  test("once the state directory is deleted under it (uninstall), every API answer is 410 and nothing is recreated", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    const run = await parkedRun(box, root);
    const viewer = await startViewer(box, { cwd: root });
    expect((await getJson(viewer, "/api/overview")).status).toBe(200);
    const stream = await openEvents(viewer, `/api/jobs/${run.run_id}/events?after=0`);
    expect(stream.status).toBe(200);

    rmSync(box.state, { recursive: true, force: true });
    for (const path of ["/api/wikis", "/api/overview", `/api/jobs/${run.run_id}`, "/api/search?q=x"]) {
      const gone = await getJson(viewer, path);
      expect(gone.status, path).toBe(410);
      expect(gone.body.error.code, path).toBe("uninstalled");
      expect(gone.body.error.message, path).toContain("state directory was deleted");
    }
    // The open stream of a queued run ends instead of reading a deleted ledger forever.
    for (let event = await stream.next(); event !== null; event = await stream.next()) expect(event.event).not.toBe("end");
    expect(existsSync(box.state), "the viewer must not leave a new, empty state directory").toBe(false);
  });

  test("a page deleted while the viewer runs is gone on the next request", async () => {
    box = sandbox();
    const root = fixtureWiki(box.dir);
    const viewer = await startViewer(box, { cwd: root });
    expect((await getJson(viewer, "/api/page/hostile")).status).toBe(200);
    rmSync(join(root, "almanac", "hostile.md"));
    const gone = await getJson(viewer, "/api/page/hostile");
    expect(gone.status).toBe(404);
    expect(gone.headers.get("x-codealmanac-refresh")).toBe("refreshed");
  });
});
