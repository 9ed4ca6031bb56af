import { afterEach, describe, expect, test } from "vitest";
import { request, type ClientRequest, type IncomingMessage } from "node:http";
import { sandbox, type Sandbox } from "../support/cli.js";
import { emptyRepo, parkedRun, releaseQueue } from "../queue/support.js";
import { startViewer, type Viewer } from "./support.js";

let box: Sandbox;
const open: ClientRequest[] = [];
afterEach(() => {
  for (const req of open.splice(0)) req.destroy();
  box?.cleanup();
});

/** Opens a job event stream from a given local address; resolves with the response head. */
function openStream(viewer: Viewer, runId: string, localAddress = "127.0.0.1"): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: viewer.port, path: `/api/jobs/${runId}/events?after=0`, localAddress, headers: { host: `127.0.0.1:${viewer.port}` } }, resolve);
    req.on("error", reject);
    req.end();
    open.push(req);
  });
}

async function bodyOf(res: IncomingMessage): Promise<string> {
  let text = "";
  for await (const chunk of res) text += chunk;
  return text;
}

describe("the viewer bounds its live job streams", () => {
  test("past 16 streams from one client the answer is 503 with Retry-After, and a closed stream frees its slot", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    const run = await parkedRun(box, root);
    const viewer = await startViewer(box, { cwd: root });
    const accepted = await Promise.all(Array.from({ length: 16 }, () => openStream(viewer, run.run_id)));
    expect(accepted.map((res) => res.statusCode)).toEqual(Array(16).fill(200));
    const refused = await openStream(viewer, run.run_id);
    expect(refused.statusCode).toBe(503);
    expect(refused.headers["retry-after"]).toBe("5");
    expect(JSON.parse(await bodyOf(refused))).toEqual({
      error: { code: "busy", message: "this client already follows 16 jobs (at most 16 at once); close a job page or try again shortly" },
    });
    open.shift()!.destroy();
    // The server notices the closed connection and frees its slot.
    let again = await openStream(viewer, run.run_id);
    while (again.statusCode === 503) {
      await bodyOf(again);
      again = await openStream(viewer, run.run_id);
    }
    expect(again.statusCode).toBe(200);
    expect(viewer.stderr()).not.toContain("MaxListenersExceededWarning");
    releaseQueue(box);
  });

  test("past 64 streams in all the answer is 503 for any client", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    const run = await parkedRun(box, root);
    const viewer = await startViewer(box, { cwd: root });
    const clients = ["127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4"];
    const accepted = await Promise.all(clients.flatMap((address) => Array.from({ length: 16 }, () => openStream(viewer, run.run_id, address))));
    expect(accepted.filter((res) => res.statusCode === 200)).toHaveLength(64);
    const refused = await openStream(viewer, run.run_id, "127.0.0.5");
    expect(refused.statusCode).toBe(503);
    expect(JSON.parse(await bodyOf(refused)).error.message).toBe("the viewer already streams 64 jobs (at most 64 at once); close a job page or try again shortly");
    expect(viewer.stderr()).not.toContain("MaxListenersExceededWarning");
    releaseQueue(box);
  });
});
