import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { SourceLimits } from "../../src/sources/context.js";
import { SourcePreparationError } from "../../src/sources/service.js";
import { makeService, tempDir, testEnv } from "./helpers.js";

const PAGE = `<!doctype html><html><head><title>Retry &amp; budgets</title><style>body { color: red }</style>
<script>window.tracking = "SCRIPT TEXT";</script></head>
<body><noscript>NOSCRIPT TEXT</noscript><h1>Retries</h1><p>Uploads retry <strong>five</strong> times; see <a href="/docs">the docs</a>.</p>
<ul><li>first</li><li>second</li></ul><svg><text>SVG TEXT</text></svg></body></html>`;

const routes: Record<string, (request: IncomingMessage, response: ServerResponse) => void> = {
  "/page.html": (_, response) => send(response, 200, { "content-type": "text/html; charset=utf-8" }, PAGE),
  "/plain.txt": (_, response) => send(response, 200, { "content-type": "text/plain" }, "plain words\n"),
  "/data.json": (_, response) => send(response, 200, { "content-type": "application/json" }, '{"retries":5}'),
  "/notes.md": (_, response) => send(response, 200, { "content-type": "text/markdown" }, "# Notes\n\nkept as Markdown\n"),
  "/image.png": (_, response) => send(response, 200, { "content-type": "image/png" }, Buffer.from([0x89, 0x50, 0, 0])),
  "/missing": (_, response) => send(response, 404, { "content-type": "text/html" }, "<h1>gone</h1>"),
  "/redirect": (_, response) => send(response, 302, { location: "/page.html" }, ""),
  "/latin1": (_, response) => send(response, 200, { "content-type": "text/plain; charset=iso-8859-1" }, Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a])),
  "/meta-charset": (_, response) =>
    send(response, 200, { "content-type": "text/html" }, Buffer.concat([Buffer.from('<html><head><meta charset="windows-1252"></head><body><p>na'), Buffer.from([0xef, 0x76, 0x65, 0x93, 0x94]), Buffer.from("</p></body></html>")])),
  "/odd-charset": (_, response) => send(response, 200, { "content-type": "text/plain; charset=x-martian" }, "still readable\n"),
  "/no-type": (_, response) => send(response, 200, {}, "untyped text\n"),
  "/no-type-binary": (_, response) => send(response, 200, {}, Buffer.from([1, 2, 0, 3])),
  "/slow-headers": () => undefined,
  "/slow-body": (_, response) => {
    response.writeHead(200, { "content-type": "text/plain" });
    response.write("a start that never ends");
  },
  "/huge-declared": (_, response) => send(response, 200, { "content-type": "text/plain", "content-length": String(100_000) }, "x".repeat(100_000)),
  "/huge-streamed": (_, response) => {
    response.writeHead(200, { "content-type": "text/plain" });
    let sent = 0;
    const more = () => {
      while (sent < 1_000_000) {
        sent += 16_384;
        if (!response.write("y".repeat(16_384))) return void response.once("drain", more);
      }
      response.end();
    };
    more();
  },
};

function send(response: ServerResponse, status: number, headers: Record<string, string>, body: string | Buffer) {
  response.writeHead(status, headers);
  response.end(body);
}

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((request, response) => (routes[request.url ?? ""] ?? routes["/missing"]!)(request, response));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function prepare(path: string, limits: Partial<SourceLimits> = {}) {
  const repo = tempDir();
  const service = makeService(testEnv(tempDir("ca-sources-home-")), { urlTimeoutMs: 2_000, ...limits });
  const refs = await service.resolve([`${base}${path}`], { cwd: repo, repositoryRoot: repo });
  return (await service.prepare(refs, { repositoryRoot: repo, workDir: tempDir("ca-sources-run-"), budgetChars: 1_000_000 }))[0]!;
}

async function failure(path: string, limits: Partial<SourceLimits> = {}): Promise<string> {
  const error = await prepare(path, limits).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(SourcePreparationError);
  return (error as Error).message;
}

