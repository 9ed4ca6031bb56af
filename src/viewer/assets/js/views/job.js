/* global document, window */
import { api, isAbort } from "../api.js";
import { clear, el, withCode } from "../dom.js";
import { dateTime, plural } from "../format.js";
import { impactChips, isLive, runElapsed, runStart, runTitle, statusChip, warningsChip } from "../jobs.js";
import { followJob } from "../live.js";
import { to } from "../routes.js";
import { createTranscript } from "../transcript.js";
import { setTitle } from "../ui.js";

const LIVE_LABELS = { connecting: "Connecting…", live: "Live", reconnecting: "Reconnecting…", ended: "Finished", stopped: "Live updates stopped — reload to try again" };

export async function render({ route, main, signal }) {
  const path = `/api/jobs/${encodeURIComponent(route.runId)}`;
  const data = await api(path, { wiki: route.wiki, signal });
  if (signal.aborted) return;
  let run = data.run;
  const panel = el("div", { class: "job-panel" });
  const liveBadge = el("span", { class: "live-badge", testid: "job-live", attrs: { "aria-live": "polite" } });
  const cancel = cancelArea(path, route.wiki, signal, (next) => update(next));
  const count = el("span", { class: "muted", testid: "job-step-count" });
  const steps = el("ol", { class: "steps", testid: "job-steps" });
  const transcript = createTranscript(steps, (n) => {
    count.textContent = plural(n, "event");
  });

  function update(next) {
    run = next;
    setTitle(runTitle(run));
    clear(panel).append(...runPanel(route.wiki, run));
    cancel.show(isLive(run));
  }

  main.append(
    el(
      "div",
      { class: "view view-job", testid: "job", dataset: { runId: run.run_id } },
      el("nav", { class: "breadcrumb" }, el("a", { href: to.jobs(route.wiki), text: "Jobs" }), el("span", { class: "crumb-sep", text: "›" }), el("span", { class: "crumb-leaf", text: run.run_id })),
      panel,
      cancel.node,
      el("div", { class: "transcript-head" }, el("h2", { text: "Transcript" }), count, liveBadge),
      steps,
    ),
  );
  update(run);
  transcript.add(data.steps ?? []);
  if (!isLive(run)) return;

  const ticker = setInterval(() => {
    if (isLive(run)) panel.querySelector(".job-elapsed").textContent = runElapsed(run);
  }, 1000);
  signal.addEventListener("abort", () => clearInterval(ticker));
  followJob({
    runId: run.run_id,
    wiki: route.wiki,
    after: data.last_seq ?? 0,
    signal,
    onSteps: (batch) => {
      const atBottom = window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 120;
      transcript.add(batch);
      if (atBottom) window.scrollTo({ top: document.documentElement.scrollHeight });
    },
    onRun: update,
    onEnd: () => clearInterval(ticker),
    onState: (state) => {
      liveBadge.textContent = LIVE_LABELS[state] ?? state;
      liveBadge.dataset.state = state;
    },
  });
}

function runPanel(wiki, run) {
  const start = runStart(run);
  const harness = run.harness_transcript?.kind ? `${run.harness_transcript.kind} session` : null;
  const meta = el("p", { class: "job-meta muted", testid: "job-meta" }, el("span", { class: "tag", text: run.kind }));
  const bits = [start ? el("span", { text: dateTime(start) }) : null, el("span", { class: "job-elapsed", text: runElapsed(run) }), harness ? el("span", { text: harness }) : null];
  for (const bit of bits) if (bit) meta.append(" · ", bit);
  const parts = [
    el("p", { class: "eyebrow", text: "Job" }),
    el("div", { class: "job-title-row" }, el("h1", { text: runTitle(run), testid: "job-title" }), statusChip(run)),
    meta,
  ];
  const chips = [...impactChips(run), warningsChip(run)].filter(Boolean);
  if (chips.length > 0) parts.push(el("div", { class: "chip-row" }, chips));
  if (run.error) parts.push(callout("Failure", run.error, "alert", run.failure_category));
  else if (run.summary) parts.push(callout("Summary", run.summary, "info"));
  const secrets = secretFindings(run.secret_findings);
  if (secrets) parts.push(secrets);
  const changes = changedPages(wiki, run.page_changes);
  if (changes) parts.push(changes);
  return parts;
}

