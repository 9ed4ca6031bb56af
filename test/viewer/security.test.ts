import { afterEach, describe, expect, test } from "vitest";
import { emptyRepo } from "../queue/support.js";
import { mkdirSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { page, sandbox, waitFor, writeWiki, type Sandbox } from "../support/cli.js";
import { raw, shellToken, startViewer, type Viewer } from "./support.js";

let box: Sandbox;
afterEach(() => box?.cleanup());

const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

function expectSecurityHeaders(headers: Record<string, string | string[] | undefined>, what: string): void {
  expect(headers["content-security-policy"], what).toBe(CSP);
  expect(headers["x-content-type-options"], what).toBe("nosniff");
  expect(headers["referrer-policy"], what).toBe("no-referrer");
}

async function loopbackViewer(): Promise<Viewer> {
  box = sandbox();
  return startViewer(box, { cwd: emptyRepo(box) });
}

describe("viewer safety", () => {
  test("a foreign Host header (DNS rebinding) is a 421 on the API, the assets and the shell", async () => {
    const viewer = await loopbackViewer();
    for (const path of ["/api/wikis", "/api/overview", "/assets/app.js", "/", "/index.html", "/w/repo/page/README"]) {
      for (const host of [`evil.example:${viewer.port}`, `127.0.0.1:${viewer.port + 1}`, "localhost", `127.0.0.1.evil.example:${viewer.port}`]) {
        const reply = await raw(viewer.origin, path, { headers: { host } });
        expect([path, host, reply.status]).toEqual([path, host, 421]);
        expect(reply.json()).toEqual({ error: { code: "misdirected", message: `this viewer does not answer for host "${host}"` } });
        expectSecurityHeaders(reply.headers, `${host} ${path}`);
      }
    }
  });

  test("the loopback names are accepted as Host", async () => {
    const viewer = await loopbackViewer();
    for (const host of [`127.0.0.1:${viewer.port}`, `localhost:${viewer.port}`, `LOCALHOST:${viewer.port}`, `[::1]:${viewer.port}`]) {
      expect([host, (await raw(viewer.origin, "/api/wikis", { headers: { host } })).status]).toEqual([host, 200]);
    }
  });

  test.each([
    "/assets/%2e%2e/%2e%2e/package.json",
    "/assets/%2E%2E/%2E%2E/%2E%2E/package.json",
    "/assets/..%2f..%2fpackage.json",
    "/assets/..%2F..%2F..%2Fpackage.json",
    "/assets/../../package.json",
    "/assets/..\\..\\package.json",
    "/assets/%5c..%5c..%5cpackage.json",
    "/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
    "/..%2f..%2f..%2f..%2f..%2fetc%2fpasswd",
    "/assets/vendor/..%2f..%2f..%2f..%2fpackage.json",
    "/api/page/..%2f..%2fpackage",
    "/assets//etc/passwd",
    "/assets/app.js%00.html",
    "/package.json",
    "/etc/passwd.txt",
  ])("%s is a 404 that never reads a file outside the assets", async (path) => {
    const viewer = await loopbackViewer();
    const reply = await raw(viewer.origin, path);
    expect(reply.status).toBe(404);
    expect(reply.json().error.code).toBe("not_found");
    expect(reply.body).not.toContain("devDependencies");
    expect(reply.body).not.toContain("root:");
    expectSecurityHeaders(reply.headers, path);
  });

  test("a route-like path gets the app shell, never a file", async () => {
    const viewer = await loopbackViewer();
    const reply = await raw(viewer.origin, "/etc/passwd");
    expect(reply.status).toBe(200);
    expect(reply.headers["content-type"]).toMatch(/^text\/html/);
    expect(reply.body).not.toContain("root:");
  });

  test("security headers on JSON, errors, assets and the shell", async () => {
    const viewer = await loopbackViewer();
    for (const path of ["/api/wikis", "/api/nope", "/api/search?limit=x", "/assets/app.js", "/assets/app.css", "/", "/nope.txt"]) {
      expectSecurityHeaders((await raw(viewer.origin, path)).headers, path);
    }
    expect((await raw(viewer.origin, "/api/wikis")).headers["cache-control"]).toBe("no-store");
  });

  test("on loopback the shell carries a fresh token per launch, and nothing else needs it", async () => {
    const first = await loopbackViewer();
    const token = await shellToken(first);
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const second = await startViewer(box, { cwd: emptyRepo(box) });
    expect(await shellToken(second)).not.toBe(token);
    expect((await raw(first.origin, "/api/overview")).status).toBe(200);
  });

  test("a non-loopback host warns, prints a URL with the token, and requires it on every request", async () => {
    box = sandbox();
    const viewer = await startViewer(box, { cwd: emptyRepo(box), args: ["--host", "0.0.0.0"] });
    const url = new URL(viewer.url);
    expect(url.hostname).toBe("0.0.0.0");
    const token = url.searchParams.get("token")!;
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const warning = "codealmanac: warning: listening on 0.0.0.0, not loopback: anyone who can reach it needs the token in the URL above\n";
    expect(await waitFor(() => viewer.stderr() === warning, "the warning")).toBe(true);
    const forbidden = { error: { code: "forbidden", message: "this viewer needs its launch token: open the URL `ca serve` printed" } };
    for (const path of ["/api/wikis", "/api/overview", "/api/jobs", "/", "/assets/app.js", `/?token=${token}x`]) {
      const reply = await raw(viewer.origin, path);
      expect([path, reply.status]).toEqual([path, 403]);
      expect(reply.json()).toEqual(forbidden);
      expectSecurityHeaders(reply.headers, path);
    }
    expect((await raw(viewer.origin, "/api/wikis", { headers: { "x-codealmanac-token": "wrong" } })).status).toBe(403);
    expect((await raw(viewer.origin, "/api/wikis", { headers: { "x-codealmanac-token": token } })).status).toBe(200);
    expect((await raw(viewer.origin, "/api/wikis", { headers: { cookie: `codealmanac_token=${token}` } })).status).toBe(200);

    const opened = await raw(viewer.origin, `/?token=${token}`);
    expect(opened.status).toBe(200);
    expect(opened.headers["set-cookie"]).toEqual([`codealmanac_token=${token}; HttpOnly; SameSite=Strict; Path=/`]);
    expect(opened.body).not.toContain("codealmanac-token");
    expect(opened.body).not.toContain(token);
    expect((await raw(viewer.origin, `/api/overview?token=${token}`)).status).toBe(200);
    // The token does not excuse a foreign Host.
    expect((await raw(viewer.origin, `/api/wikis?token=${token}`, { headers: { host: `evil.example:${viewer.port}` } })).status).toBe(421);
  });
});

describe("the viewer keeps to the repository", () => {
  test("a wiki folder that leads out of its repository is refused, naming both paths", async () => {
    box = sandbox();
    const outside = writeWiki(join(box.dir, "elsewhere"), { "secret.md": page({ title: "Secret", topics: [], sources: [], body: "# Secret\n\nroot:x:0:0" }) });
    const repo = join(box.dir, "linked");
    mkdirSync(repo);
    symlinkSync(join(outside, "almanac"), join(repo, "almanac"));
    const viewer = await startViewer(box, { cwd: repo });
    const refusal = `the wiki folder ${join(repo, "almanac")} resolves to ${join(outside, "almanac")}, outside its repository ${repo}; refusing to read or write it (make almanac/ a folder inside the repository)`;
    for (const path of ["/api/page/secret", "/api/overview", "/api/search?q=root"]) {
      const reply = await raw(viewer.origin, path);
      expect([path, reply.status]).toEqual([path, 422]);
      expect(reply.json()).toEqual({ error: { code: "validation_failed", message: refusal } });
      expect(reply.body).not.toContain("root:x");
    }
  });

  test("/api/file does not tell what exists behind a symlink that leads out of the repository", async () => {
    box = sandbox();
    const repo = emptyRepo(box);
    mkdirSync(join(box.dir, "elsewhere", "folder"), { recursive: true });
    symlinkSync(join(box.dir, "elsewhere"), join(repo, "out"));
    mkdirSync(join(repo, "src"));
    const viewer = await startViewer(box, { cwd: repo });
    for (const path of ["out/folder", "out/missing"]) {
      const reply = await raw(viewer.origin, `/api/file?path=${path}`);
      expect(reply.json<{ kind: string; path: string }>()).toMatchObject({ kind: "file", path });
    }
    expect((await raw(viewer.origin, "/api/file?path=src")).json<{ kind: string }>().kind).toBe("directory");
  });

  test("an oversized page is served from its first 2 MB and says so", async () => {
    box = sandbox();
    const repo = emptyRepo(box);
    const path = join(repo, "almanac", "big.md");
    writeFileSync(path, `---\ntitle: Big\ntopics: []\nsources: []\n---\n\n# Big\n\n${"word ".repeat(700_000)}\n`);
    truncateSync(path, 64 * 1024 * 1024);
    const viewer = await startViewer(box, { cwd: repo });
    const reply = await raw(viewer.origin, "/api/page/big");
    expect(reply.status).toBe(200);
    const body = reply.json<{ body: string; html: string; truncation: string | null }>();
    expect(body.truncation).toBe("this page is 64.0 MB; only its first 2 MB are shown");
    expect(Buffer.byteLength(body.body)).toBeLessThanOrEqual(2 * 1024 * 1024);
    expect(Buffer.byteLength(reply.body)).toBeLessThan(8 * 1024 * 1024);
    expect((await raw(viewer.origin, "/api/page/README")).json<{ truncation: string | null }>().truncation).toBeNull();
  });
});
