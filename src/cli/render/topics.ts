import type { CliContext } from "../context.js";
import type { TopicDetail, TopicSummary } from "../../index/views/topics.js";
import type { TagChange, TopicChange } from "../../index/organize.js";
import { labelled, renderTable } from "./table.js";
import { EM_DASH, plural } from "./format.js";

/** A topic pages name that topics.yaml does not declare has no title of its own to show. */
const UNDECLARED = "— (not declared in topics.yaml: `codealmanac topics create <slug>` declares it)";

export function renderTopics(ctx: CliContext, topics: TopicSummary[]): void {
  const s = ctx.out;
  if (topics.length === 0) {
    ctx.write("no topics. create one with `codealmanac topics create <name>` or tag a page.\n");
    return;
  }
  ctx.write(
    renderTable(
      ["TOPIC", "PAGES", "TITLE"],
      topics.map((t) => [s.blue(t.slug), s.dim(`(${plural(t.page_count, "page")})`), t.declared ? t.title : s.dim(UNDECLARED)]),
      s,
    ),
  );
}

export function renderTopicDetail(ctx: CliContext, topic: TopicDetail): void {
  const s = ctx.out;
  const line = (label: string, value: string) => labelled(label, value, 14, s);
  const out = [
    line("slug", s.blue(topic.slug)),
    line("title", topic.declared ? topic.title : s.dim(UNDECLARED)),
    line("description", topic.description ?? EM_DASH),
    line("parents", topic.parents.length > 0 ? topic.parents.join(", ") : EM_DASH),
    line("children", topic.children.length > 0 ? topic.children.join(", ") : EM_DASH),
    s.dim(topic.includes_descendants ? "pages (incl. descendants):" : "pages:"),
    ...(topic.pages.length > 0 ? topic.pages.map((p) => `  ${s.blue(p)}`) : [`  ${EM_DASH}`]),
  ];
  ctx.write(out.join("\n") + "\n");
}

export function renderTopicChange(ctx: CliContext, change: TopicChange): void {
  const lines: Record<TopicChange["action"], string> = {
    created: `${change.slug}: created`,
    updated: `${change.slug}: updated`,
    described: `${change.slug}: described`,
    linked: `linked ${change.slug} -> ${change.parent}`,
    unlinked: `unlinked ${change.slug} -> ${change.parent}`,
    renamed: `renamed ${change.old_slug} -> ${change.slug} (${plural(change.pages_updated ?? 0, "page")} updated)`,
    deleted: `deleted ${change.slug} (${plural(change.pages_updated ?? 0, "page")} untagged)`,
    unchanged: change.parent
      ? change.action === "unchanged" && ctx.argv.includes("unlink")
        ? `no edge ${change.slug} -> ${change.parent}`
        : `edge ${change.slug} -> ${change.parent} already exists`
      : `topic ${change.slug} unchanged`,
  };
  ctx.write(lines[change.action] + "\n");
}

export function renderTagChange(ctx: CliContext, change: TagChange, mode: "tag" | "untag"): void {
  if (change.changed.length > 0) {
    ctx.write(`${change.slug}: ${mode === "tag" ? "tagged" : "untagged"} ${change.changed.join(", ")}\n`);
  } else {
    ctx.write(`${change.slug}: ${mode === "tag" ? "already tagged" : "not tagged"} ${change.topics.join(", ")}\n`);
  }
}