function callout(title, text, tone, note) {
  return el("section", { class: `callout callout-${tone}`, testid: `job-${title.toLowerCase()}` }, el("strong", { text: title }), el("p", {}, withCode(text)), note ? el("p", { class: "muted", text: note.replace(/_/g, " ") }) : null);
}

/** Where the secret gate found secrets (file, line, kind; the server never sends the secret): the failure says how to fix it. */
function secretFindings(findings) {
  if (!findings || findings.length === 0) return null;
  const rows = findings.map((f) => el("li", { testid: "job-secret" }, el("code", { text: f.file }), el("span", { class: "muted", text: ` line ${f.line} · ${f.kind}` })));
  return el("section", { class: "callout callout-alert", testid: "job-secrets" }, el("strong", { text: `Secrets found (${findings.length})` }), el("ul", { class: "plain-list" }, rows));
}

function changedPages(wiki, changes) {
  if (!changes) return null;
  const rows = [];
  for (const [label, list, linked] of [["Created", changes.created, true], ["Updated", changes.updated, true], ["Deleted", changes.deleted, false]]) {
    for (const slug of list ?? []) rows.push(el("li", {}, el("span", { class: "muted", text: `${label} ` }), linked ? el("a", { href: to.page(wiki, slug), text: slug }) : el("span", { text: slug })));
  }
  if (rows.length === 0) return null;
  return el("details", { class: "changed-pages" }, el("summary", { text: `Pages changed (${rows.length})` }), el("ul", { class: "plain-list" }, rows));
}

/**
 * The viewer's only mutation. The button asks for a confirmation in place, then POSTs with
 * the per-launch token (added by api()) and shows what the server answered.
 */
function cancelArea(path, wiki, signal, onRun) {
  const result = el("p", { class: "cancel-result", testid: "cancel-result", attrs: { role: "status" } });
  const confirmRow = el("div", { class: "confirm-row" });
  const button = el("button", { class: "button button-danger", testid: "cancel-button", text: "Cancel run", attrs: { type: "button" } });
  const node = el("div", { class: "cancel-area" }, button, confirmRow, result);
  result.hidden = true;

  const reset = () => {
    clear(confirmRow);
    button.hidden = false;
  };
  button.addEventListener("click", () => {
    button.hidden = true;
    result.hidden = true;
    const yes = el("button", { class: "button button-danger", testid: "cancel-confirm", text: "Yes, cancel it", attrs: { type: "button" } });
    const no = el("button", { class: "button", testid: "cancel-dismiss", text: "Keep running", attrs: { type: "button" } });
    no.addEventListener("click", reset);
    yes.addEventListener("click", async () => {
      yes.disabled = true;
      no.disabled = true;
      yes.textContent = "Cancelling…";
      try {
        const answer = await api(`${path}/cancel`, { wiki, method: "POST", body: {}, signal });
        const status = answer.run?.status;
        showResult(status === "cancelled" ? "Run cancelled." : isLive(answer.run ?? {}) ? "Cancellation requested; waiting for the agent to stop." : `The run had already finished (${status}).`, false);
        reset();
        if (answer.run) onRun(answer.run);
      } catch (error) {
        if (isAbort(error)) return;
        showResult(`Could not cancel: ${error.message}`, true);
        reset();
      }
    });
    confirmRow.append(el("span", { text: "Stop this run? Its agent is stopped and the run is marked cancelled." }), yes, no);
  });

  function showResult(text, failed) {
    result.textContent = text;
    result.classList.toggle("is-alert", failed);
    result.hidden = false;
  }

  return {
    node,
    show(visible) {
      if (visible) {
        button.hidden = confirmRow.childElementCount > 0;
        node.hidden = false;
      } else {
        button.hidden = true;
        clear(confirmRow);
        node.hidden = result.hidden;
      }
    },
  };
}