describe("web pages", () => {
  test("HTML becomes Markdown with its title; scripts, styles and the like are dropped", async () => {
    const brief = await prepare("/page.html");
    expect(brief).toMatchObject({ kind: "url", title: `Web page ${base}/page.html: Retry & budgets` });
    expect(brief.content).toBe(
      `# Retry & budgets\n\n- URL: ${base}/page.html\n- Content type: text/html; charset=utf-8\n\n# Retries\n\nUploads retry **five** times; see [the docs](/docs).\n\n* first\n* second\n`,
    );
  });

  test("plain text and JSON are fenced, Markdown is kept as it is", async () => {
    expect((await prepare("/plain.txt")).content).toBe(`# ${base}/plain.txt\n\n- URL: ${base}/plain.txt\n- Content type: text/plain\n\n\`\`\`\nplain words\n\`\`\`\n`);
    expect((await prepare("/data.json")).content).toContain('```json\n{"retries":5}\n```');
    expect((await prepare("/notes.md")).content).toContain("text/markdown\n\n# Notes\n\nkept as Markdown\n");
  });

  test("redirects are followed and the final address is shown", async () => {
    const brief = await prepare("/redirect");
    expect(brief.title).toBe(`Web page ${base}/page.html: Retry & budgets`);
    expect(brief.content).toContain(`- URL: ${base}/page.html\n- Requested as: ${base}/redirect (redirected)\n`);
  });

  test("the declared charset is honoured, from the header or from a meta tag", async () => {
    expect((await prepare("/latin1")).content).toContain("café\n");
    expect((await prepare("/meta-charset")).content).toContain("naïve“”");
    const odd = await prepare("/odd-charset");
    expect(odd.content).toContain("still readable");
    expect(odd.notes).toEqual(["The declared charset x-martian is unknown; the page was read as UTF-8."]);
  });

  test("a response without a content type is sniffed", async () => {
    expect((await prepare("/no-type")).content).toContain("untyped text");
    expect(await failure("/no-type-binary")).toBe(`${base}/no-type-binary: not a text document (binary content without a content type)`);
  });

  test("non-text types, HTTP errors, timeouts and oversized bodies fail with one line naming the address", async () => {
    expect(await failure("/image.png")).toBe(`${base}/image.png: not a text document (image/png)`);
    expect(await failure("/missing")).toBe(`${base}/missing: HTTP 404 Not Found`);
    expect(await failure("/slow-headers", { urlTimeoutMs: 200 })).toBe(`${base}/slow-headers: URL request timed out after 200 ms`);
    expect(await failure("/slow-body", { urlTimeoutMs: 200 })).toBe(`${base}/slow-body: URL request timed out after 200 ms`);
    expect(await failure("/huge-declared", { urlMaxBytes: 64 * 1024 })).toBe(`${base}/huge-declared: URL response is larger than 64 KB`);
    expect(await failure("/huge-streamed", { urlMaxBytes: 64 * 1024 })).toBe(`${base}/huge-streamed: URL response is larger than 64 KB`);
  });

  test("an unreachable server is named with the cause", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const repo = tempDir();
    const service = makeService(testEnv(tempDir("ca-sources-home-")));
    const refs = await service.resolve([`http://127.0.0.1:${port}/`], { cwd: repo, repositoryRoot: repo });
    const error = await service.prepare(refs, { repositoryRoot: repo, workDir: tempDir(), budgetChars: 1000 }).catch((caught: unknown) => caught);
    expect((error as Error).message).toBe(`http://127.0.0.1:${port}/: URL request failed: connect ECONNREFUSED 127.0.0.1:${port}`);
  });

  test("a fetch handed in by the caller is used", async () => {
    const repo = tempDir();
    const fake: typeof fetch = async () => new Response("from the fake", { headers: { "content-type": "text/plain" } });
    const service = makeService(testEnv(tempDir("ca-sources-home-")), {}, fake);
    const refs = await service.resolve(["https://example.invalid/doc"], { cwd: repo, repositoryRoot: repo });
    const [brief] = await service.prepare(refs, { repositoryRoot: repo, workDir: tempDir(), budgetChars: 10_000 });
    expect(brief!.content).toContain("from the fake");
  });
});
