/* global EventSource */
// Follows a job's events stream. The cursor (`after`) advances with every batch, so a
// reconnect asks only for what it has not seen; failures back off (1 s doubling to 15 s)
// and give up after a while instead of hammering a server that has gone away.
import { apiUrl } from "./api.js";

const MAX_DELAY_MS = 15_000;
const MAX_FAILURES = 8;

export function followJob({ runId, wiki, after, signal, onSteps, onRun, onEnd, onState }) {
  let lastSeq = after;
  let source = null;
  let failures = 0;
  let timer = null;
  let ended = false;

  const close = () => {
    if (source) source.close();
    source = null;
  };

  const open = () => {
    if (signal.aborted || ended) return;
    onState(failures === 0 ? "connecting" : "reconnecting");
    source = new EventSource(apiUrl(`/api/jobs/${encodeURIComponent(runId)}/events`, wiki, { after: lastSeq }));
    source.addEventListener("open", () => onState("live"));
    source.addEventListener("steps", (event) => {
      const data = parse(event.data);
      if (!data) return;
      failures = 0;
      if (typeof data.last_seq === "number" && data.last_seq > lastSeq) lastSeq = data.last_seq;
      if (Array.isArray(data.steps) && data.steps.length > 0) onSteps(data.steps);
    });
    source.addEventListener("run", (event) => {
      const data = parse(event.data);
      const run = data && data.run_id ? data : data?.run;
      if (!run) return;
      failures = 0;
      onRun(run);
    });
    source.addEventListener("end", (event) => {
      ended = true;
      close();
      const data = parse(event.data);
      const run = data && data.run_id ? data : data?.run;
      if (run) onRun(run);
      onState("ended");
      onEnd();
    });
    source.addEventListener("error", () => {
      if (ended || signal.aborted) return;
      close();
      failures += 1;
      if (failures > MAX_FAILURES) {
        onState("stopped");
        return;
      }
      onState("reconnecting");
      timer = setTimeout(open, Math.min(MAX_DELAY_MS, 1000 * 2 ** (failures - 1)));
    });
  };

  signal.addEventListener("abort", () => {
    clearTimeout(timer);
    close();
  });
  open();
}

function parse(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
