// Pieces shared by the jobs list and the job detail: status tones, chips, times.
import { el } from "./dom.js";
import { clock, elapsed, plural, toDate } from "./format.js";

const TONES = { done: "done", queued: "active", running: "active", failed: "alert" };
const SEALS = { done: "✓", active: "•", alert: "!", muted: "–" };
const LABELS = { queued: "Queued", running: "Running", done: "Done", failed: "Failed", cancelled: "Cancelled" };

export function tone(status) {
  return TONES[status] ?? "muted";
}

export function isLive(run) {
  return run.status === "queued" || run.status === "running";
}

export function seal(run) {
  const t = tone(run.status);
  return el("span", { class: `seal seal-${t}`, text: SEALS[t], attrs: { "aria-hidden": "true" } });
}

export function statusChip(run) {
  return el("span", { class: `chip status status-${tone(run.status)}`, testid: "job-status", text: LABELS[run.status] ?? run.status, dataset: { status: run.status } });
}

/** `+N created`, `~N updated`, `−N deleted`, each only when non-zero. */
export function impactChips(run) {
  const changes = run.page_changes;
  if (!changes) return [];
  const chips = [];
  const add = (list, sign, word, kind) => {
    if (list && list.length > 0) chips.push(el("span", { class: `chip impact impact-${kind}`, text: `${sign}${list.length} ${word}`, testid: `impact-${kind}` }));
  };
  add(changes.created, "+", "created", "created");
  add(changes.updated, "~", "updated", "updated");
  add(changes.deleted, "−", "deleted", "deleted");
  return chips;
}

export function warningsChip(run) {
  return run.warnings > 0 ? el("span", { class: "chip chip-warn", text: plural(run.warnings, "warning"), testid: "job-warnings" }) : null;
}

/** When the run started, or was created if it has not started. */
export function runStart(run) {
  return toDate(run.started_at) ?? toDate(run.created_at);
}

export function runTime(run) {
  const start = runStart(run);
  return start ? clock(start) : "";
}

/** From start (or creation) to finish (or the last update; now while it is live). */
export function runElapsed(run, now = Date.now()) {
  const start = runStart(run);
  if (!start) return "";
  const end = toDate(run.finished_at) ?? (isLive(run) ? new Date(now) : toDate(run.updated_at));
  return elapsed((end ?? new Date(now)).getTime() - start.getTime());
}

export function runTitle(run) {
  return run.title || run.run_id;
}
