import { api } from "../api.js";
import { el, pathCode } from "../dom.js";
import { folderTitle, plural } from "../format.js";
import { to } from "../routes.js";
import { emptyState, setTitle, viewHeader } from "../ui.js";

/** Headings for the categories `ca validate` names; any other reads as its name in title case. */
const CATEGORY_TITLES = {
  broken_links: "Broken links",
  broken_xwiki: "Broken links to other wikis",
  missing_source_citations: "Citations of missing sources",
  dead_refs: "References to missing files",
  orphans: "Pages nothing links to",
  empty_topics: "Topics without pages",
  empty_pages: "Empty pages",
  unused_sources: "Sources never cited",
  undeclared_topic: "Topics missing from topics.yaml",
};

/** `#/w/<wiki>/health`: the findings the overview's health card counts, errors first, by category. */
export async function render({ route, main, signal }) {
  setTitle("Health");
  const data = await api("/api/health", { wiki: route.wiki, signal });
  if (signal.aborted) return;
  const issues = data.issues ?? [];
  const deck = issues.length === 0 ? null : `${plural(data.errors ?? 0, "error")} · ${plural(data.warnings ?? 0, "warning")}. Errors fail \`ca validate\`; warnings fail it only with \`--strict\`.`;
  const view = el("div", { class: "view view-health", testid: "health" }, viewHeader({ eyebrow: "Health", title: "Wiki findings", deck }));
  if (issues.length === 0) {
    view.append(emptyState("No problems", "No broken links, orphans, dead file references or other findings. `ca health` tells the same on a terminal."));
  } else {
    for (const group of byCategory(issues)) view.append(categorySection(route.wiki, group));
  }
  main.append(view);
}

function byCategory(issues) {
  const groups = new Map();
  for (const issue of issues) {
    const key = `${issue.severity}:${issue.category}`;
    if (!groups.has(key)) groups.set(key, { category: issue.category, severity: issue.severity, issues: [] });
    groups.get(key).issues.push(issue);
  }
  return [...groups.values()];
}

function categorySection(wiki, group) {
  const tone = group.severity === "error" ? "alert" : "warn";
  return el(
    "section",
    { class: "health-group", testid: "health-group", dataset: { category: group.category, severity: group.severity } },
    el("h2", { class: "section-title" }, CATEGORY_TITLES[group.category] ?? folderTitle(group.category), " ", el("span", { class: `chip chip-${tone}`, text: plural(group.issues.length, group.severity) })),
    el("ul", { class: "plain-list health-list" }, group.issues.map((issue) => el("li", { testid: "health-issue" }, issueLine(wiki, issue)))),
  );
}

/** What the finding is about, linked (page, topic, file), then its message. */
function issueLine(wiki, issue) {
  const subject = [];
  if (issue.page) subject.push(el("a", { href: to.page(wiki, issue.page), text: issue.page }));
  if (issue.topic) subject.push(el("a", { class: "chip chip-topic", href: to.topic(wiki, issue.topic), text: issue.topic }));
  if (issue.path && !issue.page) subject.push(pathCode(issue.path));
  return [...subject.flatMap((node, i) => (i > 0 ? [" ", node] : [node])), subject.length > 0 ? " — " : null, el("span", { class: "muted", text: issue.message })];
}
