import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { App } from "../../src/app.js";
import { runBackground } from "../../src/background.js";
import { main } from "../../src/cli/main.js";
import { QUEUE_UNSUPPORTED_MESSAGE } from "../../src/core/platform.js";
import { spec } from "../runs/helpers.js";
import { sandbox, writeWiki, type Sandbox } from "../support/cli.js";

// The platform is injected through the composition root (AppOptions.platform, which
// main() and runBackground() pass on), so these run in-process: no child process
// fakes `process.platform`.

const LINE = `codealmanac: ${QUEUE_UNSUPPORTED_MESSAGE}\n`;
const RUN = "garden-20260101000000-00000000";

let box: Sandbox;
let wiki: string;
beforeEach(() => {
  box = sandbox();
  wiki = writeWiki(join(box.dir, "repo"), {});
});
afterEach(() => {
  vi.restoreAllMocks();
  box.cleanup();
});

/** Captures what the code under test writes to stdout and stderr. */
function capture() {
  const out = { stdout: "", stderr: "" };
  vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => ((out.stdout += String(chunk)), true));
  vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => ((out.stderr += String(chunk)), true));
  return out;
}

async function cli(argv: string[], platform: NodeJS.Platform, cwd = wiki) {
  const out = capture();
  const code = await main(argv, { env: box.env, cwd, platform });
  vi.restoreAllMocks();
  return { code, ...out };
}

describe("on Windows, every queue command refuses in one line before anything is written", () => {
  const queueCommands = [
    ["init", "<fresh>", "--using", "claude"],
    ["ingest", "notes.md"],
    ["garden"],
    ["garden", "--wait"],
    ["jobs"],
    ["jobs", "list", "--wiki", "repo"],
    ["jobs", "show", RUN],
    ["jobs", "logs", RUN],
    ["jobs", "attach", RUN],
    ["jobs", "cancel", RUN],
    ["jobs", "retry", RUN],
    ["jobs", "prune", "--older-than", "30d"],
    ["sync"],
    ["sync", "--wiki", "repo"],
    ["__scheduled", "sync"],
    ["__scheduled", "garden", "--every", "12h"],
  ].map((argv) => ({ name: argv.join(" "), argv }));

  test.each(queueCommands)("$name", async ({ argv }) => {
    const fresh = join(box.dir, "fresh");
    const result = await cli(argv.map((a) => (a === "<fresh>" ? fresh : a)), "win32");
    expect(result).toEqual({ code: 3, stdout: "", stderr: LINE });
    expect(existsSync(box.state), "the state root").toBe(false);
    expect(existsSync(join(fresh, "almanac"))).toBe(false);
  });

  test("with --json the refusal is the usual error object on stderr", async () => {
    const result = await cli(["jobs", "--json"], "win32");
    expect(result.code).toBe(3);
    expect(result.stdout).toBe("");
    expect(JSON.parse(result.stderr)).toEqual({ error: { code: "unavailable", message: QUEUE_UNSUPPORTED_MESSAGE } });
  });

  test("help for a queue command still prints", async () => {
    const result = await cli(["jobs", "--help"], "win32");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("list and manage background jobs");
  });

  test("the same command on Linux is not refused", async () => {
    const result = await cli(["jobs", "--json"], "linux");
    expect(result).toEqual({ code: 0, stdout: "[]\n", stderr: "" });
  });
});

describe("on Windows, reads keep working", () => {
  test.each([
    [["search", "welcome", "--json"]],
    [["show", "README", "--meta"]],
    [["topics"]],
    [["list"]],
    [["sync", "status", "--json"]],
  ])("%j", async (argv) => {
    const result = await cli(argv, "win32");
    expect(result.stderr, argv.join(" ")).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).not.toBe("");
  });
});

describe("on Windows, the queue's other entry points refuse the same way", () => {
  test("the hidden worker and executor commands print the line and exit non-zero", async () => {
    for (const argv of [["__run-worker"], ["__run-worker", "--max-runs", "1"], ["__run-executor", "--standby"], ["__run-worker", "--bogus"]]) {
      const out = capture();
      const code = await runBackground(argv, "win32");
      vi.restoreAllMocks();
      expect({ code, ...out }, argv.join(" ")).toEqual({ code: 3, stdout: "", stderr: LINE });
    }
  });

  test("the app's queue services (used by MCP's --allow-queue tools, the viewer's cancel, the worker and the executor) refuse, and write nothing", async () => {
    const app = new App({ env: box.env, notice: () => undefined, platform: "win32" });
    try {
      for (const entry of [() => app.lifecycle(), () => app.jobs(), () => app.producer(), () => app.worker(), () => app.executorDeps(new AbortController().signal)]) {
        await expect(entry()).rejects.toMatchObject({ name: "ProductError", code: "unavailable", message: QUEUE_UNSUPPORTED_MESSAGE });
      }
      expect(existsSync(box.state)).toBe(false);
    } finally {
      app.close();
    }
  });

  test("the viewer's cancel answers 503 with the line, and the run stays queued", async () => {
    const app = new App({ env: box.env, notice: () => undefined, platform: "win32" });
    const repository = app.repositories.select(wiki);
    app.runs.enqueueRun({
      runId: RUN,
      repositoryId: repository.repositoryId,
      repositoryName: repository.name,
      repositoryRoot: repository.rootPath,
      kind: "garden",
      title: null,
      spec: spec("garden"),
      logPath: join(box.state, "logs", `${RUN}.log`),
      now: Date.now(),
    });
    const viewer = await app.viewer({ cwd: wiki, wiki: null, host: "127.0.0.1", port: 0 });
    try {
      const origin = `http://127.0.0.1:${viewer.port}`;
      const html = await (await fetch(`${origin}/`)).text();
      const token = /<meta name="codealmanac-token" content="([^"]*)">/.exec(html)?.[1];
      expect(token).toBeTruthy();
      const reply = await fetch(`${origin}/api/jobs/${RUN}/cancel`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-codealmanac-token": token!, origin },
        body: "{}",
      });
      expect(reply.status).toBe(503);
      expect(await reply.json()).toEqual({ error: { code: "unavailable", message: QUEUE_UNSUPPORTED_MESSAGE } });
      expect(app.runs.getRun(RUN)?.status).toBe("queued");
    } finally {
      await viewer.close();
      app.close();
    }
  });
});
