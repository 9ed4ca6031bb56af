import type { Context } from "hono";
import { streamSSE, type SSEStreamingApi } from "hono/streaming";
import { isTerminal } from "../runs/model.js";
import { jobRun } from "./shapes.js";
import type { ViewerDeps } from "./deps.js";
import type { ViewerEnv } from "./selection.js";
import { StepFeed } from "./steps.js";
import { sleep } from "../core/sleep.js";
import { STREAM_RETRY_AFTER_S } from "./stream-slots.js";

/**
 * `GET /api/jobs/<id>/events?after=<seq>`: only what is new. The ledger is read every
 * poll interval with an indexed query for events after the last one sent; each batch is
 * projected into steps with a tool memory kept across batches. `run` is sent whenever
 * the run row changes, `end` once it is terminal, and then the stream closes. Each open
 * stream holds one of a bounded number of slots (see StreamSlots).
 */
export function jobEventStream(c: Context<ViewerEnv>, deps: ViewerDeps, runId: string, after: number): Response {
  let release: () => void;
  try {
    release = deps.streams.take(c.env?.incoming?.socket?.remoteAddress ?? "unknown");
  } catch (error) {
    c.header("Retry-After", String(STREAM_RETRY_AFTER_S));
    throw error;
  }
  return streamSSE(c, async (stream) => {
    try {
      await follow(stream, deps, runId, after);
    } catch (error) {
      deps.log(`event stream for ${runId} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    } finally {
      release();
    }
  });
}

async function follow(stream: SSEStreamingApi, deps: ViewerDeps, runId: string, after: number): Promise<void> {
  const stop = new AbortController();
  stream.onAbort(() => stop.abort());
  const onClosing = () => stop.abort();
  deps.closing.addEventListener("abort", onClosing);
  try {
    const feed = new StepFeed();
    // Earlier events only teach the feed which tools are open, so their results merge.
    if (after > 0) feed.project(deps.runs.listEvents(runId).filter((e) => e.seq <= after));
    let last = after;
    let lastRun = "";
    let beat = Date.now();
    const watch = deps.followed();
    while (!stop.signal.aborted) {
      // The state root was deleted under us (uninstall): the ledger read now is a ghost.
      if (deps.stateGone()) break;
      let record = deps.runs.getRun(runId);
      if (!record) break;
      // A run whose worker and executor are gone is recovered, so the stream always ends.
      if (await watch.check(record)) record = deps.runs.getRun(runId) ?? record;
      const events = deps.runs.listEvents(runId, last);
      if (events.length > 0) {
        last = events.at(-1)!.seq;
        await stream.writeSSE({ event: "steps", id: String(last), data: JSON.stringify({ steps: feed.project(events), last_seq: last }) });
      }
      const run = jobRun(record, deps.runs.warningCounts([runId]).get(runId) ?? 0);
      // updated_at follows every event: the steps already say that much.
      const state = JSON.stringify({ ...run, updated_at: null });
      if (state !== lastRun) {
        lastRun = state;
        await stream.writeSSE({ event: "run", data: JSON.stringify(run) });
      }
      // The events were read after the row, and a terminal row's status event commits with
      // it: it has been sent, in this batch or an earlier one, so the stream can end.
      if (isTerminal(record.status)) {
        await stream.writeSSE({ event: "end", data: JSON.stringify({ status: record.status, last_seq: last }) });
        break;
      }
      if (Date.now() - beat >= deps.timing.heartbeatMs) {
        beat = Date.now();
        await stream.write(": keep-alive\n\n");
      }
      await sleep(deps.timing.pollMs, stop.signal);
    }
  } finally {
    deps.closing.removeEventListener("abort", onClosing);
  }
}


