import { api } from "../api.js";
import { clear, el, withCode } from "../dom.js";
import { dayKey, dayLabel, plural } from "../format.js";
import { impactChips, isLive, runStart, runTime, runTitle, seal, statusChip, tone, warningsChip } from "../jobs.js";
import { to } from "../routes.js";
import { emptyState, setTitle, viewHeader } from "../ui.js";

const POLL_MS = 1500;
/** The commands that queue runs (see `ca --help`). */
const NO_RUNS_HINT = "Runs started with `ca init`, `ca ingest`, `ca garden` or `ca sync` show up here, live.";
const FILTERS = [
  { key: "all", label: "All", accepts: () => true },
  { key: "active", label: "Active", accepts: (run) => tone(run.status) === "active" },
  { key: "done", label: "Done", accepts: (run) => tone(run.status) === "done" },
  { key: "attention", label: "Needs attention", accepts: (run) => tone(run.status) === "alert" },
];

export async function render({ route, main, signal }) {
  setTitle("Jobs");
  const view = el("div", { class: "view view-jobs" });
  main.append(view);
  let last = "";
  const refresh = async () => {
    const data = await api("/api/jobs", { wiki: route.wiki, params: { limit: 500 }, signal });
    if (signal.aborted) return data;
    const fingerprint = JSON.stringify(data.runs);
    if (fingerprint !== last) {
      last = fingerprint;
      clear(view).append(...jobsView(route, data));
    }
    return data;
  };
  const data = await refresh();
  pollWhileActive(data, refresh, signal);
}

/** Re-fetches while any run is queued or running; stops with the route (signal). */
function pollWhileActive(data, refresh, signal) {
  if (!(data.runs ?? []).some(isLive) || signal.aborted) return;
  const timer = setTimeout(async () => {
    try {
      pollWhileActive(await refresh(), refresh, signal);
    } catch {
      // A failed refresh keeps the last good list on screen and tries again later.
      pollWhileActive(data, refresh, signal);
    }
  }, POLL_MS);
  signal.addEventListener("abort", () => clearTimeout(timer));
}

function jobsView(route, data) {
  const runs = data.runs ?? [];
  const active = runs.filter(isLive).length;
  const total = data.total ?? runs.length;
  // With no runs the empty state says so once; the header then has no deck.
  const deck = runs.length === 0 ? null : active > 0 ? `${plural(total, "local run")} · ${active} active now.` : `${plural(total, "local run")}.`;
  const header = viewHeader({ eyebrow: "CodeAlmanac runs", title: "Jobs", deck });
  if (runs.length === 0) return [header, el("div", { class: "jobs-list", testid: "jobs-list" }, emptyState("No runs recorded yet.", NO_RUNS_HINT))];
  const filter = FILTERS.find((f) => f.key === route.filter) ?? FILTERS[0];
  const shown = runs.filter(filter.accepts);
  const list = el("div", { class: "jobs-list", testid: "jobs-list" });
  if (shown.length === 0) list.append(el("p", { class: "muted", text: "No runs match this filter." }));
  for (const group of byDay(shown)) {
    list.append(el("section", { class: "day-group" }, el("h2", { class: "day-label", text: group.label }), el("div", { class: "job-cards" }, group.runs.map((run) => jobCard(route.wiki, run)))));
  }
  return [header, filterBar(route.wiki, runs, filter.key), list];
}

function filterBar(wiki, runs, current) {
  const bar = el("nav", { class: "filter-bar", attrs: { "aria-label": "Filter runs" } });
  for (const filter of FILTERS) {
    const count = runs.filter(filter.accepts).length;
    if (count === 0 && filter.key !== "all" && filter.key !== current) continue;
    const selected = filter.key === current;
    bar.append(
      el("a", { class: selected ? "filter is-active" : "filter", href: to.jobs(wiki, filter.key), testid: `job-filter-${filter.key}`, attrs: { "aria-current": selected ? "true" : null } }, filter.label, el("span", { class: "count", text: String(count) })),
    );
  }
  return bar;
}

function byDay(runs) {
  const groups = [];
  const now = new Date();
  for (const run of runs) {
    const start = runStart(run);
    const key = start ? dayKey(start) : "unknown";
    let group = groups[groups.length - 1];
    if (!group || group.key !== key) {
      group = { key, label: start ? dayLabel(start, now) : "Unknown day", runs: [] };
      groups.push(group);
    }
    group.runs.push(run);
  }
  return groups;
}

function jobCard(wiki, run) {
  const line = run.summary || run.error || run.run_id;
  return el(
    "a",
    { class: `job-card tone-${tone(run.status)}`, href: to.job(wiki, run.run_id), testid: "job-card", dataset: { runId: run.run_id, status: run.status } },
    seal(run),
    el(
      "div",
      { class: "job-card-main" },
      el("div", { class: "job-card-top" }, el("span", { class: "tag", text: run.kind }), el("span", { class: "muted", text: runTime(run) })),
      el("strong", { class: "job-card-title", text: runTitle(run) }),
      el("p", { class: "job-card-summary" }, withCode(line)),
      el("div", { class: "chip-row" }, impactChips(run), warningsChip(run), statusChip(run)),
    ),
  );
}
